-- One row per measure a study file's question names, in the file's order.
with source as (
    select * from {{ source('manifest', 'study_question_measure') }}
)

select
    study || '|' || measure as study_question_measure_key,
    study,
    measure,
    sort_order,
    file_id,
    source_file
from source
