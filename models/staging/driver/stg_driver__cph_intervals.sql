-- One row per mq-cph periodic statistics line (rate=...,threads=...).
with source as (
    select * from {{ source('driver', 'driver_cph_interval') }}
)

select
    {{ dbt.concat([
        "cast(file_id as " ~ dbt.type_string() ~ ")", "'/'",
        "cast(source_line as " ~ dbt.type_string() ~ ")"
    ]) }} as cph_interval_key,
    file_id,
    source_file,
    source_line,
    run_seq,
    stats_seq,
    proc_id,
    rate_per_s,
    threads,
    processes,
    thread_iterations
from source
