-- One row per study x configuration x fit variable x held-constant set x measure x subject:
-- least squares y = a * x + b with R-squared, standard errors and 95% confidence intervals.
-- Only groups with at least two distinct x values are fitted.
-- fit_label names what tells a configuration's fits apart: the held-constant values that vary
-- between the fits of the same study, x variable, measure and subject (a cipher by its name,
-- others as name=value, one the runs do not give as "no <name>"), empty when nothing varies.
with points as (
    select * from {{ ref('int_fit_points') }}
),

sums as (
    select
        study,
        configuration,
        x_name,
        held_constant,
        measure,
        subject,
        max(unit) as unit,
        cast(regr_count(y_value, x_value) as {{ dbt.type_bigint() }}) as n_points,
        count(distinct x_value) as distinct_x,
        regr_slope(y_value, x_value) as slope_a,
        regr_intercept(y_value, x_value) as intercept_b,
        regr_r2(y_value, x_value) as r_squared,
        regr_sxx(y_value, x_value) as sxx,
        regr_syy(y_value, x_value) as syy,
        regr_sxy(y_value, x_value) as sxy,
        regr_avgx(y_value, x_value) as mean_x,
        regr_avgy(y_value, x_value) as mean_y,
        min(x_value) as min_x,
        max(x_value) as max_x
    from points
    group by study, configuration, x_name, held_constant, measure, subject
),

residuals as (
    -- The residual sum of squares from the points themselves: syy - sxy^2 / sxx cancels to
    -- rounding noise when the line fits well (and then differs from engine to engine).
    select
        sums.study,
        sums.configuration,
        sums.x_name,
        sums.held_constant,
        sums.measure,
        sums.subject,
        sum(
            (points.y_value - (sums.slope_a * points.x_value + sums.intercept_b))
            * (points.y_value - (sums.slope_a * points.x_value + sums.intercept_b))
        ) as residual_ss
    from sums
    inner join points
        on
            sums.study is not distinct from points.study
            and sums.configuration is not distinct from points.configuration
            and sums.x_name is not distinct from points.x_name
            and sums.held_constant is not distinct from points.held_constant
            and sums.measure is not distinct from points.measure
            and sums.subject is not distinct from points.subject
    where points.x_value is not null and points.y_value is not null
    group by
        sums.study, sums.configuration, sums.x_name, sums.held_constant, sums.measure, sums.subject
),

errors as (
    select
        sums.*,
        case
            when sums.n_points > 2 then residuals.residual_ss / (sums.n_points - 2)
        end as residual_variance
    from sums
    left join residuals
        on
            sums.study is not distinct from residuals.study
            and sums.configuration is not distinct from residuals.configuration
            and sums.x_name is not distinct from residuals.x_name
            and sums.held_constant is not distinct from residuals.held_constant
            and sums.measure is not distinct from residuals.measure
            and sums.subject is not distinct from residuals.subject
    where sums.distinct_x >= 2
),

t_ranges as (
    -- df from..to (exclusive): a fit uses the largest tabulated df not above its own.
    select
        degrees_of_freedom as df_from,
        lead(degrees_of_freedom) over (order by degrees_of_freedom) as df_to,
        t_critical_95
    from {{ ref('t_critical_95') }}
),

with_t as (
    select
        errors.*,
        t_ranges.t_critical_95
    from errors
    left join t_ranges
        on
            errors.n_points - 2 >= t_ranges.df_from
            and (errors.n_points - 2 < t_ranges.df_to or t_ranges.df_to is null)
)
,

fitted as (
    select
        study || '|' || configuration || '|' || x_name || '|' || held_constant
        || '|' || measure || '|' || subject as fit_key,
        study,
        configuration,
        x_name,
        held_constant,
        measure,
        subject,
        unit,
        n_points,
        distinct_x,
        -- More runs than x values: runs differing in something not held constant (a label
        -- the fit does not know) share an x, and R-squared measures their spread too.
        n_points > distinct_x as pools_variants,
        slope_a,
        intercept_b,
        -- With (nearly) constant y, R-squared is 0/0 computed on rounding noise: not defined.
        case when syy > 1e-12 * (n_points * mean_y * mean_y + 1) then r_squared end as r_squared,
        sqrt(residual_variance / sxx) as slope_a_se,
        sqrt(residual_variance * (1.0 / cast(n_points as double) + mean_x * mean_x / sxx)) as intercept_b_se,
        slope_a - t_critical_95 * sqrt(residual_variance / sxx) as slope_a_ci95_low,
        slope_a + t_critical_95 * sqrt(residual_variance / sxx) as slope_a_ci95_high,
        intercept_b
        - t_critical_95 * sqrt(residual_variance * (1.0 / cast(n_points as double) + mean_x * mean_x / sxx))
            as intercept_b_ci95_low,
        intercept_b
        + t_critical_95 * sqrt(residual_variance * (1.0 / cast(n_points as double) + mean_x * mean_x / sxx))
            as intercept_b_ci95_high,
        t_critical_95,
        min_x,
        max_x,
        -- The fitted line's ends, where the chart draws it (over the x measured).
        slope_a * min_x + intercept_b as fitted_y_at_min_x,
        slope_a * max_x + intercept_b as fitted_y_at_max_x
    from with_t
),

held_parts as (
    select
        fits.study,
        fits.x_name,
        fits.measure,
        fits.subject,
        fits.held_constant,
        part.pos,
        split_part(part.item, '=', 1) as held_key,
        split_part(part.item, '=', 2) as held_value
    from (
        select distinct
            study,
            x_name,
            measure,
            subject,
            held_constant
        from fitted
    ) as fits
    {{ mqcap_split_rows('fits.held_constant', "', '", 'part') }}
),

varying_keys as (
    select
        study,
        x_name,
        measure,
        subject,
        held_key
    from held_parts
    group by study, x_name, measure, subject, held_key
    having count(distinct held_value) > 1
),

labels as (
    select
        held_parts.study,
        held_parts.x_name,
        held_parts.measure,
        held_parts.subject,
        held_parts.held_constant,
        {{ mqcap_string_agg(
            "case
                -- '-': the runs do not give it (no cipher: no TLS).
                when held_parts.held_value = '-' then 'no ' || replace(held_parts.held_key, '_', ' ')
                when held_parts.held_key = 'cipher' then held_parts.held_value
                else held_parts.held_key || '=' || held_parts.held_value
            end",
            "', '", 'held_parts.pos'
        ) }} as fit_label
    from held_parts
    inner join varying_keys
        on
            held_parts.study = varying_keys.study
            and held_parts.x_name = varying_keys.x_name
            and held_parts.measure = varying_keys.measure
            and held_parts.subject = varying_keys.subject
            and held_parts.held_key = varying_keys.held_key
    group by all
)

select
    fitted.*,
    coalesce(labels.fit_label, '') as fit_label
from fitted
left join labels
    on
        fitted.study = labels.study
        and fitted.x_name = labels.x_name
        and fitted.measure = labels.measure
        and fitted.subject = labels.subject
        and fitted.held_constant = labels.held_constant
