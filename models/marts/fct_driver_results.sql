-- One row per run measured by a load driver: achieved rate, round trip, target rate, threads.
-- Its row checks read dim_run (macros/row_checks.sql), so it is built after it:
-- depends_on: {{ ref('dim_run') }}
-- The rows of int_driver_results, where the logic lives (marts read intermediates, not marts).
{{ run_keyed_incremental() }}
select * from {{ ref('int_driver_results') }}
where {{ in_build_scope() }}
