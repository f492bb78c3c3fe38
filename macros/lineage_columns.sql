{#-
    The lineage every landed row carries, text or binary (parsers/base.py TEXT_OR_BINARY_LINEAGE):
    the file, its line (text) or byte offset and record (binary), and the item within that
    line or record. Staging models select it unchanged so every row can be traced to its file.
-#}
{% macro lineage_columns() -%}
    file_id,
    source_file,
    source_line,
    source_offset,
    source_record,
    source_item
{%- endmacro %}
