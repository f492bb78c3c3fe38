-- One row per run: study, run, workload point, configuration labels, interval, baseline.
-- dim_run publishes it; intermediate models join runs through this model.
-- The study's grouping dimensions are read wherever the manifest states them: the fields
-- scenario and hardware_model, else the labels scenario and hardware_model (or model).
-- configuration is what varies within a group: a declared configuration name whose
-- comma-separated parts include the run's scenario or hardware model ("client, M2002A,
-- encrypted") keeps its other parts ("encrypted"); declared_configuration keeps the name as
-- written. A name that is nothing but group values is kept whole.
with manifests as (
    select * from {{ ref('stg_manifest__runs') }}
),

dimension_labels as (
    select
        run_key,
        max(case when label = 'scenario' then value end) as scenario,
        coalesce(
            max(case when label = 'hardware_model' then value end),
            max(case when label = 'model' then value end)
        ) as hardware_model
    from {{ ref('stg_manifest__run_labels') }}
    where label in ('scenario', 'hardware_model', 'model')
    group by run_key
),

with_dimensions as (
    select
        manifests.*,
        coalesce(manifests.scenario, dimension_labels.scenario) as group_scenario,
        coalesce(manifests.hardware_model, dimension_labels.hardware_model) as group_hardware_model
    from manifests
    left join dimension_labels on manifests.run_key = dimension_labels.run_key
),

configuration_parts as (
    select
        named.run_key,
        named.group_scenario,
        named.group_hardware_model,
        part.pos,
        trim(part.item) as item
    from with_dimensions as named
    {{ mqcap_split_rows('named.configuration', "','", 'part') }}
),

reduced_configurations as (
    -- The parts that are not one of the run's group values, in their written order.
    select
        run_key,
        {{ mqcap_string_agg('item', "', '", 'pos') }} as configuration,
        count(*) as kept_parts
    from configuration_parts
    where
        item <> ''
        and lower(item) <> lower(coalesce(group_scenario, ''))
        and lower(item) <> lower(coalesce(group_hardware_model, ''))
    group by run_key
),

runs as (
    select
        with_dimensions.*,
        coalesce(reduced_configurations.configuration, with_dimensions.configuration)
            as group_configuration
    from with_dimensions
    left join reduced_configurations on with_dimensions.run_key = reduced_configurations.run_key
),

missing_baselines as (
    -- Runs whose manifest names a baseline run of the study that is not loaded (its run.yaml
    -- set aside, or deleted, after this one loaded).
    select
        runs.run_key,
        runs.baseline_run_id
    from runs
    left join runs as base on runs.study || '/' || runs.baseline_run_id = base.run_key
    where runs.baseline_run_id is not null and base.run_key is null
),

stand_ins as (
    -- A run that names no baseline, of another configuration than the one study.yaml's
    -- `baseline:` names: the runs of that configuration at the run's workload point, in its
    -- group (docs/modelling.md: the study's baseline configuration stands in for runs that name
    -- no baseline). Paired when there is exactly one; with none or several (repeats) the run is
    -- compared with nothing, and int_configurations says so. Only a baseline the study file
    -- declares stands in here: one inferred from other runs' pairs is not a run's pair.
    select
        variant.run_key,
        count(base.run_key) as candidate_count,
        min(base.run_id) as only_candidate
    from runs as variant
    inner join {{ ref('stg_manifest__studies') }} as study_file
        on variant.study = study_file.study
    left join runs as base
        on
            variant.study = base.study
            and study_file.baseline_configuration = base.group_configuration
            and variant.workload_type is not distinct from base.workload_type
            and variant.message_bytes is not distinct from base.message_bytes
            and variant.persistence is not distinct from base.persistence
            and variant.threads is not distinct from base.threads
            and variant.target_rate_per_s is not distinct from base.target_rate_per_s
            and variant.recipients is not distinct from base.recipients
            and variant.channels is not distinct from base.channels
            and variant.group_scenario is not distinct from base.group_scenario
            and variant.group_hardware_model is not distinct from base.group_hardware_model
    where
        variant.baseline_run_id is null
        and study_file.baseline_configuration is not null
        and variant.group_configuration <> study_file.baseline_configuration
    group by variant.run_key
),

driver_intervals as (
    -- Runs whose manifest gives no interval take the one their generic driver results report.
    select
        coalesce(results.results_study, files.folder_study)
        || '/' || coalesce(results.results_run_id, files.folder_run_id) as run_key,
        min(results.interval_start) as interval_start,
        max(results.interval_end) as interval_end
    from {{ ref('stg_driver__results') }} as results
    inner join {{ ref('stg_meta__files') }} as files on results.file_id = files.file_id
    where results.interval_start is not null and results.interval_end is not null
    group by
        coalesce(results.results_study, files.folder_study)
        || '/' || coalesce(results.results_run_id, files.folder_run_id)
),

-- The local clock of each study's runs, from its study file (a run.yaml may state its own).
study_clocks as (
    select
        study,
        max(utc_offset_minutes) as utc_offset_minutes,
        max(timezone) as timezone
    from {{ ref('stg_manifest__studies') }}
    group by study
),

