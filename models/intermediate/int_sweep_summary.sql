-- One row per thread-sweep series (study x configuration x scenario x hardware model x message
-- size x persistence): the maximum throughput over the sweep and the fewest threads reaching
-- it, the single-thread round trip, whether throughput saturates, and both figures against
-- the series' baseline series: % change = (this - baseline) / baseline x 100.
-- The baseline series is the one the series' runs name with `baseline:` (the declared pairs,
-- baseline_source 'run_baselines'); a series whose runs name none is compared with the same
-- point of its configuration's baseline configuration (dim_configuration: the study's
-- baseline, baseline_source 'study_baseline'). Runs naming runs of two or more series leave
-- the comparison undecided (baseline_source 'undecided', baseline_note names them). A series
-- that is a baseline has no comparison (NULL % changes), never a "+0.0%" against itself.
-- saturates: the last doubling of threads (the largest thread count against the largest one
-- at or below half of it) adds less than saturation_threshold_pct (5%) to the rate.
with sweep as (
    select * from {{ ref('int_thread_sweep') }}
),

configurations as (
    select * from {{ ref('int_configurations') }}
),

runs as (
    select * from {{ ref('int_runs') }}
),

run_series as (
    -- Each run's series (fct_thread_sweep's key), for the declared pairs.
    select distinct
        driver.run_key,
        {{ sweep_series_key('runs', 'driver.message_bytes', 'run_sets.point_labels') }}
            as series_key
    from {{ ref('int_driver_results') }} as driver
    inner join runs on driver.run_key = runs.run_key
    inner join {{ ref('int_run_sets') }} as run_sets on driver.run_key = run_sets.run_key
    where
        driver.threads is not null
        and driver.rate_per_s is not null
        and runs.workload_type not in ('channel_start', 'channel_stop')
),

declared_pairs as (
    select distinct
        variant.series_key,
        base.series_key as baseline_series_key
    from run_series as variant
    inner join runs on variant.run_key = runs.run_key
    inner join run_series as base on runs.baseline_run_key = base.run_key
    where runs.baseline_declared and not runs.is_baseline and base.series_key <> variant.series_key
),

series_pairs as (
    select
        series_key,
        count(*) as candidate_count,
        min(baseline_series_key) as only_baseline_series_key,
        {{ mqcap_string_agg('baseline_series_key', "'; '", 'baseline_series_key') }}
            as candidate_list
    from declared_pairs
    group by series_key
),

pointed_series as (
    select distinct baseline_series_key as series_key from declared_pairs
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
        point_labels,
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

study_baseline_series as (
    -- Series without declared pairs: the same point of their configuration's baseline
    -- configuration (none for a baseline configuration or a series others point to).
    select
        series.series_key,
        base.series_key as baseline_series_key
    from series
    inner join configurations
        on series.study = configurations.study and series.configuration = configurations.configuration
    inner join series as base
        on
            series.study = base.study
            and configurations.baseline_configuration = base.configuration
            and base.scenario is not distinct from series.scenario
            and base.hardware_model is not distinct from series.hardware_model
            and base.message_bytes is not distinct from series.message_bytes
            and base.persistence is not distinct from series.persistence
            and base.point_labels is not distinct from series.point_labels
    left join series_pairs on series.series_key = series_pairs.series_key
    left join pointed_series on series.series_key = pointed_series.series_key
    where series_pairs.series_key is null and pointed_series.series_key is null
),

chosen as (
    select
        series.series_key,
        case
            when series_pairs.candidate_count = 1 then series_pairs.only_baseline_series_key
            when series_pairs.series_key is null then study_baseline_series.baseline_series_key
        end as baseline_series_key,
        case
            when series_pairs.candidate_count = 1 then 'run_baselines'
            when series_pairs.candidate_count > 1 then 'undecided'
            when study_baseline_series.series_key is not null then 'study_baseline'
        end as baseline_source,
        case
            when series_pairs.candidate_count > 1
                then
                    'the runs of this series name baselines in '
                    || cast(series_pairs.candidate_count as {{ dbt.type_string() }})
                    || ' series: ' || series_pairs.candidate_list
        end as baseline_note,
        series_pairs.series_key is null and study_baseline_series.series_key is null
        and (pointed_series.series_key is not null or configurations.is_baseline) as is_baseline
    from series
    left join configurations
        on series.study = configurations.study and series.configuration = configurations.configuration
    left join series_pairs on series.series_key = series_pairs.series_key
    left join pointed_series on series.series_key = pointed_series.series_key
    left join study_baseline_series on series.series_key = study_baseline_series.series_key
),

with_base as (
    select
        series.*,
        configurations.display_name,
        configurations.sort_order,
        coalesce(chosen.is_baseline, false) as is_baseline,
        chosen.baseline_series_key,
        chosen.baseline_source,
        chosen.baseline_note,
        base.configuration as baseline_configuration,
        base.max_rate_per_s as baseline_max_rate_per_s,
        base.threads_at_max as baseline_threads_at_max,
        base.single_thread_round_trip_us as baseline_single_thread_round_trip_us,
        saturation.half_threads as last_doubling_from_threads,
        saturation.last_doubling_gain_pct
    from series
    left join configurations
        on series.study = configurations.study and series.configuration = configurations.configuration
    left join chosen on series.series_key = chosen.series_key
    left join series as base on chosen.baseline_series_key = base.series_key
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
    point_labels,
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
    baseline_series_key,
    baseline_source,
    baseline_note,
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
    cast(5.0 as double) as saturation_threshold_pct,
    coalesce(last_doubling_gain_pct < 5.0, false) as saturates
from with_base
