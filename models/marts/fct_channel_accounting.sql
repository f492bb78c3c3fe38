-- One row per run x channel, from SMF 116.10 (QCST): messages, batches, achieved batch size
-- (messages / batches), bytes, NETTIME average (batch-weighted) / min / max microseconds.
-- The rows of int_channel_accounting, where the logic lives (marts read intermediates, not marts).
{{ run_keyed_incremental() }}
select * from {{ ref('int_channel_accounting') }}
where {{ in_build_scope() }}
