-- One row per study x configuration measured: display name, report order, baseline.
-- From the study file (study.yaml) where it lists the configuration; otherwise defaults:
-- display name = the configuration (int_runs: what varies within a scenario x hardware model
-- group); order = listed ones first, then the others by their earliest run start (local time),
-- then by name (runs without intervals).
-- Baselines follow what the user declared (README "The study model"):
--   * a run's `baseline:` pairs it with that run; a configuration whose runs name runs of
--     other configurations is compared with those (baseline_configuration when they are all of
--     one configuration, compared_with lists them all);
--   * the study's baseline configuration stands in for runs that name no baseline: the study
--     file's `baseline:`, else the configuration the declared pairs point to when there is one,
--     else (no pairs declared at all) the first configuration in order;
--   * several configurations pointed to and runs that name none: the study baseline cannot be
--     decided; baseline_source = 'undecided', baseline_problem names the candidates (the run
--     reports it and exits 1, the report shows it). Never a tie broken in silence.
-- What the configurations table of the report shows (README "The study model"): workload
-- types, the distinct message sizes ('2 KB, 1 MB'), variant_summary (what varies between the
-- configuration's runs, one clause per run dimension: numbers in numeric order, more than 12
-- as their range, text in natural order) and shared_labels (the labels all its runs share,
-- less those every run of the study shares and those whose value its display name already
-- says, underscores read as spaces).
{% set details = [
    'cipher', 'recipients', 'key_strength', 'sslrkeyc', 'persistence', 'scenario',
    'hardware_model', 'threads',
] %}
{% set numeric_details = ['recipients', 'threads'] %}
with runs as (
    select * from {{ ref('int_runs') }}
),

listed as (
    select * from {{ ref('stg_manifest__study_configurations') }}
),

study_files as (
    select * from {{ ref('stg_manifest__studies') }}
),

run_labels as (
    select
        runs.study,
        runs.configuration,
        labels.label,
        labels.value
    from {{ ref('stg_manifest__run_labels') }} as labels
    inner join runs on labels.run_key = runs.run_key
),

study_labels as (
    -- Labels every run of the study has, with one value.
    select
        run_labels.study,
        run_labels.label
    from run_labels
    inner join (
        select
            study,
            count(*) as study_runs
        from runs
        group by study
    ) as counted on run_labels.study = counted.study
    group by run_labels.study, run_labels.label, run_labels.value, counted.study_runs
    having count(*) = counted.study_runs
),

configuration_labels as (
    -- Labels every run of the configuration has, with one value, as label=value.
    select
        run_labels.study,
        run_labels.configuration,
        run_labels.label,
        run_labels.value
    from run_labels
    inner join (
        select
            study,
            configuration,
            count(*) as configuration_runs
        from runs
        group by study, configuration
    ) as counted
        on
            run_labels.study = counted.study
            and run_labels.configuration = counted.configuration
    group by
        run_labels.study, run_labels.configuration, run_labels.label, run_labels.value,
        counted.configuration_runs
    having count(*) = counted.configuration_runs
),

run_details as (
    -- The run dimensions a configuration's runs may differ in (mqcap.sections.labels
    -- DETAIL_COLUMNS, in that order): numbers keep their value to sort by, text its natural
    -- sort key.
    select
        study,
        configuration,
        detail_order,
        detail,
        value_text,
        value_number,
        {{ mqcap_natural_key('value_text') }} as natural_key
    from (
        {% for column in details %}
            select
                study,
                configuration,
                {{ loop.index }} as detail_order,
                '{{ column }}' as detail,
                {% if column in numeric_details %}
                    {{ num_text(column) }} as value_text,
                    cast({{ column }} as double) as value_number
                {% else %}
                    {{ column }} as value_text,
                    cast(null as double) as value_number
                {% endif %}
            from runs
            where {{ column }} is not null
            {% if not loop.last %}union all{% endif %}
        {% endfor %}
    ) as details
),

detail_values as (
    select
        study,
        configuration,
        detail_order,
        detail,
        value_text,
        value_number,
        row_number() over (
            partition by study, configuration, detail_order
            order by value_number, natural_key, value_text
        ) as value_pos,
        count(*) over (partition by study, configuration, detail_order) as value_count
    from (
        select distinct
            study,
            configuration,
            detail_order,
            detail,
            value_text,
            value_number,
            natural_key
        from run_details
    ) as distinct_values
),

detail_clauses as (
    -- 'threads: 1, 2, 200'; more than 12 numbers as 'threads: 1–400 (13 values)'.
    select
        study,
        configuration,
        detail_order,
        replace(detail, '_', ' ') || ': '
        || case
            when max(value_number) is not null and max(value_count) > 12
                then
                    max(case when value_pos = 1 then value_text end) || '–'
                    || max(case when value_pos = value_count then value_text end)
                    || ' (' || cast(max(value_count) as {{ dbt.type_string() }}) || ' values)'
            else {{ mqcap_string_agg('value_text', "', '", 'value_pos') }}
        end as clause
    from detail_values
    where value_count > 1
    group by study, configuration, detail_order, detail
),

