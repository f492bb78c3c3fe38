-- One row per variant replicate set x measure x subject: Welch comparison with its baseline set.
--
-- The baseline set of a variant set is the set holding the baseline runs its runs' manifests name
-- (when they name two or more sets, the comparison is undecided and left out), else, when its
-- runs name no other run, the set of its configuration's baseline configuration
-- (dim_configuration.baseline_configuration) at the same workload point and history label. Arithmetic
-- (mqcap.noise.compare_summaries): difference of the means, Welch's 95% interval with the
-- Welch-Satterthwaite degrees of freedom, % change and its interval relative to the baseline mean,
-- the two-sided Welch p-value and the verdict (better / worse / no significant change; "one run:
-- no interval" when a side has one run) with the study's min_change_pct.
-- The rows of int_replicate_comparison, where the logic lives (marts read intermediates, not marts).
-- A view over it on the DuckDB engine, a table on Spark (mart_copy(): macros/run_scope.sql).
{{ mart_copy() }}
select * from {{ ref('int_replicate_comparison') }}
