-- One row per DISPLAY CHSTATUS snapshot of a capture file.
-- Second copies of a record (the same file dropped twice) do not count: macros/first_copy.
-- A snapshot without a time has no identity and always counts.
with source as (
    {{ first_copy(source('chstatus', 'chstatus_snapshot'), [
        'snapshot_time', 'snapshot_clock', 'qmgr', 'form', 'channel_count', 'expected_count'
    ]) }}
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
