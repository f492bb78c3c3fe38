-- One row per study x finding: what a reader should know first, as a sentence with its numbers
-- (all computed here from the marts), ranked by size and certainty. Kinds, in report order:
--   max_rate_change      thread sweeps, per configuration: the mean, lowest and highest % change
--                        of maximum throughput against the baseline configuration over the
--                        series (fct_sweep_summary), and the series with the largest change;
--   latency_change       the same for the single-thread round trip;
--   target_not_sustained a run achieving less than the sustained threshold of its target rate
--                        (fct_rate_target), with its XQTIME p95;
--   largest_change       per measure (rate, round trip, CPU per transaction in total, XQTIME
--                        p95), the run with the largest % change against its baseline run
--                        (fct_comparison; rate and round trip only for studies without a sweep;
--                        never a run whose replicate set shows no significant change);
--   saturation           per configuration of a thread sweep: its highest maximum, where it
--                        is reached, and in how many series the last doubling adds < 5%;
--   cost_per_kb          fitted CPU per transaction against message size (fct_fit, R-squared
--                        at least 0.9): the cost of each further KB.
-- magnitude is the size in percent (|% change|, shortfall against target, share of the cost
-- that grows with size at the largest size, last-doubling gain for saturation); certainty is
-- 1 for measured comparisons and R-squared for fits. finding_rank orders by kind then
-- magnitude x certainty.
with sweep as (
    select * from {{ ref('fct_sweep_summary') }}
),

targets as (
    select * from {{ ref('fct_rate_target') }}
),

comparison as (
    select * from {{ ref('fct_comparison') }}
),

fits as (
    select * from {{ ref('fct_fit') }}
),

shapes as (
    select * from {{ ref('fct_study_shape') }}
),

runs as (
    select * from {{ ref('int_runs') }}
),

sweep_by_config as (
    -- Per non-baseline configuration: the spread of its % changes over the sweep series and
    -- the series with the largest change (ties: the first series key).
    select
        study,
        configuration,
        max(baseline_configuration) as baseline_configuration,
        count(max_rate_pct_change) as rate_series,
        min(max_rate_pct_change) as rate_pct_low,
        max(max_rate_pct_change) as rate_pct_high,
        avg(max_rate_pct_change) as rate_pct_mean,
        {{ mqcap_arg_min(
            'series_key',
            'case when max_rate_pct_change is not null then '
            ~ mqcap_row_value(['-abs(max_rate_pct_change)', 'series_key']) ~ ' end'
        ) }} as rate_series_key,
        count(single_thread_round_trip_pct_change) as latency_series,
        min(single_thread_round_trip_pct_change) as latency_pct_low,
        max(single_thread_round_trip_pct_change) as latency_pct_high,
        avg(single_thread_round_trip_pct_change) as latency_pct_mean
    from sweep
    where not is_baseline
    group by study, configuration
),

max_rate_change as (
    select
        sweep_by_config.study,
        'max_rate_change' as kind,
        1 as kind_order,
        'Maximum throughput of ' || sweep_by_config.configuration || ' against '
        || sweep_by_config.baseline_configuration || ': '
        || {{ pct_text('sweep_by_config.rate_pct_mean') }} || ' on average over '
        || cast(sweep_by_config.rate_series as string) || ' series (from '
        || {{ pct_text('sweep_by_config.rate_pct_low') }} || ' to '
        || {{ pct_text('sweep_by_config.rate_pct_high') }} || '); at '
        || {{ size_text('top.message_bytes') }} || {{ where_text('top.scenario', 'top.hardware_model') }}
        || ' ' || {{ num_text('top.max_rate_per_s') }} || '/s with '
        || cast(top.threads_at_max as string) || ' threads against '
        || {{ num_text('top.baseline_max_rate_per_s') }} || '/s with '
        || cast(top.baseline_threads_at_max as string) || ' threads.' as sentence,
        sweep_by_config.rate_pct_mean as value,
        'percent' as unit,
        abs(sweep_by_config.rate_pct_mean) as magnitude,
        1.0 as certainty,
        'sec-thread-sweep' as section_anchor,
        sweep_by_config.configuration,
        'max_rate_per_s' as measure,
        sweep_by_config.configuration as subject
    from sweep_by_config
    inner join sweep as top on sweep_by_config.rate_series_key = top.series_key
    where sweep_by_config.rate_series > 0
),

