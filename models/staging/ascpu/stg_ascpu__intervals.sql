-- One row per interval, system and address space (job name) with its CPU seconds.
-- Second copies of a record (the same file dropped twice) do not count: macros/first_copy.
-- extra is not compared: for SMF 30 it starts with the record's position in its dump.
with source as (
    {{ first_copy(source('ascpu', 'ascpu_interval'), [
        'interval_start', 'interval_end', 'system_id', 'jobname', 'cpu_s', 'srb_s', 'ziip_s',
        'cpu_source'
    ]) }}
)

select
    {{ dbt.concat([
        "cast(file_id as " ~ dbt.type_string() ~ ")", "'/'",
        source_position()
    ]) }} as ascpu_interval_key,
    {{ lineage_columns() }},
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
