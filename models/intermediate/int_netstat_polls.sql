-- One row per NETSTAT poll x connection with its run: the run folder of the capture, else the
-- run whose interval holds the poll time. connection_id identifies a connection across polls.
with polls as (
    select
        polls.*,
        files.source_file,
        coalesce(polls.client_name, '?') || ' ' || coalesce(polls.local_socket, '?')
        || ' > ' || coalesce(polls.foreign_socket, '?') as connection_id
    from {{ ref('stg_netstat__connections') }} as polls
    inner join {{ ref('stg_meta__files') }} as files on polls.file_id = files.file_id
)

{{ attribute_to_runs('polls', 'poll_ts') }}
