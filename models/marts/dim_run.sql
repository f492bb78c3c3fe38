-- One row per run: study, run, workload point, configuration labels, interval, baseline.
select * from {{ ref('int_runs') }}
