-- One row per thread-sweep series (study x configuration x scenario x hardware model x message
-- size x persistence): the maximum throughput over the sweep and the fewest threads reaching
-- it, the single-thread round trip, whether throughput saturates, and both figures against
-- the same series of the study's baseline configuration (dim_configuration.is_baseline):
-- % change = (this - baseline) / baseline x 100.
-- saturates: the last doubling of threads (the largest thread count against the largest one
-- at or below half of it) adds less than saturation_threshold_pct (5%) to the rate.
with sweep as (
    select * from {{ ref('fct_thread_sweep') }}
),

configurations as (
    select * from {{ ref('dim_configuration') }}
),

series as (
    -- The series' own columns come from fct_thread_sweep (one value per series); only the
    -- figures over its thread counts are computed here.
    select
        series_key,
        study,
        configuration,
        scenario,
        hardware_model,
        message_bytes,
        persistence,
        thread_points,
        max(rate_per_s) as max_rate_per_s,
        min(case when rate_per_s = max_rate then threads end) as threads_at_max,
        max(case when threads = 1 then round_trip_us end) as single_thread_round_trip_us,
        max(case when threads = 1 then rate_per_s end) as single_thread_rate_per_s,
        min(threads) as min_threads,
        max(threads) as max_threads,
        cast(sum(runs) as bigint) as runs
    from (
        select
            *,
            max(rate_per_s) over (partition by series_key) as max_rate
        from sweep
    ) as with_max
    group by all
),

last_doubling as (
    select
        top_point.series_key,
        top_point.threads as top_threads,
        top_point.rate_per_s as top_rate_per_s,
        max(half.threads) as half_threads
    from sweep as top_point
    inner join series
        on top_point.series_key = series.series_key and top_point.threads = series.max_threads
    inner join sweep as half
        on top_point.series_key = half.series_key and half.threads * 2 <= top_point.threads
    group by top_point.series_key, top_point.threads, top_point.rate_per_s
),

saturation as (
    select
        last_doubling.series_key,
        last_doubling.half_threads,
        half.rate_per_s as half_rate_per_s,
        case
            when half.rate_per_s > 0
                then (last_doubling.top_rate_per_s - half.rate_per_s) / half.rate_per_s * 100
        end as last_doubling_gain_pct
    from last_doubling
    inner join sweep as half
        on
            last_doubling.series_key = half.series_key
            and last_doubling.half_threads = half.threads
),

with_base as (
    select
        series.*,
        configurations.display_name,
        configurations.sort_order,
        configurations.is_baseline,
        base_config.configuration as baseline_configuration,
        base.max_rate_per_s as baseline_max_rate_per_s,
        base.threads_at_max as baseline_threads_at_max,
        base.single_thread_round_trip_us as baseline_single_thread_round_trip_us,
        saturation.half_threads as last_doubling_from_threads,
        saturation.last_doubling_gain_pct
    from series
    left join configurations
        on series.study = configurations.study and series.configuration = configurations.configuration
    left join configurations as base_config
        on series.study = base_config.study and base_config.is_baseline
    left join series as base
        on
            series.study = base.study
            and base_config.configuration = base.configuration
            and base.scenario is not distinct from series.scenario
            and base.hardware_model is not distinct from series.hardware_model
            and base.message_bytes is not distinct from series.message_bytes
            and base.persistence is not distinct from series.persistence
    left join saturation on series.series_key = saturation.series_key
)

select
    series_key,
    study,
    configuration,
    display_name,
    sort_order,
    is_baseline,
    scenario,
    hardware_model,
    message_bytes,
    persistence,
    thread_points,
    min_threads,
    max_threads,
    runs,
    max_rate_per_s,
    threads_at_max,
    single_thread_rate_per_s,
    single_thread_round_trip_us,
    baseline_configuration,
    baseline_max_rate_per_s,
    baseline_threads_at_max,
    baseline_single_thread_round_trip_us,
    case
        when baseline_max_rate_per_s > 0
            then (max_rate_per_s - baseline_max_rate_per_s) / baseline_max_rate_per_s * 100
    end as max_rate_pct_change,
    case
        when baseline_single_thread_round_trip_us > 0
            then
                (single_thread_round_trip_us - baseline_single_thread_round_trip_us)
                / baseline_single_thread_round_trip_us * 100
    end as single_thread_round_trip_pct_change,
    last_doubling_from_threads,
    last_doubling_gain_pct,
    5.0 as saturation_threshold_pct,
    coalesce(last_doubling_gain_pct < 5.0, false) as saturates
from with_base
