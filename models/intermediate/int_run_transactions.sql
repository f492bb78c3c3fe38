-- One row per run: transactions in the measured interval and where the count comes from:
-- the driver's count, else the manifest's, else the driver's rate x the interval.
with runs as (
    select * from {{ ref('int_runs') }}
),

driver as (
    select
        run_key,
        cast(sum(transactions) as {{ dbt.type_bigint() }}) as transactions,
        sum(rate_per_s) as rate_per_s
    from {{ ref('int_driver_results_attributed') }}
    group by run_key
)

select
    runs.run_key,
    runs.interval_s,
    coalesce(
        driver.transactions,
        runs.manifest_transactions,
        cast(round(driver.rate_per_s * runs.interval_s) as {{ dbt.type_bigint() }})
    ) as transactions,
    case
        when driver.transactions is not null then 'driver count'
        when runs.manifest_transactions is not null then 'manifest'
        when driver.rate_per_s is not null then 'driver rate x interval'
    end as transactions_source
from runs
left join driver on runs.run_key = driver.run_key
