-- One row per study x finding: the answer to the study's question, as sentences with their
-- numbers (all computed here from the marts), in the order a reader needs them. What the
-- question is comes from the study's shape (fct_study_shape) and the comparisons its runs
-- declare (run.yaml `baseline:`, dim_configuration):
--   change_point          builds or versions: each change point (fct_change_points) per history
--                         step and measure, with how many series show it and by how much;
--   sweep_headline        thread sweeps: per variant configuration and group (scenario x
--                         hardware model), maximum throughput and single-thread round trip
--                         against the series the runs name as baseline (fct_sweep_summary),
--                         the mean and range over message sizes and persistence;
--   target_not_sustained  rate targets: a run achieving less than the sustained threshold, with
--                         the backlog evidence judged by growth and by level (fct_rate_target);
--   key_step              channel starts over key strengths: start time and CHIN cost per
--                         channel per step to the next stronger key (fct_channel_start_key_steps);
--   pair_change           other request/reply and streaming studies: per declared pair
--                         (configuration, its baseline, the labels that vary within it) the round
--                         trip and CPU per transaction against the baseline at the smallest and
--                         the largest message size (fct_comparison; never from a replicate set
--                         whose difference is inside the noise);
--   saturation            thread sweeps: in how many series throughput stops growing, and the
--                         highest throughput reached;
--   cost_per_kb           fitted CPU per transaction against message size (fct_fit, R-squared
--                         at least 0.9): one finding per configuration with its baseline's figures.
-- finding_rank orders by kind, then magnitude (|% change| or shortfall); the report shows the
-- first eight (is_headline) and the others after them. section_anchor, the report section a
-- finding links to, comes from seeds/finding_sections.csv (kind and measure, else the kind's
-- '*' row), which python -m mqcap.codegen writes from the report's sections
-- (mqcap.sections.registry).
-- Its row checks read report_sections (macros/row_checks.sql), so it is built after it:
-- depends_on: {{ ref('report_sections') }}
{% set headline_count = 8 %}
with sweep as (
    select * from {{ ref('int_sweep_summary') }}
),

targets as (
    select * from {{ ref('int_rate_target') }}
),

comparison as (
    select * from {{ ref('int_comparison') }}
),

fits as (
    select * from {{ ref('int_fit') }}
),

shapes as (
    select * from {{ ref('int_study_shape') }}
),

runs as (
    select * from {{ ref('dim_run') }}
),

run_sets as (
    select * from {{ ref('dim_run_set') }}
),

change_points as (
    select * from {{ ref('int_change_points') }}
),

key_steps as (
    select * from {{ ref('int_channel_start_key_steps') }}
),

links as (
    -- The section each kind of finding (and measure) links to: mqcap.sections.registry.
    select * from {{ ref('finding_sections') }}
),

question as (
    -- The measures a study file's question names (study.yaml question.measures), in order.
    select * from {{ ref('stg_manifest__study_question_measures') }}
),

asked as (
    select distinct study from question
),

sweep_asks as (
    -- Which thread-sweep figures a study's headline gives: both unless its question names
    -- measures, then those it names.
    select
        studies.study,
        asked.study is null or max(case when question.measure = 'max_rate_per_s' then 1 end) = 1
            as asks_rate,
        asked.study is null
        or max(case when question.measure = 'single_thread_round_trip_us' then 1 end) = 1
            as asks_latency
    from (select distinct study from sweep) as studies
    left join asked on studies.study = asked.study
    left join question on studies.study = question.study
    group by studies.study, asked.study
),

-- ---------------------------------------------------------------------------- change points
change_steps as (
    select
        study,
        history_label_before,
        history_label_after,
        min(history_order_after) as history_order_after,
        measure,
        subject,
        max(unit) as unit,
        count(*) as series,
        avg(pct_change) as pct_mean,
        min(pct_change) as pct_low,
        max(pct_change) as pct_high,
        min(configuration) as configuration
    from change_points
    where pct_change is not null
    group by study, history_label_before, history_label_after, measure, subject
),

