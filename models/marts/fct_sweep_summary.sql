-- One row per thread-sweep series (study x configuration x scenario x hardware model x message
-- size x persistence): the maximum throughput over the sweep and the fewest threads reaching
-- it, the single-thread round trip, whether throughput saturates, and both figures against
-- the series' baseline series: % change = (this - baseline) / baseline x 100.
-- The baseline series is the one the series' runs name with `baseline:` (the declared pairs,
-- baseline_source 'run_baselines'); a series whose runs name none is compared with the same
-- point of its configuration's baseline configuration (dim_configuration: the study's
-- baseline, baseline_source 'study_baseline'). Runs naming runs of two or more series leave
-- the comparison undecided (baseline_source 'undecided', baseline_note names them). A series
-- that is a baseline has no comparison (NULL % changes), never a "+0.0%" against itself.
-- saturates: the last doubling of threads (the largest thread count against the largest one
-- at or below half of it) adds less than saturation_threshold_pct (5%) to the rate.
-- The rows of int_sweep_summary, where the logic lives (marts read intermediates, not marts).
-- A view over it on the DuckDB engine, a table on Spark (mart_copy(): macros/run_scope.sql).
{{ mart_copy() }}
select * from {{ ref('int_sweep_summary') }}
