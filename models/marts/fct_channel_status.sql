-- One row per run x channel from DISPLAY CHSTATUS snapshots: how many snapshots, and the
-- p50 / p95 / max of NETTIME, XQTIME (microseconds) and XBATCHSZ, short- and long-term.
-- The rows of int_channel_status, where the logic lives (marts read intermediates, not marts).
{{ run_keyed_incremental() }}
select * from {{ ref('int_channel_status') }}
where {{ in_build_scope() }}
