-- Generated from pipelines/mqcap/parsers/smf/structures.py by python -m mqcap.codegen.
-- Channel initiator DNS task: requests, CPU, elapsed, wait, longest lookup.
-- Second copies of a record (the same dump dropped twice) do not count: macros/first_copy.
with source as (
    {{ first_copy(source('smf', 'smf_qctdns'), when='record_time_local is not null') }}
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
    task_number,
    task_index,
    request_count,
    task_cpu_time_us,
    task_elapsed_time_us,
    task_wait_time_us,
    max_dns_request_time_utc,
    max_dns_request_duration_us
from source
