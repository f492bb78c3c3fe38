-- One row per run measured by a load driver: achieved rate, round trip, target rate, threads.
{{ run_keyed_incremental() }}
with results as (
    select * from {{ ref('int_driver_results_attributed') }}
),

runs as (
    select * from {{ ref('int_runs') }}
),

transactions as (
    select * from {{ ref('int_run_transactions') }}
)

select
    results.run_key,
    runs.study,
    runs.run_id,
    runs.configuration,
    coalesce(results.message_bytes, runs.message_bytes) as message_bytes,
    results.rate_per_s,
    results.round_trip_us,
    coalesce(results.target_rate_per_s, runs.target_rate_per_s) as target_rate_per_s,
    coalesce(results.threads, runs.threads) as threads,
    runs.interval_s,
    transactions.transactions,
    transactions.transactions_source,
    results.driver_format,
    results.source_file,
    results.source_line
from results
inner join runs on results.run_key = runs.run_key
left join transactions on results.run_key = transactions.run_key
