-- One row per KEY(value) (or stand-alone KEY) of a counted channel-status block, renamed;
-- blank values (monitoring off: NETTIME( , ) keeps its comma) become NULL.
-- A block repeated in a later-loaded capture (same snapshot time, channel and every KEY(value))
-- is a second copy and does not count (macros/first_copy); blocks without a time always count.
with blocks as (
    {{ chstatus_blocks(source('chstatus', 'chstatus_attr')) }}
),

counted as (
    {{ first_copy('blocks', ['snapshot_time', 'channel', 'block_content']) }}
),

source as (
    select attr.*
    from {{ source('chstatus', 'chstatus_attr') }} as attr
    inner join counted on attr.file_id = counted.file_id and attr.block_no = counted.block_no
)

select
    cast(file_id as {{ dbt.type_string() }}) || '-' || cast(source_line as {{ dbt.type_string() }})
    || '-' || cast(pair_no as {{ dbt.type_string() }}) as channel_attr_key,
    file_id,
    source_file,
    source_line,
    block_no,
    pair_no,
    snapshot_no,
    snapshot_time,
    channel as channel_name,
    key as attr_key,
    nullif(trim(value), '') as attr_value
from source
