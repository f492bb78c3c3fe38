-- One row per run x measure x subject x candidate x variable: the points of every fit.
-- A fit's x is message size, key bits, recipients or threads; the other three and the cipher
-- are held constant within a fit (held_constant names them), so a study gets the fits its runs
-- support and a configuration measured with several ciphers gets one line per cipher.
-- Rate and round trip against threads are not fitted: throughput saturates as threads grow, a
-- curve a straight line misrepresents (fct_thread_sweep / fct_sweep_summary describe it).
with measures as (
    select * from {{ ref('int_run_measures') }}
),

runs as (
    select * from {{ ref('int_runs') }}
),

dims as (
    select
        run_key,
        study,
        configuration,
        cast(message_bytes as double) as message_bytes,
        cast(key_bits as double) as key_bits,
        cast(recipients as double) as recipients,
        cast(threads as double) as threads,
        coalesce(cast(message_bytes as {{ dbt.type_string() }}), '-') as message_bytes_text,
        coalesce(cast(key_bits as {{ dbt.type_string() }}), '-') as key_bits_text,
        coalesce(cast(recipients as {{ dbt.type_string() }}), '-') as recipients_text,
        coalesce(cast(threads as {{ dbt.type_string() }}), '-') as threads_text,
        coalesce(cipher, '-') as cipher_text,
        -- Scenario, hardware model and persistence are held constant where runs name them.
        coalesce(', scenario=' || scenario, '')
        || coalesce(', hardware_model=' || hardware_model, '')
        || coalesce(', persistence=' || persistence, '') as series_text
    from runs
),

candidates as (
    select
        run_key,
        study,
        configuration,
        'message_bytes' as x_name,
        message_bytes as x_value,
        'key_bits=' || key_bits_text || ', recipients=' || recipients_text
        || ', threads=' || threads_text || ', cipher=' || cipher_text || series_text as held_constant
    from dims
    where message_bytes is not null
    union all
    select
        run_key,
        study,
        configuration,
        'key_bits' as x_name,
        key_bits as x_value,
        'message_bytes=' || message_bytes_text || ', recipients=' || recipients_text
        || ', threads=' || threads_text || ', cipher=' || cipher_text || series_text as held_constant
    from dims
    where key_bits is not null
    union all
    select
        run_key,
        study,
        configuration,
        'recipients' as x_name,
        recipients as x_value,
        'message_bytes=' || message_bytes_text || ', key_bits=' || key_bits_text
        || ', threads=' || threads_text || ', cipher=' || cipher_text || series_text as held_constant
    from dims
    where recipients is not null
    union all
    select
        run_key,
        study,
        configuration,
        'threads' as x_name,
        threads as x_value,
        'message_bytes=' || message_bytes_text || ', key_bits=' || key_bits_text
        || ', recipients=' || recipients_text || ', cipher=' || cipher_text || series_text
            as held_constant
    from dims
    where threads is not null
)

select
    measures.run_measure_key || '|' || candidates.x_name as fit_point_key,
    candidates.study,
    candidates.configuration,
    candidates.x_name,
    candidates.held_constant,
    measures.measure,
    measures.subject,
    measures.unit,
    candidates.run_key,
    candidates.x_value,
    measures.measure_value as y_value
from candidates
inner join measures on candidates.run_key = measures.run_key
where not (
    candidates.x_name = 'threads' and measures.measure in ('rate_per_s', 'round_trip_us')
)