latency_change as (
    select
        study,
        'latency_change' as kind,
        2 as kind_order,
        'Single-thread round trip of ' || configuration || ' against '
        || baseline_configuration || ': ' || {{ pct_text('latency_pct_mean') }}
        || ' on average over ' || cast(latency_series as string) || ' series (from '
        || {{ pct_text('latency_pct_low') }} || ' to '
        || {{ pct_text('latency_pct_high') }} || ').' as sentence,
        latency_pct_mean as value,
        'percent' as unit,
        abs(latency_pct_mean) as magnitude,
        1.0 as certainty,
        'sec-thread-sweep' as section_anchor,
        configuration,
        'single_thread_round_trip_us' as measure,
        configuration as subject
    from sweep_by_config
    where latency_series > 0
),

unsustained as (
    select
        study,
        'target_not_sustained' as kind,
        3 as kind_order,
        configuration || ' at ' || {{ size_text('message_bytes') }}
        || {{ where_text('scenario', 'hardware_model') }} || ' does not sustain the target of '
        || {{ num_text('target_rate_per_s') }} || '/s: ' || {{ num_text('achieved_rate_per_s') }}
        || '/s achieved (' || {{ num_text('achieved_pct', 1) }} || '% of target, below '
        || {{ num_text('sustained_threshold_pct') }} || '%)'
        || coalesce(
            '; XQTIME p95 ' || {{ num_text('xqtime_p95_us') }} || ' µs'
            || case when backlog_growing then ', growing during the run' else '' end, ''
        )
        || '.' as sentence,
        achieved_pct as value,
        'percent of target' as unit,
        100 - achieved_pct as magnitude,
        1.0 as certainty,
        'sec-rate-target' as section_anchor,
        configuration,
        'achieved_pct' as measure,
        run_key as subject
    from targets
    where not sustained
),

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
    inner join {{ ref('fct_replicate_comparison') }} as noise on sets.set_key = noise.set_key
    where noise.verdict = 'no significant change'
),

changes as (
    select
        comparison.*,
        row_number() over (
            partition by comparison.study, comparison.measure
            order by abs(comparison.pct_change) desc, comparison.run_key
        ) as pick
    from comparison
    inner join runs as compared on comparison.run_key = compared.run_key
    left join sweep_studies on comparison.study = sweep_studies.study
    left join inside_noise
        on
            comparison.run_key = inside_noise.run_key
            and comparison.measure = inside_noise.measure
            and comparison.subject = inside_noise.subject
    where
        comparison.pct_change is not null
        and inside_noise.run_key is null
        -- channel start/stop runs have their own measures (time and CPU per channel)
        and compared.workload_type not in ('channel_start', 'channel_stop')
        and (
            comparison.measure = 'xqtime_short_p95_us'
            or (comparison.measure = 'cpu_us_per_txn' and comparison.subject = 'TOTAL')
            or (
                comparison.measure in ('rate_per_s', 'round_trip_us')
                and sweep_studies.study is null
            )
        )
),

largest_change as (
    select
        changes.study,
        'largest_change' as kind,
        4 as kind_order,
        case changes.measure
            when 'rate_per_s' then 'Achieved rate'
            when 'round_trip_us' then 'Round-trip time'
            when 'cpu_us_per_txn' then 'CPU per transaction (all address spaces)'
            when 'xqtime_short_p95_us' then 'XQTIME p95'
        end
        || ' changes most for ' || changes.configuration || ' at '
        || {{ size_text('changes.message_bytes') }}
        || {{ where_text('runs.scenario', 'runs.hardware_model') }} || ': '
        || {{ pct_text('changes.pct_change') }} || ' ('
        || {{ num_text('changes.variant_value', 1) }} || ' against '
        || {{ num_text('changes.baseline_value', 1) }} || ' '
        || case changes.measure
            when 'rate_per_s' then '/s'
            when 'cpu_us_per_txn' then 'CPU µs'
            else 'µs'
        end
        || ' for ' || changes.baseline_configuration || ').' as sentence,
        changes.pct_change as value,
        'percent' as unit,
        abs(changes.pct_change) as magnitude,
        1.0 as certainty,
        case
            when changes.measure = 'cpu_us_per_txn' then 'sec-cost'
            when changes.measure = 'xqtime_short_p95_us' then 'sec-channels'
            else 'sec-comparison'
        end as section_anchor,
        changes.configuration,
        changes.measure,
        changes.run_key as subject
    from changes
    inner join runs on changes.run_key = runs.run_key
    where changes.pick = 1
),

