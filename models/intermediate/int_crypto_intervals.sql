-- One row per RMF crypto interval x card row with its run: the run folder of the report, else
-- the run whose interval holds the RMF interval's midpoint.
with crypto as (
    select
        *,
        {{ dbt.dateadd('millisecond', 'cast(interval_s * 500 as bigint)', 'interval_start') }}
            as interval_mid
    from {{ ref('stg_rmf__crypto_card_intervals') }}
),

attributed as (
    {{ attribute_to_runs('crypto', 'interval_mid', 'system_id') }}
)

select
    run_key || '|' || crypto_row_key as run_crypto_row_key,
    *
from attributed
