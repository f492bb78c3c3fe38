-- One row per run with a target rate (streaming at a fixed rate): target, achieved rate,
-- achieved % of target, sustained (achieved >= sustained_threshold_pct, 98%, of the target),
-- and the backlog signal from DISPLAY CHSTATUS: XQTIME (time messages wait on the transmission
-- queue, short-term figure) p95 and first/last snapshot over the run's channels; the backlog
-- grows when the last snapshot's XQTIME is over twice the first's (xqtime_growth_ratio > 2);
-- backlog_growing is NULL and backlog says "unknown: ..." when fewer than two snapshots
-- give XQTIME (no CHSTATUS captured), never a "no" nobody measured. The level counts too: an
-- XQTIME p95 of a second or more (backlog_level_us) means messages wait on the transmission
-- queue longer than a second's worth of traffic takes to send, a standing backlog even when it
-- does not grow (backlog 'standing').
-- Its row checks read dim_run (macros/row_checks.sql), so it is built after it:
-- depends_on: {{ ref('dim_run') }}
-- The rows of int_rate_target, where the logic lives (marts read intermediates, not marts).
-- A view over it on the DuckDB engine, a table on Spark (mart_copy(): macros/run_scope.sql).
{{ mart_copy() }}
select * from {{ ref('int_rate_target') }}
