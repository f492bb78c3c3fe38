-- One row per run x role: CPU microseconds per transaction against the run's baseline run
-- (manifest baseline; a baseline run has delta 0). Roles: the address spaces of
-- fct_address_space_cost (MSTR, CHIN, TCPIP, AMSM, APP, OTHER), 'MQ' = MSTR + CHIN (the queue
-- manager's subtotal, present when the run has either) and 'TOTAL' (all roles measured).
-- delta = run - baseline; pct_change = delta / baseline x 100.
-- Its row checks read dim_run (macros/row_checks.sql), so it is built after it:
-- depends_on: {{ ref('dim_run') }}
{{ run_keyed_incremental() }}
with cost as (
    select * from {{ ref('int_address_space_cost') }}
),

runs as (
    select * from {{ ref('int_runs') }}
),

by_role as (
    {{ role_subtotals('cost', ['run_key']) }}
)

select
    by_role.run_key || '|' || by_role.role as cost_delta_key,
    runs.study,
    by_role.run_key,
    runs.run_id,
    runs.configuration,
    runs.message_bytes,
    runs.threads,
    runs.scenario,
    runs.hardware_model,
    by_role.role,
    cast(case by_role.role
        when 'APP' then 1 when 'MSTR' then 2 when 'CHIN' then 3 when 'MQ' then 4
        when 'TCPIP' then 5 when 'AMSM' then 6 when 'OTHER' then 7 else 8
    end as {{ dbt.type_bigint() }}) as role_order,
    by_role.role in ('MQ', 'TOTAL') as is_subtotal,
    runs.baseline_run_key,
    runs.is_baseline,
    by_role.cpu_us_per_txn,
    base.cpu_us_per_txn as baseline_cpu_us_per_txn,
    by_role.cpu_us_per_txn - base.cpu_us_per_txn as delta_us_per_txn,
    case
        when base.cpu_us_per_txn > 0
            then (by_role.cpu_us_per_txn - base.cpu_us_per_txn) / base.cpu_us_per_txn * 100
    end as pct_change
from by_role
inner join runs on by_role.run_key = runs.run_key
left join by_role as base
    on runs.baseline_run_key = base.run_key and by_role.role = base.role
