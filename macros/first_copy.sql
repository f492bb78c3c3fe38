{#-
    Exactly once by content (README "Dropping files"). Sources whose rows name their own record
    (time + system / queue manager: SMF, RMF, NETSTAT polls, timestamped CHSTATUS) may arrive
    twice: the same dump in two run folders, at the raw root too, or an hourly dump inside the
    day's. Landing keeps every copy with its lineage; a row whose identity equals a row of an
    earlier-loaded file (lower file_id) is a later copy and does not count. Rows of one file are
    never compared with each other. mqcap.duplicates applies the same rule at ingest to report
    the copies, and tests/test_duplicates.py checks both agree.

    identity: the columns that name a record (default: every column of the relation except the
    lineage columns, compared as one row value: exact, NULL equal to NULL). when: the condition
    under which a row has an identity at all (default: the first identity column is set;
    required with the default identity); rows without one always count.
-#}
{% macro copy_identity(relation, identity=none, when=none) -%}
    {#- (partition expression, when condition). -#}
    {%- if identity is not none -%}
        {{ return((mqcap_row_value(identity), when or (identity[0] ~ ' is not null'))) }}
    {%- endif -%}
    {%- if when is none -%}
        {{ exceptions.raise_compiler_error('first_copy: give `when` with the default identity') }}
    {%- endif -%}
    {{ return((adapter.dispatch('copy_default_identity', 'mqcap')(relation) if adapter is defined else default__copy_default_identity(relation), when)) }}
{%- endmacro %}

{#- Several columns as one value that compares exactly, NULL equal to NULL. -#}
{% macro mqcap_row_value(columns) -%}
    {{ return(adapter.dispatch('mqcap_row_value', 'mqcap')(columns) if adapter is defined else default__mqcap_row_value(columns)) }}
{%- endmacro %}

{% macro default__mqcap_row_value(columns) -%}
    row({{ columns | join(', ') }})
{%- endmacro %}

{% macro spark__mqcap_row_value(columns) -%}
    struct({{ columns | join(', ') }})
{%- endmacro %}

{% macro default__copy_default_identity(relation) -%}
    {{ return("row(*columns(lambda c: c not in ['file_id', 'source_file', 'source_line', "
        ~ "'source_offset', 'source_record', 'source_item']))") }}
{%- endmacro %}

{#-
    Spark has no *columns(): the relation's columns are read from the catalog. A unit test's
    input is a CTE named after the source table (`__dbt__cte__<model>__<table>`); its columns
    are the landing table's.
-#}
{% macro spark__copy_default_identity(relation) -%}
    {%- set lineage = ['file_id', 'source_file', 'source_line', 'source_offset',
        'source_record', 'source_item'] -%}
    {%- set names = [] -%}
    {%- if execute -%}
        {%- set name = relation.identifier if relation.identifier is not none else relation | string -%}
        {%- if name.startswith('__dbt__cte__') -%}
            {%- set relation = adapter.get_relation(
                database=none, schema='landing', identifier=name.split('__')[-1]) -%}
        {%- endif -%}
        {%- if relation is none -%}
            {{ exceptions.raise_compiler_error('first_copy: no columns for ' ~ name) }}
        {%- endif -%}
        {%- for column in adapter.get_columns_in_relation(relation) -%}
            {%- if column.name | lower not in lineage -%}
                {%- do names.append(column.quoted) -%}
            {%- endif -%}
        {%- endfor -%}
    {%- endif -%}
    {{ return('struct(' ~ names | join(', ') ~ ')') }}
{%- endmacro %}

{#- The rows of `relation` that count: first copies, and rows without an identity. -#}
{% macro first_copy(relation, identity=none, when=none) %}
    {%- set partition, cond = copy_identity(relation, identity, when) -%}
    {{ return(adapter.dispatch('first_copy', 'mqcap')(relation, partition, cond) if adapter is defined else default__first_copy(relation, partition, cond)) }}
{% endmacro %}

{#-
    DuckDB: the first file of each identity by group-by and join, not by a window. DuckDB 2.0's
    parallel window partitioned by text that an aggregate of the same query produced (the
    CHSTATUS blocks' content) loses rows at random (README "Engines"; tests/test_parallel_views.py).
-#}
{% macro default__first_copy(relation, partition, cond) %}
select copy_rows.* exclude (mqcap_identity)
from (
    -- the identity as one value first: DuckDB expands *columns() only in a plain select
    select
        identified.*,
        {{ partition }} as mqcap_identity
    from {{ relation }} as identified
) as copy_rows
left join (
    select
        mqcap_identity,
        min(file_id) as mqcap_first_file_id
    from (
        select
            file_id,
            {{ partition }} as mqcap_identity
        from {{ relation }}
    ) as identities
    group by mqcap_identity
) as firsts
    on copy_rows.mqcap_identity is not distinct from firsts.mqcap_identity
where copy_rows.file_id = firsts.mqcap_first_file_id or not coalesce({{ cond }}, false)
{% endmacro %}

{#- Spark has no `* exclude`: the row travels as one struct and is expanded again. -#}
{% macro spark__first_copy(relation, partition, cond) %}
select copy_ranked.copy_row.*
from (
    select
        struct(copy_rows.*) as copy_row,
        copy_rows.file_id as mqcap_file_id,
        coalesce({{ cond }}, false) as mqcap_has_identity,
        min(copy_rows.file_id) over (partition by {{ partition }}) as mqcap_first_file_id
    from {{ relation }} as copy_rows
) as copy_ranked
where mqcap_file_id = mqcap_first_file_id or not mqcap_has_identity
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
    {%- set partition, cond = copy_identity(relation, identity, when) -%}
    {#- Group-by and join rather than a window: see default__first_copy. -#}
    {%- set identified -%}
    (
        -- the identity as one value first: DuckDB expands *columns() only in a plain select
        select
            file_id,
            source_file,
            {{ position_expr }} as copy_position,
            cast({{ key_expr }} as string) as copy_key,
            coalesce({{ cond }}, false) as has_identity,
            {{ mqcap_row_value(['file_id', order_expr]) }} as copy_order,
            {{ partition }} as mqcap_identity
        from {{ relation }}
    )
    {%- endset %}
select
    '{{ source_table }}' as source_table,
    copy_rows.file_id,
    copy_rows.source_file,
    copy_rows.copy_position as position,
    copy_rows.copy_key,
    firsts.first_file_id,
    firsts.first_source_file,
    firsts.first_position
from {{ identified }} as copy_rows
inner join (
    select
        mqcap_identity,
        min(file_id) as first_file_id,
        {{ mqcap_arg_min('source_file', 'copy_order') }} as first_source_file,
        {{ mqcap_arg_min('copy_position', 'copy_order') }} as first_position
    from {{ identified }} as identities
    where has_identity
    group by mqcap_identity
) as firsts
    on copy_rows.mqcap_identity is not distinct from firsts.mqcap_identity
where copy_rows.has_identity and copy_rows.file_id <> firsts.first_file_id
{% endmacro %}

{#-
    One row per DISPLAY CHSTATUS snapshot with the content of all its blocks as text: a snapshot
    is a copy only when everything it printed is, so a block that counts keeps its snapshot.
-#}
{% macro chstatus_snapshots(snapshots, attrs) %}
select
    snap.*,
    coalesce(content.snapshot_content, '') as snapshot_content
from {{ snapshots }} as snap
left join (
    select
        file_id,
        snapshot_no,
        {{ mqcap_string_agg(
            "coalesce(channel, '') || ':' || key || '(' || coalesce(value, '') || ')'", "' '",
            'block_no, source_line, pair_no'
        ) }} as snapshot_content
    from {{ attrs }}
    group by file_id, snapshot_no
) as content
    on snap.file_id = content.file_id and snap.snapshot_no = content.snapshot_no
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
    {{ mqcap_string_agg("key || '(' || coalesce(value, '') || ')'", "' '", 'source_line, pair_no') }} as block_content
from {{ relation }}
group by file_id, block_no
{% endmacro %}
