-- One row per DISPLAY CHSTATUS snapshot of a capture file.
with source as (
    select * from {{ source('chstatus', 'chstatus_snapshot') }}
)

select
    cast(file_id as {{ dbt.type_string() }}) || '-' || cast(snapshot_no as {{ dbt.type_string() }})
        as snapshot_key,
    file_id,
    source_file,
    source_line,
    snapshot_no,
    -- NULL when the capture prints no time: marts fall back to the file / run time.
    snapshot_time,
    snapshot_clock,
    time_line,
    qmgr as qmgr_name,
    form as capture_form,
    channel_count,
    expected_count
from source
