-- One row per run and raw file it was measured with: the trace from a report back to raw data.
-- Its row checks read dim_run (macros/row_checks.sql), so it is built after it:
-- depends_on: {{ ref('dim_run') }}
{{ run_keyed_incremental() }}
with files as (
    select * from {{ ref('stg_meta__files') }}
),

runs as (
    select * from {{ ref('int_runs') }}
)

select
    runs.run_key || '|' || files.source_file as run_file_key,
    runs.run_key,
    runs.study,
    runs.run_id,
    files.file_id,
    files.source_file,
    files.kind,
    substr(files.sha256, 1, 12) as sha256_prefix,
    files.file_bytes,
    files.rows_landed
from files
inner join runs
    on files.folder_study = runs.study and files.folder_run_id = runs.run_id
