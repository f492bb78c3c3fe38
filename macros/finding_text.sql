{#- Text pieces of fct_findings' sentences, computed in SQL so no number is ever typed. -#}

{% macro size_text(bytes_col) -%}
    case
        when {{ bytes_col }} is null then 'all sizes'
        when {{ bytes_col }} >= 1048576 and {{ bytes_col }} % 1048576 = 0
            then cast(cast({{ bytes_col }} / 1048576 as bigint) as {{ dbt.type_string() }}) || ' MB'
        when {{ bytes_col }} >= 1024 and {{ bytes_col }} % 1024 = 0
            then cast(cast({{ bytes_col }} / 1024 as bigint) as {{ dbt.type_string() }}) || ' KB'
        else cast({{ bytes_col }} as {{ dbt.type_string() }}) || ' bytes'
    end
{%- endmacro %}

{% macro num_text(expr, decimals=0) -%}
    {{ mqcap_format_number(expr, decimals) }}
{%- endmacro %}

{% macro pct_text(expr) -%}
    {{ mqcap_format_signed_pct(expr) }}
{%- endmacro %}

{% macro where_text(scenario_col, model_col) -%}
    coalesce(', ' || {{ scenario_col }}, '') || coalesce(', ' || {{ model_col }}, '')
{%- endmacro %}
