-- One row per run: study, run, workload point, configuration labels, interval, baseline,
-- platform / host / hardware model / scenario. Times are the measured system's local time
-- (the *_local columns say so; interval_start/interval_end are kept for older queries).
-- interval_* is NULL when neither the manifest nor the driver gives one (mq-cph, cphtestp).
-- detail and series (int_run_series): what tells the run from its configuration's other runs
-- at the same workload point, and the name tables and charts give it.
select
    runs.*,
    runs.interval_start as interval_start_local,
    runs.interval_end as interval_end_local,
    -- Runs that move messages (a channel start's "rate" is channels, not messages).
    runs.workload_type in ('request_reply', 'streaming', 'put_get', 'other') as is_message_workload,
    series.detail,
    series.series
from {{ ref('int_runs') }} as runs
left join {{ ref('int_run_series') }} as series on runs.run_key = series.run_key
