{#
  The descriptions of the models and seeds a build made (their YAML `description`s) as DuckDB
  comments on the relations and their columns, so `duckdb_tables()`, `duckdb_columns()` and
  any SQL client show them. Run once at the end of a DuckDB build (on-run-end), for the nodes
  that succeeded: one catalog query and one batch of COMMENT statements, where dbt's
  persist_docs runs two or three queries per model (1.8 s of a 13 s build of the ten-run study).
  The Spark engine keeps dbt's persist_docs (dbt_project.yml).
  Only the comments a relation lacks or holds in another text are written (a relation made
  again by `create or replace` has none; a run-keyed table an incremental build only deleted
  from and inserted into keeps them), and the batch is one transaction: each COMMENT in a
  transaction of its own cost about 4 ms (860 of them 3.4 s of a ten-run add-one-run build,
  all of them in one 0.6 s, on a loaded 2-core VM).
#}
{% macro persist_descriptions(results) %}
  {% if execute and target.type == 'duckdb' %}
    {% set nodes = [] %}
    {% for res in results %}
      {% if res.node.resource_type in ('model', 'seed') and res.status in ('success', 'pass')
            and res.node.config.materialized != 'ephemeral' %}
        {% do nodes.append(res.node) %}
      {% endif %}
    {% endfor %}
    {% if nodes %}
      {% set schemas = "('" ~ nodes | map(attribute='schema') | unique | join("', '") ~ "')" %}
      {#- Each column and relation of those schemas (a relation as column ''), with the md5 of
          its comment ('' for none): text agate does not take for a number or a date. -#}
      {% set existing = run_query(
          "select schema_name || '.' || table_name || '.' || column_name,
                  'md5:' || coalesce(md5(comment), '')
           from duckdb_columns()
           where database_name = current_database() and schema_name in " ~ schemas ~ "
           union all
           select schema_name || '.' || table_name || '.',
                  'md5:' || coalesce(md5(comment), '')
           from duckdb_tables()
           where database_name = current_database() and schema_name in " ~ schemas ~ "
           union all
           select schema_name || '.' || view_name || '.',
                  'md5:' || coalesce(md5(comment), '')
           from duckdb_views()
           where database_name = current_database() and schema_name in " ~ schemas) %}
      {% set have = {} %}
      {% for row in existing.rows %}
        {% do have.update({row[0]: row[1]}) %}
      {% endfor %}
      {% set statements = [] %}
      {% for node in nodes %}
        {% set kind = 'view' if node.config.materialized == 'view' else 'table' %}
        {% set prefix = node.schema ~ '.' ~ node.alias ~ '.' %}
        {% if node.description and prefix in have
              and have[prefix] != 'md5:' ~ local_md5(node.description) %}
          {% do statements.append('comment on ' ~ kind ~ ' ' ~ node.relation_name ~ ' is '
                                  ~ duckdb_escape_comment(node.description)) %}
        {% endif %}
        {% for name, column in node.columns.items() %}
          {% if column.description and (prefix ~ name) in have
                and have[prefix ~ name] != 'md5:' ~ local_md5(column.description) %}
            {% do statements.append('comment on column ' ~ node.relation_name ~ '.'
                                    ~ adapter.quote(name) ~ ' is '
                                    ~ duckdb_escape_comment(column.description)) %}
          {% endif %}
        {% endfor %}
      {% endfor %}
      {% if statements %}
        {% do run_query('begin transaction;\n' ~ statements | join(';\n') ~ ';\ncommit') %}
      {% endif %}
    {% endif %}
  {% endif %}
{% endmacro %}
