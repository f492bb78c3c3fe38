-- One row per study: title, purpose, baseline configuration, grouping dimensions, notes (from
-- study.yaml where there is one), platforms, run and configuration counts, recognised shapes.
-- Defaults without a study file: title = the study name; group_by = those of scenario and
-- hardware_model that take 2+ values in the study.
with runs as (
    select * from {{ ref('int_runs') }}
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
        cast(to_json(list(shape order by shape)) as {{ dbt.type_string() }}) as shapes_json
    from {{ ref('fct_study_shape') }}
    group by study
),

by_study as (
    select
        study,
        count(*) as run_count,
        count(distinct configuration) as configuration_count,
        count(distinct scenario) as scenario_count,
        count(distinct hardware_model) as hardware_model_count,
        string_agg(distinct platform, ', ' order by platform) as platforms,
        string_agg(distinct hardware_model, ', ' order by hardware_model) as hardware_models,
        string_agg(distinct scenario, ', ' order by scenario) as scenarios,
        min(interval_start) as first_run_start_local,
        max(interval_end) as last_run_end_local
    from runs
    group by study
),

baselines as (
    select
        study,
        max(case when is_baseline then configuration end) as baseline_configuration
    from configurations
    group by study
)

select
    by_study.study,
    coalesce(study_files.title, by_study.study) as title,
    study_files.purpose,
    baselines.baseline_configuration,
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
    by_study.run_count,
    by_study.configuration_count,
    coalesce(shapes.shapes_json, '[]') as shapes_json,
    by_study.first_run_start_local,
    by_study.last_run_end_local
from by_study
left join study_files on by_study.study = study_files.study
left join baselines on by_study.study = baselines.study
left join shapes on by_study.study = shapes.study
