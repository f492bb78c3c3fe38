-- One row per study x configuration measured: display name, report order, baseline flag.
-- From the study file (study.yaml) where it lists the configuration; otherwise defaults:
-- display name = the manifest's configuration; order = listed ones first, then the others by
-- their earliest run start (local time), then by name (runs without intervals); baseline = the
-- study file's, else the configuration most non-baseline runs point to as their baseline run's
-- configuration, else the first in order.
with runs as (
    select * from {{ ref('int_runs') }}
),

listed as (
    select * from {{ ref('stg_manifest__study_configurations') }}
),

study_files as (
    select * from {{ ref('stg_manifest__studies') }}
),

configurations as (
    select
        study,
        configuration,
        count(*) as run_count,
        min(interval_start) as first_run_start_local,
        cast(count_if(is_baseline) as bigint) as baseline_run_count
    from runs
    group by study, configuration
),

pointed_to as (
    -- How many variant runs name a run of each configuration as their baseline.
    select
        variant.study,
        base.configuration,
        count(*) as runs_pointing
    from runs as variant
    inner join runs as base on variant.baseline_run_key = base.run_key
    where not variant.is_baseline
    group by variant.study, base.configuration
),

ordered as (
    select
        configurations.*,
        listed.display_name as listed_display_name,
        listed.sort_order as listed_order,
        coalesce(pointed_to.runs_pointing, 0) as runs_pointing,
        row_number() over (
            partition by configurations.study
            order by
                listed.sort_order nulls last,
                configurations.first_run_start_local nulls last,
                configurations.configuration
        ) as sort_order
    from configurations
    left join listed
        on
            configurations.study = listed.study
            and configurations.configuration = listed.configuration
    left join pointed_to
        on
            configurations.study = pointed_to.study
            and configurations.configuration = pointed_to.configuration
),

chosen as (
    select
        ordered.study,
        coalesce(
            max(study_files.baseline_configuration),
            {{ mqcap_arg_max(
                'case when ordered.runs_pointing > 0 then ordered.configuration end',
                'ordered.runs_pointing * 100000 - ordered.sort_order'
            ) }},
            {{ mqcap_arg_min('ordered.configuration', 'ordered.sort_order') }}
        ) as baseline_configuration,
        case
            when max(study_files.baseline_configuration) is not null then 'study_file'
            when max(ordered.runs_pointing) > 0 then 'run_baselines'
            else 'first_configuration'
        end as baseline_source
    from ordered
    left join study_files on ordered.study = study_files.study
    group by ordered.study
)

select
    ordered.study || '|' || ordered.configuration as configuration_key,
    ordered.study,
    ordered.configuration,
    coalesce(ordered.listed_display_name, ordered.configuration) as display_name,
    ordered.sort_order,
    ordered.configuration = chosen.baseline_configuration as is_baseline,
    chosen.baseline_source,
    ordered.listed_order is not null as listed_in_study_file,
    ordered.run_count,
    ordered.runs_pointing as runs_pointing_here_as_baseline,
    ordered.first_run_start_local
from ordered
inner join chosen on ordered.study = chosen.study
