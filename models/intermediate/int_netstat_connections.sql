-- One row per poll x connection of a NETSTAT ALL series: the connection row and its known
-- pairs side by side, typed. Windows, queues and buffers are bytes; smooth trip time and
-- variance milliseconds.
{#- staged pair name (no blanks, lower case) -> column, for the pairs kept as text #}
{%- set text_pairs = {
    'state': 'connection_state', 'lasttouched': 'last_touched', 'ttlspolicy': 'ttls_policy',
    'ttlsrule': 'ttls_rule',
} %}
{#- ... and for the numbers: column and type #}
{%- set number_pairs = {
    'congestionwindow': ('congestion_window_bytes', 'bigint'),
    'slowstartthreshold': ('slow_start_threshold_bytes', 'bigint'),
    'smoothtriptime': ('smooth_trip_time_ms', 'double'),
    'smoothtripvariance': ('smooth_trip_variance_ms', 'double'),
    'senddataqueued': ('send_data_queued_bytes', 'bigint'),
    'receivedataqueued': ('receive_data_queued_bytes', 'bigint'),
    'sendbuffersize': ('send_buffer_bytes', 'bigint'),
    'receivebuffersize': ('receive_buffer_bytes', 'bigint'),
    'bytesin': ('in_bytes', 'bigint'),
    'bytesout': ('out_bytes', 'bigint'),
    'segmentsin': ('in_segments', 'bigint'),
    'segmentsout': ('out_segments', 'bigint'),
    'rexmt': ('retransmits', 'bigint'),
    'rexmtcount': ('retransmit_count', 'bigint'),
} %}
with connections as (
    select * from {{ ref('stg_netstat__connections') }}
),

pairs as (
    select
        {%- for name in (text_pairs | list) + (number_pairs | list) %}
            max(case when pair_name = '{{ name }}' then pair_value end) as {{ name }},
        {%- endfor %}
        connection_poll_key
    from {{ ref('stg_netstat__pairs') }}
    group by connection_poll_key
)

select
    {%- for name, column_type in number_pairs.items() %}
        {%- set sql_type = dbt.type_bigint() if column_type[1] == 'bigint' else 'double' %}
        {{ mqcap_try_cast('pairs.' ~ name, sql_type) }} as {{ column_type[0] }},
    {%- endfor %}
    {%- for name, column in text_pairs.items() %}
        pairs.{{ name }} as {{ column }},
    {%- endfor %}
    connections.connection_poll_key,
    connections.file_id,
    connections.conn_no,
    connections.poll_no,
    connections.poll_time,
    connections.poll_ts,
    connections.source_line,
    connections.stack_name,
    connections.client_name,
    connections.client_id,
    connections.local_socket,
    connections.foreign_socket
from connections
left join pairs on connections.connection_poll_key = pairs.connection_poll_key
