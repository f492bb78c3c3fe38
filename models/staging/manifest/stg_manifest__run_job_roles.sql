-- One row per run and job name, with the address-space role the manifest gives it.
with source as (
    select * from {{ source('manifest', 'run_job_role') }}
)

select
    study || '/' || run_id as run_key,
    study || '/' || run_id || '/' || upper(jobname) as run_job_key,
    study,
    run_id,
    upper(jobname) as jobname,
    upper(role) as role
from source
