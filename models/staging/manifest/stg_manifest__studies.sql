-- One row per study file (study.yaml): title, purpose, baseline configuration, grouping, notes.
with source as (
    select * from {{ source('manifest', 'study_file') }}
)

select
    study,
    title,
    purpose,
    baseline_configuration,
    group_by_json,
    notes_json,
    utc_offset_minutes,
    timezone,
    min_change_pct,
    change_point_pvalue,
    file_id,
    source_file
from source
