-- One row per results line of a generic load-driver CSV.
with source as (
    select * from {{ source('driver', 'driver_results') }}
)

select
    cast(file_id as {{ dbt.type_string() }}) || '-' || cast(source_line as {{ dbt.type_string() }})
        as driver_result_key,
    file_id,
    source_file,
    source_line,
    study as results_study,
    run_id as results_run_id,
    rate_per_s,
    round_trip_us,
    target_rate_per_s,
    threads,
    message_bytes,
    transactions,
    interval_start,
    interval_end,
    extra
from source
