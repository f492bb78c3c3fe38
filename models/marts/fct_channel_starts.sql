-- One row per run that started (or stopped) channels: channels, rate, time per channel
-- (1,000,000 / rate, microseconds) and CHIN / TCPIP CPU microseconds per channel.
-- The rows of int_channel_starts, where the logic lives (marts read intermediates, not marts).
-- A view over it on the DuckDB engine, a table on Spark (mart_copy(): macros/run_scope.sql).
{{ mart_copy(run_keyed=true) }}
select * from {{ ref('int_channel_starts') }}
where {{ in_build_scope() }}
