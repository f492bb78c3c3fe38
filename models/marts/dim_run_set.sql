-- One row per run: the replicate set and history series it belongs to (int_run_sets), with
-- the number of runs in its set. `mqcap compare` and the "What changed" section read it.
-- Its row checks read dim_run (macros/row_checks.sql), so it is built after it:
-- depends_on: {{ ref('dim_run') }}
with sets as (
    select * from {{ ref('int_run_sets') }}
),

settings as (
    select * from {{ ref('int_noise_settings') }}
)

select
    sets.run_key,
    sets.study,
    sets.run_id,
    sets.configuration,
    sets.workload_point,
    sets.point_labels,
    sets.point_key,
    sets.series_key,
    sets.set_key,
    sets.replicate,
    sets.build,
    sets.version,
    sets.history_label,
    sets.history_order,
    sets.history_time_local,
    sets.run_start_local,
    cast(count(*) over (partition by sets.set_key) as bigint) as runs_in_set,
    settings.min_change_pct,
    settings.change_point_pvalue
from sets
left join settings on sets.study = settings.study
