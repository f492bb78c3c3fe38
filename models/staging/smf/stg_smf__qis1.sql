-- Generated from pipelines/mqcap/parsers/smf/structures.py by python -m mqcap.codegen.
-- Page set statistics, one row per page set per interval (SMF 115.201, MQ 9.0 and later).
-- Second copies of a record (the same dump dropped twice) do not count: macros/first_copy.
with source as (
    {{ first_copy(source('smf', 'smf_qis1'), when='record_time_local is not null') }}
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
    pageset,
    bufferpool,
    pageset_status,
    total_pages,
    unused_pages,
    persistent_pages,
    nonpersistent_pages,
    full_count,
    put_cursor_high,
    page_write_io,
    pages_written,
    page_write_io_time_us,
    imw_pages_io,
    imw_pages,
    imw_pages_io_time_us,
    pages_read_io,
    pages_read,
    pages_read_io_time_us,
    checkpoint_pages_written,
    stripes,
    expansions,
    expansion_method,
    expand,
    encrypted
from source
