{#-
    Run-keyed incremental marts (README "Incremental build"). A mart whose grain includes the
    run calls run_keyed_incremental() at its top. Built with --vars '{mqcap_incremental: true}'
    (mqcap's incremental build), the rows of the runs listed in meta.build_scope (written by
    pipelines/mqcap/ledger/scope.py before dbt runs) are deleted and those runs' rows of the model's
    query inserted, in one statement (strategy run_scope, mqcap's DuckDB incremental
    materialization: macros/materializations.sql); without that var (a plain
    `dbt build`, a full build) the table is rebuilt whole. The deletion also covers runs that no
    longer produce any row (a deleted file, a renamed run).
    On Spark (README "Engines") every build writes a new build folder, so there is no table to
    delete from: before the models run, carry_prior_runs() (on-run-start) creates each run-keyed
    mart in the new folder as the last complete build's rows of the runs outside the scope, and
    dbt-spark's incremental materialization then appends the scope's rows (an `insert into`, the
    append strategy restricted to the scope: spark__ below). Same rows, same tests.
    meta.build_scope is mqcap's bookkeeping, not data: it is named here, not through a source,
    so the models' unit tests need no input for it.
-#}
{% macro run_keyed_incremental() %}
    {{- config(
        materialized='incremental',
        incremental_strategy='run_scope',
        full_refresh=(none if var('mqcap_incremental', false) else true),
    ) -}}
{%- endmacro %}

{% macro build_scope_runs() -%}
    (select build_scope.run_key from meta.build_scope as build_scope)
{%- endmacro %}

{#- `<column> in` the build scope in an incremental build, else true: keeps the model's query
    to the runs recomputed (it must not change those runs' rows, only drop the others). -#}
{% macro in_build_scope(column='run_key') %}
    {#- A unit test has no relation (this): it tests the full query. -#}
    {%- if this is not none and is_incremental() -%}
        {{ column }} in {{ build_scope_runs() }}
    {%- else -%}
        true
    {%- endif -%}
{%- endmacro %}

{#- The data tests of a run-keyed mart in an incremental build check the rows of the runs
    rebuilt: the other runs' rows are unchanged since the build that checked them (every key of
    these marts starts with the run_key, so a key repeated across runs is a key repeated
    within one). Every generic test takes its model through this macro (dbt's own, overridden
    here); a test's `where` config is kept. A full build (`mqcap build --full`, a plain
    `dbt build`) checks every row. -#}
{% macro get_where_subquery(relation) -%}
    {%- set where = config.get('where', '') -%}
    {%- if var('mqcap_incremental', false) and is_run_keyed(relation) -%}
        {%- set scoped = 'run_key in ' ~ build_scope_runs() -%}
        {%- set where = '(' ~ where ~ ') and ' ~ scoped if where else scoped -%}
    {%- endif -%}
    {%- if where -%}
        {%- do return('(select * from ' ~ relation ~ ' where ' ~ where ~ ') dbt_subquery') -%}
    {%- endif -%}
    {%- do return(relation) -%}
{%- endmacro %}

{#- True for the relation of a model built with strategy run_scope (run_keyed_incremental()). -#}
{% macro is_run_keyed(relation) -%}
    {%- if not execute or relation is none or relation.identifier is none -%}
        {%- do return(false) -%}
    {%- endif -%}
    {%- for node in graph.nodes.values() -%}
        {%- if node.resource_type == 'model'
              and node.config.get('incremental_strategy') == 'run_scope'
              and (node.alias or node.name) | lower == relation.identifier | lower
              and node.schema | lower == (relation.schema or '') | lower -%}
            {%- do return(true) -%}
        {%- endif -%}
    {%- endfor -%}
    {%- do return(false) -%}
{%- endmacro %}

{#- dbt-spark's incremental materialization accepts its own strategies only; run_scope is its
    append of the build scope's rows (the rest of the runs were carried by carry_prior_runs). -#}
{% macro dbt_spark_validate_get_incremental_strategy(raw_strategy, file_format) %}
    {%- if raw_strategy == 'run_scope' -%}
        {%- do return(raw_strategy) -%}
    {%- endif -%}
    {%- do return(dbt_spark.dbt_spark_validate_get_incremental_strategy(raw_strategy, file_format)) -%}
{% endmacro %}

{% macro dbt_spark_get_incremental_sql(strategy, source, target, existing, unique_key, incremental_predicates) %}
    {%- if strategy != 'run_scope' -%}
        {{ return(dbt_spark.dbt_spark_get_incremental_sql(strategy, source, target, existing, unique_key, incremental_predicates)) }}
    {%- endif -%}
    {%- set columns = adapter.get_columns_in_relation(target) | map(attribute='quoted') | join(', ') -%}
    insert into table {{ target }}
    select {{ columns }} from {{ source }}
    where run_key in {{ build_scope_runs() }}
{% endmacro %}

{#-
    on-run-start (dbt_project.yml): in an incremental build on Spark, each run-keyed mart of the
    last complete build (registered by mqcap.spark.dbt as mqcap_prior.<mart> from lake/marts.json)
    is created in this build's folder with its rows of the runs outside meta.build_scope. A mart
    the last build did not have is not created here, and its model makes it whole. A mart
    whose sources are all unchanged is not built at all (mqcap.spark.carry registers the last
    build's table and leaves the model out of the selection), so not here either. Nothing on
    DuckDB, whose run_scope strategy deletes and inserts in place.
-#}
{% macro carry_prior_runs() %}
    {%- if execute and target.type == 'spark' and var('mqcap_incremental', false) -%}
        {%- for node in graph.nodes.values()
              if node.resource_type == 'model'
              and node.config.get('incremental_strategy') == 'run_scope'
              and node.unique_id in selected_resources -%}
            {%- set name = node.alias or node.name -%}
            {%- set prior = adapter.get_relation(database=none, schema='mqcap_prior', identifier=name) -%}
            {%- if prior is not none -%}
                {%- set carried = api.Relation.create(
                    database=node.database, schema=node.schema, identifier=name, type='table') -%}
                {%- call statement('carry_' ~ name) -%}
                    create table {{ carried }} using parquet as
                    select * from {{ prior }}
                    where run_key not in {{ build_scope_runs() }}
                {%- endcall -%}
                {#- dbt read the catalog before this hook: the model's materialization must
                    find the table (else it creates it whole, and fails: it exists). -#}
                {%- do adapter.cache_added(carried) -%}
            {%- endif -%}
        {%- endfor -%}
    {%- endif -%}
{% endmacro %}