change_point as (
    select
        study,
        'change_point' as kind,
        1 as kind_order,
        {{ capitalized(measure_text('measure', 'subject')) }} || ' changes between '
        || history_label_before || ' and ' || history_label_after || ': '
        || {{ pct_text('pct_mean') }}
        || case
            when series > 1
                then
                    ' on average over ' || cast(series as {{ dbt.type_string() }}) || ' series ('
                    || {{ pct_text('pct_low') }} || ' to ' || {{ pct_text('pct_high') }} || ')'
            else ' (' || configuration || ')'
        end
        || '.' as sentence,
        pct_mean as value,
        'percent' as unit,
        abs(pct_mean) as magnitude,
        configuration,
        measure,
        history_label_after as subject
    from change_steps
),

-- ---------------------------------------------------------------------- thread-sweep headline
sweep_groups as (
    select
        study,
        configuration,
        max(baseline_configuration) as baseline_configuration,
        scenario,
        hardware_model,
        -- labels the group holds apart too (a topology): shown by their values
        replace(
            {{ mqcap_regexp_replace_all('point_labels', "'[a-z0-9_]+='", "''") }}, '; ', ', '
        ) as group_labels,
        count(max_rate_pct_change) as rate_series,
        avg(max_rate_pct_change) as rate_pct_mean,
        min(max_rate_pct_change) as rate_pct_low,
        max(max_rate_pct_change) as rate_pct_high,
        count(single_thread_round_trip_pct_change) as latency_series,
        avg(single_thread_round_trip_pct_change) as latency_pct_mean,
        min(single_thread_round_trip_pct_change) as latency_pct_low,
        max(single_thread_round_trip_pct_change) as latency_pct_high
    from sweep
    where baseline_series_key is not null
    group by study, configuration, scenario, hardware_model, point_labels
),

sweep_groups_asked as (
    select
        sweep_groups.*,
        sweep_asks.asks_rate,
        sweep_asks.asks_latency
    from sweep_groups
    inner join sweep_asks on sweep_groups.study = sweep_asks.study
),

sweep_headline as (
    select
        study,
        'sweep_headline' as kind,
        2 as kind_order,
        coalesce(
            nullif(concat_ws(', ', scenario, hardware_model, group_labels), '') || ': ', ''
        )
        || configuration || ' against ' || baseline_configuration
        || case
            when asks_rate
                then
                    ', maximum throughput ' || {{ pct_text('rate_pct_mean') }}
                    || case
                        when
                            rate_series > 1
                            and {{ pct_text('rate_pct_low') }} <> {{ pct_text('rate_pct_high') }}
                            then
                                ' (' || {{ pct_text('rate_pct_low') }} || ' to '
                                || {{ pct_text('rate_pct_high') }} || ' over '
                                || cast(rate_series as {{ dbt.type_string() }})
                                || ' message sizes)'
                        else ''
                    end
            else ''
        end
        || coalesce(
            case when not asks_latency then '' end,
            ', single-thread round trip ' || {{ pct_text('latency_pct_mean') }}
            || case
                when
                    latency_series > 1
                    and {{ pct_text('latency_pct_low') }} <> {{ pct_text('latency_pct_high') }}
                    then
                        ' (' || {{ pct_text('latency_pct_low') }} || ' to '
                        || {{ pct_text('latency_pct_high') }} || ')'
                else ''
            end,
            ''
        )
        || '.' as sentence,
        case when asks_rate then rate_pct_mean else latency_pct_mean end as value,
        'percent' as unit,
        abs(case when asks_rate then rate_pct_mean else latency_pct_mean end) as magnitude,
        configuration,
        case when asks_rate then 'max_rate_per_s' else 'single_thread_round_trip_us' end
            as measure,
        coalesce(nullif(concat_ws(', ', scenario, hardware_model, group_labels), ''), '-')
            as subject
    from sweep_groups_asked
    where rate_series > 0 and (asks_rate or asks_latency)
),

