-- One row per variant run x measure x subject: its value against its baseline run's value.
-- % change = (variant - baseline) / baseline x 100 (docs/domain.md).
-- The rows of int_comparison, where the logic lives (marts read intermediates, not marts).
-- A view over it on the DuckDB engine, a table on Spark (mart_copy(): macros/run_scope.sql).
{{ mart_copy(run_keyed=true) }}
select * from {{ ref('int_comparison') }}
where {{ in_build_scope() }}
