-- One row per run x channel from DISPLAY CHSTATUS snapshots: how many snapshots, and the
-- p50 / p95 / max of NETTIME, XQTIME (microseconds) and XBATCHSZ, short- and long-term.
-- The rows of int_channel_status, where the logic lives (marts read intermediates, not marts).
-- A view over it on the DuckDB engine, a table on Spark (mart_copy(): macros/run_scope.sql).
{{ mart_copy(run_keyed=true) }}
select * from {{ ref('int_channel_status') }}
where {{ in_build_scope() }}
