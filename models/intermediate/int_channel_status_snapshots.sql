-- One row per channel status block of a DISPLAY CHSTATUS capture, with its run: the run
-- folder of the capture, else the run whose interval holds the snapshot time.
with statuses as (
    select
        statuses.*,
        files.source_file
    from {{ ref('int_chstatus_channel_statuses') }} as statuses
    inner join {{ ref('stg_meta__files') }} as files on statuses.file_id = files.file_id
),

attributed as (
    {{ attribute_to_runs('statuses', 'snapshot_time') }}
)

select
    run_key || '|' || channel_status_key as run_channel_status_key,
    *
from attributed
