{#-
    A row's position in its file as text, for surrogate keys: the line of a text row, or
    "record <n>.<item>" of a row decoded from a binary record (tables fed by both, e.g. RMF
    reports and SMF 70/72, carry TEXT_OR_BINARY_LINEAGE). Text rows keep their old key.
-#}
{% macro source_position() -%}
    coalesce(
        cast(source_line as {{ dbt.type_string() }}),
        {{ dbt.concat([
            "'record '", "cast(source_record as " ~ dbt.type_string() ~ ")", "'.'",
            "cast(source_item as " ~ dbt.type_string() ~ ")"
        ]) }}
    )
{%- endmacro %}
