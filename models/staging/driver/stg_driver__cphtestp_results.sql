-- One row per cphtestp test (message size x threads); the script's -1 (no sample) becomes NULL.
with source as (
    select * from {{ source('driver', 'driver_cphtestp') }}
)

select
    {{ dbt.concat([
        "cast(file_id as " ~ dbt.type_string() ~ ")", "'/'",
        "cast(source_line as " ~ dbt.type_string() ~ ")"
    ]) }} as cphtestp_result_key,
    file_id,
    source_file,
    source_line,
    run_started,
    case persistence when '1' then true when '0' then false end as is_persistent,
    message_bytes,
    threads,
    rate_per_s as round_trips_per_s,
    nullif(client_cpu_pct, -1) as client_cpu_pct,
    nullif(io_read_mb_per_s, -1) as io_read_mb_per_s,
    nullif(io_write_mb_per_s, -1) as io_write_mb_per_s,
    nullif(net_recv_gbit_per_s, -1) as net_recv_gbit_per_s,
    nullif(net_send_gbit_per_s, -1) as net_send_gbit_per_s,
    nullif(qm_cpu_pct, -1) as qm_cpu_pct,
    extra
from source
