-- One row per study x configuration x scenario x hardware model x message size x persistence
-- x threads, for the series measured at 3+ thread counts (a thread or client sweep): the
-- achieved rate and round trip (averaged over the runs at that point) and the run count.
-- series_key names the series without the thread count (scenario, model, persistence shown
-- as '-' when a run does not give them); labels that vary within a configuration
-- (int_run_sets.point_labels, e.g. a topology the study groups by) tell series apart too.
with driver as (
    select * from {{ ref('int_driver_results') }}
),

runs as (
    select * from {{ ref('int_runs') }}
),

run_sets as (
    select * from {{ ref('int_run_sets') }}
),

points as (
    select
        {{ sweep_series_key('runs', 'driver.message_bytes', 'run_sets.point_labels') }}
            as series_key,
        runs.study,
        runs.configuration,
        runs.scenario,
        runs.hardware_model,
        run_sets.point_labels,
        driver.message_bytes,
        runs.persistence,
        driver.threads,
        driver.rate_per_s,
        driver.round_trip_us
    from driver
    inner join runs on driver.run_key = runs.run_key
    inner join run_sets on driver.run_key = run_sets.run_key
    where
        driver.threads is not null
        and driver.rate_per_s is not null
        and runs.workload_type not in ('channel_start', 'channel_stop')
),

by_threads as (
    select
        series_key,
        study,
        configuration,
        scenario,
        hardware_model,
        point_labels,
        message_bytes,
        persistence,
        threads,
        avg(rate_per_s) as rate_per_s,
        avg(round_trip_us) as round_trip_us,
        count(*) as runs
    from points
    group by all
),

sweeps as (
    select
        *,
        count(*) over (partition by series_key) as thread_points
    from by_threads
)

select
    series_key || '|' || cast(threads as {{ dbt.type_string() }}) as thread_sweep_key,
    *
from sweeps
where thread_points >= 3
