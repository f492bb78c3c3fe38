-- One row per poll x connection block of a NETSTAT ALL series, renamed (its 'Name: value'
-- pairs are stg_netstat__pairs; int_netstat_connections puts them side by side).
-- A poll x connection repeated in a later-loaded capture (same poll time, stack and sockets)
-- is a second copy and does not count (macros/first_copy).
with source as (
    {{ first_copy(source('netstat', 'netstat_conn'), [
        'poll_ts', 'netstat_release', 'stack_name', 'client_name', 'client_id', 'local_socket',
        'foreign_socket'
    ]) }}
)

select
    cast(file_id as {{ dbt.type_string() }}) || '-' || cast(conn_no as {{ dbt.type_string() }})
        as connection_poll_key,
    file_id,
    source_file,
    source_line,
    conn_no,
    poll_no,
    poll_time,
    poll_ts,
    netstat_release,
    stack_name,
    client_name,
    client_id,
    local_socket,
    foreign_socket
from source
