-- One row per variant run x measure x subject: its value against its baseline run's value.
-- % change = (variant - baseline) / baseline x 100 (docs/domain.md).
{{ run_keyed_incremental() }}
with measures as (
    select * from {{ ref('fct_run_measures') }}
),

runs as (
    select * from {{ ref('int_runs') }}
)

select
    variant.run_measure_key as comparison_key,
    runs.study,
    runs.run_key,
    runs.run_id,
    runs.configuration,
    runs.message_bytes,
    runs.baseline_run_key,
    base_run.configuration as baseline_configuration,
    variant.measure,
    variant.subject,
    variant.unit,
    baseline.measure_value as baseline_value,
    variant.measure_value as variant_value,
    variant.measure_value - baseline.measure_value as difference,
    case
        when baseline.measure_value <> 0
            then (variant.measure_value - baseline.measure_value) / baseline.measure_value * 100
    end as pct_change
from measures as variant
inner join runs on variant.run_key = runs.run_key
inner join measures as baseline
    on
        runs.baseline_run_key = baseline.run_key
        and variant.measure = baseline.measure
        and variant.subject = baseline.subject
inner join runs as base_run on runs.baseline_run_key = base_run.run_key
where not runs.is_baseline
