-- One row per sample of a TCPIPMonitor CSV print-out (MONPORT SYSPRINT: one connection, its
-- socket; IFST: one interface), the printed values as columns with their units, and the run
-- of the run folder it was dropped in (the print-outs carry no date, so a file outside run
-- folders reaches no run). A sample's time is its time of day on the date of the run's
-- interval (on the next day when the interval crosses midnight and the time is before its
-- start); it closes the sample interval, so in_run_interval is start < time <= end.
-- The byte, segment and retransmit columns count the sample interval; the rates are printed.
with samples as (
    select
        file_id,
        source_line,
        min(source_file) as source_file,
        min(printout) as printout,
        min(subject) as subject,
        min(time_of_day) as time_of_day,
        max(case when lower(value_name) in ('bytesi', 'ibytes') then value_number end)
            as in_bytes,
        max(case when lower(value_name) in ('byteso', 'obytes') then value_number end)
            as out_bytes,
        max(case when lower(value_name) in ('bi/sec', 'ib/sec') then value_number end)
            as in_bytes_per_s,
        max(case when lower(value_name) in ('bo/sec', 'ob/sec') then value_number end)
            as out_bytes_per_s,
        max(case when lower(value_name) = 'segsi' then value_number end) as in_segments,
        max(case when lower(value_name) = 'segso' then value_number end) as out_segments,
        max(case when lower(value_name) = 'rexmtc' then value_number end) as retransmits
    from {{ ref('stg_tcpipmon__values') }}
    where printout in ('port_csv', 'interface_csv')
    group by file_id, source_line
),

placed as (
    select
        folder.run_key,
        samples.*,
        runs.interval_start,
        runs.interval_end,
        {{ mqcap_date_at_time('cast(runs.interval_start as date)', 'samples.time_of_day') }} as same_day_time
    from samples
    inner join {{ ref('int_file_runs') }} as folder on samples.file_id = folder.file_id
    inner join {{ ref('int_runs') }} as runs on folder.run_key = runs.run_key
),

timed as (
    select
        *,
        case
            when
                same_day_time <= interval_start
                and cast(interval_end as date) > cast(interval_start as date)
                then same_day_time + interval 1 day
            else same_day_time
        end as sample_time
    from placed
)

select
    cast(file_id as {{ dbt.type_string() }}) || '-' || cast(source_line as {{ dbt.type_string() }})
        as tcpipmon_sample_key,
    run_key,
    file_id,
    source_file,
    source_line,
    case when printout = 'port_csv' then 'connection' else 'interface' end as subject_kind,
    subject,
    time_of_day,
    sample_time,
    coalesce(sample_time > interval_start and sample_time <= interval_end, false)
        as in_run_interval,
    cast(in_bytes as {{ dbt.type_bigint() }}) as in_bytes,
    cast(out_bytes as {{ dbt.type_bigint() }}) as out_bytes,
    in_bytes_per_s,
    out_bytes_per_s,
    cast(in_segments as {{ dbt.type_bigint() }}) as in_segments,
    cast(out_segments as {{ dbt.type_bigint() }}) as out_segments,
    cast(retransmits as {{ dbt.type_bigint() }}) as retransmits
from timed
