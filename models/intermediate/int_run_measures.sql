-- One row per run x measure x subject: every number a report compares, in one long table.
-- subject is the address-space role for per-role measures, 'RUN' for run-level ones.
{{ run_keyed_incremental() }}
with driver as (
    select * from {{ ref('int_driver_results') }}
),

cost as (
    select * from {{ ref('int_address_space_cost') }}
),

starts as (
    select * from {{ ref('int_channel_starts') }}
),

crypto as (
    select * from {{ ref('int_crypto') }}
    where crypto_function = 'TOTAL'
),

tasks as (
    select * from {{ ref('int_chinit_tasks') }}
),

-- Channel and connection measures are compared per run (names differ between configurations).
accounting as (
    select
        run_key,
        sum(messages) * 1.0 / nullif(sum(batches), 0) as achieved_batch_size,
        max(nettime_avg_us) as nettime_avg_us
    from {{ ref('int_channel_accounting') }}
    group by run_key
),

statuses as (
    select
        run_key,
        max(nettime_short_p95_us) as nettime_short_p95_us,
        max(xbatchsz_short_p50) as xbatchsz_short_p50,
        max(xqtime_short_p95_us) as xqtime_short_p95_us
    from {{ ref('int_channel_status') }}
    group by run_key
),

netstat as (
    select
        run_key,
        avg(srtt_mean_ms) as srtt_mean_ms,
        sum(cwnd_drops) as cwnd_drops
    from {{ ref('int_netstat_summary') }}
    group by run_key
),

-- Distributed MQ (amqsrua, amqsmon): queue manager CPU, log latency and bytes, rates per queue.
distributed as (
    select * from {{ ref('int_distributed_measures') }}
),

measures as (
    select
        run_key,
        'rate_per_s' as measure,
        'RUN' as subject,
        rate_per_s as measure_value
    from driver
    union all
    select
        run_key,
        'round_trip_us' as measure,
        'RUN' as subject,
        round_trip_us as measure_value
    from driver
    union all
    select
        run_key,
        'cpu_us_per_txn' as measure,
        role as subject,
        cpu_us_per_txn as measure_value
    from cost
    union all
    -- The total over the address spaces measured (a run missing a role has a smaller total:
    -- compare runs measured alike).
    select
        run_key,
        'cpu_us_per_txn' as measure,
        'TOTAL' as subject,
        sum(cpu_us_per_txn) as measure_value
    from cost
    group by run_key
    union all
    select
        run_key,
        'channel_rate_per_s' as measure,
        'RUN' as subject,
        rate_per_s as measure_value
    from starts
    union all
    select
        run_key,
        'time_per_channel_us' as measure,
        'RUN' as subject,
        time_per_channel_us as measure_value
    from starts
    union all
    select
        run_key,
        'cpu_us_per_channel' as measure,
        'CHIN' as subject,
        chin_us_per_channel as measure_value
    from starts
    union all
    select
        run_key,
        'cpu_us_per_channel' as measure,
        'TCPIP' as subject,
        tcpip_us_per_channel as measure_value
    from starts
    union all
    select
        run_key,
        'crypto_util_pct' as measure,
        card_type || ' ' || cast(card_id as {{ dbt.type_string() }}) || ' ' || coalesce(scope, '')
            as subject,
        util_pct as measure_value
    from crypto
    union all
    select
        run_key,
        'cpu_us_per_request' as measure,
        task_type as subject,
        cpu_us_per_request as measure_value
    from tasks
    union all
    select
        run_key,
        'achieved_batch_size' as measure,
        'RUN' as subject,
        achieved_batch_size as measure_value
    from accounting
    union all
    select
        run_key,
        'nettime_avg_us' as measure,
        'RUN' as subject,
        nettime_avg_us as measure_value
    from accounting
    union all
    select
        run_key,
        'nettime_short_p95_us' as measure,
        'RUN' as subject,
        nettime_short_p95_us as measure_value
    from statuses
    union all
    select
        run_key,
        'xbatchsz_short_p50' as measure,
        'RUN' as subject,
        xbatchsz_short_p50 as measure_value
    from statuses
    union all
    select
        run_key,
        'xqtime_short_p95_us' as measure,
        'RUN' as subject,
        xqtime_short_p95_us as measure_value
    from statuses
    union all
    select
        run_key,
        'smooth_trip_time_mean_ms' as measure,
        'RUN' as subject,
        srtt_mean_ms as measure_value
    from netstat
    union all
    select
        run_key,
        'cwnd_drops' as measure,
        'RUN' as subject,
        cast(cwnd_drops as double) as measure_value
    from netstat
    union all
    select
        run_key,
        measure,
        subject,
        measure_value
    from distributed
),

-- Each measure's unit from its definition (seeds/measures.csv); a measure not defined there has
-- none, and the key check (required unit) says so.
definitions as (
    select * from {{ ref('measures') }}
)

select
    measures.run_key || '|' || measures.measure || '|' || measures.subject as run_measure_key,
    measures.run_key,
    measures.measure,
    measures.subject,
    definitions.unit,
    measures.measure_value
from measures
left join definitions on measures.measure = definitions.measure
where measures.measure_value is not null
