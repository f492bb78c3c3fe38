-- One row per run with a target rate (streaming at a fixed rate): target, achieved rate,
-- achieved % of target, sustained (achieved >= sustained_threshold_pct, 98%, of the target),
-- and the backlog signal from DISPLAY CHSTATUS: XQTIME (time messages wait on the transmission
-- queue, short-term figure) p95 and first/last snapshot over the run's channels; the backlog
-- grows when the last snapshot's XQTIME is over twice the first's (xqtime_growth_ratio > 2);
-- backlog_growing is NULL and backlog says "unknown: ..." when fewer than two snapshots
-- give XQTIME (no CHSTATUS captured), never a "no" nobody measured. The level counts too: an
-- XQTIME p95 of a second or more (backlog_level_us) means messages wait on the transmission
-- queue longer than a second's worth of traffic takes to send, a standing backlog even when it
-- does not grow (backlog 'standing').
{% set backlog_level_us = 1000000 %}
with driver as (
    select * from {{ ref('int_driver_results') }}
),

runs as (
    select * from {{ ref('int_runs') }}
),

configurations as (
    select * from {{ ref('int_configurations') }}
),

snapshots as (
    select
        run_key,
        snapshot_no,
        snapshot_time,
        max(xqtime_short_us) as xqtime_short_us
    from {{ ref('int_channel_status_snapshots') }}
    where xqtime_short_us is not null
    group by run_key, snapshot_no, snapshot_time
),

xqtime as (
    select
        run_key,
        count(*) as xqtime_snapshots,
        percentile_cont(0.95) within group (order by xqtime_short_us) as xqtime_p95_us,
        max(xqtime_short_us) as xqtime_max_us,
        {{ mqcap_arg_min('xqtime_short_us', 'snapshot_time') }} as xqtime_first_us,
        {{ mqcap_arg_max('xqtime_short_us', 'snapshot_time') }} as xqtime_last_us
    from snapshots
    group by run_key
)

select
    driver.run_key,
    runs.study,
    runs.run_id,
    runs.configuration,
    configurations.display_name,
    configurations.sort_order,
    runs.scenario,
    runs.hardware_model,
    driver.message_bytes,
    runs.persistence,
    driver.threads,
    driver.target_rate_per_s,
    driver.rate_per_s as achieved_rate_per_s,
    driver.rate_per_s / driver.target_rate_per_s * 100 as achieved_pct,
    cast(98.0 as double) as sustained_threshold_pct,
    driver.rate_per_s / driver.target_rate_per_s * 100 >= 98.0 as sustained,
    driver.target_rate_per_s - driver.rate_per_s as shortfall_per_s,
    xqtime.xqtime_snapshots,
    xqtime.xqtime_p95_us,
    xqtime.xqtime_max_us,
    xqtime.xqtime_first_us,
    xqtime.xqtime_last_us,
    case
        when xqtime.xqtime_first_us > 0 then xqtime.xqtime_last_us * 1.0 / xqtime.xqtime_first_us
    end as xqtime_growth_ratio,
    -- Unknown (NULL) without two XQTIME snapshots: no CHSTATUS, or one snapshot only.
    case
        when xqtime.xqtime_snapshots >= 2 then xqtime.xqtime_last_us > 2 * xqtime.xqtime_first_us
    end as backlog_growing,
    cast({{ backlog_level_us }} as {{ dbt.type_bigint() }}) as backlog_level_us,
    xqtime.xqtime_p95_us >= {{ backlog_level_us }} as backlog_standing,
    case
        when xqtime.xqtime_snapshots is null then 'unknown: no XQTIME'
        when xqtime.xqtime_last_us > 2 * xqtime.xqtime_first_us then 'growing'
        when xqtime.xqtime_p95_us >= {{ backlog_level_us }} then 'standing'
        when xqtime.xqtime_snapshots < 2 then 'unknown: one XQTIME snapshot'
        else 'not growing'
    end as backlog
from driver
inner join runs on driver.run_key = runs.run_key
left join configurations
    on runs.study = configurations.study and runs.configuration = configurations.configuration
left join xqtime on driver.run_key = xqtime.run_key
where driver.target_rate_per_s > 0 and driver.rate_per_s is not null
