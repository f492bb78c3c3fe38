-- One row per DISPLAY CHSTATUS snapshot of a capture file.
-- Second copies of a record (the same file dropped twice) do not count: macros/first_copy.
-- A snapshot is a copy when its time, queue manager and every block it printed are; one
-- without a time has no identity and always counts.
with snapshots as (
    {{ chstatus_snapshots(source('chstatus', 'chstatus_snapshot'), source('chstatus', 'chstatus_attr')) }}
),

source as (
    {{ first_copy('snapshots', [
        'snapshot_time', 'snapshot_clock', 'qmgr', 'form', 'channel_count', 'expected_count',
        'snapshot_content'
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
