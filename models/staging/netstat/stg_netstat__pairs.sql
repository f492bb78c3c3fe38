-- One row per 'Name: value' pair of a counted NETSTAT ALL connection block. Names are
-- compared without blanks and case so both layouts match ('Smooth trip variance' in the old
-- one, 'SmoothTripVariance' in V2R2 and later); blank values are NULL. The pairs of a second
-- copy of a poll x connection (stg_netstat__connections leaves it out) do not count either.
with connections as (
    select * from {{ ref('stg_netstat__connections') }}
),

source as (
    select pair.*
    from {{ source('netstat', 'netstat_pair') }} as pair
    inner join connections
        on pair.file_id = connections.file_id and pair.conn_no = connections.conn_no
)

select
    cast(file_id as {{ dbt.type_string() }}) || '-' || cast(source_line as {{ dbt.type_string() }})
    || '-' || cast(pair_no as {{ dbt.type_string() }}) as connection_pair_key,
    cast(file_id as {{ dbt.type_string() }}) || '-' || cast(conn_no as {{ dbt.type_string() }})
        as connection_poll_key,
    file_id,
    source_line,
    conn_no,
    pair_no,
    parent as parent_name,
    name as pair_name_printed,
    lower(replace(name, ' ', '')) as pair_name,
    nullif(trim(value), '') as pair_value
from source