saturation_by_config as (
    -- The top series: the highest peak rate (ties: the first series key); its figures together.
    select
        study,
        configuration,
        count(*) as series,
        cast(sum(case when saturates then 1 else 0 end) as bigint) as saturating,
        max(case when top_rank = 1 then max_rate_per_s end) as top_rate_per_s,
        max(case when top_rank = 1 then threads_at_max end) as top_threads,
        max(case when top_rank = 1 then message_bytes end) as top_message_bytes,
        max(case when top_rank = 1 then scenario end) as top_scenario,
        max(case when top_rank = 1 then hardware_model end) as top_hardware_model,
        max(saturation_threshold_pct) as threshold_pct,
        avg(last_doubling_gain_pct) as mean_last_doubling_gain_pct
    from (
        select
            *,
            row_number() over (
                partition by study, configuration
                order by max_rate_per_s desc nulls last, series_key asc
            ) as top_rank
        from sweep
    ) as ranked
    group by study, configuration
),

saturation as (
    select
        study,
        'saturation' as kind,
        5 as kind_order,
        configuration || ' peaks at ' || {{ num_text('top_rate_per_s') }} || '/s with '
        || cast(top_threads as string) || ' threads (' || {{ size_text('top_message_bytes') }}
        || {{ where_text('top_scenario', 'top_hardware_model') }} || '); the last doubling of threads adds less than '
        || {{ num_text('threshold_pct') }} || '% in ' || cast(saturating as string) || ' of '
        || cast(series as string) || ' series.' as sentence,
        cast(saturating as double) * 100 / series as value,
        'percent of series' as unit,
        cast(saturating as double) * 100 / series as magnitude,
        1.0 as certainty,
        'sec-thread-sweep' as section_anchor,
        configuration,
        'saturates' as measure,
        configuration as subject
    from saturation_by_config
),

cost_per_kb as (
    select
        study,
        'cost_per_kb' as kind,
        6 as kind_order,
        'Fitted CPU per transaction of ' || configuration
        || coalesce(' (' || nullif(regexp_extract(held_constant, 'cipher=([^,]+)', 1), '-') || ')', '')
        || ': '
        || {{ num_text('slope_a * 1024', 1) }} || ' µs per further KB plus '
        || {{ num_text('intercept_b', 1) }} || ' µs (R² ' || {{ num_text('r_squared', 3) }}
        || ', ' || cast(n_points as string) || ' points, '
        || {{ size_text('cast(min_x as bigint)') }} || ' to ' || {{ size_text('cast(max_x as bigint)') }}
        || ').' as sentence,
        slope_a * 1024 as value,
        'CPU microseconds per KB' as unit,
        slope_a * max_x / nullif(slope_a * max_x + intercept_b, 0) * 100 as magnitude,
        r_squared as certainty,
        'sec-fits' as section_anchor,
        configuration,
        'cpu_us_per_txn' as measure,
        held_constant as subject
    from fits
    where
        x_name = 'message_bytes' and measure = 'cpu_us_per_txn' and subject = 'TOTAL'
        and r_squared >= 0.9
),

found as (
    select * from max_rate_change
    union all
    select * from latency_change
    union all
    select * from unsustained
    union all
    select * from largest_change
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
            order by kind_order asc, magnitude * certainty desc nulls last, configuration asc, subject asc
        ) as finding_rank
    from found
)

select
    study || '|' || cast(finding_rank as string) as finding_key,
    study,
    finding_rank,
    kind,
    sentence,
    value,
    unit,
    magnitude,
    certainty,
    section_anchor,
    configuration,
    measure,
    subject
from ranked
