-- One row per run x source interval x measure x subject from the distributed-MQ sources: an
-- amqsrua publication (10 seconds by default) or an amqsmon statistics record (STATINT), as a
-- numerator and a denominator, so that an interval's value is numerator / denominator and a
-- run's is sum(numerator) / sum(denominator):
--   level   (CPU %, log write latency): the publication's value (user + system summed) / 1;
--   counter (log bytes, MQPUT/MQGET counts, channel messages): the count / interval seconds;
--   weighted (channel network time): mean time x messages / messages.
-- Two typed lists say which element or value makes which measure. Times: amqsrua's put time
-- is UTC, shown in the run's local clock (int_runs.timezone at that instant, else its fixed
-- utc_offset_minutes; none stated: UTC); amqsmon's interval is local as printed.
with rua as (
    select * from {{ ref('int_amqsrua_elements') }}
),

mon as (
    select * from {{ ref('int_amqsmon_values') }}
    where monitoring_type in ('QueueStatistics', 'MQIStatistics', 'ChannelStatistics')
),

runs as (
    select
        run_key,
        utc_offset_minutes,
        timezone
    from {{ ref('int_runs') }}
),

-- Which amqsrua element makes which measure (subject OBJECT: the element's queue).
rua_kinds as (
    select kinds.*
    from (
        values
        ('CPU', 'User CPU time percentage', 'host_cpu_pct', 'HOST', 'level'),
        ('CPU', 'System CPU time percentage', 'host_cpu_pct', 'HOST', 'level'),
        (
            'CPU', 'User CPU time - percentage estimate for queue manager', 'qmgr_cpu_pct',
            'QMGR', 'level'
        ),
        (
            'CPU', 'System CPU time - percentage estimate for queue manager', 'qmgr_cpu_pct',
            'QMGR', 'level'
        ),
        ('DISK', 'Log - write latency', 'log_write_latency_us', 'RUN', 'level'),
        ('DISK', 'Log - physical bytes written', 'log_physical_bytes_per_s', 'RUN', 'counter'),
        ('DISK', 'Log - logical bytes written', 'log_logical_bytes_per_s', 'RUN', 'counter'),
        ('STATMQI', 'Interval total MQPUT/MQPUT1 count', 'mqput_rate_per_s', 'QMGR', 'counter'),
        (
            'STATMQI', 'Interval total destructive get- count', 'mqget_rate_per_s', 'QMGR',
            'counter'
        ),
        ('STATQ', 'MQPUT/MQPUT1 count', 'mqput_rate_per_s', 'OBJECT', 'counter'),
        ('STATQ', 'MQGET count', 'mqget_rate_per_s', 'OBJECT', 'counter')
    ) as kinds (metric_class, element, measure, subject, kind)
),

-- Each measure's unit from its definition (seeds/measures.csv).
units as (
    select * from {{ ref('measures') }}
),

rua_intervals as (
    select
        rua.run_key,
        'amqsrua' as measure_source,
        rua.file_id,
        rua.source_file,
        rua.publication_line as interval_line,
        {{ utc_to_local('rua.interval_start_utc', 'runs.utc_offset_minutes', 'runs.timezone') }}
            as interval_start_local,
        {{ utc_to_local('rua.put_time_utc', 'runs.utc_offset_minutes', 'runs.timezone') }}
            as interval_end_local,
        rua.interval_us / 1000000.0 as interval_s,
        rua_kinds.measure,
        case rua_kinds.subject when 'OBJECT' then rua.object_name else rua_kinds.subject end
            as subject,
        sum(rua.measure_value) as numerator,
        case rua_kinds.kind
            when 'level' then 1.0 else max(rua.interval_us) / 1000000.0
        end as denominator
    from rua
    inner join rua_kinds
        on rua.metric_class = rua_kinds.metric_class and rua.element = rua_kinds.element
    inner join runs on rua.run_key = runs.run_key
    group by
        rua.run_key, rua.file_id, rua.source_file, rua.publication_line, rua.interval_start_utc, rua.put_time_utc,
        rua.interval_us, runs.utc_offset_minutes, runs.timezone, rua_kinds.measure,
        case rua_kinds.subject when 'OBJECT' then rua.object_name else rua_kinds.subject end,
        rua_kinds.kind
),

-- amqsmon, per record and object (queue, channel; QMGR for MQI statistics): puts = PutCount +
-- Put1Count, gets = GetCount, each summed over its [non-persistent, persistent] list.
mon_records as (
    select
        run_key,
        monitoring_type,
        file_id,
        source_file,
        record_line,
        coalesce(object_name, 'QMGR') as subject,
        min(interval_start_local) as interval_start_local,
        max(interval_end_local) as interval_end_local,
        max(interval_s) as interval_s,
        sum(case when value_name in ('PutCount', 'Put1Count') then value_number end) as puts,
        sum(case when value_name = 'GetCount' then value_number end) as gets,
        sum(case when value_name = 'MsgCount' then value_number end) as channel_msgs,
        max(case when value_name = 'NetMinAverage' then value_number end) as net_time_avg_us
    from mon
    -- Record headers of queue and channel records (ObjectCount...) describe no object.
    where monitoring_type = 'MQIStatistics' or object_name is not null
    group by
        run_key, monitoring_type, file_id, source_file, record_line, coalesce(object_name, 'QMGR')
),

-- Which amqsmon count of which record type makes which measure.
mon_kinds as (
    select kinds.*
    from (
        values
        ('QueueStatistics', 'mqput_rate_per_s', 'puts'),
        ('QueueStatistics', 'mqget_rate_per_s', 'gets'),
        ('MQIStatistics', 'mqput_rate_per_s', 'puts'),
        ('MQIStatistics', 'mqget_rate_per_s', 'gets'),
        ('ChannelStatistics', 'channel_msgs_per_s', 'channel_msgs'),
        ('ChannelStatistics', 'channel_net_time_avg_us', 'net_time')
    ) as kinds (monitoring_type, measure, counted)
),

mon_intervals as (
    select
        mon_records.run_key,
        'amqsmon' as measure_source,
        mon_records.file_id,
        mon_records.source_file,
        mon_records.record_line as interval_line,
        mon_records.interval_start_local,
        mon_records.interval_end_local,
        cast(mon_records.interval_s as double) as interval_s,
        mon_kinds.measure,
        mon_records.subject,
        case mon_kinds.counted
            when 'puts' then mon_records.puts
            when 'gets' then mon_records.gets
            when 'channel_msgs' then mon_records.channel_msgs
            when 'net_time' then mon_records.net_time_avg_us * mon_records.channel_msgs
        end as numerator,
        case mon_kinds.counted
            when 'net_time' then mon_records.channel_msgs
            else mon_records.interval_s
        end as denominator
    from mon_records
    inner join mon_kinds on mon_records.monitoring_type = mon_kinds.monitoring_type
),

unioned as (
    select * from rua_intervals
    union all
    select * from mon_intervals
)

select
    unioned.run_key || '|' || unioned.measure_source || '|'
    || cast(unioned.file_id as {{ dbt.type_string() }}) || '|'
    || cast(unioned.interval_line as {{ dbt.type_string() }}) || '|' || unioned.measure || '|'
    || unioned.subject as interval_measure_key,
    unioned.*,
    units.unit
from unioned
inner join units on unioned.measure = units.measure
where
    unioned.numerator is not null
    and unioned.denominator is not null
    and unioned.subject is not null
