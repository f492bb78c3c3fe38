-- Generated from pipelines/mqcap/parsers/smf/structures.py by python -m mqcap.codegen.
-- Buffer manager statistics, one row per buffer pool per interval (SMF 115.2 and 115.215).
-- Second copies of a record (the same dump dropped twice) do not count: macros/first_copy.
with source as (
    {{ first_copy(source('smf', 'smf_qpst'), when='record_time_local is not null') }}
)

select
    cast(file_id as {{ dbt.type_string() }}) || '-'
    || cast(coalesce(source_record, source_line) as {{ dbt.type_string() }}) || '-'
    || cast(source_item as {{ dbt.type_string() }}) as smf_row_key,
    file_id,
    source_file,
    source_offset,
    source_record,
    source_line,
    source_item,
    smf_type,
    smf_subtype,
    record_time_local,
    system_id,
    qmgr as qmgr_name,
    qsg,
    mq_version,
    interval_start_utc,
    interval_duration_s,
    interval_duration_us,
    bufferpool,
    buffer_count,
    lowest_stealable,
    current_stealable,
    getp_old_requests,
    getp_new_requests,
    dasd_read,
    set_write_pages,
    pages_written,
    dasd_write,
    sync_writes,
    defer_write_thold_reached,
    sync_write_thold_reached,
    buffer_steals,
    buffer_steals_hash_changes,
    suspend_no_buffers,
    loc,
    fix
from source
