-- Every load-driver results row that could give a run its results, with the run and its
-- precedence; int_driver_results_attributed keeps the one that counts. From every driver format:
-- - the generic results CSV: the file's run folder, else the row's own study/run columns;
-- - mq-cph summaries (the aggregate 'job' summary when the file has one, else the process
--   summaries): the file's run folder; round trip = threads / rate (Little's law, one request
--   in flight per requester thread);
-- - cphtestp result rows (a cphtestp CSV covers a whole series of runs): a file in a run folder
--   feeds that run (same message size and threads). A file outside run folders (a study's
--   series) feeds the runs whose manifest names it (`series:`, the path inside the study
--   folder) with the same message size, threads and persistence; a series no manifest names
--   feeds the runs of its study that name no series, matched the same way, but only where
--   one row matches one run: a row matching several runs (two configurations measured at the
--   same size and threads) or a run matched by several rows attaches nowhere, and
--   int_driver_series_unattached lists it with the reason. Used only for runs without results
--   of their own (attribution_rank 3).
-- Precedence when more than one source gives a run's results (attribution_rank, lowest wins):
-- 1 a file in the run's folder, 2 a results CSV outside run folders whose study/run_id columns
-- name the run, 3 a cphtestp series outside run folders. A run's own folder decides, so a
-- day's results file that also names a run with a results file of its own counts once (the
-- folder's), and fct_file_reconciliation reports the day file's rows for that run as not
-- reaching it, naming the file that does. rows_at_rank: the run's rows at this precedence; a
-- run with two or more at its best (two results files in its folder, a capture holding
-- several summaries, two day files naming it) counts none of them: which one measured the
-- run cannot be told, and fct_file_reconciliation names the files and lines.
with generic as (
    select * from {{ ref('stg_driver__results') }}
),

cph as (
    select * from {{ ref('stg_driver__cph_runs') }}
),

files as (
    select * from {{ ref('stg_meta__files') }}
),

cphtestp_matched as (
    select * from {{ ref('int_driver_series_matches') }}
    where is_attached
),

cph_kind as (
    select
        file_id,
        max(case when summary_kind = 'job' then 1 else 0 end) as has_job_summary
    from cph
    group by file_id
),

unioned as (
    select
        'driver_csv' as driver_format,
        case when files.folder_run_id is null then 2 else 1 end as attribution_rank,
        generic.file_id,
        generic.source_file,
        generic.source_line,
        -- A file in a run folder belongs to that run, whatever its study/run_id columns say
        -- (mqcap status notes the difference); outside run folders the columns name the run.
        coalesce(files.folder_study, generic.results_study) as study,
        coalesce(files.folder_run_id, generic.results_run_id) as run_id,
        generic.rate_per_s,
        generic.round_trip_us,
        generic.target_rate_per_s,
        generic.threads,
        generic.message_bytes,
        generic.transactions,
        generic.interval_start,
        generic.interval_end
    from generic
    inner join files on generic.file_id = files.file_id
    union all
    select
        'mq_cph' as driver_format,
        1 as attribution_rank,
        cph.file_id,
        cph.source_file,
        cph.source_line,
        files.folder_study as study,
        files.folder_run_id as run_id,
        cph.avg_rate_per_s as rate_per_s,
        case
            when cph.avg_rate_per_s > 0 and cph.last_threads > 0
                then cph.last_threads * 1000000.0 / cph.avg_rate_per_s
        end as round_trip_us,
        cast(null as double) as target_rate_per_s,
        cph.last_threads as threads,
        cast(null as {{ dbt.type_bigint() }}) as message_bytes,
        cph.total_iterations as transactions,
        cast(null as {{ dbt.type_timestamp() }}) as interval_start,
        cast(null as {{ dbt.type_timestamp() }}) as interval_end
    from cph
    inner join files on cph.file_id = files.file_id
    inner join cph_kind on cph.file_id = cph_kind.file_id
    where
        (cph_kind.has_job_summary = 1 and cph.summary_kind = 'job')
        or (cph_kind.has_job_summary = 0 and cph.summary_kind = 'process')
    union all
    select
        driver_format,
        attribution_rank,
        file_id,
        source_file,
        source_line,
        study,
        run_id,
        rate_per_s,
        round_trip_us,
        target_rate_per_s,
        threads,
        message_bytes,
        transactions,
        interval_start,
        interval_end
    from cphtestp_matched
),

attributed as (
    select
        *,
        study || '/' || run_id || '|' || driver_format || '|' || cast(file_id as {{ dbt.type_string() }}) || '-'
        || cast(source_line as {{ dbt.type_string() }}) as driver_result_run_key,
        study || '/' || run_id as run_key,
        min(attribution_rank) over (partition by study, run_id) as best_rank
    from unioned
    where study is not null and run_id is not null
)

select
    *,
    count(*) over (partition by run_key, attribution_rank) as rows_at_rank
from attributed