variants as (
    select
        study,
        configuration,
        {{ mqcap_string_agg('clause', "'; '", 'detail_order') }} as variant_summary
    from detail_clauses
    group by study, configuration
),

sizes as (
    select
        study,
        configuration,
        {{ mqcap_string_agg(size_text('message_bytes'), "', '", 'message_bytes') }}
            as message_sizes
    from (
        select distinct
            study,
            configuration,
            message_bytes
        from runs
        where message_bytes is not null
    ) as distinct_sizes
    group by study, configuration
),

workloads as (
    select
        study,
        configuration,
        {{ mqcap_string_agg('workload_type', "', '", 'workload_type', distinct=true) }}
            as workload_types
    from runs
    group by study, configuration
),

configurations as (
    select
        study,
        configuration,
        count(*) as run_count,
        min(interval_start) as first_run_start_local,
        cast(count_if(is_baseline) as bigint) as baseline_run_count,
        cast(count_if(not baseline_declared) as bigint) as undeclared_run_count,
        -- runs whose declared baseline run is not loaded: "run (names baseline)", said below
        {{ mqcap_string_agg(
            "case when missing_baseline_run_id is not null then run_id || ' (names '"
            ~ " || missing_baseline_run_id || ')' end", "', '", 'run_id'
        ) }} as missing_baselines,
        -- runs that name no baseline and found no single run of the study file's baseline
        -- configuration at their point (int_runs.stand_ins): compared with nothing
        {{ mqcap_string_agg(
            "case when not baseline_declared and not is_baseline and baseline_run_key is null"
            ~ " then run_id end", "', '", 'run_id'
        ) }} as unpaired_runs
    from runs
    group by study, configuration
),

pairs as (
    -- Declared pairs across configurations: variant configuration -> baseline configuration.
    select
        variant.study,
        variant.configuration,
        base.configuration as baseline_configuration,
        count(*) as runs_paired
    from runs as variant
    inner join runs as base on variant.baseline_run_key = base.run_key
    where
        variant.baseline_declared
        and not variant.is_baseline
        and variant.configuration <> base.configuration
    group by variant.study, variant.configuration, base.configuration
),

pointed_to as (
    select
        study,
        baseline_configuration as configuration,
        cast(sum(runs_paired) as bigint) as runs_pointing
    from pairs
    group by study, baseline_configuration
),

own_pairs as (
    select
        study,
        configuration,
        count(*) as paired_configurations,
        min(baseline_configuration) as only_baseline_configuration,
        {{ mqcap_string_agg('baseline_configuration', "', '", 'baseline_configuration') }}
            as compared_with
    from pairs
    group by study, configuration
),

ordered as (
    select
        configurations.*,
        listed.display_name as listed_display_name,
        listed.sort_order as listed_order,
        coalesce(pointed_to.runs_pointing, 0) as runs_pointing,
        coalesce(own_pairs.paired_configurations, 0) as paired_configurations,
        own_pairs.only_baseline_configuration,
        own_pairs.compared_with,
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
    left join own_pairs
        on
            configurations.study = own_pairs.study
            and configurations.configuration = own_pairs.configuration
),

kept_labels as (
    select
        configuration_labels.study,
        configuration_labels.configuration,
        {{ mqcap_string_agg(
            "configuration_labels.label || '=' || configuration_labels.value", "', '",
            'configuration_labels.label'
        ) }} as shared_labels
    from configuration_labels
    inner join ordered
        on
            configuration_labels.study = ordered.study
            and configuration_labels.configuration = ordered.configuration
    left join study_labels
        on
            configuration_labels.study = study_labels.study
            and configuration_labels.label = study_labels.label
    where
        study_labels.label is null
        and instr(
            replace(coalesce(ordered.listed_display_name, ordered.configuration), '_', ' '),
            replace(configuration_labels.value, '_', ' ')
        ) = 0
    group by configuration_labels.study, configuration_labels.configuration
),

candidates as (
    -- Configurations the declared pairs point to that are not themselves compared with
    -- another (in a chain A <- B <- C only A; in a cycle, every configuration pointed to).
    select
        study,
        count(*) as candidate_count,
        min(configuration) as only_candidate,
        {{ mqcap_string_agg('configuration', "', '", 'sort_order') }} as candidate_list
    from (
        select
            ordered.*,
            count_if(ordered.runs_pointing > 0 and ordered.paired_configurations = 0)
                over (partition by ordered.study) as pure_baselines
        from ordered
    ) as marked
    where runs_pointing > 0 and (paired_configurations = 0 or pure_baselines = 0)
    group by study
),

