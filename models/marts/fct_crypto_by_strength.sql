-- One row per study x TLS version x cipher prefix x key strength of the runs that start or stop
-- channels: the highest utilisation % of a single crypto card among those runs' cards and
-- functions ("up to", as seed 001's table reads), over the LPAR scope where the study's start
-- and stop runs have it (else the CPC's).
with crypto as (
    select
        crypto.*,
        runs.workload_type
    from {{ ref('int_crypto') }} as crypto
    inner join {{ ref('int_runs') }} as runs on crypto.run_key = runs.run_key
    where
        runs.workload_type in ('channel_start', 'channel_stop')
        and crypto.key_strength is not null
),

scoped as (
    select
        *,
        max(case when scope = 'lpar' then 1 else 0 end) over (partition by study) as has_lpar
    from crypto
)

select
    study || '|' || coalesce(tls_version, '-') || '|' || coalesce(cipher_prefix, '-') || '|'
    || key_strength as crypto_strength_key,
    study,
    tls_version,
    cipher_prefix,
    key_strength,
    max(util_pct) as util_up_to_pct,
    cast(count(distinct run_key) as bigint) as runs
from scoped
where has_lpar = 0 or scope = 'lpar'
group by study, tls_version, cipher_prefix, key_strength
