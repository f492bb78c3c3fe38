{#-
    Rows of `relation` with the run they measured (run_key): the run folder their file was
    dropped in, else the run whose interval holds `time_col` (same system / queue manager when
    the manifest names them; NULL columns match anything). Rows matching no run are dropped.
    clock: 'local' (the measured system's clock, as manifests are written) or 'utc' (a source
    stamped in UTC, e.g. amqsrua: compared with int_runs.interval_start_utc/_end_utc, i.e. the
    interval moved by the run's or study's utc_offset / timezone). The join hashes on the hour
    (mqcap_hours in engine.sql): a run is one row per hour it touches, a row meets its hour's.
-#}
{% macro attribute_to_runs(relation, time_col, system_col=none, qmgr_col=none, clock='local') %}
{%- set suffix = '_utc' if clock == 'utc' else '' -%}
{%- if clock not in ('local', 'utc') -%}
    {{ exceptions.raise_compiler_error("attribute_to_runs: clock must be 'local' or 'utc'") }}
{%- endif -%}
select
    coalesce(folder.run_key, by_time.run_key) as run_key,
    rows_in.*
from {{ relation }} as rows_in
left join {{ ref('int_file_runs') }} as folder
    on rows_in.file_id = folder.file_id
left join (
    select
        run_key,
        system_id,
        qmgr,
        interval_start{{ suffix }} as interval_start,
        interval_end{{ suffix }} as interval_end,
        {{ mqcap_hours('interval_start' ~ suffix, 'interval_end' ~ suffix) }} as hour_number
    from {{ ref('int_runs') }}
) as by_time
    on
        folder.run_key is null
        and by_time.hour_number = {{ mqcap_hour('rows_in.' ~ time_col) }}
        and rows_in.{{ time_col }} >= by_time.interval_start
        and rows_in.{{ time_col }} < by_time.interval_end
        {% if system_col %}
            and (by_time.system_id is null or rows_in.{{ system_col }} is null
            or upper(rows_in.{{ system_col }}) = by_time.system_id)
        {% endif %}
        {% if qmgr_col %}
            and (by_time.qmgr is null or rows_in.{{ qmgr_col }} is null
            or upper(rows_in.{{ qmgr_col }}) = by_time.qmgr)
        {% endif %}
where coalesce(folder.run_key, by_time.run_key) is not null
{% endmacro %}
