{#-
    A key column: every value present and none repeated, in one query (dbt's `unique` and
    `not_null` are two, each a dbt node of its own: about 80 ms of a build apiece, and every
    model has a key). A failing row is a repeated value with its count, or the null key with
    the number of rows that lack one. Like every generic test it reads its model through
    get_where_subquery (macros/run_scope.sql), so an incremental build checks the runs rebuilt.
-#}
{% test primary_key(model, column_name) %}
    select
        {{ column_name }} as key_value,
        count(*) as key_rows
    from {{ model }}
    group by {{ column_name }}
    having count(*) > 1 or {{ column_name }} is null
{% endtest %}
