-- One row per raw file whose rows are in the landing tables now.
with source as (
    select * from {{ source('meta', 'ingest_ledger') }}
)

select
    file_id,
    path as source_file,
    sha256,
    bytes as file_bytes,
    kind,
    study as folder_study,
    run_id as folder_run_id,
    rows_landed,
    unknown_lines,
    attribution,
    landed_at
from source
where status = 'loaded'
