{#-
    mqcap's DuckDB materializations: each model is one statement in one transaction.

    dbt-duckdb's own table, view and incremental materializations build a model under a
    temporary name, look up indexes and foreign keys, rename the old relation aside, rename the
    new one in, commit and drop the old one: about eight statements a model, each with dbt's
    Python around it (its events, its log lines, a Jinja call). On a ten-run study that was
    most of a build's time outside the models' own SQL. DuckDB replaces a relation in one
    statement (`create or replace`), and its DDL is transactional: a model whose query fails
    leaves its relation as it was, as dbt-duckdb's swap did. What mqcap's models do not use is
    refused rather than ignored: enforced contracts, indexes, grants, `sql_header`, and any
    incremental strategy but run_scope (macros/run_scope.sql). Descriptions are written once
    at the end of the build (macros/persist_descriptions.sql). The Spark engine keeps
    dbt-spark's materializations.
-#}

{% macro mqcap_refuse_unsupported() %}
    {%- for key in ('indexes', 'grants', 'sql_header') -%}
        {%- if config.get(key) -%}
            {%- do exceptions.raise_compiler_error(
                "mqcap's DuckDB materializations do not support '" ~ key ~ "' (macros/materializations.sql)") -%}
        {%- endif -%}
    {%- endfor -%}
    {%- if config.get('contract').enforced -%}
        {%- do exceptions.raise_compiler_error(
            "mqcap's DuckDB materializations do not enforce contracts (macros/materializations.sql)") -%}
    {%- endif -%}
{% endmacro %}

{#- What every materialization below does around its statement: the model's pre-hooks
    (outside, then inside the transaction), and after it the post-hooks inside, the commit,
    the post-hooks outside. -#}
{% macro mqcap_pre_hooks() %}
    {{ run_hooks(pre_hooks, inside_transaction=False) }}
    {{ run_hooks(pre_hooks, inside_transaction=True) }}
{% endmacro %}

{% macro mqcap_commit_and_post_hooks() %}
    {{ run_hooks(post_hooks, inside_transaction=True) }}
    {%- do adapter.commit() -%}
    {{ run_hooks(post_hooks, inside_transaction=False) }}
{% endmacro %}

{#- `drop ...;` for a relation of another type in the way of `target` (a view where a table
    goes, or the reverse), to run in the same statement as the create. -#}
{% macro mqcap_drop_other_type(existing, target) -%}
    {%- if existing is not none and existing.type != target.type -%}
        drop {{ existing.type }} if exists {{ existing }} cascade;
    {%- endif -%}
{%- endmacro %}

{#- A dbt Python model's code, ending in the `materialize(df, con)` dbt-duckdb calls: the frame
    replaces the table in one statement. -#}
{% macro mqcap_py_replace_table(relation, compiled_code) -%}
{{ compiled_code }}

def materialize(df, con):
    name = '__dbt_python_model_df_' + '{{ relation.identifier }}'
    con.register(name, df)
    con.execute('create or replace table {{ relation }} as select * from ' + name)
    con.unregister(name)
{%- endmacro %}

{#- The SQL that replaces `target` with the rows of `compiled_code`. -#}
{% macro mqcap_replace_table_sql(existing, target, compiled_code) -%}
    {{ mqcap_drop_other_type(existing, target) }}
    create or replace table {{ target }} as (
        {{ compiled_code }}
    );
{%- endmacro %}

{% materialization table, adapter='duckdb', supported_languages=['sql', 'python'] %}
    {%- do mqcap_refuse_unsupported() -%}
    {%- set existing = load_cached_relation(this) -%}
    {%- set target = this.incorporate(type='table') -%}
    {%- do mqcap_pre_hooks() -%}
    {%- if model['language'] == 'python' -%}
        {#- The Python job writes through its own cursor, outside this connection's transaction
            (and dbt calls it from a materialization only): a relation of another type in the
            way is dropped and committed first. -#}
        {%- if existing is not none and existing.type != target.type -%}
            {%- call statement('drop_other_type') -%}
                {{ mqcap_drop_other_type(existing, target) }}
            {%- endcall -%}
            {%- do adapter.commit() -%}
        {%- endif -%}
        {%- call statement('main', language='python') -%}
            {{ mqcap_py_replace_table(target, compiled_code) }}
        {%- endcall -%}
    {%- else -%}
        {%- call statement('main') -%}
            {{ mqcap_replace_table_sql(existing, target, compiled_code) }}
        {%- endcall -%}
    {%- endif -%}
    {%- do mqcap_commit_and_post_hooks() -%}
    {{ return({'relations': [target]}) }}
{% endmaterialization %}

{% materialization view, adapter='duckdb' %}
    {%- do mqcap_refuse_unsupported() -%}
    {%- set existing = load_cached_relation(this) -%}
    {%- set target = this.incorporate(type='view') -%}
    {%- do mqcap_pre_hooks() -%}
    {%- call statement('main') -%}
        {{ mqcap_drop_other_type(existing, target) }}
        create or replace view {{ target }} as (
            {{ sql }}
        );
    {%- endcall -%}
    {%- do mqcap_commit_and_post_hooks() -%}
    {{ return({'relations': [target]}) }}
{% endmaterialization %}

{#- The run-keyed marts (run_keyed_incremental(), macros/run_scope.sql): whole, like a table,
    unless mqcap's incremental build asked for the runs in meta.build_scope only; then those
    runs' rows are deleted and the model's rows of them inserted, by column name, in one
    statement. -#}
{% materialization incremental, adapter='duckdb', supported_languages=['sql'] %}
    {%- do mqcap_refuse_unsupported() -%}
    {%- set existing = load_cached_relation(this) -%}
    {%- set target = this.incorporate(type='table') -%}
    {%- set strategy = config.get('incremental_strategy') -%}
    {%- if strategy != 'run_scope' -%}
        {%- do exceptions.raise_compiler_error(
            "mqcap's DuckDB incremental materialization has the run_scope strategy only, not '"
            ~ strategy ~ "' (macros/materializations.sql)") -%}
    {%- endif -%}
    {%- do mqcap_pre_hooks() -%}
    {%- if existing is none or not existing.is_table or should_full_refresh() -%}
        {%- set sql = mqcap_replace_table_sql(existing, target, compiled_code) -%}
    {%- else -%}
        {%- set sql -%}
            delete from {{ target }} where run_key in {{ build_scope_runs() }};
            insert into {{ target }} by name
            select * from (
                {{ compiled_code }}
            ) as model_rows
            where run_key in {{ build_scope_runs() }};
        {%- endset -%}
    {%- endif -%}
    {%- call statement('main') -%}
        {{ sql }}
    {%- endcall -%}
    {%- do mqcap_commit_and_post_hooks() -%}
    {{ return({'relations': [target]}) }}
{% endmaterialization %}
