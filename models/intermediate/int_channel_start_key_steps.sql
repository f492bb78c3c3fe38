-- One row per study x cipher x step to the next stronger certificate key (e.g. RSA 1024 ->
-- 2048): channel start time per channel and CHIN cost before and after, and the % increase.
-- "Medium to high" and "high to very high" in the key-size study are these steps.
with starts as (
    select
        *,
        lag(run_key) over steps as previous_run_key,
        lag(key_bits) over steps as previous_key_bits,
        lag(key_strength) over steps as previous_key_strength,
        lag(time_per_channel_us) over steps as previous_time_per_channel_us,
        lag(chin_us_per_channel) over steps as previous_chin_us_per_channel
    from {{ ref('int_channel_starts') }}
    where key_bits is not null and channel_operation = 'start'
    window steps as (
        partition by study, tls_version, cipher
        order by key_bits
    )
)

select
    run_key as key_step_key,
    study,
    tls_version,
    cipher_prefix,
    cipher,
    previous_run_key as from_run_key,
    run_key as to_run_key,
    previous_key_strength as from_key_strength,
    key_strength as to_key_strength,
    previous_key_bits as from_key_bits,
    key_bits as to_key_bits,
    previous_time_per_channel_us as from_time_per_channel_us,
    time_per_channel_us as to_time_per_channel_us,
    (time_per_channel_us - previous_time_per_channel_us) * 100.0 / previous_time_per_channel_us
        as time_increase_pct,
    previous_chin_us_per_channel as from_chin_us_per_channel,
    chin_us_per_channel as to_chin_us_per_channel,
    (chin_us_per_channel - previous_chin_us_per_channel) * 100.0 / previous_chin_us_per_channel
        as chin_cost_increase_pct
from starts
where previous_run_key is not null