clocks as (
    select
        runs.run_key,
        case
            when runs.utc_offset_minutes is not null or runs.timezone is not null then 'run'
            when
                study_clocks.utc_offset_minutes is not null or study_clocks.timezone is not null
                then 'study'
            else 'none'
        end as clock_source,
        case
            when runs.utc_offset_minutes is not null or runs.timezone is not null
                then runs.utc_offset_minutes
            else study_clocks.utc_offset_minutes
        end as clock_offset_minutes,
        case
            when runs.utc_offset_minutes is not null or runs.timezone is not null
                then runs.timezone
            else study_clocks.timezone
        end as clock_timezone
    from runs
    left join study_clocks on runs.study = study_clocks.study
),

labels as (
    select
        run_key,
        max(case when label = 'protection' then value end) as protection,
        max(case when label = 'cipher' then value end) as cipher,
        max(case when label = 'tls_version' then value end) as tls_version,
        max(case when label = 'key_bits' then value end) as key_bits_text,
        max(case when label = 'key_strength' then value end) as key_strength,
        max(case when label = 'cipher_prefix' then value end) as cipher_prefix,
        max(case when label = 'sslrkeyc' then value end) as sslrkeyc,
        count(*) as label_count
    from {{ ref('stg_manifest__run_labels') }}
    group by run_key
)

select
    runs.run_key,
    runs.study,
    runs.run_id,
    runs.description,
    runs.group_configuration as configuration,
    runs.configuration as declared_configuration,
    runs.workload_type,
    runs.message_bytes,
    runs.persistence,
    runs.threads,
    runs.target_rate_per_s,
    runs.recipients,
    runs.channels,
    runs.manifest_transactions,
    coalesce(runs.interval_start, driver_intervals.interval_start) as interval_start,
    coalesce(runs.interval_end, driver_intervals.interval_end) as interval_end,
    {{ dbt.datediff(
        'coalesce(runs.interval_start, driver_intervals.interval_start)',
        'coalesce(runs.interval_end, driver_intervals.interval_end)',
        'millisecond'
    ) }} / 1000.0 as interval_s,
    runs.system_id,
    runs.qmgr,
    runs.platform,
    runs.host,
    runs.group_hardware_model as hardware_model,
    runs.group_scenario as scenario,
    runs.series_file,
    labels.protection,
    labels.cipher,
    labels.tls_version,
    cast(labels.key_bits_text as {{ dbt.type_bigint() }}) as key_bits,
    labels.key_strength,
    labels.cipher_prefix,
    labels.sslrkeyc,
    coalesce(labels.label_count, 0) as label_count,
    runs.labels_json,
    -- A baseline run named but not loaded (its run.yaml set aside or deleted after this one
    -- loaded): no baseline, and int_configurations says so (never the run itself instead).
    -- A run that names none: the study file's baseline configuration's run at its point
    -- (stand_ins), none when that is not one run; else (no stand-in needed) the run itself.
    case
        when missing.run_key is null and stand_ins.run_key is null
            then coalesce(runs.baseline_run_id, runs.run_id)
        when missing.run_key is null and stand_ins.candidate_count = 1
            then stand_ins.only_candidate
    end as baseline_run_id,
    case
        when missing.run_key is null and stand_ins.run_key is null
            then runs.study || '/' || coalesce(runs.baseline_run_id, runs.run_id)
        when missing.run_key is null and stand_ins.candidate_count = 1
            then runs.study || '/' || stand_ins.only_candidate
    end as baseline_run_key,
    missing.run_key is null
    and stand_ins.run_key is null
    and coalesce(runs.baseline_run_id, runs.run_id) = runs.run_id as is_baseline,
    missing.baseline_run_id as missing_baseline_run_id,
    -- The manifest names a baseline run (its own id included): the run's comparison is that
    -- pair; without one, the study's baseline configuration stands in where a report needs it.
    runs.baseline_run_id is not null as baseline_declared,
    runs.source_file as manifest_file,
    -- The run's clock: its run.yaml utc_offset or timezone, else its study.yaml's; none
    -- stated, the local clock is taken to be UTC. An IANA zone's offset follows the date.
    clocks.clock_source,
    clocks.clock_timezone as timezone,
    case
        when clocks.clock_timezone is null then coalesce(clocks.clock_offset_minutes, 0)
        else {{ dbt.datediff(
            local_to_utc('coalesce(runs.interval_start, driver_intervals.interval_start)',
                'clocks.clock_offset_minutes', 'clocks.clock_timezone'),
            'coalesce(runs.interval_start, driver_intervals.interval_start)',
            'minute'
        ) }}
    end as utc_offset_minutes,
    -- The interval in UTC, for sources stamped in UTC (amqsrua).
    {{ local_to_utc(
        'coalesce(runs.interval_start, driver_intervals.interval_start)',
        'clocks.clock_offset_minutes', 'clocks.clock_timezone'
    ) }} as interval_start_utc,
    {{ local_to_utc(
        'coalesce(runs.interval_end, driver_intervals.interval_end)',
        'clocks.clock_offset_minutes', 'clocks.clock_timezone'
    ) }} as interval_end_utc
from runs
left join labels on runs.run_key = labels.run_key
left join clocks on runs.run_key = clocks.run_key
left join driver_intervals on runs.run_key = driver_intervals.run_key
left join missing_baselines as missing on runs.run_key = missing.run_key
left join stand_ins on runs.run_key = stand_ins.run_key
