-- One row per run x measure x subject: every number a report compares, in one long table.
-- subject is the address-space role for per-role measures, 'RUN' for run-level ones.
-- The rows of int_run_measures, where the logic lives (marts read intermediates, not marts).
-- A view over it on the DuckDB engine, a table on Spark (mart_copy(): macros/run_scope.sql).
{{ mart_copy(run_keyed=true) }}
select * from {{ ref('int_run_measures') }}
where {{ in_build_scope() }}
