-- One row per change point of a history series x measure x subject (Apache Otava).
--
-- A history series is the runs of one configuration at one workload point that carry a history
-- label (build, else version), in history order (a label's earliest run start, then its name;
-- within a label, run start then run id), over two or more labels. mqcap.noise.change_points runs
-- Otava's E-divisive split and t-test merge with the study's change_point_pvalue and
-- min_change_pct (int_noise_settings). Each change point gives the history labels on both sides,
-- the runs and means of the stretches before and after it (up to the neighbouring change points),
-- the % change, the p-value and the verdict by the measure's direction.
-- The rows of int_change_points, where the logic lives (marts read intermediates, not marts).
-- A view over it on the DuckDB engine, a table on Spark (mart_copy(): macros/run_scope.sql).
{{ mart_copy() }}
select * from {{ ref('int_change_points') }}
