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
    file_id,
    source_file
from source
