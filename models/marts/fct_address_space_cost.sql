-- One row per run x address-space role: CPU seconds in the run's interval, transactions, and
-- CPU microseconds per transaction. Where several sources have CPU for a run and role, the
-- preferred one is used (RMF WORKLOAD ACTIVITY report class, then SMF 30, then CSV) and named.
-- cpu_also_counted_in: another run the same CPU seconds went to (int_cpu_attributed), which the
-- mart check reports: runs at overlapping times on one system fed by a file outside run folders.
-- Its row checks read dim_run (macros/row_checks.sql), so it is built after it:
-- depends_on: {{ ref('dim_run') }}
-- The rows of int_address_space_cost, where the logic lives (marts read intermediates, not marts).
{{ run_keyed_incremental() }}
select * from {{ ref('int_address_space_cost') }}
where {{ in_build_scope() }}
