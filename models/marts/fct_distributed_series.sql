-- One row per run x source interval x measure x subject of the distributed-MQ sources: each
-- amqsrua publication (10 seconds by default) and amqsmon statistics record (STATINT) with its
-- value, for charts over time within a run (log write latency, queue manager CPU, rates). Times
-- are the run's local clock (amqsrua's UTC put time moved by the run's offset from UTC).
-- fct_run_measures holds the per-run values (sum of numerators / sum of denominators).
-- Its row checks read dim_run (macros/row_checks.sql), so it is built after it:
-- depends_on: {{ ref('dim_run') }}
{{ run_keyed_incremental() }}
with intervals as (
    select * from {{ ref('int_distributed_intervals') }}
),

runs as (
    select * from {{ ref('int_runs') }}
),

-- Runs without an interval (mq-cph gives none) count from their first measured interval.
firsts as (
    select
        run_key,
        min(coalesce(interval_start_local, interval_end_local)) as first_local
    from intervals
    group by run_key
)

select
    intervals.interval_measure_key,
    intervals.run_key,
    runs.study,
    runs.run_id,
    runs.configuration,
    intervals.measure_source,
    intervals.measure,
    intervals.subject,
    intervals.unit,
    intervals.interval_start_local,
    intervals.interval_end_local,
    {{ dbt.datediff(
        'coalesce(runs.interval_start, firsts.first_local)',
        'intervals.interval_end_local',
        'millisecond'
    ) }} / 1000.0 as seconds_into_run,
    intervals.interval_s,
    intervals.numerator / nullif(intervals.denominator, 0) as measure_value,
    intervals.source_file,
    intervals.interval_line as source_line
from intervals
inner join runs on intervals.run_key = runs.run_key
inner join firsts on intervals.run_key = firsts.run_key