-- -------------------------------------------------------------------------- rate targets
unsustained as (
    select
        study,
        'target_not_sustained' as kind,
        3 as kind_order,
        configuration || ' at ' || {{ size_text('message_bytes') }}
        || coalesce(', ' || nullif({{ group_text('scenario', 'hardware_model') }}, ''), '')
        || ' does not sustain the target of '
        || {{ num_text('target_rate_per_s') }} || '/s: ' || {{ num_text('achieved_rate_per_s') }}
        || '/s achieved (' || {{ num_text('achieved_pct', 1) }} || '% of target, below '
        || {{ num_text('sustained_threshold_pct') }} || '%)'
        || coalesce(
            '; XQTIME p95 ' || {{ duration_text('xqtime_p95_us') }}
            || case
                when backlog = 'growing' then ', growing during the run: a backlog builds'
                when backlog = 'standing' then ', a standing backlog (messages wait a second or more)'
                else ', not growing'
            end,
            '; no XQTIME captured: the backlog is unknown'
        )
        || '.' as sentence,
        achieved_pct as value,
        'percent of target' as unit,
        100 - achieved_pct as magnitude,
        configuration,
        'achieved_pct' as measure,
        run_key as subject
    from targets
    where not sustained
),

-- -------------------------------------------------------------------- channel start key steps
steps as (
    select
        study,
        replace(
            coalesce(from_key_strength, cast(from_key_bits as {{ dbt.type_string() }}) || '-bit'),
            '_', ' '
        ) as from_key,
        replace(
            coalesce(to_key_strength, cast(to_key_bits as {{ dbt.type_string() }}) || '-bit'),
            '_', ' '
        ) as to_key,
        min(from_key_bits) as from_bits,
        count(*) as ciphers,
        avg(time_increase_pct) as time_pct_mean,
        min(time_increase_pct) as time_pct_low,
        max(time_increase_pct) as time_pct_high,
        avg(chin_cost_increase_pct) as chin_pct_mean
    from key_steps
    where time_increase_pct is not null
    group by
        study,
        replace(
            coalesce(from_key_strength, cast(from_key_bits as {{ dbt.type_string() }}) || '-bit'),
            '_', ' '
        ),
        replace(
            coalesce(to_key_strength, cast(to_key_bits as {{ dbt.type_string() }}) || '-bit'),
            '_', ' '
        )
),

key_step as (
    select
        study,
        'key_step' as kind,
        4 as kind_order,
        'Channel start time from ' || from_key || ' to ' || to_key || ' keys: '
        || {{ pct_text('time_pct_mean') }}
        || case
            when ciphers > 1
                then
                    ' on average over ' || cast(ciphers as {{ dbt.type_string() }}) || ' ciphers ('
                    || {{ pct_text('time_pct_low') }} || ' to ' || {{ pct_text('time_pct_high') }}
                    || ')'
            else ''
        end
        || coalesce('; CHIN CPU per channel ' || {{ pct_text('chin_pct_mean') }}, '')
        || '.' as sentence,
        time_pct_mean as value,
        'percent' as unit,
        -- Steps in key order, whatever their size: the reader follows the keys up.
        1000000.0 - from_bits as magnitude,
        cast(null as {{ dbt.type_string() }}) as configuration,
        'time_per_channel_us' as measure,
        from_key || ' -> ' || to_key as subject
    from steps
),

-- ------------------------------------------------------------------------- declared pairs
sweep_studies as (
    select study from shapes
    where shape = 'thread_sweep'
),

inside_noise as (
    -- Runs whose replicate set shows no significant change against its baseline set
    -- (fct_replicate_comparison, 2+ runs on each side): no finding from inside the noise.
    select
        sets.run_key,
        noise.measure,
        noise.subject
    from {{ ref('dim_run_set') }} as sets
    inner join {{ ref('int_replicate_comparison') }} as noise on sets.set_key = noise.set_key
    where noise.verdict = 'no significant change'
),

