-- One row per RMF interval, crypto card, function (NULL = card total), key size and scope.
-- Second copies of a record (the same file dropped twice) do not count: macros/first_copy.
with source as (
    {{ first_copy(source('rmf', 'rmf_crypto'), when='interval_start is not null') }}
),

renamed as (
    select
        {{ lineage_columns() }},
        system_id,
        zos_level,
        interval_start,
        interval_s,
        case section
            when 'CCA COPROCESSOR' then 'cca_coprocessor'
            when 'PKCS11 COPROCESSOR' then 'pkcs11_coprocessor'
            when 'ACCELERATOR' then 'accelerator'
            else lower(section)
        end as crypto_section,
        card_type,
        card_id,
        function as crypto_function,
        function is null as is_card_total,
        key_size_bits,
        lower(scope) as scope,
        rate_per_s,
        exec_time_ms,
        exec_time_ms * 1000 as exec_time_us,
        util_pct,
        keygen_rate_per_s
    from source
)

select
    {{ dbt.concat([
        "cast(file_id as " ~ dbt.type_string() ~ ")", "'/'",
        source_position(), "'/'",
        "scope", "'/'",
        "coalesce(crypto_function, 'card')", "'/'",
        "coalesce(cast(key_size_bits as " ~ dbt.type_string() ~ "), '-')"
    ]) }} as crypto_row_key,
    *
from renamed
