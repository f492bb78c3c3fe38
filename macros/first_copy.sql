{#-
    Exactly once by content (README "Dropping files"). Sources whose rows name their own record
    (time + system / queue manager: SMF, RMF, NETSTAT polls, timestamped CHSTATUS) may arrive
    twice: the same dump in two run folders, at the raw root too, or an hourly dump inside the
    day's. Landing keeps every copy with its lineage; a row whose identity equals a row of an
    earlier-loaded file (lower file_id) is a later copy and does not count. Rows of one file are
    never compared with each other. mqcap.duplicates applies the same rule at ingest to report
    the copies, and tests/test_duplicates.py checks both agree.

    identity: the columns that name a record (default: every column of the relation except the
    lineage columns below). when: the condition under which a row has an identity at all
    (default: one of its timestamp columns is set); rows without one always count.
-#}
{% macro copy_lineage_columns() -%}
    {{ return(['file_id', 'source_file', 'source_line', 'source_offset', 'source_record',
               'source_item']) }}
{%- endmacro %}

{% macro copy_identity(relation, identity=none, when=none) -%}
    {#- (identity columns, when condition) of a relation. -#}
    {%- if identity is not none -%}
        {{ return((identity, when or (identity[0] ~ ' is not null'))) }}
    {%- endif -%}
    {%- set cols = [] -%}
    {%- set stamps = [] -%}
    {%- if execute -%}
        {%- for col in adapter.get_columns_in_relation(relation) -%}
            {%- if col.name | lower not in copy_lineage_columns() -%}
                {%- do cols.append(adapter.quote(col.name)) -%}
                {%- if 'TIMESTAMP' in col.data_type | upper -%}
                    {%- do stamps.append(adapter.quote(col.name)) -%}
                {%- endif -%}
            {%- endif -%}
        {%- endfor -%}
    {%- endif -%}
    {%- if not cols -%}
        {#- parse time (no warehouse to look at): any valid SQL of the right shape -#}
        {%- do cols.append('file_id') -%}
    {%- endif -%}
    {%- set default_when = ('coalesce(' ~ stamps | join(', ') ~ ') is not null') if stamps
        else 'false' -%}
    {{ return((cols, when or default_when)) }}
{%- endmacro %}

{#- The rows of `relation` that count: first copies, and rows without an identity. -#}
{% macro first_copy(relation, identity=none, when=none) %}
    {%- set cols, cond = copy_identity(relation, identity, when) -%}
select * exclude (mqcap_first_file_id)
from (
    select
        copy_rows.*,
        min(copy_rows.file_id) over (partition by {{ cols | join(', ') }}) as mqcap_first_file_id
    from {{ relation }} as copy_rows
) as copy_ranked
where file_id = mqcap_first_file_id or not coalesce({{ cond }}, false)
{% endmacro %}

{#-
    The later copies in `relation`, one row each, with the first copy they repeat:
    source_table, file_id, source_file, position ('byte n' / 'line n'), copy_key (the row's key
    in its staging model), first_file_id, first_source_file, first_position. order_expr: the
    position as a number, to name the first of several equal rows of the first file.
-#}
{% macro later_copies(
    relation, source_table, key_expr,
    position_expr="'line ' || source_line", order_expr='source_line', identity=none, when=none
) %}
    {%- set cols, cond = copy_identity(relation, identity, when) -%}
select
    '{{ source_table }}' as source_table,
    file_id,
    source_file,
    copy_position as position,
    copy_key,
    first_file_id,
    first_source_file,
    first_position
from (
    select
        copy_rows.file_id,
        copy_rows.source_file,
        {{ position_expr }} as copy_position,
        cast({{ key_expr }} as varchar) as copy_key,
        {{ cond }} as has_identity,
        first_value(copy_rows.file_id) over copy_window as first_file_id,
        first_value(copy_rows.source_file) over copy_window as first_source_file,
        first_value({{ position_expr }}) over copy_window as first_position
    from {{ relation }} as copy_rows
    window copy_window as (
        partition by {{ cols | join(', ') }}
        order by copy_rows.file_id, {{ order_expr }}
    )
) as copies
where file_id <> first_file_id and coalesce(has_identity, false)
{% endmacro %}

{#- One row per DISPLAY CHSTATUS block (snapshot x channel) with its whole content as text. -#}
{% macro chstatus_blocks(relation) %}
select
    file_id,
    block_no,
    min(source_file) as source_file,
    min(source_line) as source_line,
    min(snapshot_time) as snapshot_time,
    min(channel) as channel,
    string_agg(key || '(' || coalesce(value, '') || ')', ' ' order by pair_no) as block_content
from {{ relation }}
group by file_id, block_no
{% endmacro %}
