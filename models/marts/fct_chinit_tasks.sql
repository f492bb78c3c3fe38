-- One row per run x channel-initiator task type (dispatcher, adapter, SSL, DNS), from SMF
-- 115/231 class 4 statistics: requests and CPU / elapsed / wait microseconds per request, busy %.
-- Wait per request = average elapsed - average CPU (docs/domain.md).
-- The rows of int_chinit_tasks, where the logic lives (marts read intermediates, not marts).
{{ run_keyed_incremental() }}
select * from {{ ref('int_chinit_tasks') }}
where {{ in_build_scope() }}
