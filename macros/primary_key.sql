{#-
    A model's key and the other row-level rules of its YAML, in one query and one dbt node: the
    key column has every value present and none repeated; each column named in `required` has
    no null; each of `references` (column, to, field) names a row of the model it points to
    (dbt's `relationships`: a null references nothing and passes); each column of `accepted`
    holds only the values listed (dbt's `accepted_values`: null passes); each of
    `referenced_by` (model, column, field) says every non-null `column` of that model names a
    row of this one (a reference checked from the model it points to, for a model built after
    the one pointing: dim_study, from dim_configuration). dbt's generic tests
    are a node each, about 40 ms of a build apiece on a handful of rows: 70 `not_null` nodes
    folded into the key tests first, then 14 `relationships` and 12 `accepted_values`.

    A failing row says what failed: `failure` is 'repeated key' (key_value, and key_rows the
    copies), 'null key' (key_rows the rows without one), 'null <column>' (key_rows the rows
    where that column is null), 'no <to> row for <column>' (key_value the value pointing
    nowhere, key_rows its rows), 'no row for <model>.<column>' (the same, from referenced_by)
    or 'unexpected <column>' (key_value the value, key_rows its rows). key_value is text,
    whatever the column's type. Like every generic test it reads its model through
    get_where_subquery (macros/run_scope.sql), so an incremental build checks the runs rebuilt;
    the models referred to are read whole.

    mqcap's builds run this query inside the model's own node, not as a test node
    (macros/row_checks.sql); a plain `dbt test` runs it as a test.

        data_tests:
          - primary_key:
              arguments:
                required: [file_id, source_line]
                references:
                  - {column: run_key, to: ref('dim_run'), field: run_key}
                accepted:
                  role: [MSTR, CHIN, TCPIP]
-#}
{% test primary_key(model, column_name, required=[], references=[], accepted={}, referenced_by=[]) %}
    {%- set text = dbt.type_string() %}
    with checked as (select * from {{ model }})
    select
        case when {{ column_name }} is null then 'null key' else 'repeated key' end as failure,
        cast({{ column_name }} as {{ text }}) as key_value,
        count(*) as key_rows
    from checked
    group by {{ column_name }}
    having count(*) > 1 or {{ column_name }} is null
    {%- for column in required %}
    union all
    select 'null {{ column }}' as failure, cast(null as {{ text }}) as key_value, count(*) as key_rows
    from checked
    where {{ column }} is null
    having count(*) > 0
    {%- endfor %}
    {%- for ref_ in references %}
    union all
    select
        'no {{ ref_.to.identifier }} row for {{ ref_.column }}' as failure,
        cast(checked.{{ ref_.column }} as {{ text }}) as key_value,
        count(*) as key_rows
    from checked
    left join {{ ref_.to }} as parent on checked.{{ ref_.column }} = parent.{{ ref_.field }}
    where checked.{{ ref_.column }} is not null and parent.{{ ref_.field }} is null
    group by checked.{{ ref_.column }}
    {%- endfor %}
    {%- for by in referenced_by %}
    union all
    select
        'no row for {{ by.model.identifier }}.{{ by.column }}' as failure,
        cast(child.{{ by.column }} as {{ text }}) as key_value,
        count(*) as key_rows
    from {{ by.model }} as child
    left join checked on child.{{ by.column }} = checked.{{ by.field }}
    where child.{{ by.column }} is not null and checked.{{ by.field }} is null
    group by child.{{ by.column }}
    {%- endfor %}
    {%- for column, values in accepted.items() %}
    union all
    select
        'unexpected {{ column }}' as failure,
        cast({{ column }} as {{ text }}) as key_value,
        count(*) as key_rows
    from checked
    where {{ column }} not in (
        {%- for value in values %}'{{ value | replace("'", "''") }}'{{ ", " if not loop.last }}{% endfor -%}
    )
    group by {{ column }}
    {%- endfor %}
{% endtest %}
