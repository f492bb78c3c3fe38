-- One row per run x connection: mean and p95 of the NETSTAT series, and how often the
-- congestion window dropped between consecutive polls (a sign of congestion resets).
{{ run_keyed_incremental() }}
with series as (
    select
        *,
        lag(congestion_window_bytes) over (
            partition by run_key, connection_id order by poll_ts, source_file, poll_no
        ) as previous_cwnd_bytes
    from {{ ref('int_netstat_series') }}
)

select
    run_key || '|' || connection_id as netstat_summary_key,
    min(study) as study,
    run_key,
    min(run_id) as run_id,
    min(configuration) as configuration,
    min(message_bytes) as message_bytes,
    connection_id,
    count(*) as polls,
    avg(congestion_window_bytes) as cwnd_mean_bytes,
    percentile_cont(0.95) within group (order by congestion_window_bytes) as cwnd_p95_bytes,
    count(*) filter (where congestion_window_bytes < previous_cwnd_bytes) as cwnd_drops,
    avg(slow_start_threshold_bytes) as ssthresh_mean_bytes,
    avg(smooth_trip_time_ms) as srtt_mean_ms,
    percentile_cont(0.95) within group (order by smooth_trip_time_ms) as srtt_p95_ms,
    avg(smooth_trip_variance_ms) as srtt_variance_mean_ms,
    percentile_cont(0.95) within group (order by smooth_trip_variance_ms) as srtt_variance_p95_ms,
    avg(send_data_queued_bytes) as send_queued_mean_bytes,
    percentile_cont(0.95) within group (order by send_data_queued_bytes) as send_queued_p95_bytes,
    max(retransmit_count) - min(retransmit_count) as retransmits_in_run,
    min(source_file) as source_file
from series
group by run_key, connection_id
