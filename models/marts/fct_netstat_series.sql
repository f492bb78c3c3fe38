-- One row per run x connection x poll of NETSTAT ALL: congestion window, slow start threshold,
-- send/receive data queued (bytes), smooth trip time and variance (milliseconds).
-- The rows of int_netstat_series, where the logic lives (marts read intermediates, not marts).
{{ run_keyed_incremental() }}
select * from {{ ref('int_netstat_series') }}
where {{ in_build_scope() }}
