{#-
    The columns every SMF staging model (models/staging/smf, written by python -m mqcap.codegen)
    starts with: the row's key (file, record or CSV line, item within the record), its lineage
    and the SMF / MQ header fields that every structure's landing table carries.
-#}
{% macro smf_header_columns() -%}
    cast(file_id as {{ dbt.type_string() }}) || '-'
    || cast(coalesce(source_record, source_line) as {{ dbt.type_string() }}) || '-'
    || cast(source_item as {{ dbt.type_string() }}) as smf_row_key,
    {{ lineage_columns() }},
    smf_type,
    smf_subtype,
    record_time_local,
    system_id,
    qmgr as qmgr_name,
    qsg,
    mq_version,
    interval_start_utc,
    interval_duration_s,
    interval_duration_us
{%- endmacro %}
