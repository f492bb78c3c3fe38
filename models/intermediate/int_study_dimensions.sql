-- One row per study x workload type x design dimension that takes 2+ values among the study's
-- runs of that workload (configuration, scenario, hardware model, message size, persistence,
-- threads, recipients, target rate, cipher, key strength, key size, SSLRKEYC): how many values,
-- which (numbers in numeric order), and whether the study's run summary names it.
-- A dimension is not shown when it says nothing about the design: a configuration per run
-- (a scenario may name each run's configuration after its labels), or the key size where the
-- key strength already varies (RSA and ECC keys of one strength differ in bits).
{% set dimensions = [
    ('configuration', 'configurations'),
    ('scenario', 'scenarios'),
    ('hardware_model', 'hardware models'),
    ('message_bytes', 'message sizes'),
    ('persistence', 'persistence settings'),
    ('threads', 'thread counts'),
    ('recipients', 'recipient counts'),
    ('target_rate_per_s', 'target rates'),
    ('cipher', 'ciphers'),
    ('key_strength', 'key strengths'),
    ('key_bits', 'key sizes'),
    ('sslrkeyc', 'SSLRKEYC values'),
] %}
with runs as (
    select
        *,
        count(*) over (partition by study, workload_type) as workload_runs
    from {{ ref('int_runs') }}
),

run_values as (
    {% for column, nouns in dimensions %}
        select
            study,
            workload_type,
            workload_runs,
            '{{ column }}' as dimension,
            cast({{ loop.index }} as {{ dbt.type_bigint() }}) as dimension_order,
            '{{ nouns }}' as nouns,
            cast({{ column }} as {{ dbt.type_string() }}) as dimension_value
        from runs
        where {{ column }} is not null
        {% if not loop.last %}union all{% endif %}
    {% endfor %}
),

distinct_values as (
    select distinct
        study,
        workload_type,
        workload_runs,
        dimension,
        dimension_order,
        nouns,
        dimension_value
    from run_values
),

dimensions as (
    select
        study,
        workload_type,
        workload_runs,
        dimension,
        dimension_order,
        nouns,
        count(*) as value_count,
        -- Numbers in numeric order (1, 2, 16, 100), text in text order.
        {{ mqcap_string_agg(
            'dimension_value', "', '",
            'try_cast(dimension_value as double) nulls last, dimension_value'
        ) }} as value_list
    from distinct_values
    group by study, workload_type, workload_runs, dimension, dimension_order, nouns
    having count(*) > 1
)

select
    dimensions.study || '|' || dimensions.workload_type || '|' || dimensions.dimension
        as study_dimension_key,
    dimensions.study,
    dimensions.workload_type,
    dimensions.workload_runs,
    dimensions.dimension,
    dimensions.dimension_order,
    dimensions.value_count,
    dimensions.value_list,
    cast(dimensions.value_count as {{ dbt.type_string() }}) || ' ' || dimensions.nouns as phrase,
    case
        when dimensions.dimension = 'configuration'
            then dimensions.value_count < dimensions.workload_runs
        when dimensions.dimension = 'key_bits'
            then not exists (
                select 1 from dimensions as strength
                where
                    strength.study = dimensions.study
                    and strength.workload_type = dimensions.workload_type
                    and strength.dimension = 'key_strength'
            )
        else true
    end as is_shown
from dimensions
