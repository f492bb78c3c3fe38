-- One row per run: study, run, workload point, configuration labels, interval, baseline,
-- platform / host / hardware model / scenario. Times are the measured system's local time
-- (the *_local columns say so; interval_start/interval_end are kept for older queries).
-- interval_* is NULL when neither the manifest nor the driver gives one (mq-cph, cphtestp).
select
    *,
    interval_start as interval_start_local,
    interval_end as interval_end_local,
    -- Runs that move messages (a channel start's "rate" is channels, not messages).
    workload_type in ('request_reply', 'streaming', 'put_get', 'other') as is_message_workload
from {{ ref('int_runs') }}