pair_runs as (
    -- What a pair varies along: message size between configurations; within one
    -- configuration (runs naming runs of their own configuration) the recipients or threads
    -- that differ from the baseline run's.
    select
        comparison.*,
        coalesce(question.sort_order, case comparison.measure when 'round_trip_us' then 1 else 2 end)
            as measure_order,
        coalesce(run_sets.point_labels, '') as point_labels,
        -- The run's group (scenario, hardware model): pairs are told per group, never
        -- averaged over groups that may behave differently.
        {{ group_text('variant.scenario', 'variant.hardware_model') }} as group_label,
        case
            when comparison.configuration <> comparison.baseline_configuration then 'size'
            when coalesce(variant.recipients, -1) <> coalesce(base.recipients, -1) then 'recipients'
            when coalesce(variant.threads, -1) <> coalesce(base.threads, -1) then 'threads'
            else 'size'
        end as x_kind,
        case
            when comparison.configuration <> comparison.baseline_configuration
                then comparison.message_bytes
            when coalesce(variant.recipients, -1) <> coalesce(base.recipients, -1) then variant.recipients
            when coalesce(variant.threads, -1) <> coalesce(base.threads, -1) then variant.threads
            else comparison.message_bytes
        end as x_value,
        case
            when comparison.configuration = comparison.baseline_configuration
                then
                    case
                        when coalesce(variant.recipients, -1) <> coalesce(base.recipients, -1)
                            then base.recipients
                        when coalesce(variant.threads, -1) <> coalesce(base.threads, -1) then base.threads
                        -- a run named against a run of its own configuration at another size
                        when coalesce(variant.message_bytes, -1) <> coalesce(base.message_bytes, -1)
                            then base.message_bytes
                    end
        end as base_x_value
    from comparison
    inner join runs as variant on comparison.run_key = variant.run_key
    inner join runs as base on comparison.baseline_run_key = base.run_key
    inner join run_sets on comparison.run_key = run_sets.run_key
    left join sweep_studies on comparison.study = sweep_studies.study
    left join inside_noise
        on
            comparison.run_key = inside_noise.run_key
            and comparison.measure = inside_noise.measure
            and comparison.subject = inside_noise.subject
    left join asked on comparison.study = asked.study
    left join question
        on comparison.study = question.study and comparison.measure = question.measure
    where
        comparison.pct_change is not null
        and inside_noise.run_key is null
        -- A thread sweep's pairs are told by its headline (maximum throughput, single-thread
        -- round trip), unless its question names this measure (study.yaml question.measures:
        -- queue manager CPU, log latency... the headline does not give).
        and (sweep_studies.study is null or question.measure is not null)
        -- channel measures of channel start/stop runs, message measures of the others
        and (variant.workload_type in ('channel_start', 'channel_stop'))
        = (comparison.measure in ('time_per_channel_us', 'channel_rate_per_s', 'cpu_us_per_channel'))
        and comparison.subject in ('TOTAL', 'RUN', 'QMGR', 'HOST')
        and (
            question.measure is not null
            or (asked.study is null and comparison.measure in ('round_trip_us', 'cpu_us_per_txn'))
        )
),

pair_points as (
    -- Per declared pair (configuration, baseline configuration, labels varying within the
    -- configuration), measure and point along x: the mean % change of its runs.
    select
        study,
        group_label,
        configuration,
        baseline_configuration,
        point_labels,
        x_kind,
        max(base_x_value) as base_x_value,
        measure,
        min(measure_order) as measure_order,
        x_value,
        avg(pct_change) as pct_change
    from pair_runs
    group by
        study, group_label, configuration, baseline_configuration, point_labels, x_kind, measure,
        x_value
),

pair_measures as (
    select
        study,
        group_label,
        configuration,
        baseline_configuration,
        point_labels,
        x_kind,
        max(base_x_value) as base_x_value,
        measure,
        min(measure_order) as measure_order,
        count(*) as points,
        min(x_value) as small_x,
        max(x_value) as large_x,
        {{ mqcap_arg_min('pct_change', 'x_value') }} as small_pct,
        {{ mqcap_arg_max('pct_change', 'x_value') }} as large_pct,
        max(abs(pct_change)) as largest_abs_pct
    from pair_points
    group by study, group_label, configuration, baseline_configuration, point_labels, x_kind, measure
),

