-- One row per run manifest: what a run measured.
with source as (
    select * from {{ source('manifest', 'run_manifest') }}
)

select
    study || '/' || run_id as run_key,
    study,
    run_id,
    description,
    configuration,
    interval_start,
    interval_end,
    upper(system_id) as system_id,
    upper(qmgr) as qmgr,
    lower(platform) as platform,
    host,
    hardware_model,
    scenario,
    series_file,
    workload_type,
    message_bytes,
    persistence,
    threads,
    target_rate_per_s,
    recipients,
    transactions as manifest_transactions,
    channels,
    baseline_run_id,
    labels_json,
    -- The local clock, when stated (run.yaml utc_offset / timezone; int_runs adds the study's).
    utc_offset_minutes,
    timezone,
    replicate,
    build,
    version,
    file_id,
    source_file
from source
