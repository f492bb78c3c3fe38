-- One row per variant run x measure x subject: its value against its baseline run's value.
-- % change = (variant - baseline) / baseline x 100 (docs/domain.md).
-- The rows of int_comparison, where the logic lives (marts read intermediates, not marts).
{{ run_keyed_incremental() }}
select * from {{ ref('int_comparison') }}
where {{ in_build_scope() }}
