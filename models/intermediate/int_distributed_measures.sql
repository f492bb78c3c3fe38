-- One row per run x measure x subject from the distributed-MQ sources (amqsrua publications,
-- amqsmon statistics): queue manager and host CPU, recovery-log latency and bytes, MQPUT and
-- MQGET rates per queue and per queue manager, channel message rates. Where both sources give
-- a measure for the same run and subject, amqsrua's (10-second publications) is kept.
with rua as (
    select * from {{ ref('int_amqsrua_elements') }}
),

mon as (
    select * from {{ ref('int_amqsmon_values') }}
    where monitoring_type in ('QueueStatistics', 'MQIStatistics', 'ChannelStatistics')
),

-- CPU: user + system per publication, then the mean over the run's publications.
cpu_publications as (
    select
        run_key,
        file_id,
        publication_line,
        metric_type,
        sum(measure_value) as cpu_pct
    from rua
    where
        metric_class = 'CPU'
        and element in (
            'User CPU time percentage',
            'System CPU time percentage',
            'User CPU time - percentage estimate for queue manager',
            'System CPU time - percentage estimate for queue manager'
        )
    group by run_key, file_id, publication_line, metric_type
),

rua_measures as (
    select
        run_key,
        case metric_type when 'QMgrSummary' then 'qmgr_cpu_pct' else 'host_cpu_pct' end
            as measure,
        case metric_type when 'QMgrSummary' then 'QMGR' else 'HOST' end as subject,
        'percent of the host CPU' as unit,
        avg(cpu_pct) as measure_value
    from cpu_publications
    group by run_key, metric_type
    union all
    select
        run_key,
        'log_write_latency_us' as measure,
        'RUN' as subject,
        'microseconds' as unit,
        avg(measure_value) as measure_value
    from rua
    where element = 'Log - write latency'
    group by run_key
    union all
    -- Counters over their intervals: total / total time (NULL when no interval was printed).
    select
        run_key,
        case element
            when 'Log - physical bytes written' then 'log_physical_bytes_per_s'
            when 'Log - logical bytes written' then 'log_logical_bytes_per_s'
            when 'MQPUT/MQPUT1 count' then 'mqput_rate_per_s'
            when 'MQGET count' then 'mqget_rate_per_s'
            when 'Interval total MQPUT/MQPUT1 count' then 'mqput_rate_per_s'
            when 'Interval total destructive get- count' then 'mqget_rate_per_s'
        end as measure,
        coalesce(object_name, case when metric_class = 'STATMQI' then 'QMGR' else 'RUN' end)
            as subject,
        case
            when element like 'Log -%' then 'bytes per second'
            else 'calls per second'
        end as unit,
        sum(measure_value) * 1000000.0 / nullif(sum(interval_us), 0) as measure_value
    from rua
    where
        element in (
            'Log - physical bytes written',
            'Log - logical bytes written',
            'Interval total MQPUT/MQPUT1 count',
            'Interval total destructive get- count'
        )
        or (metric_class = 'STATQ' and element in ('MQPUT/MQPUT1 count', 'MQGET count'))
    group by run_key, element, object_name, metric_class
),

-- amqsmon: per record (queue or queue manager), puts = PutCount + Put1Count, gets = GetCount,
-- each summed over its [non-persistent, persistent] list; rates over the records' seconds.
mon_records as (
    select
        run_key,
        monitoring_type,
        file_id,
        record_line,
        coalesce(object_name, 'QMGR') as subject,
        max(interval_s) as interval_s,
        sum(case when value_name in ('PutCount', 'Put1Count') then value_number end) as puts,
        sum(case when value_name = 'GetCount' then value_number end) as gets,
        sum(case when value_name = 'MsgCount' then value_number end) as channel_msgs,
        max(case when value_name = 'NetMinAverage' then value_number end) as net_time_avg_us
    from mon
    -- Record headers of queue and channel records (ObjectCount...) describe no object.
    where monitoring_type = 'MQIStatistics' or object_name is not null
    group by run_key, monitoring_type, file_id, record_line, coalesce(object_name, 'QMGR')
),

-- One typed list says which count of which record type makes which rate: puts and gets of
-- queue (per queue) and MQI statistics (queue manager wide), messages of channel statistics.
mon_counts as (
    select
        mon_records.run_key,
        mon_records.subject,
        mon_records.interval_s,
        kinds.measure,
        kinds.unit,
        case kinds.counted
            when 'puts' then mon_records.puts
            when 'gets' then mon_records.gets
            when 'channel_msgs' then mon_records.channel_msgs
        end as counted
    from mon_records
    inner join (
        values
        ('QueueStatistics', 'mqput_rate_per_s', 'calls per second', 'puts'),
        ('QueueStatistics', 'mqget_rate_per_s', 'calls per second', 'gets'),
        ('MQIStatistics', 'mqput_rate_per_s', 'calls per second', 'puts'),
        ('MQIStatistics', 'mqget_rate_per_s', 'calls per second', 'gets'),
        ('ChannelStatistics', 'channel_msgs_per_s', 'messages per second', 'channel_msgs')
    ) as kinds (monitoring_type, measure, unit, counted)
        on mon_records.monitoring_type = kinds.monitoring_type
),

mon_measures as (
    -- Rates over the seconds of the records that gave the count.
    select
        run_key,
        measure,
        subject,
        unit,
        sum(counted) / nullif(sum(case when counted is not null then interval_s end), 0)
            as measure_value
    from mon_counts
    group by run_key, measure, subject, unit
    union all
    -- Weighted by messages: the mean network time of the run's messages on the channel.
    select
        run_key,
        'channel_net_time_avg_us' as measure,
        subject,
        'microseconds' as unit,
        sum(net_time_avg_us * channel_msgs) / nullif(sum(channel_msgs), 0) as measure_value
    from mon_records
    where monitoring_type = 'ChannelStatistics'
    group by run_key, subject
),

both_sources as (
    select
        *,
        1 as preference,
        'amqsrua' as measure_source
    from rua_measures
    union all
    select
        *,
        2 as preference,
        'amqsmon' as measure_source
    from mon_measures
),

ranked as (
    select
        *,
        row_number() over (
            partition by run_key, measure, subject order by preference
        ) as pick
    from both_sources
    where measure_value is not null
)

select
    run_key || '|' || measure || '|' || subject as run_measure_key,
    run_key,
    measure,
    subject,
    unit,
    measure_value,
    measure_source
from ranked
where pick = 1
