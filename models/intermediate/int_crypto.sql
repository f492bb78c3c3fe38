-- One row per run x crypto card (x function, key size, scope): rate per second, execution time
-- per operation (ms), utilisation %, and the effective crypto microseconds per transaction
-- = util x interval / transactions (docs/domain.md). Several RMF intervals in a run are combined
-- weighted by interval length (rate, util) and by operations (execution time).
{{ run_keyed_incremental() }}
with cards as (
    select * from {{ ref('int_crypto_intervals') }}
),

runs as (
    select * from {{ ref('int_runs') }}
),

transactions as (
    select * from {{ ref('int_run_transactions') }}
),

by_card as (
    select
        run_key,
        crypto_section,
        card_type,
        cast(card_id as {{ dbt.type_bigint() }}) as card_id,
        coalesce(crypto_function, 'TOTAL') as crypto_function,
        cast(coalesce(key_size_bits, 0) as {{ dbt.type_bigint() }}) as key_size_bits,
        scope,
        count(*) as rmf_intervals,
        sum(interval_s) as measured_s,
        sum(rate_per_s * interval_s) as operations,
        sum(rate_per_s * interval_s * exec_time_ms) as exec_ms_total,
        sum(util_pct * interval_s) as util_pct_seconds,
        min(source_file) as source_file
    from cards
    group by
        run_key, crypto_section, card_type, card_id, coalesce(crypto_function, 'TOTAL'),
        coalesce(key_size_bits, 0), scope
)

select
    by_card.run_key || '|' || by_card.crypto_section || '|' || by_card.card_type || '|'
    || cast(by_card.card_id as {{ dbt.type_string() }}) || '|' || by_card.crypto_function || '|'
    || cast(by_card.key_size_bits as {{ dbt.type_string() }}) || '|' || coalesce(by_card.scope, '-')
        as crypto_key,
    runs.study,
    by_card.run_key,
    runs.run_id,
    runs.configuration,
    runs.key_bits,
    runs.key_strength,
    runs.cipher_prefix,
    runs.tls_version,
    by_card.crypto_section,
    by_card.card_type,
    by_card.card_id,
    -- The card as the report names it: type and number ('CEX7A 3').
    by_card.card_type || ' ' || cast(by_card.card_id as {{ dbt.type_string() }}) as card_name,
    by_card.crypto_function,
    by_card.key_size_bits,
    by_card.scope,
    by_card.rmf_intervals,
    by_card.measured_s,
    by_card.operations / by_card.measured_s as rate_per_s,
    case when by_card.operations > 0 then by_card.exec_ms_total / by_card.operations end
        as exec_time_ms,
    by_card.util_pct_seconds / by_card.measured_s as util_pct,
    transactions.transactions,
    case
        when transactions.transactions > 0
            then
                by_card.util_pct_seconds / by_card.measured_s / 100
                * runs.interval_s * 1000000 / transactions.transactions
    end as crypto_us_per_txn,
    by_card.source_file
from by_card
inner join runs on by_card.run_key = runs.run_key
left join transactions on by_card.run_key = transactions.run_key
where by_card.measured_s > 0
