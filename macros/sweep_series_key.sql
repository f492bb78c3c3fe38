{#-
    The key of a thread-sweep series: study x configuration x scenario x hardware model x
    message size x persistence ('-' for a value the run does not give), then the labels that
    vary within the configuration in brackets when there are any (int_run_sets.point_labels:
    a label such as a topology that the study groups by). fct_thread_sweep and
    fct_sweep_summary (its baseline pairs) build it alike.
-#}
{% macro sweep_series_key(runs, message_bytes, point_labels) -%}
    {{ runs }}.study || '|' || {{ runs }}.configuration || '|' || coalesce({{ runs }}.scenario, '-')
    || '|' || coalesce({{ runs }}.hardware_model, '-') || '|'
    || coalesce(cast({{ message_bytes }} as {{ dbt.type_string() }}), '-') || '|'
    || coalesce({{ runs }}.persistence, '-')
    || coalesce(' [' || {{ point_labels }} || ']', '')
{%- endmacro %}
