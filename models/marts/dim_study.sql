-- One row per study: title, purpose, baseline configuration, grouping dimensions, notes (from
-- study.yaml where there is one), platforms, run and configuration counts, recognised shapes.
-- Defaults without a study file: title = the study name; group_by = those of scenario and
-- hardware_model that take 2+ values in the study.
-- run_summary says what the runs are, per workload type, by the dimensions that vary
-- (fct_study_dimensions.is_shown): "26 runs: 22 channel-start runs over 8 ciphers and 3 key
-- strengths; 4 request/reply runs over 2 key strengths and 2 SSLRKEYC values".
-- systems_measured names each system the runs were measured on (platform, host, model, z/OS
-- system, queue manager where the manifests say them) with its run count, '; '-separated;
-- first_run_start_local / last_run_end_local span the measured intervals (the local time of
-- the measured system) and runs_without_interval counts the runs with none; shared_labels are
-- the labels every run of the study has with one value ('a=1, b=2', by label).
with runs as (
    select
        *,
        count(*) over (partition by study) as study_runs
    from {{ ref('int_runs') }}
),

study_files as (
    select * from {{ ref('stg_manifest__studies') }}
),

configurations as (
    select * from {{ ref('dim_configuration') }}
),

shapes as (
    select
        study,
        cast({{ mqcap_json_sorted_list('shape') }} as {{ dbt.type_string() }}) as shapes_json
    from {{ ref('int_study_shape') }}
    group by study
),

by_study as (
    select
        study,
        count(*) as run_count,
        count(distinct configuration) as configuration_count,
        count(distinct scenario) as scenario_count,
        count(distinct hardware_model) as hardware_model_count,
        {{ mqcap_string_agg('platform', "', '", 'platform', distinct=true) }} as platforms,
        {{ mqcap_string_agg('hardware_model', "', '", 'hardware_model', distinct=true) }} as hardware_models,
        {{ mqcap_string_agg('scenario', "', '", 'scenario', distinct=true) }} as scenarios,
        {{ mqcap_string_agg('workload_type', "', '", 'workload_type', distinct=true) }} as workload_types,
        min(message_bytes) as min_message_bytes,
        max(message_bytes) as max_message_bytes,
        min(interval_start) as first_run_start_local,
        max(interval_end) as last_run_end_local,
        cast(count_if(interval_start is null) as bigint) as runs_without_interval
    from runs
    group by study
),

systems as (
    -- Missing values read as '' (grouped together and left out of the phrase).
    select
        study,
        platform,
        host,
        hardware_model,
        system_id,
        qmgr,
        row_number() over (
            partition by study order by platform, host, hardware_model, system_id, qmgr
        ) as system_order,
        coalesce(
            nullif(
                concat_ws(
                    ', ',
                    case platform
                        when '' then null
                        when 'zos' then 'z/OS'
                        when 'appliance' then 'MQ Appliance'
                        else platform
                    end,
                    'host ' || nullif(host, ''),
                    'model ' || nullif(hardware_model, ''),
                    'system ' || nullif(system_id, ''),
                    'queue manager ' || nullif(qmgr, '')
                ),
                ''
            ),
            'a system the manifests do not name'
        )
        || ' (' || cast(system_runs as {{ dbt.type_string() }})
        || case when system_runs = 1 then ' run)' else ' runs)' end as phrase
    from (
        select
            study,
            coalesce(platform, '') as platform,
            coalesce(host, '') as host,
            coalesce(hardware_model, '') as hardware_model,
            coalesce(system_id, '') as system_id,
            coalesce(qmgr, '') as qmgr,
            count(*) as system_runs
        from runs
        group by
            study,
            coalesce(platform, ''),
            coalesce(host, ''),
            coalesce(hardware_model, ''),
            coalesce(system_id, ''),
            coalesce(qmgr, '')
    ) as grouped
),

measured_on as (
    select
        study,
        {{ mqcap_string_agg('phrase', "'; '", 'system_order') }} as systems_measured
    from systems
    group by study
),

