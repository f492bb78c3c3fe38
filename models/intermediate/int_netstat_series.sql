-- One row per run x connection x poll of NETSTAT ALL: congestion window, slow start threshold,
-- send/receive data queued (bytes), smooth trip time and variance (milliseconds).
{{ run_keyed_incremental() }}
with polls as (
    select * from {{ ref('int_netstat_polls') }}
),

runs as (
    select * from {{ ref('int_runs') }}
)

select
    -- (conn_no: a connection listed twice in one poll, as a spliced capture may, is two rows,
    -- both shown, not a key that fails every build)
    polls.run_key || '|' || polls.connection_id || '|' || cast(polls.file_id as {{ dbt.type_string() }})
    || '|' || cast(polls.poll_no as {{ dbt.type_string() }})
    || '|' || cast(polls.conn_no as {{ dbt.type_string() }}) as netstat_poll_key,
    runs.study,
    polls.run_key,
    runs.run_id,
    runs.configuration,
    runs.message_bytes,
    polls.connection_id,
    polls.client_name,
    polls.poll_no,
    polls.poll_ts,
    {{ dbt.datediff('runs.interval_start', 'polls.poll_ts', 'millisecond') }} / 1000.0
        as seconds_into_run,
    polls.connection_state,
    polls.ttls_rule,
    polls.congestion_window_bytes,
    polls.slow_start_threshold_bytes,
    polls.smooth_trip_time_ms,
    polls.smooth_trip_variance_ms,
    polls.send_data_queued_bytes,
    polls.receive_data_queued_bytes,
    polls.retransmit_count,
    polls.source_file,
    polls.source_line
from polls
inner join runs on polls.run_key = runs.run_key
