-- One row per run x channel-initiator task type: CPU and wait microseconds per request, the
-- two parts of a stacked bar (MP16's chart of where a request's time goes in the channel
-- initiator); elapsed = CPU + wait. stack_order puts dispatcher, adapter, SSL, DNS in order.
-- Its row checks read dim_run (macros/row_checks.sql), so it is built after it:
-- depends_on: {{ ref('dim_run') }}
-- The rows of int_chinit_task_stack, where the logic lives (marts read intermediates, not marts).
{{ run_keyed_incremental() }}
select * from {{ ref('int_chinit_task_stack') }}
where {{ in_build_scope() }}
