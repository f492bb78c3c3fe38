-- One row per run x channel-initiator task type (dispatcher, adapter, SSL, DNS), from SMF
-- 115/231 class 4 statistics: requests and CPU / elapsed / wait microseconds per request, busy %.
-- Wait per request = average elapsed - average CPU (docs/domain.md).
{{ run_keyed_incremental() }}
with tasks as (
    select * from {{ ref('int_smf_chinit_tasks') }}
),

runs as (
    select * from {{ ref('int_runs') }}
),

by_type as (
    select
        run_key,
        task_type,
        count(distinct task_number) as tasks,
        count(distinct record_time_local) as smf_intervals,
        cast(sum(request_count) as {{ dbt.type_bigint() }}) as requests,
        sum(task_cpu_time_us) as cpu_us,
        sum(task_elapsed_time_us) as elapsed_us,
        sum(interval_duration_us) as task_interval_us,
        min(source_file) as source_file
    from tasks
    group by run_key, task_type
)

select
    by_type.run_key || '|' || by_type.task_type as chinit_task_key,
    runs.study,
    by_type.run_key,
    runs.run_id,
    runs.configuration,
    runs.message_bytes,
    by_type.task_type,
    by_type.tasks,
    by_type.smf_intervals,
    by_type.requests,
    case when by_type.requests > 0 then by_type.cpu_us / by_type.requests end
        as cpu_us_per_request,
    case when by_type.requests > 0 then by_type.elapsed_us / by_type.requests end
        as elapsed_us_per_request,
    case when by_type.requests > 0 then (by_type.elapsed_us - by_type.cpu_us) / by_type.requests end
        as wait_us_per_request,
    case
        when by_type.task_interval_us > 0 then by_type.elapsed_us * 100.0 / by_type.task_interval_us
    end as busy_pct,
    by_type.source_file
from by_type
inner join runs on by_type.run_key = runs.run_key
