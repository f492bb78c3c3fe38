-- One row per snapshot x channel-status block: the long KEY(value) table pivoted, typed.
-- Pairs such as NETTIME(25,0) are (short-term, long-term) indicators; times in microseconds.
-- Blank values (monitoring off: NETTIME( , )) become NULL. z/OS prints counters above
-- 999,999,999 as 999999999: kept as printed.
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
),

attrs as (
    select
        file_id,
        block_no,
        snapshot_no,
        snapshot_time,
        channel,
        key as attr_key,
        source_line,
        nullif(trim(value), '') as attr_value
    from source
),

pivoted as (
    select
        file_id,
        block_no,
        min(snapshot_no) as snapshot_no,
        min(snapshot_time) as snapshot_time,
        min(channel) as channel_name,
        min(source_line) as source_line,
        max(case when attr_key = 'CURRENT' then 1 else 0 end) as current_flag,
        max(case when attr_key = 'CHLTYPE' then attr_value end) as chltype,
        max(case when attr_key = 'STATUS' then attr_value end) as status,
        max(case when attr_key = 'SUBSTATE' then attr_value end) as substate,
        max(case when attr_key = 'CONNAME' then attr_value end) as conname,
        max(case when attr_key = 'RQMNAME' then attr_value end) as rqmname,
        max(case when attr_key = 'XMITQ' then attr_value end) as xmitq,
        max(case when attr_key = 'SSLCIPH' then attr_value end) as sslciph,
        max(case when attr_key = 'SECPROT' then attr_value end) as secprot,
        max(case when attr_key = 'SSLRKEYS' then attr_value end) as sslrkeys,
        max(case when attr_key = 'MONCHL' then attr_value end) as monchl,
        max(case when attr_key = 'MSGS' then attr_value end) as msgs,
        max(case when attr_key = 'BATCHES' then attr_value end) as batches,
        max(case when attr_key = 'BYTSSENT' then attr_value end) as bytssent,
        max(case when attr_key = 'BYTSRCVD' then attr_value end) as bytsrcvd,
        max(case when attr_key = 'BUFSSENT' then attr_value end) as bufssent,
        max(case when attr_key = 'BUFSRCVD' then attr_value end) as bufsrcvd,
        max(case when attr_key = 'NETTIME' then attr_value end) as nettime,
        max(case when attr_key = 'XQTIME' then attr_value end) as xqtime,
        max(case when attr_key = 'XBATCHSZ' then attr_value end) as xbatchsz,
        max(case when attr_key = 'EXITTIME' then attr_value end) as exittime,
        max(case when attr_key = 'COMPTIME' then attr_value end) as comptime,
        max(case when attr_key = 'CHSTADA' then attr_value end) as chstada,
        max(case when attr_key = 'CHSTATI' then attr_value end) as chstati
    from attrs
    group by file_id, block_no
)

select
    cast(file_id as {{ dbt.type_string() }}) || '-' || cast(block_no as {{ dbt.type_string() }})
        as channel_status_key,
    cast(file_id as {{ dbt.type_string() }}) || '-' || cast(snapshot_no as {{ dbt.type_string() }})
        as snapshot_key,
    file_id,
    block_no,
    snapshot_no,
    snapshot_time,
    source_line,
    channel_name,
    chltype as channel_type,
    current_flag = 1 as is_current,
    status as channel_status,
    substate as channel_substate,
    conname as connection_name,
    rqmname as remote_qmgr_name,
    xmitq as xmitq_name,
    sslciph as ssl_cipher,
    secprot as security_protocol,
    monchl as monitoring_level,
    {{ dbt.safe_cast('sslrkeys', dbt.type_bigint()) }} as ssl_key_resets,
    {{ dbt.safe_cast('msgs', dbt.type_bigint()) }} as messages,
    {{ dbt.safe_cast('batches', dbt.type_bigint()) }} as batches,
    {{ dbt.safe_cast('bytssent', dbt.type_bigint()) }} as sent_bytes,
    {{ dbt.safe_cast('bytsrcvd', dbt.type_bigint()) }} as received_bytes,
    {{ dbt.safe_cast('bufssent', dbt.type_bigint()) }} as sent_buffers,
    {{ dbt.safe_cast('bufsrcvd', dbt.type_bigint()) }} as received_buffers,
    {{ dbt.safe_cast("nullif(trim(" ~ dbt.split_part('nettime', "','", 1) ~ "), '')", dbt.type_bigint()) }}
        as nettime_short_us,
    {{ dbt.safe_cast("nullif(trim(" ~ dbt.split_part('nettime', "','", 2) ~ "), '')", dbt.type_bigint()) }}
        as nettime_long_us,
    {{ dbt.safe_cast("nullif(trim(" ~ dbt.split_part('xqtime', "','", 1) ~ "), '')", dbt.type_bigint()) }}
        as xqtime_short_us,
    {{ dbt.safe_cast("nullif(trim(" ~ dbt.split_part('xqtime', "','", 2) ~ "), '')", dbt.type_bigint()) }}
        as xqtime_long_us,
    {{ dbt.safe_cast("nullif(trim(" ~ dbt.split_part('xbatchsz', "','", 1) ~ "), '')", dbt.type_bigint()) }}
        as xbatchsz_short,
    {{ dbt.safe_cast("nullif(trim(" ~ dbt.split_part('xbatchsz', "','", 2) ~ "), '')", dbt.type_bigint()) }}
        as xbatchsz_long,
    {{ dbt.safe_cast("nullif(trim(" ~ dbt.split_part('exittime', "','", 1) ~ "), '')", dbt.type_bigint()) }}
        as exittime_short_us,
    {{ dbt.safe_cast("nullif(trim(" ~ dbt.split_part('exittime', "','", 2) ~ "), '')", dbt.type_bigint()) }}
        as exittime_long_us,
    {{ dbt.safe_cast("nullif(trim(" ~ dbt.split_part('comptime', "','", 1) ~ "), '')", dbt.type_bigint()) }}
        as comptime_short_us,
    {{ dbt.safe_cast("nullif(trim(" ~ dbt.split_part('comptime', "','", 2) ~ "), '')", dbt.type_bigint()) }}
        as comptime_long_us,
    -- CHSTADA 2016-01-17 + CHSTATI 01.04.25 (dots on both platforms)
    {{ dbt.safe_cast("chstada || ' ' || replace(chstati, '.', ':')", dbt.type_timestamp()) }}
        as channel_started_at
from pivoted
