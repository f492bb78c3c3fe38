-- One row per run x measure x subject from the distributed-MQ sources (amqsrua publications,
-- amqsmon statistics): queue manager and host CPU, recovery-log latency and bytes, MQPUT and
-- MQGET rates per queue and per queue manager, channel message rates and network time. Each is
-- sum(numerator) / sum(denominator) over the run's intervals (int_distributed_intervals):
-- means of levels over publications, counts over the seconds that counted them, network time
-- weighted by messages. Where both sources give a measure for the same run and subject,
-- amqsrua's (10-second publications) is kept.
with intervals as (
    select * from {{ ref('int_distributed_intervals') }}
),

by_source as (
    select
        run_key,
        measure,
        subject,
        unit,
        measure_source,
        sum(numerator) / nullif(sum(denominator), 0) as measure_value,
        case measure_source when 'amqsrua' then 1 else 2 end as preference
    from intervals
    group by run_key, measure, subject, unit, measure_source
),

ranked as (
    select
        *,
        row_number() over (
            partition by run_key, measure, subject order by preference
        ) as pick
    from by_source
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
