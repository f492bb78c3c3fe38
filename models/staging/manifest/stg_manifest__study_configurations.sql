-- One row per configuration a study file lists, in the file's order.
with source as (
    select * from {{ source('manifest', 'study_configuration') }}
)

select
    study || '|' || configuration as study_configuration_key,
    study,
    configuration,
    display_name,
    sort_order,
    file_id,
    source_file
from source
