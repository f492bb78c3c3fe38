{#-
    A model's key and the columns every row must have, in one query and one dbt node: the key
    column has every value present and none repeated, and each column named in `required` has
    no null. dbt's `unique` and `not_null` are a node each, about 55 ms of a build apiece on a
    handful of rows, and nearly every model had a key and one to four required columns (70
    not_null nodes folded into 37 key tests).

    A failing row says what failed: `failure` is 'repeated key' (key_value, and key_rows the
    copies), 'null key' (key_rows the rows without one) or 'null <column>' (key_rows the rows
    where that column is null). Like every generic test it reads its model through
    get_where_subquery (macros/run_scope.sql), so an incremental build checks the runs rebuilt.

        data_tests:
          - primary_key:
              arguments:
                required: [file_id, source_line]
-#}
{% test primary_key(model, column_name, required=[]) %}
    select
        case when {{ column_name }} is null then 'null key' else 'repeated key' end as failure,
        {{ column_name }} as key_value,
        count(*) as key_rows
    from {{ model }}
    group by {{ column_name }}
    having count(*) > 1 or {{ column_name }} is null
    {%- for column in required %}
    union all
    select 'null {{ column }}' as failure, null as key_value, count(*) as key_rows
    from {{ model }}
    where {{ column }} is null
    having count(*) > 0
    {%- endfor %}
{% endtest %}
