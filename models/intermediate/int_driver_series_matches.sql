-- One row per cphtestp result row x candidate run: which run a series row may feed, and whether
-- it does (is_attached). Rules (README "Driver series"): a file in a run folder feeds that run;
-- a study-level series feeds the runs whose manifest names it (series: <path in the study
-- folder>); a series no manifest names feeds runs that name no series. In every case message
-- size and threads must match, and persistence where both sides give it. A row attaches only
-- when it matches exactly one run and the run is matched by exactly one row of its rank:
-- ambiguity is never resolved by guessing (unattached_reason says why).
with cphtestp as (
    select * from {{ ref('stg_driver__cphtestp_results') }}
),

files as (
    select * from {{ ref('stg_meta__files') }}
),

runs as (
    select * from {{ ref('int_runs') }}
),

named as (
    -- Series files some manifest names, as paths relative to the raw root.
    select distinct study || '/' || series_file as series_path
    from runs
    where series_file is not null
),

candidates as (
    select
        cphtestp.file_id,
        cphtestp.source_file,
        cphtestp.source_line,
        runs.study,
        runs.run_id,
        cphtestp.round_trips_per_s,
        cphtestp.threads,
        cphtestp.message_bytes,
        -- 3: below a results CSV naming the run (int_driver_results_attributed)
        case when files.folder_run_id is null then 3 else 1 end as attribution_rank
    from cphtestp
    inner join files on cphtestp.file_id = files.file_id
    inner join runs
        on
            {{ dbt.split_part('files.source_file', "'/'", 1) }} = runs.study
            and cphtestp.message_bytes = runs.message_bytes
            and cphtestp.threads = runs.threads
            and (
                cphtestp.is_persistent is null or runs.persistence is null
                or cphtestp.is_persistent = (runs.persistence = 'persistent')
            )
    left join named on files.source_file = named.series_path
    where
        files.folder_run_id = runs.run_id
        or (
            files.folder_run_id is null
            and (
                runs.study || '/' || runs.series_file = files.source_file
                or (named.series_path is null and runs.series_file is null)
            )
        )
),

counted as (
    select
        *,
        count(*) over (partition by file_id, source_line) as runs_matched,
        count(*) over (partition by study, run_id, attribution_rank) as rows_matched
    from candidates
)

select
    study || '/' || run_id || '|' || cast(file_id as {{ dbt.type_string() }}) || '-'
    || cast(source_line as {{ dbt.type_string() }}) as series_match_key,
    'cphtestp' as driver_format,
    attribution_rank,
    file_id,
    source_file,
    source_line,
    study,
    run_id,
    round_trips_per_s as rate_per_s,
    case
        when round_trips_per_s > 0
            then threads * 1000000.0 / round_trips_per_s
    end as round_trip_us,
    cast(null as double) as target_rate_per_s,
    threads,
    message_bytes,
    cast(null as {{ dbt.type_bigint() }}) as transactions,
    cast(null as {{ dbt.type_timestamp() }}) as interval_start,
    cast(null as {{ dbt.type_timestamp() }}) as interval_end,
    runs_matched = 1 and rows_matched = 1 as is_attached,
    case
        when runs_matched > 1
            then
                'the row matches ' || cast(runs_matched as {{ dbt.type_string() }})
                || ' runs (same size, threads, persistence): name the series in each run.yaml'
        when rows_matched > 1
            then
                'run ' || study || '/' || run_id || ' is matched by '
                || cast(rows_matched as {{ dbt.type_string() }}) || ' series rows'
    end as unattached_reason
from counted
