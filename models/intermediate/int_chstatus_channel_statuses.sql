-- One row per snapshot x channel-status block: the long KEY(value) table pivoted, typed.
-- Pairs such as NETTIME(25,0) are (short-term, long-term) indicators; times in microseconds.
-- Blank values (monitoring off: NETTIME( , )) become NULL. z/OS prints counters above
-- 999,999,999 as 999999999: kept as printed.
-- Second copies were left out in staging (stg_chstatus__channel_attrs). The queue manager
-- and form come from the block's snapshot.
{%- set text_keys = {
    'CHLTYPE': 'channel_type', 'STATUS': 'channel_status', 'SUBSTATE': 'channel_substate',
    'CONNAME': 'connection_name', 'RQMNAME': 'remote_qmgr_name', 'XMITQ': 'xmitq_name',
    'SSLCIPH': 'ssl_cipher', 'SECPROT': 'security_protocol', 'MONCHL': 'monitoring_level',
} %}
{%- set count_keys = {
    'SSLRKEYS': 'ssl_key_resets', 'MSGS': 'messages', 'BATCHES': 'batches',
    'BYTSSENT': 'sent_bytes', 'BYTSRCVD': 'received_bytes', 'BUFSSENT': 'sent_buffers',
    'BUFSRCVD': 'received_buffers',
} %}
{#- (short-term, long-term) pairs: KEY -> column stem and unit suffix. #}
{%- set pair_keys = {
    'NETTIME': ('nettime', '_us'), 'XQTIME': ('xqtime', '_us'), 'XBATCHSZ': ('xbatchsz', ''),
    'EXITTIME': ('exittime', '_us'), 'COMPTIME': ('comptime', '_us'),
} %}
with attrs as (
    select * from {{ ref('stg_chstatus__channel_attrs') }}
),

snapshots as (
    select * from {{ ref('stg_chstatus__snapshots') }}
),

pivoted as (
    select
        file_id,
        block_no,
        {%- for key in (text_keys | list) + (count_keys | list) + (pair_keys | list) + ['CHSTADA', 'CHSTATI'] %}
            max(case when attr_key = '{{ key }}' then attr_value end) as {{ key | lower }},
        {%- endfor %}
        min(snapshot_no) as snapshot_no,
        min(snapshot_time) as snapshot_time,
        min(channel_name) as channel_name,
        min(source_line) as source_line,
        max(case when attr_key = 'CURRENT' then 1 else 0 end) as current_flag
    from attrs
    group by file_id, block_no
),

typed as (
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
        current_flag = 1 as is_current,
        {%- for key, column in text_keys.items() %}
            {{ key | lower }} as {{ column }},
        {%- endfor %}
        {%- for key, column in count_keys.items() %}
            {{ mqcap_try_cast(key | lower, dbt.type_bigint()) }} as {{ column }},
        {%- endfor %}
        {%- for key, stem_unit in pair_keys.items() %}
            {%- for part, term in [(1, 'short'), (2, 'long')] %}
                {{ mqcap_try_cast(
                    "nullif(trim(" ~ dbt.split_part(key | lower, "','", part) ~ "), '')",
                    dbt.type_bigint()
                ) }} as {{ stem_unit[0] }}_{{ term }}{{ stem_unit[1] }},
            {%- endfor %}
        {%- endfor %}
        -- CHSTADA 2016-01-17 + CHSTATI 01.04.25 (dots on both platforms)
        {{ mqcap_try_cast("chstada || ' ' || replace(chstati, '.', ':')", dbt.type_timestamp()) }}
            as channel_started_at
    from pivoted
)

select
    typed.*,
    snapshots.qmgr_name,
    snapshots.capture_form
from typed
left join snapshots on typed.snapshot_key = snapshots.snapshot_key
