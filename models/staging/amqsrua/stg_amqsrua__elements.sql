-- One row per element of an amqsrua resource-usage publication; units made explicit.
with source as (
    select * from {{ source('amqsrua', 'amqsrua_value') }}
)

select
    cast(file_id as {{ dbt.type_string() }}) || '-' || cast(source_line as {{ dbt.type_string() }})
        as amqsrua_element_key,
    file_id,
    source_file,
    source_line,
    publication_line,
    put_time_utc,
    interval_start_utc,
    interval_us,
    -- The middle of the interval, for attribution to runs (the put time when none printed).
    coalesce(
        {{ mqcap_add_microseconds('interval_start_utc', 'interval_us / 2') }}, put_time_utc
    ) as interval_mid_utc,
    metric_class,
    metric_type,
    object_name,
    description as element,
    unit as unit_printed,
    value as value_printed,
    case unit
        when 'KB' then value * 1024
        when 'MB' then value * 1048576
        when 'GB' then value * 1073741824
        else value
    end as measure_value,
    case unit
        when '%' then 'percent'
        when 'uSec' then 'microseconds'
        when 'KB' then 'bytes'
        when 'MB' then 'bytes'
        when 'GB' then 'bytes'
        else 'number'
    end as measure_unit,
    rate_per_s
from source