shared_labels as (
    -- Labels every run of the study has, with one value.
    select
        study,
        {{ mqcap_string_agg("label || '=' || value", "', '", 'label') }} as shared_labels
    from (
        select
            runs.study,
            run_labels.label,
            run_labels.value
        from {{ ref('stg_manifest__run_labels') }} as run_labels
        inner join runs on run_labels.run_key = runs.run_key
        group by runs.study, run_labels.label, run_labels.value
        having count(*) = max(runs.study_runs)
    ) as shared
    group by study
),

workloads as (
    select
        study,
        workload_type,
        count(*) as workload_runs
    from runs
    group by study, workload_type
),

shown_dimensions as (
    -- 'a', 'a and b', 'a, b and c': the phrases in dimension order.
    select
        study,
        workload_type,
        case
            when count(*) = 1 then max(phrase)
            else
                {{ mqcap_string_agg(
                    'case when from_end > 1 then phrase end', "', '", 'dimension_order'
                ) }}
                || ' and ' || max(case when from_end = 1 then phrase end)
        end as phrase_list
    from (
        select
            study,
            workload_type,
            phrase,
            dimension_order,
            row_number() over (
                partition by study, workload_type order by dimension_order desc
            ) as from_end
        from {{ ref('int_study_dimensions') }}
        where is_shown
    ) as shown
    group by study, workload_type
),

workload_phrases as (
    select
        workloads.study,
        workloads.workload_type,
        workloads.workload_runs,
        cast(workloads.workload_runs as {{ dbt.type_string() }}) || ' '
        || case workloads.workload_type
            when 'request_reply' then 'request/reply'
            when 'put_get' then 'put/get'
            when 'channel_start' then 'channel-start'
            when 'channel_stop' then 'channel-stop'
            else replace(workloads.workload_type, '_', ' ')
        end
        || case when workloads.workload_runs = 1 then ' run' else ' runs' end
        || coalesce(' over ' || shown_dimensions.phrase_list, '') as phrase
    from workloads
    left join shown_dimensions
        on
            workloads.study = shown_dimensions.study
            and workloads.workload_type = shown_dimensions.workload_type
),

summaries as (
    select
        study,
        case
            when count(*) = 1 then max(phrase)
            else
                cast(sum(workload_runs) as {{ dbt.type_string() }}) || ' runs: '
                || {{ mqcap_string_agg('phrase', "'; '", 'workload_runs desc, workload_type asc') }}
        end as run_summary
    from workload_phrases
    group by study
),

questions as (
    select
        study,
        {{ mqcap_string_agg('measure', "', '", 'sort_order') }} as question_measures
    from {{ ref('stg_manifest__study_question_measures') }}
    group by study
),

baselines as (
    select
        study,
        {{ mqcap_string_agg(
            'case when is_baseline then configuration end', "', '", 'sort_order'
        ) }} as baseline_configuration,
        {{ mqcap_string_agg('baseline_problem', "'; '", 'sort_order') }} as baseline_problem
    from configurations
    group by study
)

select
    by_study.study,
    coalesce(study_files.title, by_study.study) as title,
    study_files.purpose,
    baselines.baseline_configuration,
    baselines.baseline_problem,
    questions.question_measures,
    coalesce(study_files.notes_json, '[]') as notes_json,
    coalesce(
        study_files.group_by_json,
        '[' || concat_ws(
            ',',
            case when by_study.scenario_count > 1 then '"scenario"' end,
            case when by_study.hardware_model_count > 1 then '"hardware_model"' end
        ) || ']'
    ) as group_by_json,
    study_files.study is not null as has_study_file,
    by_study.platforms,
    by_study.hardware_models,
    by_study.scenarios,
    by_study.workload_types,
    by_study.min_message_bytes,
    by_study.max_message_bytes,
    by_study.run_count,
    by_study.configuration_count,
    summaries.run_summary,
    coalesce(shapes.shapes_json, '[]') as shapes_json,
    by_study.first_run_start_local,
    by_study.last_run_end_local,
    by_study.runs_without_interval,
    measured_on.systems_measured,
    shared_labels.shared_labels
from by_study
left join measured_on on by_study.study = measured_on.study
left join shared_labels on by_study.study = shared_labels.study
left join study_files on by_study.study = study_files.study
left join baselines on by_study.study = baselines.study
left join questions on by_study.study = questions.study
left join shapes on by_study.study = shapes.study
left join summaries on by_study.study = summaries.study
