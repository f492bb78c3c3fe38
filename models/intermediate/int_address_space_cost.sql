-- One row per run x address-space role: CPU seconds in the run's interval, transactions, and
-- CPU microseconds per transaction. Where several sources have CPU for a run and role, the
-- preferred one is used (RMF WORKLOAD ACTIVITY report class, then SMF 30, then CSV) and named.
-- cpu_also_counted_in: another run the same CPU seconds went to (int_cpu_attributed), which the
-- mart check reports: runs at overlapping times on one system fed by a file outside run folders.
{{ run_keyed_incremental() }}
with attributed as (
    select * from {{ ref('int_cpu_attributed') }}
),

by_source as (
    select
        run_key,
        role,
        cpu_source,
        case cpu_source when 'rmf_workload' then 1 when 'smf30' then 2 else 3 end as preference,
        sum(cpu_s) as cpu_s,
        sum(overlap_s) as covered_s,
        count(distinct cpu_name) as address_spaces,
        min(also_counted_in) as also_counted_in,
        min(source_file) as first_source_file
    from attributed
    group by run_key, role, cpu_source
),

ranked as (
    select
        *,
        row_number() over (partition by run_key, role order by preference) as rank_in_run
    from by_source
),

runs as (
    select * from {{ ref('int_runs') }}
),

transactions as (
    select * from {{ ref('int_run_transactions') }}
)

select
    ranked.run_key || '|' || ranked.role as cost_key,
    runs.study,
    ranked.run_key,
    runs.run_id,
    runs.configuration,
    runs.message_bytes,
    ranked.role,
    ranked.cpu_source,
    ranked.address_spaces,
    ranked.cpu_s,
    runs.interval_s,
    ranked.covered_s / ranked.address_spaces / runs.interval_s * 100 as interval_covered_pct,
    ranked.also_counted_in as cpu_also_counted_in,
    transactions.transactions,
    transactions.transactions_source,
    case
        when transactions.transactions > 0
            then ranked.cpu_s * 1000000 / transactions.transactions
    end as cpu_us_per_txn,
    ranked.first_source_file as source_file
from ranked
inner join runs on ranked.run_key = runs.run_key
left join transactions on ranked.run_key = transactions.run_key
where ranked.rank_in_run = 1
