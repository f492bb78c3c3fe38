-- One row per run that started (or stopped) channels: channels, rate, time per channel
-- (1,000,000 / rate, microseconds) and CHIN / TCPIP CPU microseconds per channel.
{{ run_keyed_incremental() }}
with runs as (
    select * from {{ ref('int_runs') }}
    where workload_type in ('channel_start', 'channel_stop')
),

driver as (
    select * from {{ ref('int_driver_results') }}
),

cost as (
    select * from {{ ref('int_address_space_cost') }}
),

rates as (
    select
        runs.run_key,
        runs.channels,
        coalesce(driver.rate_per_s, runs.channels * 1.0 / runs.interval_s) as rate_per_s,
        case when driver.rate_per_s is not null then 'driver' else 'channels / interval' end
            as rate_source
    from runs
    left join driver on runs.run_key = driver.run_key
)

select
    runs.run_key,
    runs.study,
    runs.run_id,
    runs.configuration,
    case runs.workload_type when 'channel_start' then 'start' else 'stop' end as channel_operation,
    runs.tls_version,
    runs.cipher_prefix,
    runs.cipher,
    runs.key_strength,
    runs.key_bits,
    rates.channels,
    rates.rate_per_s,
    rates.rate_source,
    1000000 / rates.rate_per_s as time_per_channel_us,
    chin.cpu_s * 1000000 / rates.channels as chin_us_per_channel,
    tcpip.cpu_s * 1000000 / rates.channels as tcpip_us_per_channel,
    chin.cpu_source
from runs
inner join rates on runs.run_key = rates.run_key
left join cost as chin on runs.run_key = chin.run_key and chin.role = 'CHIN'
left join cost as tcpip on runs.run_key = tcpip.run_key and tcpip.role = 'TCPIP'
where rates.channels > 0
