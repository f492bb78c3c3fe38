-- Driver results rows with the run they measure: the row's own study/run columns, else the run
-- folder the file was dropped in.
with results as (
    select * from {{ ref('stg_driver__results') }}
),

files as (
    select * from {{ ref('stg_meta__files') }}
)

select
    results.file_id,
    results.source_file,
    results.source_line,
    coalesce(results.results_study, files.folder_study) as study,
    coalesce(results.results_run_id, files.folder_run_id) as run_id,
    coalesce(results.results_study, files.folder_study)
    || '/' || coalesce(results.results_run_id, files.folder_run_id) as run_key,
    results.rate_per_s,
    results.round_trip_us,
    results.target_rate_per_s,
    results.threads,
    results.message_bytes,
    results.transactions,
    results.interval_start,
    results.interval_end
from results
inner join files on results.file_id = files.file_id
