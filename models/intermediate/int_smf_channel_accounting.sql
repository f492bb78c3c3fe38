-- One row per SMF 116.10 channel accounting record (QCST) with the run it measured: the run
-- folder of the dump, else the run whose interval holds the record's (local) time.
with qcst as (
    select
        smf_row_key,
        file_id,
        source_file,
        source_offset,
        record_time_local,
        system_id,
        qmgr_name,
        chl_name as channel_name,
        connection_name,
        remote_qmgr_or_app,
        ssl_ciphersuite,
        msg_all_count,
        batches,
        bytes_sent,
        bytes_received,
        net_time_avg_us,
        net_time_min_us,
        net_time_max_us
    from {{ ref('stg_smf__qcst') }}
),

attributed as (
    {{ attribute_to_runs('qcst', 'record_time_local', 'system_id', 'qmgr_name') }}
)

select
    run_key || '|' || smf_row_key as run_channel_record_key,
    *
from attributed
