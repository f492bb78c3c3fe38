-- One row per poll x connection of a NETSTAT ALL series: the connection row and its pairs,
-- pivoted by conditional aggregation (union, not join: both share the (file_id, conn_no) key).
-- Windows, queues and buffers are bytes; smooth trip time and variance milliseconds.
-- Pair names are compared without blanks and case so both layouts match
-- ('Smooth trip variance' in the old one, 'SmoothTripVariance' in V2R2 and later).
-- A poll x connection repeated in a later-loaded capture (same poll time, stack and sockets)
-- is a second copy and does not count, nor do its pairs (macros/first_copy).
with counted as (
    {{ first_copy(source('netstat', 'netstat_conn'), [
        'poll_ts', 'netstat_release', 'stack_name', 'client_name', 'client_id', 'local_socket',
        'foreign_socket'
    ]) }}
),

conns as (
    select
        file_id,
        conn_no,
        poll_no,
        poll_time,
        poll_ts,
        stack_name,
        client_name,
        client_id,
        local_socket,
        foreign_socket,
        source_line,
        cast(null as {{ dbt.type_string() }}) as pair_name,
        cast(null as {{ dbt.type_string() }}) as pair_value
    from counted
),

pairs as (
    select
        pair.file_id,
        pair.conn_no,
        cast(null as {{ dbt.type_bigint() }}) as poll_no,
        cast(null as time) as poll_time,
        cast(null as {{ dbt.type_timestamp() }}) as poll_ts,
        cast(null as {{ dbt.type_string() }}) as stack_name,
        cast(null as {{ dbt.type_string() }}) as client_name,
        cast(null as {{ dbt.type_string() }}) as client_id,
        cast(null as {{ dbt.type_string() }}) as local_socket,
        cast(null as {{ dbt.type_string() }}) as foreign_socket,
        cast(null as {{ dbt.type_bigint() }}) as source_line,
        lower(replace(pair.name, ' ', '')) as pair_name,
        nullif(trim(pair.value), '') as pair_value
    from {{ source('netstat', 'netstat_pair') }} as pair
    inner join counted on pair.file_id = counted.file_id and pair.conn_no = counted.conn_no
),

unioned as (
    select * from conns
    union all
    select * from pairs
),

pivoted as (
    select
        file_id,
        conn_no,
        max(poll_no) as poll_no,
        max(poll_time) as poll_time,
        max(poll_ts) as poll_ts,
        max(stack_name) as stack_name,
        max(client_name) as client_name,
        max(client_id) as client_id,
        max(local_socket) as local_socket,
        max(foreign_socket) as foreign_socket,
        max(source_line) as source_line,
        max(case when pair_name = 'state' then pair_value end) as state,
        max(case when pair_name = 'lasttouched' then pair_value end) as last_touched,
        max(case when pair_name = 'congestionwindow' then pair_value end) as congestion_window,
        max(case when pair_name = 'slowstartthreshold' then pair_value end) as slow_start_threshold,
        max(case when pair_name = 'smoothtriptime' then pair_value end) as smooth_trip_time,
        max(case when pair_name = 'smoothtripvariance' then pair_value end) as smooth_trip_variance,
        max(case when pair_name = 'senddataqueued' then pair_value end) as send_data_queued,
        max(case when pair_name = 'receivedataqueued' then pair_value end) as receive_data_queued,
        max(case when pair_name = 'sendbuffersize' then pair_value end) as send_buffer_size,
        max(case when pair_name = 'receivebuffersize' then pair_value end) as receive_buffer_size,
        max(case when pair_name = 'bytesin' then pair_value end) as bytes_in,
        max(case when pair_name = 'bytesout' then pair_value end) as bytes_out,
        max(case when pair_name = 'segmentsin' then pair_value end) as segments_in,
        max(case when pair_name = 'segmentsout' then pair_value end) as segments_out,
        max(case when pair_name = 'rexmt' then pair_value end) as rexmt,
        max(case when pair_name = 'rexmtcount' then pair_value end) as rexmt_count,
        max(case when pair_name = 'ttlspolicy' then pair_value end) as ttls_policy,
        max(case when pair_name = 'ttlsrule' then pair_value end) as ttls_rule
    from unioned
    group by file_id, conn_no
)

select
    cast(file_id as {{ dbt.type_string() }}) || '-' || cast(conn_no as {{ dbt.type_string() }})
        as connection_poll_key,
    file_id,
    conn_no,
    poll_no,
    poll_time,
    poll_ts,
    source_line,
    stack_name,
    client_name,
    client_id,
    local_socket,
    foreign_socket,
    state as connection_state,
    last_touched,
    ttls_policy,
    ttls_rule,
    {{ dbt.safe_cast('congestion_window', dbt.type_bigint()) }}
        as congestion_window_bytes,
    {{ dbt.safe_cast('slow_start_threshold', dbt.type_bigint()) }}
        as slow_start_threshold_bytes,
    {{ dbt.safe_cast('smooth_trip_time', 'double precision') }}
        as smooth_trip_time_ms,
    {{ dbt.safe_cast('smooth_trip_variance', 'double precision') }}
        as smooth_trip_variance_ms,
    {{ dbt.safe_cast('send_data_queued', dbt.type_bigint()) }}
        as send_data_queued_bytes,
    {{ dbt.safe_cast('receive_data_queued', dbt.type_bigint()) }}
        as receive_data_queued_bytes,
    {{ dbt.safe_cast('send_buffer_size', dbt.type_bigint()) }}
        as send_buffer_bytes,
    {{ dbt.safe_cast('receive_buffer_size', dbt.type_bigint()) }}
        as receive_buffer_bytes,
    {{ dbt.safe_cast('bytes_in', dbt.type_bigint()) }} as in_bytes,
    {{ dbt.safe_cast('bytes_out', dbt.type_bigint()) }} as out_bytes,
    {{ dbt.safe_cast('segments_in', dbt.type_bigint()) }} as in_segments,
    {{ dbt.safe_cast('segments_out', dbt.type_bigint()) }} as out_segments,
    {{ dbt.safe_cast('rexmt', dbt.type_bigint()) }} as retransmits,
    {{ dbt.safe_cast('rexmt_count', dbt.type_bigint()) }} as retransmit_count
from pivoted
