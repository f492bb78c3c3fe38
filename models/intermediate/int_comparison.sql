-- One row per variant run x measure x subject: its value against its baseline run's value.
-- % change = (variant - baseline) / baseline x 100 (docs/domain.md).
{{ run_keyed_incremental() }}
with measures as (
    select * from {{ ref('int_run_measures') }}
),

runs as (
    select * from {{ ref('int_runs') }}
),

variants as (
    -- The variant runs' measures with the key of the same measure of their baseline run (one
    -- equality join: a join on run, measure and subject made DuckDB pair every run's measure
    -- with every other's first, quadratic in the runs).
    select
        variant.*,
        runs.baseline_run_key || '|' || variant.measure || '|' || variant.subject
            as baseline_measure_key
    from measures as variant
    inner join runs on variant.run_key = runs.run_key
    where not runs.is_baseline and {{ in_build_scope('runs.run_key') }}
)

select
    variants.run_measure_key as comparison_key,
    runs.study,
    runs.run_key,
    runs.run_id,
    runs.configuration,
    runs.message_bytes,
    runs.baseline_run_key,
    base_run.configuration as baseline_configuration,
    variants.measure,
    variants.subject,
    variants.unit,
    baseline.measure_value as baseline_value,
    variants.measure_value as variant_value,
    variants.measure_value - baseline.measure_value as difference,
    case
        when baseline.measure_value <> 0
            then (variants.measure_value - baseline.measure_value) / baseline.measure_value * 100
    end as pct_change
from variants
inner join runs on variants.run_key = runs.run_key
inner join measures as baseline on variants.baseline_measure_key = baseline.run_measure_key
inner join runs as base_run on runs.baseline_run_key = base_run.run_key
