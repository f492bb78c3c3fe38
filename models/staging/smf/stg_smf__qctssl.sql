-- Generated from pipelines/mqcap/parsers/smf/structures.py by python -m mqcap.codegen.
-- Channel initiator SSL server subtask: requests, CPU, elapsed, wait, longest request.
-- Second copies of a record (the same dump dropped twice) do not count: macros/first_copy.
with source as (
    {{ first_copy(source('smf', 'smf_qctssl'), when='record_time_local is not null') }}
)

select
    -- key, lineage and the SMF / MQ header: macros/smf_header_columns.sql
    {{ smf_header_columns() }},
    -- the fields every channel-initiator task shares: macros/chinit_task_columns.sql
    {{ chinit_task_columns() }},
    max_ssl_request_time_utc,
    max_ssl_request_duration_us
from source
