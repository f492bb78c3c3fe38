-- One row per interval, system and address space (job name) with its CPU seconds.
with source as (
    select * from {{ source('ascpu', 'ascpu_interval') }}
)

select
    {{ dbt.concat([
        "cast(file_id as " ~ dbt.type_string() ~ ")", "'/'",
        source_position()
    ]) }} as ascpu_interval_key,
    file_id,
    source_file,
    source_line,
    source_offset,
    source_record,
    source_item,
    cpu_source,
    system_id,
    upper(trim(jobname)) as jobname,
    interval_start,
    interval_end,
    {{ dbt.datediff('interval_start', 'interval_end', 'second') }} as interval_s,
    cpu_s,
    srb_s,
    ziip_s,
    extra
from source
