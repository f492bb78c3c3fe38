-- One row per run x measure x subject: every number a report compares, in one long table.
-- subject is the address-space role for per-role measures, 'RUN' for run-level ones.
-- The rows of int_run_measures, where the logic lives (marts read intermediates, not marts).
{{ run_keyed_incremental() }}
select * from {{ ref('int_run_measures') }}
where {{ in_build_scope() }}