pair_texts as (
    select
        *,
        {{ measure_text('measure', "'TOTAL'") }} || ' '
        || case
            when points > 1
                then
                    {{ pct_text_fine('small_pct') }} || ' at ' || {{ x_text('x_kind', 'small_x') }}
                    || ' to ' || {{ pct_text_fine('large_pct') }} || ' at '
                    || {{ x_text('x_kind', 'large_x') }}
            when small_x is null then {{ pct_text_fine('small_pct') }}
            else {{ pct_text_fine('small_pct') }} || ' at ' || {{ x_text('x_kind', 'small_x') }}
        end as piece
    from pair_measures
),

pair_change as (
    select
        study,
        'pair_change' as kind,
        5 as kind_order,
        coalesce(nullif(group_label, '') || ': ', '')
        || configuration
        || case
            when point_labels <> ''
                then
                    ' ('
                    || replace(
                        {{ mqcap_regexp_replace_all(
                            "replace(point_labels, 'tls_version=', 'TLS ')", "'[a-z0-9_]+='", "''"
                        ) }},
                        '; ', ', '
                    )
                    || ')'
            else ''
        end
        || ' against '
        || case
            when configuration = baseline_configuration and max(base_x_value) is not null
                then 'its runs at ' || {{ x_text('max(x_kind)', 'max(base_x_value)') }}
            else baseline_configuration
        end
        || ': '
        || {{ mqcap_string_agg('piece', "'; '", 'measure_order') }} || '.' as sentence,
        {{ mqcap_arg_min('large_pct', 'measure_order') }} as value,
        'percent' as unit,
        max(largest_abs_pct) as magnitude,
        configuration,
        {{ mqcap_arg_min('measure', 'measure_order') }} as measure,
        baseline_configuration || '|' || point_labels || '|' || x_kind
        || coalesce('|' || nullif(group_label, ''), '') as subject
    from pair_texts
    group by study, group_label, configuration, baseline_configuration, point_labels, x_kind
),

-- ----------------------------------------------------------------------------- saturation
sweep_tops as (
    select
        study,
        count(*) as series,
        cast(sum(case when saturates then 1 else 0 end) as bigint) as saturating,
        max(saturation_threshold_pct) as threshold_pct,
        max(case when top_rank = 1 then configuration end) as top_configuration,
        max(case when top_rank = 1 then max_rate_per_s end) as top_rate_per_s,
        max(case when top_rank = 1 then threads_at_max end) as top_threads,
        max(case when top_rank = 1 then message_bytes end) as top_message_bytes,
        max(case when top_rank = 1 then scenario end) as top_scenario,
        max(case when top_rank = 1 then hardware_model end) as top_hardware_model
    from (
        select
            *,
            row_number() over (
                partition by study order by max_rate_per_s desc nulls last, series_key asc
            ) as top_rank
        from sweep
    ) as ranked
    group by study
),

saturation as (
    select
        study,
        'saturation' as kind,
        6 as kind_order,
        'Throughput stops growing (the last doubling of threads adds less than '
        || {{ num_text('threshold_pct') }} || '%) in ' || cast(saturating as {{ dbt.type_string() }})
        || ' of ' || cast(series as {{ dbt.type_string() }}) || ' series; the highest is '
        || {{ num_text('top_rate_per_s') }} || '/s, ' || top_configuration || ' with '
        || cast(top_threads as {{ dbt.type_string() }})
        || case when top_threads = 1 then ' thread' else ' threads' end || ' ('
        || {{ size_text('top_message_bytes') }}
        || coalesce(', ' || nullif({{ group_text('top_scenario', 'top_hardware_model') }}, ''), '')
        || ').' as sentence,
        cast(saturating as double) * 100 / series as value,
        'percent of series' as unit,
        cast(saturating as double) * 100 / series as magnitude,
        top_configuration as configuration,
        'saturates' as measure,
        study as subject
    from sweep_tops
),

-- ------------------------------------------------------------------------- fitted cost per KB
size_fits as (
    select
        study,
        configuration,
        count(*) as fit_count,
        min(slope_a * 1024) as kb_low,
        max(slope_a * 1024) as kb_high,
        min(r_squared) as min_r_squared,
        max(slope_a * max_x / nullif(slope_a * max_x + intercept_b, 0) * 100) as size_share_pct
    from fits
    where
        x_name = 'message_bytes' and measure = 'cpu_us_per_txn' and subject = 'TOTAL'
        -- a line through two sizes fits them exactly (R² 1 says nothing): three at least
        and r_squared >= 0.9 and n_points >= 3
    group by study, configuration
),

