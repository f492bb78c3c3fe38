-- Generated from seeds/measures.csv (reader_name) by python -m mqcap.codegen: edit the seed.
{#- A measure's name as a reader says it, with its subject (an address space, a task type)
    where the measure has one other than TOTAL: 'CPU per transaction (CHIN)'. -#}
{% macro measure_text(measure_col, subject_col) -%}
    case {{ measure_col }}
        when 'channel_rate_per_s' then 'channel start rate'
        when 'cpu_us_per_channel' then 'CPU per channel'
        when 'cpu_us_per_request' then 'CPU per request'
        when 'cpu_us_per_txn' then 'CPU per transaction'
        when 'crypto_util_pct' then 'crypto utilisation'
        when 'log_write_latency_us' then 'log write latency'
        when 'nettime_avg_us' then 'NETTIME'
        when 'nettime_short_p95_us' then 'NETTIME p95'
        when 'qmgr_cpu_pct' then 'queue manager CPU'
        when 'rate_per_s' then 'transaction rate'
        when 'round_trip_us' then 'round trip'
        when 'time_per_channel_us' then 'time per channel'
        when 'xqtime_short_p95_us' then 'XQTIME p95'
        else replace({{ measure_col }}, '_', ' ')
    end
    || case
        when {{ subject_col }} is null or {{ subject_col }} in ('TOTAL', '-', '') then ''
        else ' (' || {{ subject_col }} || ')'
    end
{%- endmacro %}
