-- Generated from pipelines/mqcap/parsers/smf/structures.py by python -m mqcap.codegen.
-- Channel accounting: one row per channel instance per interval (SMF 116.10).
-- Second copies of a record (the same dump dropped twice) do not count: macros/first_copy.
with source as (
    {{ first_copy(source('smf', 'smf_qcst'), when='record_time_local is not null') }}
)

select
    -- key, lineage and the SMF / MQ header: macros/smf_header_columns.sql
    {{ smf_header_columns() }},
    collection_time_utc,
    chl_name,
    disposition,
    type,
    status,
    stat_setting,
    connection_name,
    start_utc,
    stop_utc,
    last_msg_utc,
    batchsize,
    msg_all_count,
    msg_persistent_count,
    batches,
    full_batches,
    buffers_sent,
    buffers_rcvd,
    current_shared_convs,
    number_bytes,
    number_persistent_bytes,
    bytes_sent,
    bytes_received,
    compression_rate,
    exit_time_avg as exit_time_avg_us,
    exit_time_min as exit_time_min_us,
    exit_time_max as exit_time_max_us,
    exit_time_max_date_utc,
    dns_resolution_time as dns_resolution_time_us,
    net_time_avg as net_time_avg_us,
    net_time_min as net_time_min_us,
    net_time_max as net_time_max_us,
    net_time_max_date_utc,
    remote_qmgr_or_app,
    ssl_peer_serial,
    ssl_certi,
    ssl_ciphersuite,
    put_retry_count,
    xmitq_empty_count,
    batch_interval,
    batch_data_limit,
    dispatcher_number,
    remote_product_id,
    remote_product_version
from source
