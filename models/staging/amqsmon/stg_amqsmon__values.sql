-- One row per value of an amqsmon statistics/accounting record; names as amqsmon prints them.
with source as (
    select * from {{ source('amqsmon', 'amqsmon_value') }}
)

select
    cast(file_id as {{ dbt.type_string() }}) || '-' || cast(source_line as {{ dbt.type_string() }})
    || '-' || cast(coalesce(item, -1) as {{ dbt.type_string() }}) as amqsmon_value_key,
    file_id,
    source_file,
    source_line,
    record_line,
    monitoring_type,
    qmgr as qmgr_name,
    interval_start_local,
    interval_end_local,
    group_name,
    group_index,
    object_name,
    name as value_name,
    item,
    value_text,
    value_number
from source
