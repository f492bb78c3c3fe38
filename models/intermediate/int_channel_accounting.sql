-- One row per run x channel, from SMF 116.10 (QCST): messages, batches, achieved batch size
-- (messages / batches), bytes, NETTIME average (batch-weighted) / min / max microseconds.
{{ run_keyed_incremental() }}
with records as (
    select * from {{ ref('int_smf_channel_accounting') }}
),

runs as (
    select * from {{ ref('int_runs') }}
),

by_channel as (
    select
        run_key,
        channel_name,
        count(*) as accounting_records,
        max(connection_name) as connection_name,
        max(remote_qmgr_or_app) as remote_qmgr_or_app,
        max(ssl_ciphersuite) as ssl_ciphersuite,
        cast(sum(msg_all_count) as {{ dbt.type_bigint() }}) as messages,
        cast(sum(batches) as {{ dbt.type_bigint() }}) as batches,
        cast(sum(bytes_sent) as {{ dbt.type_bigint() }}) as sent_bytes,
        cast(sum(bytes_received) as {{ dbt.type_bigint() }}) as received_bytes,
        sum(net_time_avg_us * batches) as net_time_weighted_us,
        min(case when net_time_min_us > 0 then net_time_min_us end) as nettime_min_us,
        -- Only the sending end measures NETTIME; a receiver reports 0, which means "not measured".
        nullif(max(net_time_max_us), 0) as nettime_max_us,
        min(source_file) as source_file
    from records
    group by run_key, channel_name
)

select
    by_channel.run_key || '|' || by_channel.channel_name as channel_accounting_key,
    runs.study,
    by_channel.run_key,
    runs.run_id,
    runs.configuration,
    runs.message_bytes,
    by_channel.channel_name,
    by_channel.connection_name,
    by_channel.remote_qmgr_or_app,
    by_channel.ssl_ciphersuite,
    by_channel.accounting_records,
    by_channel.messages,
    by_channel.batches,
    case when by_channel.batches > 0 then by_channel.messages * 1.0 / by_channel.batches end
        as achieved_batch_size,
    by_channel.sent_bytes,
    by_channel.received_bytes,
    case
        when by_channel.batches > 0 and by_channel.nettime_max_us is not null
            then by_channel.net_time_weighted_us / by_channel.batches
    end as nettime_avg_us,
    by_channel.nettime_min_us,
    by_channel.nettime_max_us,
    by_channel.source_file
from by_channel
inner join runs on by_channel.run_key = runs.run_key
