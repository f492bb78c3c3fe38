-- One row per mq-cph run summary line.
with source as (
    select * from {{ source('driver', 'driver_cph') }}
)

select
    {{ dbt.concat([
        "cast(file_id as " ~ dbt.type_string() ~ ")", "'/'",
        "cast(source_line as " ~ dbt.type_string() ~ ")"
    ]) }} as cph_run_key,
    file_id,
    source_file,
    source_line,
    run_seq,
    summary_kind,
    proc_id,
    total_iterations,
    total_s as duration_s,
    avg_rate_per_s,
    avg_rate_per_process_per_s,
    threads as last_threads,
    stats_lines
from source
