-- One row per run x measure x subject: every number a report compares, in one long table.
-- subject is the address-space role for per-role measures, 'RUN' for run-level ones.
with driver as (
    select * from {{ ref('fct_driver_results') }}
),

cost as (
    select * from {{ ref('fct_address_space_cost') }}
),

measures as (
    select
        run_key,
        'rate_per_s' as measure,
        'RUN' as subject,
        'per second' as unit,
        rate_per_s as measure_value
    from driver
    union all
    select
        run_key,
        'round_trip_us' as measure,
        'RUN' as subject,
        'microseconds' as unit,
        round_trip_us as measure_value
    from driver
    union all
    select
        run_key,
        'cpu_us_per_txn' as measure,
        role as subject,
        'CPU microseconds per transaction' as unit,
        cpu_us_per_txn as measure_value
    from cost
    union all
    -- The total over the address spaces measured (a run missing a role has a smaller total:
    -- compare runs measured alike).
    select
        run_key,
        'cpu_us_per_txn' as measure,
        'TOTAL' as subject,
        'CPU microseconds per transaction' as unit,
        sum(cpu_us_per_txn) as measure_value
    from cost
    group by run_key
)

select
    run_key || '|' || measure || '|' || subject as run_measure_key,
    run_key,
    measure,
    subject,
    unit,
    measure_value
from measures
where measure_value is not null
