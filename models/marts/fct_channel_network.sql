-- One row per run x channel: SMF 116 channel accounting (messages, batches, achieved batch
-- size, NETTIME average / min / max) beside DISPLAY CHSTATUS (XBATCHSZ and NETTIME percentiles);
-- either side may be missing for a channel. is_sending: the channel sent batches and measured
-- their network time (accounting NETTIME above 0, or a CHSTATUS NETTIME), which a receiving
-- channel does not: the report's batches and network time section shows these.
-- Its row checks read dim_run (macros/row_checks.sql), so it is built after it:
-- depends_on: {{ ref('dim_run') }}
with accounting as (
    select * from {{ ref('int_channel_accounting') }}
),

statuses as (
    select * from {{ ref('int_channel_status') }}
)

select
    coalesce(accounting.run_key, statuses.run_key) || '|'
    || coalesce(accounting.channel_name, statuses.channel_name) as channel_network_key,
    coalesce(accounting.study, statuses.study) as study,
    coalesce(accounting.run_key, statuses.run_key) as run_key,
    coalesce(accounting.run_id, statuses.run_id) as run_id,
    coalesce(accounting.configuration, statuses.configuration) as configuration,
    coalesce(accounting.message_bytes, statuses.message_bytes) as message_bytes,
    coalesce(accounting.channel_name, statuses.channel_name) as channel_name,
    statuses.channel_type,
    accounting.messages,
    accounting.batches,
    accounting.achieved_batch_size,
    accounting.nettime_avg_us,
    accounting.nettime_min_us,
    accounting.nettime_max_us,
    statuses.snapshots,
    statuses.xbatchsz_short_p50,
    statuses.xbatchsz_long_max,
    statuses.nettime_short_p50_us,
    statuses.nettime_short_p95_us,
    statuses.nettime_short_max_us,
    coalesce(accounting.nettime_avg_us, 0) > 0 or statuses.nettime_short_p50_us is not null
        as is_sending
from accounting
full outer join statuses
    on accounting.run_key = statuses.run_key and accounting.channel_name = statuses.channel_name
