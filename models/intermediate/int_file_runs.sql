-- One row per loaded file dropped inside a run folder: the run it belongs to.
with files as (
    select * from {{ ref('stg_meta__files') }}
),

runs as (
    select * from {{ ref('int_runs') }}
)

select
    files.file_id,
    runs.run_key
from files
inner join runs
    on files.folder_study = runs.study and files.folder_run_id = runs.run_id
