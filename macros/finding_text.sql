{#- Text pieces of fct_findings' sentences, computed in SQL so no number is ever typed. -#}

{% macro size_text(bytes_col) -%}
    case
        when {{ bytes_col }} is null then 'all sizes'
        when {{ bytes_col }} >= 1048576 and {{ bytes_col }} % 1048576 = 0
            then cast({{ bytes_col }} // 1048576 as varchar) || ' MB'
        when {{ bytes_col }} >= 1024 and {{ bytes_col }} % 1024 = 0
            then cast({{ bytes_col }} // 1024 as varchar) || ' KB'
        else cast({{ bytes_col }} as varchar) || ' bytes'
    end
{%- endmacro %}

{% macro num_text(expr, decimals=0) -%}
    format('{:,.{{ decimals }}f}', cast({{ expr }} as double))
{%- endmacro %}

{% macro pct_text(expr) -%}
    format('{:+.1f}%', cast({{ expr }} as double))
{%- endmacro %}

{% macro where_text(scenario_col, model_col) -%}
    coalesce(', ' || {{ scenario_col }}, '') || coalesce(', ' || {{ model_col }}, '')
{%- endmacro %}