size_pairs as (
    -- The configuration a configuration's runs are compared with across message sizes, when
    -- they name one only (its fits are shown beside).
    select
        study,
        configuration,
        min(baseline_configuration) as baseline_configuration
    from pair_runs
    where x_kind = 'size' and configuration <> baseline_configuration
    group by study, configuration
    having count(distinct baseline_configuration) = 1
),

fit_pairs as (
    select
        size_fits.*,
        base.configuration as baseline_configuration,
        base.fit_count as baseline_fit_count,
        base.kb_low as baseline_kb_low,
        base.kb_high as baseline_kb_high
    from size_fits
    left join size_pairs
        on
            size_fits.study = size_pairs.study
            and size_fits.configuration = size_pairs.configuration
    left join size_fits as base
        on
            size_fits.study = base.study
            and size_pairs.baseline_configuration = base.configuration
),

fit_baselines as (
    -- A configuration shown beside its variant in that variant's finding has none of its own.
    select distinct
        study,
        baseline_configuration as configuration
    from fit_pairs
    where baseline_configuration is not null
),

cost_per_kb as (
    select
        fit_pairs.study,
        'cost_per_kb' as kind,
        7 as kind_order,
        'Fitted CPU per transaction of ' || fit_pairs.configuration || ' grows '
        || {{ range_text('fit_pairs.kb_low', 'fit_pairs.kb_high', 1) }}
        || ' µs per further KB'
        || case
            when fit_pairs.fit_count > 1
                then ' over ' || cast(fit_pairs.fit_count as {{ dbt.type_string() }}) || ' fits'
            else ''
        end
        || coalesce(
            ', against ' || {{ range_text('fit_pairs.baseline_kb_low', 'fit_pairs.baseline_kb_high', 1) }}
            || ' µs for ' || fit_pairs.baseline_configuration,
            ''
        )
        -- the least R² of several fits; of one fit, its own
        || ' (R² ' || case when fit_pairs.fit_count > 1 then 'at least ' else '' end
        || {{ num_text('fit_pairs.min_r_squared', 3) }} || ').' as sentence,
        fit_pairs.kb_high as value,
        'CPU microseconds per KB' as unit,
        fit_pairs.size_share_pct as magnitude,
        fit_pairs.configuration,
        'cpu_us_per_txn' as measure,
        coalesce(fit_pairs.baseline_configuration, '-') as subject
    from fit_pairs
    left join fit_baselines
        on fit_pairs.study = fit_baselines.study and fit_pairs.configuration = fit_baselines.configuration
    where fit_baselines.configuration is null
),

found as (
    select * from change_point
    union all
    select * from sweep_headline
    union all
    select * from unsustained
    union all
    select * from key_step
    union all
    select * from pair_change
    union all
    select * from saturation
    union all
    select * from cost_per_kb
),

ranked as (
    select
        *,
        row_number() over (
            partition by study
            order by kind_order asc, magnitude desc nulls last, configuration asc, subject asc
        ) as finding_rank
    from found
)

select
    ranked.study || '|' || cast(ranked.finding_rank as {{ dbt.type_string() }}) as finding_key,
    ranked.study,
    ranked.finding_rank,
    ranked.finding_rank <= {{ headline_count }} as is_headline,
    ranked.kind,
    ranked.sentence,
    ranked.value,
    ranked.unit,
    ranked.magnitude,
    cast(1.0 as double) as certainty,
    -- the section of the finding's kind and measure, else of its kind (measure '*')
    coalesce(by_measure.section_anchor, by_kind.section_anchor) as section_anchor,
    ranked.configuration,
    ranked.measure,
    ranked.subject
from ranked
left join links as by_measure on ranked.kind || '|' || ranked.measure = by_measure.finding_link
left join links as by_kind on ranked.kind || '|*' = by_kind.finding_link
