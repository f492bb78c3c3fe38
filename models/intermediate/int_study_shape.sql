-- One row per study x shape the runs and their manifests show (a study may have several):
-- message_size_sweep: a series (configuration, scenario, model, persistence, threads) measured
--   at 2+ message sizes; thread_sweep: a series measured at 3+ thread counts; rate_target: runs
--   with a target rate; channel_start_stop: channel start/stop runs; key_size: 2+ key sizes;
--   recipients: 2+ recipient counts.
with runs as (
    select * from {{ ref('int_runs') }}
),

driver as (
    select * from {{ ref('int_driver_results') }}
),

messaging as (
    select
        runs.*,
        coalesce(runs.scenario, '-') || '|' || coalesce(runs.hardware_model, '-') || '|'
        || coalesce(runs.persistence, '-') as series_dims,
        coalesce(driver.target_rate_per_s, runs.target_rate_per_s) as any_target_rate_per_s
    from runs
    left join driver on runs.run_key = driver.run_key
    where runs.workload_type not in ('channel_start', 'channel_stop')
),

size_series as (
    select
        study,
        count(*) as runs,
        count(distinct message_bytes) as distinct_values
    from messaging
    where message_bytes is not null
    group by study, configuration, series_dims, threads, recipients
    having count(distinct message_bytes) >= 2
),

thread_series as (
    select
        study,
        count(*) as runs,
        count(distinct threads) as distinct_values
    from messaging
    where threads is not null
    group by study, configuration, series_dims, message_bytes, recipients
    having count(distinct threads) >= 3
),

shapes as (
    select
        study,
        'message_size_sweep' as shape,
        cast(sum(runs) as bigint) as runs,
        count(*) as series,
        max(distinct_values) as max_points
    from size_series
    group by study
    union all
    select
        study,
        'thread_sweep' as shape,
        cast(sum(runs) as bigint) as runs,
        count(*) as series,
        max(distinct_values) as max_points
    from thread_series
    group by study
    union all
    select
        study,
        'rate_target' as shape,
        count(*) as runs,
        count(distinct configuration) as series,
        count(distinct any_target_rate_per_s) as max_points
    from messaging
    where any_target_rate_per_s is not null
    group by study
    union all
    select
        study,
        'channel_start_stop' as shape,
        count(*) as runs,
        count(distinct configuration) as series,
        count(distinct workload_type) as max_points
    from runs
    where workload_type in ('channel_start', 'channel_stop')
    group by study
    union all
    select
        study,
        'key_size' as shape,
        count(*) as runs,
        count(distinct configuration) as series,
        count(distinct key_bits) as max_points
    from runs
    where key_bits is not null
    group by study
    having count(distinct key_bits) >= 2
    union all
    select
        study,
        'recipients' as shape,
        count(*) as runs,
        count(distinct configuration) as series,
        count(distinct recipients) as max_points
    from runs
    where recipients is not null
    group by study
    having count(distinct recipients) >= 2
)

select
    study || '|' || shape as study_shape_key,
    study,
    shape,
    runs,
    series,
    max_points
from shapes
