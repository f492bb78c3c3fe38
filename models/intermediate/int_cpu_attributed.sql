-- One row per run x CPU interval of an address space the run's manifest names (jobs: name ->
-- role), for intervals overlapping the run's interval. CPU is pro-rated to the overlap, which
-- assumes steady use within the source interval (true of a steady-state measurement).
-- Both sides are one row per hour they touch (mqcap_hours) so the join hashes on the hour; a
-- pair is kept in the hour its overlap starts, so it counts once.
with cpu as (
    select
        *,
        {{ mqcap_hours('interval_start', 'interval_end') }} as hour_number
    from {{ ref('int_cpu_intervals') }}
),

runs as (
    select
        *,
        {{ mqcap_hours('interval_start', 'interval_end') }} as hour_number
    from {{ ref('int_runs') }}
),

roles as (
    select * from {{ ref('stg_manifest__run_job_roles') }}
),

-- Each run's address spaces, each hour of the run: the CPU intervals join on the job and the
-- hour as one key. (Two keys, the job on one table and the hour on another, let DuckDB join
-- the CPU intervals to the job roles first: every interval of a job met every run naming it,
-- and the 2 GB bench's build filled the disk.)
run_jobs as (
    select
        runs.run_key,
        runs.system_id,
        runs.interval_start,
        runs.interval_end,
        roles.role,
        roles.jobname || '|' || cast(runs.hour_number as {{ dbt.type_string() }}) as job_hour
    from runs
    inner join roles on runs.run_key = roles.run_key
),

matched as (
    select
        run_jobs.run_key,
        cpu.cpu_interval_key,
        run_jobs.role,
        cpu.cpu_source,
        cpu.cpu_name,
        cpu.cpu_s,
        cpu.interval_s as source_interval_s,
        cpu.source_file,
        cpu.source_line,
        cpu.hour_number,
        case
            when cpu.interval_start > run_jobs.interval_start then cpu.interval_start
            else run_jobs.interval_start
        end as overlap_start,
        case
            when cpu.interval_end < run_jobs.interval_end then cpu.interval_end
            else run_jobs.interval_end
        end as overlap_end
    from cpu
    inner join run_jobs
        on
            cpu.cpu_name || '|' || cast(cpu.hour_number as {{ dbt.type_string() }})
            = run_jobs.job_hour
            and cpu.interval_start < run_jobs.interval_end
            and cpu.interval_end > run_jobs.interval_start
            and (
                cpu.system_id is null
                or run_jobs.system_id is null
                or cpu.system_id = run_jobs.system_id
            )
),

with_overlap as (
    select
        *,
        {{ dbt.datediff('overlap_start', 'overlap_end', 'millisecond') }} / 1000.0 as overlap_s
    from matched
)

select
    run_key || '|' || cpu_interval_key as run_cpu_interval_key,
    run_key,
    role,
    cpu_source,
    cpu_name,
    overlap_s,
    source_interval_s,
    cpu_s * overlap_s / source_interval_s as cpu_s,
    source_file,
    source_line
from with_overlap
where
    overlap_s > 0
    and source_interval_s > 0
    and hour_number = {{ mqcap_hour('overlap_start') }}
