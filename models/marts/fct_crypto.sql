-- One row per run x crypto card (x function, key size, scope): rate per second, execution time
-- per operation (ms), utilisation %, and the effective crypto microseconds per transaction
-- = util x interval / transactions (docs/domain.md). Several RMF intervals in a run are combined
-- weighted by interval length (rate, util) and by operations (execution time).
-- The rows of int_crypto, where the logic lives (marts read intermediates, not marts).
{{ run_keyed_incremental() }}
select * from {{ ref('int_crypto') }}
where {{ in_build_scope() }}
