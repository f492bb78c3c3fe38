-- One row per run: transactions in the measured interval and where the count comes from
-- (driver count, manifest count, or driver rate x interval).
with runs as (
    select * from {{ ref('dim_run') }}
),

driver as (
    select * from {{ ref('fct_driver_results') }}
)

select
    runs.run_key,
    runs.interval_s,
    coalesce(driver.transactions, runs.manifest_transactions) as transactions,
    case
        when driver.transactions is not null then 'driver'
        when runs.manifest_transactions is not null then 'manifest'
    end as transactions_source
from runs
left join driver on runs.run_key = driver.run_key
