{#- Text pieces of fct_findings' sentences, computed in SQL so no number is ever typed. -#}

{% macro size_text(bytes_col) -%}
    case
        when {{ bytes_col }} is null then 'all sizes'
        when {{ bytes_col }} >= 1048576 and {{ bytes_col }} % 1048576 = 0
            then cast(cast({{ bytes_col }} / 1048576 as bigint) as {{ dbt.type_string() }}) || ' MB'
        when {{ bytes_col }} >= 1024 and {{ bytes_col }} % 1024 = 0
            then cast(cast({{ bytes_col }} / 1024 as bigint) as {{ dbt.type_string() }}) || ' KB'
        else {{ num_text(bytes_col) }} || ' bytes'
    end
{%- endmacro %}

{% macro num_text(expr, decimals=0) -%}
    {{ mqcap_format_number(expr, decimals) }}
{%- endmacro %}

{% macro pct_text(expr, decimals=1) -%}
    {{ mqcap_format_signed_pct(expr, decimals) }}
{%- endmacro %}

{#- A % change with the places that agree with the figures it compares: two below 100%
    ('+37.87%', as MP16 prints them), none from 100% ('+4,161%'). -#}
{% macro pct_text_fine(expr) -%}
    case
        when abs({{ expr }}) >= 100 then {{ mqcap_format_signed_pct(expr, 0) }}
        else {{ mqcap_format_signed_pct(expr, 2) }}
    end
{%- endmacro %}

{#- A time in microseconds in the unit that reads: '17.0 s', '26.6 ms', '257.7 µs'. -#}
{% macro duration_text(us_expr) -%}
    case
        when abs({{ us_expr }}) >= 1000000 then {{ num_text(us_expr ~ ' / 1000000.0', 1) }} || ' s'
        when abs({{ us_expr }}) >= 1000 then {{ num_text(us_expr ~ ' / 1000.0', 1) }} || ' ms'
        else {{ num_text(us_expr, 1) }} || ' µs'
    end
{%- endmacro %}

{#- 'a (b, c)' group text: the scenario and hardware model of a row, where given. -#}
{% macro group_text(scenario_col, model_col) -%}
    concat_ws(', ', {{ scenario_col }}, {{ model_col }})
{%- endmacro %}

{% macro where_text(scenario_col, model_col) -%}
    coalesce(', ' || {{ scenario_col }}, '') || coalesce(', ' || {{ model_col }}, '')
{%- endmacro %}

{#- The first letter in upper case (a sentence that opens with a measure's name). -#}
{% macro capitalized(expr) -%}
    upper(substr({{ expr }}, 1, 1)) || substr({{ expr }}, 2)
{%- endmacro %}

{#- 'a to b', or 'a' when both print the same. -#}
{% macro range_text(low, high, decimals=1) -%}
    case
        when {{ num_text(low, decimals) }} = {{ num_text(high, decimals) }} then {{ num_text(low, decimals) }}
        else {{ num_text(low, decimals) }} || ' to ' || {{ num_text(high, decimals) }}
    end
{%- endmacro %}

{#- A point along what a pair varies: '2 KB' (size), '3 recipients', '8 threads'. -#}
{% macro x_text(kind_col, value_col) -%}
    case {{ kind_col }}
        when 'recipients' then cast({{ value_col }} as {{ dbt.type_string() }})
            || case when {{ value_col }} = 1 then ' recipient' else ' recipients' end
        when 'threads' then cast({{ value_col }} as {{ dbt.type_string() }})
            || case when {{ value_col }} = 1 then ' thread' else ' threads' end
        else {{ size_text(value_col) }}
    end
{%- endmacro %}
