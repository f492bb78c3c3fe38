-- One row per run: the replicate set and the history series it belongs to (README
-- "Replicates and history").
-- A workload point is what the manifest says was driven: workload type, message size,
-- persistence, threads, target rate, recipients, channels, scenario, hardware model, plus the
-- labels that vary between the runs of the run's configuration (in attls, `cipher` varies
-- inside "MQ + AT-TLS" and so tells points apart; `protection` does not and describes the
-- configuration). Runs of one configuration at one point with the same history label (build,
-- else version) are repeats: one replicate set. Without a history label the set is the series.
with runs as (
    select * from {{ ref('int_runs') }}
),

manifests as (
    select
        run_key,
        nullif(trim(replicate), '') as replicate,
        nullif(trim(build), '') as build,
        nullif(trim(version), '') as version
    from {{ ref('stg_manifest__runs') }}
),

labels as (
    select
        labels.run_key,
        labels.label,
        labels.value,
        runs.study,
        runs.configuration
    from {{ ref('stg_manifest__run_labels') }} as labels
    inner join runs on labels.run_key = runs.run_key
    -- A label that states a grouping dimension (int_runs) is already in the workload point.
    where not (
        (labels.label = 'scenario' and labels.value = coalesce(runs.scenario, ''))
        or (
            labels.label in ('hardware_model', 'model')
            and labels.value = coalesce(runs.hardware_model, '')
        )
    )
),

config_runs as (
    select
        study,
        configuration,
        count(*) as n_runs
    from runs
    group by study, configuration
),

varying as (
    -- Labels whose value differs between runs of a configuration (or that some runs lack).
    select
        labels.study,
        labels.configuration,
        labels.label
    from labels
    inner join config_runs
        on labels.study = config_runs.study and labels.configuration = config_runs.configuration
    group by labels.study, labels.configuration, labels.label, config_runs.n_runs
    having count(distinct labels.value) > 1 or count(*) < config_runs.n_runs
),

point_labels as (
    select
        labels.run_key,
        {{ mqcap_string_agg("labels.label || '=' || labels.value", "'; '", 'labels.label') }}
            as point_labels
    from labels
    inner join varying
        on
            labels.study = varying.study
            and labels.configuration = varying.configuration
            and labels.label = varying.label
    group by labels.run_key
),

points as (
    select
        runs.run_key,
        runs.study,
        runs.run_id,
        runs.configuration,
        runs.interval_start,
        manifests.replicate,
        manifests.build,
        manifests.version,
        coalesce(manifests.build, manifests.version) as history_label,
        point_labels.point_labels,
        concat_ws(
            ', ',
            runs.workload_type,
            cast(runs.message_bytes as string) || ' B',
            runs.persistence,
            cast(runs.threads as string) || case when runs.threads = 1 then ' thread' else ' threads' end,
            'target ' || cast(runs.target_rate_per_s as string) || '/s',
            cast(runs.recipients as string) || case when runs.recipients = 1 then ' recipient' else ' recipients' end,
            cast(runs.channels as string) || case when runs.channels = 1 then ' channel' else ' channels' end,
            runs.scenario,
            runs.hardware_model
        ) as workload_point,
        runs.workload_type,
        runs.message_bytes,
        runs.persistence,
        runs.threads,
        runs.scenario,
        runs.hardware_model
    from runs
    inner join manifests on runs.run_key = manifests.run_key
    left join point_labels on runs.run_key = point_labels.run_key
),

builds as (
    -- History labels in time order: a build's time is its earliest run's start, then its name.
    select
        study,
        history_label,
        min(interval_start) as history_time_local,
        row_number() over (
            partition by study order by min(interval_start) nulls last, history_label
        ) as history_order
    from points
    where history_label is not null
    group by study, history_label
)

select
    points.run_key,
    points.study,
    points.run_id,
    points.configuration,
    points.workload_point,
    points.point_labels,
    points.workload_type,
    points.message_bytes,
    points.persistence,
    points.threads,
    points.scenario,
    points.hardware_model,
    points.replicate,
    points.build,
    points.version,
    points.history_label,
    builds.history_time_local,
    builds.history_order,
    points.interval_start as run_start_local,
    points.study || '|' || points.workload_point
    || coalesce(' [' || points.point_labels || ']', '') as point_key,
    points.study || '|' || points.configuration || '|' || points.workload_point
    || coalesce(' [' || points.point_labels || ']', '') as series_key,
    points.study || '|' || points.configuration || '|' || points.workload_point
    || coalesce(' [' || points.point_labels || ']', '')
    || coalesce(' @' || points.history_label, '') as set_key
from points
left join builds
    on points.study = builds.study and points.history_label = builds.history_label
