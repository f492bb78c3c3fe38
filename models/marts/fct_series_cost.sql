-- One row per study x configuration x workload type x message size x series x role: the CPU
-- microseconds per transaction of the series' runs at that point, by address space, as the
-- cost table and chart show it. Runs sharing a series and a point (repeats, builds) are
-- averaged, never added: cpu_us_per_txn = mean over the runs measuring the role; `runs` says
-- how many runs the series has there. Subtotals of those means: 'MQ' = MSTR + CHIN (MP16's MQ
-- cost, the queue manager and its channel initiator; only in studies where both are measured,
-- from whichever of the two the series has) and 'TOTAL' (every address space measured).
-- series_total_us_per_txn is the TOTAL on every row of the series (the end of its stacked
-- bar). Message workloads only (dim_run.is_message_workload): a channel start's "transaction"
-- is a channel. Both figures are rounded to 1e-9 µs, so a report reads the same every build.
with cost as (
    select * from {{ ref('int_address_space_cost') }}
),

runs as (
    select * from {{ ref('dim_run') }}
    where is_message_workload
),

points as (
    select
        runs.study,
        runs.configuration,
        runs.workload_type,
        runs.message_bytes,
        runs.series,
        runs.detail,
        cost.run_key,
        cost.role,
        cost.cpu_us_per_txn
    from cost
    inner join runs on cost.run_key = runs.run_key
),

series_runs as (
    select
        study,
        configuration,
        workload_type,
        message_bytes,
        series,
        min(detail) as detail,
        count(distinct run_key) as runs
    from points
    group by study, configuration, workload_type, message_bytes, series
),

by_role as (
    select
        study,
        configuration,
        workload_type,
        message_bytes,
        series,
        role,
        avg(cpu_us_per_txn) as cpu_us_per_txn
    from points
    group by study, configuration, workload_type, message_bytes, series, role
),

studies_with_mq as (
    -- MP16's MQ column needs both of its parts in the study.
    select study
    from points
    where role in ('MSTR', 'CHIN')
    group by study
    having count(distinct role) = 2
),

with_subtotals as (
    {{ role_subtotals(
        'by_role',
        ['study', 'configuration', 'workload_type', 'message_bytes', 'series'],
        mq_where='study in (select studies_with_mq.study from studies_with_mq)',
    ) }}
)

select
    r.study || '|' || r.configuration || '|' || r.workload_type || '|'
    || coalesce(cast(r.message_bytes as {{ dbt.type_string() }}), '') || '|' || r.series
    || '|' || r.role as series_cost_key,
    r.study,
    r.configuration,
    r.workload_type,
    r.message_bytes,
    r.series,
    s.detail,
    r.role,
    cast(case r.role
        when 'MSTR' then 1 when 'CHIN' then 2 when 'MQ' then 3 when 'TCPIP' then 4
        when 'AMSM' then 5 when 'APP' then 6 when 'OTHER' then 7 else 8
    end as {{ dbt.type_bigint() }}) as role_order,
    r.role in ('MQ', 'TOTAL') as is_subtotal,
    -- Rounded to 1e-9 µs, far below what is measured: the sums of floating-point means come
    -- out in another order build to build, and 516.0 must not read 515.9999999999999.
    round(r.cpu_us_per_txn, 9) as cpu_us_per_txn,
    round(total.cpu_us_per_txn, 9) as series_total_us_per_txn,
    s.runs
from with_subtotals as r
inner join series_runs as s
    on
        r.study = s.study
        and r.configuration = s.configuration
        and r.workload_type = s.workload_type
        and r.message_bytes is not distinct from s.message_bytes
        and r.series = s.series
inner join with_subtotals as total
    on
        total.role = 'TOTAL'
        and r.study = total.study
        and r.configuration = total.configuration
        and r.workload_type = total.workload_type
        and r.message_bytes is not distinct from total.message_bytes
        and r.series = total.series
