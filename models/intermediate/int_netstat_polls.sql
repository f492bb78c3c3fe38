-- One row per NETSTAT poll x connection with its run: the run folder of the capture, else the
-- run whose interval holds the poll time. connection_id identifies a connection across polls.
with polls as (
    select
        polls.*,
        files.source_file,
        coalesce(polls.client_name, '?') || ' ' || coalesce(polls.local_socket, '?')
        || ' > ' || coalesce(polls.foreign_socket, '?') as connection_id
    from {{ ref('int_netstat_connections') }} as polls
    inner join {{ ref('stg_meta__files') }} as files on polls.file_id = files.file_id
),

attributed as (
    {{ attribute_to_runs('polls', 'poll_ts') }}
)

select
    run_key || '|' || connection_poll_key as run_connection_poll_key,
    *
from attributed
