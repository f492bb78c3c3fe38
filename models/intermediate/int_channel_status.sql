-- One row per run x channel from DISPLAY CHSTATUS snapshots: how many snapshots, and the
-- p50 / p95 / max of NETTIME, XQTIME (microseconds) and XBATCHSZ, short- and long-term.
{{ run_keyed_incremental() }}
with snapshots as (
    select * from {{ ref('int_channel_status_snapshots') }}
),

runs as (
    select * from {{ ref('int_runs') }}
),

by_channel as (
    select
        run_key,
        channel_name,
        count(*) as snapshots,
        max(channel_type) as channel_type,
        max(ssl_cipher) as ssl_cipher,
        max(messages) as max_messages,
        percentile_cont(0.5) within group (order by nettime_short_us) as nettime_short_p50_us,
        percentile_cont(0.95) within group (order by nettime_short_us) as nettime_short_p95_us,
        max(nettime_short_us) as nettime_short_max_us,
        percentile_cont(0.5) within group (order by nettime_long_us) as nettime_long_p50_us,
        percentile_cont(0.95) within group (order by nettime_long_us) as nettime_long_p95_us,
        max(nettime_long_us) as nettime_long_max_us,
        percentile_cont(0.5) within group (order by xqtime_short_us) as xqtime_short_p50_us,
        percentile_cont(0.95) within group (order by xqtime_short_us) as xqtime_short_p95_us,
        max(xqtime_short_us) as xqtime_short_max_us,
        percentile_cont(0.5) within group (order by xqtime_long_us) as xqtime_long_p50_us,
        percentile_cont(0.95) within group (order by xqtime_long_us) as xqtime_long_p95_us,
        max(xqtime_long_us) as xqtime_long_max_us,
        percentile_cont(0.5) within group (order by xbatchsz_short) as xbatchsz_short_p50,
        percentile_cont(0.95) within group (order by xbatchsz_short) as xbatchsz_short_p95,
        max(xbatchsz_short) as xbatchsz_short_max,
        percentile_cont(0.5) within group (order by xbatchsz_long) as xbatchsz_long_p50,
        percentile_cont(0.95) within group (order by xbatchsz_long) as xbatchsz_long_p95,
        max(xbatchsz_long) as xbatchsz_long_max,
        min(source_file) as source_file
    from snapshots
    group by run_key, channel_name
)

select
    by_channel.run_key || '|' || by_channel.channel_name as channel_status_key,
    runs.study,
    runs.run_id,
    runs.configuration,
    runs.message_bytes,
    by_channel.*
from by_channel
inner join runs on by_channel.run_key = runs.run_key
