{#-
    Each model's row checks, run inside the model's own node: a post-hook of every model and
    seed (dbt_project.yml) that runs the query of the model's `primary_key` test
    (macros/primary_key.sql: the key, `required`, `references`, `referenced_by`, `accepted`)
    and fails the node when it returns a row, naming the model, the number of failures and the
    first five.

    The checks are declared as dbt tests in the models' YAML, where dbt's docs list them and a
    plain `dbt test` runs them; mqcap's builds leave the test nodes out
    (`--exclude-resource-type test`, mqcap.build) and run the same query here. A test is a dbt
    node of its own, and a node costs dbt about 50 ms of Python whatever its rows (87 of them
    were a quarter of a small study's build); here the query is one statement of the model's
    node. On DuckDB the hook is a statement run inside the model's transaction
    (macros/materializations.sql), so a model whose rows fail keeps the rows it had; on Spark
    the failures are read while the hook is rendered (spark__mqcap_fail_on_rows), the build
    fails and the lake keeps pointing at the last complete build (mqcap.spark.lake).

    A model a check reads (`references: [{to: ref('dim_run')}]`, `referenced_by: [{model:
    ...}]`) must be built before the model checked, or be that model: tests/test_layout.py fails
    when it is not among the model's ancestors (a `-- depends_on:` line makes it one).
-#}
{% macro mqcap_row_checks() %}
    {#- Not in the DuckDB views the Spark engine's build scope reads (mqcap.build): the Spark
        build checks those models' rows itself. -#}
    {%- if not execute or model is not mapping or var('mqcap_views_only', false) -%}
        {{ return('') }}
    {%- endif -%}
    {#- A view an incremental Spark build makes again over unchanged sources: its rows are the
        ones the last complete build checked (mqcap.spark.carry). -#}
    {%- if model.unique_id in env_var('MQCAP_SPARK_UNCHECKED', '').split(',') -%}
        {{ return('') }}
    {%- endif -%}
    {%- set checks = [] -%}
    {%- for node in graph.nodes.values() -%}
        {%- if node.resource_type == 'test' and node.attached_node == model.unique_id
              and node.test_metadata and node.test_metadata.name == 'primary_key' -%}
            {%- do checks.append(node.test_metadata.kwargs) -%}
        {%- endif -%}
    {%- endfor -%}
    {%- if not checks -%}
        {{ return('') }}
    {%- endif -%}
    {%- set relation = this if model.resource_type == 'seed' else get_where_subquery(this) -%}
    {%- set parts = [] -%}
    {%- for kwargs in checks -%}
        {%- set references = [] -%}
        {%- for ref_ in kwargs.get('references', []) -%}
            {%- do references.append({
                'column': ref_.column,
                'to': mqcap_relation_of(ref_.to),
                'field': ref_.field,
            }) -%}
        {%- endfor -%}
        {%- set referenced_by = [] -%}
        {%- for by in kwargs.get('referenced_by', []) -%}
            {%- do referenced_by.append({
                'model': mqcap_relation_of(by.model),
                'column': by.column,
                'field': by.field,
            }) -%}
        {%- endfor -%}
        {%- do parts.append(test_primary_key(
            model=relation,
            column_name=kwargs.column_name,
            required=kwargs.get('required', []),
            references=references,
            accepted=kwargs.get('accepted', {}),
            referenced_by=referenced_by,
        )) -%}
    {%- endfor -%}
    {%- set text = dbt.type_string() -%}
    {%- set described -%}
        failure || coalesce(' ' || key_value, '') || ' (' || cast(key_rows as {{ text }}) || ' rows)'
    {%- endset -%}
    {#- One row: how many failures there are (null when none) and the first five in order. -#}
    {%- set summary -%}
    select
        max(failures) as failures,
        {{ mqcap_string_agg('described', "'; '", 'described') }} as first_failures
    from (
        select
            {{ described }} as described,
            count(*) over () as failures,
            row_number() over (order by {{ described }}) as failure_number
        from (
            {%- for part in parts %}
            {{ 'union all' if not loop.first }}
            select * from (
                {{ part }}
            ) mqcap_check_{{ loop.index }}
            {%- endfor %}
        ) mqcap_failed_rows
    ) mqcap_failures
    where failure_number <= 5
    {%- endset -%}
    {{ return(adapter.dispatch('mqcap_fail_on_rows', 'mqcap')(summary)) }}
{% endmacro %}

{#- The relation of a check's `to: ref('name')` (the text dbt keeps in the test's arguments). -#}
{% macro mqcap_relation_of(text) %}
    {%- set name = text.split("'")[1] if "'" in text else text.split('"')[1] -%}
    {%- for kind in ('model', 'seed', 'snapshot') -%}
        {%- set node = graph.nodes.get(kind ~ '.' ~ model.package_name ~ '.' ~ name) -%}
        {%- if node -%}
            {{ return(api.Relation.create(
                database=node.database, schema=node.schema, identifier=node.alias or node.name)) }}
        {%- endif -%}
    {%- endfor -%}
    {{ exceptions.raise_compiler_error("row checks of " ~ this ~ ": no model '" ~ name ~ "' to refer to") }}
{% endmacro %}

{#- The hook's statement for the summary of a model's failed rows: DuckDB runs it in the model's
    transaction and error() fails it when there are failures. -#}
{% macro default__mqcap_fail_on_rows(summary) %}
    select error('row checks of {{ this }} failed: ' || cast(failures as {{ dbt.type_string() }})
        || ' failure(s): ' || first_failures)
    from (
        {{ summary }}
    ) mqcap_summary
    where failures is not null
{% endmacro %}

{#- Spark: dbt-spark's session cursor only plans a statement whose rows nobody reads (a hook's
    select would never run), and Spark evaluates raise_error() before a filter on the same
    aggregate. The summary is read here while the hook is rendered, and a failure raised from
    Jinja; the hook itself is then empty. -#}
{% macro spark__mqcap_fail_on_rows(summary) %}
    {%- set found = run_query(summary) -%}
    {%- if found is not none and found.rows and found.rows[0][0] is not none -%}
        {{ exceptions.raise_compiler_error('row checks of ' ~ this ~ ' failed: '
            ~ found.rows[0][0] ~ ' failure(s): ' ~ found.rows[0][1]) }}
    {%- endif -%}
    {{ return('') }}
{% endmacro %}