needing as (
    -- Configurations with runs that name no baseline and are not candidates themselves: they
    -- need the study's baseline configuration.
    select
        study,
        {{ mqcap_string_agg('configuration', "', '", 'sort_order') }} as needing_list,
        count(*) as needing_count
    from ordered
    where undeclared_run_count > 0 and runs_pointing = 0
    group by study
),

chosen as (
    select
        studies.study,
        case
            when study_files.baseline_configuration is not null
                then study_files.baseline_configuration
            when candidates.candidate_count = 1 then candidates.only_candidate
            when candidates.candidate_count is null then studies.first_configuration
        end as baseline_configuration,
        case
            when study_files.baseline_configuration is not null then 'study_file'
            when candidates.candidate_count = 1 then 'run_baselines'
            when candidates.candidate_count is null then 'first_configuration'
            when needing.needing_count > 0 then 'undecided'
            else 'run_baselines'
        end as baseline_source,
        candidates.candidate_list,
        candidates.candidate_count,
        needing.needing_list
    from (
        select
            study,
            {{ mqcap_arg_min('configuration', 'sort_order') }} as first_configuration
        from ordered
        group by study
    ) as studies
    left join study_files on studies.study = study_files.study
    left join candidates on studies.study = candidates.study
    left join needing on studies.study = needing.study
)

select
    ordered.study || '|' || ordered.configuration as configuration_key,
    ordered.study,
    ordered.configuration,
    coalesce(ordered.listed_display_name, ordered.configuration) as display_name,
    ordered.sort_order,
    -- A baseline: runs of other configurations name its runs, or it is the study's baseline.
    coalesce(ordered.configuration = chosen.baseline_configuration, false)
    or ordered.runs_pointing > 0 as is_baseline,
    chosen.baseline_source,
    case
        when ordered.paired_configurations = 1 then ordered.only_baseline_configuration
        when ordered.paired_configurations > 1 then null
        when ordered.configuration = chosen.baseline_configuration then null
        when ordered.runs_pointing > 0 then null
        else chosen.baseline_configuration
    end as baseline_configuration,
    case
        when ordered.paired_configurations > 0 then 'run_baselines'
        when ordered.configuration = chosen.baseline_configuration then 'is_baseline'
        when ordered.runs_pointing > 0 then 'is_baseline'
        when chosen.baseline_configuration is not null then chosen.baseline_source
        else 'undecided'
    end as compared_by,
    coalesce(
        ordered.compared_with,
        case
            when
                ordered.configuration <> chosen.baseline_configuration
                and ordered.runs_pointing = 0
                then chosen.baseline_configuration
        end
    ) as compared_with,
    nullif(concat_ws(
        '; ',
        case
            when
                chosen.baseline_source = 'undecided'
                and ordered.undeclared_run_count > 0
                and ordered.runs_pointing = 0
                then
                    'the runs of configuration "' || ordered.configuration || '" name no baseline'
                    || ' and the study baseline configuration cannot be decided: the declared'
                    || ' baselines point to '
                    || cast(chosen.candidate_count as {{ dbt.type_string() }})
                    || ' configurations (' || chosen.candidate_list || '); name one with'
                    || ' `baseline:` in study.yaml or give these runs a `baseline:`'
        end,
        case
            when ordered.missing_baselines is not null
                then
                    'runs of configuration "' || ordered.configuration || '" name a baseline'
                    || ' run that is not loaded (its run.yaml set aside or deleted): '
                    || ordered.missing_baselines || '; they are compared with nothing until'
                    || ' it loads or their `baseline:` names a loaded run'
        end,
        case
            when ordered.unpaired_runs is not null
                then
                    'runs of configuration "' || ordered.configuration || '" name no baseline'
                    || ' and the study baseline configuration "' || chosen.baseline_configuration
                    || '" has no single run at their point: ' || ordered.unpaired_runs
                    || '; they are compared with nothing until each names its `baseline:`'
        end
    ), '') as baseline_problem,
    ordered.listed_order is not null as listed_in_study_file,
    ordered.run_count,
    ordered.undeclared_run_count,
    ordered.runs_pointing as runs_pointing_here_as_baseline,
    ordered.first_run_start_local,
    workloads.workload_types,
    sizes.message_sizes,
    variants.variant_summary,
    kept_labels.shared_labels
from ordered
inner join chosen on ordered.study = chosen.study
left join workloads
    on ordered.study = workloads.study and ordered.configuration = workloads.configuration
left join sizes on ordered.study = sizes.study and ordered.configuration = sizes.configuration
left join variants
    on ordered.study = variants.study and ordered.configuration = variants.configuration
left join kept_labels
    on ordered.study = kept_labels.study and ordered.configuration = kept_labels.configuration
