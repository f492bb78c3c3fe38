-- One row per run x CPU interval of an address space the run's manifest names (jobs: name ->
-- role), for intervals overlapping the run's interval. CPU is pro-rated to the overlap, which
-- assumes steady use within the source interval (true of a steady-state measurement).
-- Which runs an interval may feed (README "Dropping files"): a file inside a run folder belongs
-- to that run, so its intervals feed that run only (time then picks the part of them in the
-- run's interval); so do the intervals of which a copy lies in another run folder (the same
-- dump dropped in two run folders: the copy does not count twice, macros/first_copy, but
-- its folder's run takes its part too). A file outside run folders feeds every run of its
-- system whose interval it overlaps. also_counted_in names another run that the same CPU
-- seconds (the same interval, overlapping parts of it) went to: runs measured at overlapping
-- times on one system fed by one file. It is reported (fct_address_space_cost and its check),
-- since nothing in the file says which run the CPU was spent for.
-- Both sides are one row per hour they touch (mqcap_hours) so the join hashes on the hour; a
-- pair is kept in the hour its overlap starts, so it counts once.
with folders as (
    select * from {{ ref('int_file_runs') }}
),

-- The runs a file inside run folders belongs to: its folder's, and those of the run folders
-- holding a copy of its records.
owners as (
    select
        file_id,
        run_key
    from folders
    union
    select
        copies.first_file_id as file_id,
        copy_folder.run_key
    from {{ ref('int_record_copies') }} as copies
    inner join folders as copy_folder on copies.file_id = copy_folder.file_id
    inner join folders as first_folder on copies.first_file_id = first_folder.file_id
    where copies.source_table in ('ascpu_interval', 'rmf_workload')
),

cpu as (
    select
        intervals.*,
        in_folder.file_id is not null as in_run_folder,
        {{ mqcap_hours('intervals.interval_start', 'intervals.interval_end') }} as hour_number
    from {{ ref('int_cpu_intervals') }} as intervals
    left join (select distinct file_id from folders) as in_folder
        on intervals.file_id = in_folder.file_id
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
        cpu.file_id,
        cpu.in_run_folder,
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
),

attributed as (
    select with_overlap.*
    from with_overlap
    left join owners
        on with_overlap.file_id = owners.file_id and with_overlap.run_key = owners.run_key
    where
        with_overlap.overlap_s > 0
        and with_overlap.source_interval_s > 0
        and with_overlap.hour_number = {{ mqcap_hour('with_overlap.overlap_start') }}
        and (not with_overlap.in_run_folder or owners.run_key is not null)
),

-- The same CPU interval in two runs whose parts of it overlap: counted twice.
shared as (
    select
        mine.run_key,
        mine.cpu_interval_key,
        min(other.run_key) as also_counted_in
    from attributed as mine
    inner join attributed as other
        on
            mine.cpu_interval_key = other.cpu_interval_key
            and mine.run_key <> other.run_key
            and mine.overlap_start < other.overlap_end
            and mine.overlap_end > other.overlap_start
    group by mine.run_key, mine.cpu_interval_key
)

select
    attributed.run_key || '|' || attributed.cpu_interval_key as run_cpu_interval_key,
    attributed.run_key,
    attributed.role,
    attributed.cpu_source,
    attributed.cpu_name,
    attributed.overlap_s,
    attributed.source_interval_s,
    attributed.cpu_s * attributed.overlap_s / attributed.source_interval_s as cpu_s,
    shared.also_counted_in,
    attributed.source_file,
    attributed.source_line
from attributed
left join shared
    on
        attributed.run_key = shared.run_key
        and attributed.cpu_interval_key = shared.cpu_interval_key
