{#-
    The fields the four channel-initiator task structures of SMF 115 subtype 231 share
    (QCTDSP dispatcher, QCTADP adapter, QCTSSL SSL server, QCTDNS DNS): the task's number and
    index, requests, and its CPU, elapsed and wait time in microseconds. Their staging models
    (written by python -m mqcap.codegen: pipelines/mqcap/codegen/smf_staging.py TASK_COLUMNS)
    select them unchanged after the SMF header.
-#}
{% macro chinit_task_columns() -%}
    task_number,
    task_index,
    request_count,
    task_cpu_time_us,
    task_elapsed_time_us,
    task_wait_time_us
{%- endmacro %}
