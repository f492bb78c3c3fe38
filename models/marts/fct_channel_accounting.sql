-- One row per run x channel, from SMF 116.10 (QCST): messages, batches, achieved batch size
-- (messages / batches), bytes, NETTIME average (batch-weighted) / min / max microseconds.
-- The rows of int_channel_accounting, where the logic lives (marts read intermediates, not marts).
-- A view over it on the DuckDB engine, a table on Spark (mart_copy(): macros/run_scope.sql).
{{ mart_copy(run_keyed=true) }}
select * from {{ ref('int_channel_accounting') }}
where {{ in_build_scope() }}
