-- One row per study x TLS version x cipher prefix x step to the next stronger certificate key
-- (e.g. medium -> high): the largest % increase in time to start a channel over the prefix's
-- ciphers ("up to", as seed 001's table reads) and how many ciphers took that step. The steps
-- are int_channel_start_key_steps' (per cipher, to the next larger key measured).
with steps as (
    select * from {{ ref('int_channel_start_key_steps') }}
    where from_key_strength is not null and to_key_strength is not null
)

select
    study || '|' || coalesce(tls_version, '-') || '|' || coalesce(cipher_prefix, '-') || '|'
    || from_key_strength || '|' || to_key_strength as strength_step_key,
    study,
    tls_version,
    cipher_prefix,
    from_key_strength,
    to_key_strength,
    min(from_key_bits) as from_key_bits,
    max(time_increase_pct) as time_increase_up_to_pct,
    cast(count(*) as bigint) as ciphers
from steps
group by study, tls_version, cipher_prefix, from_key_strength, to_key_strength
