-- One row per run: the replicate set and history series it belongs to (int_run_sets), with
-- the number of runs in its set. `mqcap compare` and the "What changed" section read it.
with sets as (
    select * from {{ ref('int_run_sets') }}
)

select
    run_key,
    study,
    run_id,
    configuration,
    workload_point,
    point_labels,
    point_key,
    series_key,
    set_key,
    replicate,
    build,
    version,
    history_label,
    history_order,
    history_time_local,
    run_start_local,
    cast(count(*) over (partition by set_key) as bigint) as runs_in_set
from sets
