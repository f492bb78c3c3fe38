-- One row per run and configuration label (free key/values from the manifest).
-- Its row checks read stg_manifest__runs (macros/row_checks.sql), so it is built after it:
-- depends_on: {{ ref('stg_manifest__runs') }}
with source as (
    select * from {{ source('manifest', 'run_label') }}
)

select
    study || '/' || run_id as run_key,
    study || '/' || run_id || '/' || label as run_label_key,
    study,
    run_id,
    lower(label) as label,
    value
from source
