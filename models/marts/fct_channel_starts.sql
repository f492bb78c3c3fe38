-- One row per run that started (or stopped) channels: channels, rate, time per channel
-- (1,000,000 / rate, microseconds) and CHIN / TCPIP CPU microseconds per channel.
-- The rows of int_channel_starts, where the logic lives (marts read intermediates, not marts).
{{ run_keyed_incremental() }}
select * from {{ ref('int_channel_starts') }}
where {{ in_build_scope() }}
