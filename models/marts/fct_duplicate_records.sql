-- One row per record copy that does not count: the later copy's file and position, the first
-- copy's file and position, and the run folders of both (NULL outside run folders).
with copies as (
    select * from {{ ref('int_record_copies') }}
),

files as (
    select * from {{ ref('stg_meta__files') }}
)

select
    copies.record_copy_key,
    copies.source_table,
    copies.file_id,
    copies.source_file,
    copies.position,
    copy_file.folder_study as study,
    copy_file.folder_run_id as run_id,
    copies.first_file_id,
    copies.first_source_file,
    copies.first_position,
    first_file.folder_study as first_study,
    first_file.folder_run_id as first_run_id
from copies
left join files as copy_file on copies.file_id = copy_file.file_id
left join files as first_file on copies.first_file_id = first_file.file_id
