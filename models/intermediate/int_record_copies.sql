-- One row per later copy of a record: a landing row (a CHSTATUS block, a NETSTAT poll x
-- connection) whose identity equals one of an earlier-loaded file. It stays in landing with its
-- lineage and is left out of the staging models by the same rule (macros/first_copy.sql).
{%- set smf_tables = [
    'smf_qmst', 'smf_qjst', 'smf_qsst', 'smf_qpst', 'smf_qlst', 'smf_qist', 'smf_qtst',
    'smf_qest', 'smf_qesd', 'smf_q5st', 'smf_qsgm', 'smf_qsph', 'smf_qsrs', 'smf_qis1',
    'smf_qcct', 'smf_qctdsp', 'smf_qctadp', 'smf_qctssl', 'smf_qctdns', 'smf_qcst', 'smf_qmac',
    'smf_wtas', 'smf_wq', 'smf_wtid'
] %}
{%- set smf_key = "cast(file_id as string) || '-' || cast(coalesce(source_record, source_line) "
    ~ "as string) || '-' || cast(source_item as string)" %}
{%- set smf_position = "case when source_offset is not null then 'byte ' || source_offset "
    ~ "else 'line ' || source_line end" %}
{#- RMF and CPU rows come from text reports (a line) or from SMF 70/72/30 records (a record and
    item): source_position() names either. -#}
{%- set line_key = "cast(file_id as string) || '/' || " ~ source_position() %}
{%- set row_order = 'coalesce(source_offset, source_line), source_item' %}
with chstatus_blocks as (
    {{ chstatus_blocks(source('chstatus', 'chstatus_attr')) }}
),

chstatus_snapshots as (
    {{ chstatus_snapshots(source('chstatus', 'chstatus_snapshot'), source('chstatus', 'chstatus_attr')) }}
),

copies as (
    {% for table in smf_tables %}
        {{ later_copies(source('smf', table), table, smf_key, smf_position,
                        'coalesce(source_offset, source_line), source_item',
                        when='record_time_local is not null') }}
        union all
    {% endfor %}
    {{ later_copies(source('rmf', 'rmf_crypto'), 'rmf_crypto',
                    line_key ~ " || '/' || scope || '/' || coalesce(function, 'card') || '/' || "
                    ~ "coalesce(cast(key_size_bits as string), '-')",
                    smf_position, row_order, when='interval_start is not null') }}
    union all
    {{ later_copies(source('rmf', 'rmf_workload'), 'rmf_workload', line_key,
                    smf_position, row_order, when='interval_start is not null') }}
    union all
    {{ later_copies(source('ascpu', 'ascpu_interval'), 'ascpu_interval', line_key,
                    smf_position, row_order,
                    identity=['interval_start', 'interval_end', 'system_id', 'jobname', 'cpu_s',
                              'srb_s', 'ziip_s', 'cpu_source']) }}
    union all
    {{ later_copies(source('netstat', 'netstat_conn'), 'netstat_conn',
                    "cast(file_id as string) || '-' || cast(conn_no as string)",
                    identity=['poll_ts', 'netstat_release', 'stack_name', 'client_name',
                              'client_id', 'local_socket', 'foreign_socket']) }}
    union all
    {{ later_copies('chstatus_snapshots', 'chstatus_snapshot',
                    "cast(file_id as string) || '-' || cast(snapshot_no as string)",
                    identity=['snapshot_time', 'snapshot_clock', 'qmgr', 'form', 'channel_count',
                              'expected_count', 'snapshot_content']) }}
    union all
    {{ later_copies('chstatus_blocks', 'chstatus_attr',
                    "cast(file_id as string) || '-' || cast(block_no as string)",
                    identity=['snapshot_time', 'channel', 'block_content']) }}
)

select
    source_table || '|' || copy_key as record_copy_key,
    *
from copies
