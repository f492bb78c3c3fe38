{#-
    The key of a thread-sweep series: study x configuration x scenario x hardware model x
    message size x persistence ('-' for a value the run does not give). fct_thread_sweep and
    fct_sweep_summary (its baseline pairs) build it alike.
-#}
{% macro sweep_series_key(runs, message_bytes) -%}
    {{ runs }}.study || '|' || {{ runs }}.configuration || '|' || coalesce({{ runs }}.scenario, '-')
    || '|' || coalesce({{ runs }}.hardware_model, '-') || '|'
    || coalesce(cast({{ message_bytes }} as {{ dbt.type_string() }}), '-') || '|'
    || coalesce({{ runs }}.persistence, '-')
{%- endmacro %}
