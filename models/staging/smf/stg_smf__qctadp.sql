-- Generated from pipelines/mqcap/parsers/smf/structures.py by python -m mqcap.codegen.
-- Channel initiator adapter task: requests, CPU, elapsed and wait time per interval.
-- Second copies of a record (the same dump dropped twice) do not count: macros/first_copy.
with source as (
    {{ first_copy(source('smf', 'smf_qctadp'), when='record_time_local is not null') }}
)

select
    -- key, lineage and the SMF / MQ header: macros/smf_header_columns.sql
    {{ smf_header_columns() }},
    task_number,
    task_index,
    request_count,
    task_cpu_time_us,
    task_elapsed_time_us,
    task_wait_time_us
from source
