-- One row per run x connection: mean and p95 of the NETSTAT series, and how often the
-- congestion window dropped between consecutive polls (a sign of congestion resets).
-- The rows of int_netstat_summary, where the logic lives (marts read intermediates, not marts).
{{ run_keyed_incremental() }}
select * from {{ ref('int_netstat_summary') }}
where {{ in_build_scope() }}
