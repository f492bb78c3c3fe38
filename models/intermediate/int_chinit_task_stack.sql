-- One row per run x channel-initiator task type: CPU and wait microseconds per request, the
-- two parts of a stacked bar (MP16's chart of where a request's time goes in the channel
-- initiator); elapsed = CPU + wait. stack_order puts dispatcher, adapter, SSL, DNS in order.
{{ run_keyed_incremental() }}
with tasks as (
    select * from {{ ref('int_chinit_tasks') }}
),

runs as (
    select * from {{ ref('int_runs') }}
)

select
    tasks.chinit_task_key,
    tasks.study,
    tasks.run_key,
    tasks.run_id,
    tasks.configuration,
    tasks.message_bytes,
    runs.threads,
    tasks.task_type,
    cast(case tasks.task_type
        when 'dispatcher' then 1 when 'adapter' then 2 when 'ssl' then 3 else 4
    end as {{ dbt.type_bigint() }}) as stack_order,
    tasks.tasks,
    tasks.requests,
    tasks.cpu_us_per_request,
    tasks.wait_us_per_request,
    tasks.elapsed_us_per_request,
    tasks.busy_pct,
    tasks.source_file
from tasks
inner join runs on tasks.run_key = runs.run_key
where tasks.requests > 0
