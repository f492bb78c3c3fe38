{#-
    Rows of `relation` with the run they measured (run_key): the run folder their file was
    dropped in, else the run whose interval holds `time_col` (same system / queue manager when
    the manifest names them; NULL columns match anything). Rows matching no run are dropped.
-#}
{% macro attribute_to_runs(relation, time_col, system_col=none, qmgr_col=none) %}
select
    coalesce(folder.run_key, by_time.run_key) as run_key,
    rows_in.*
from {{ relation }} as rows_in
left join {{ ref('int_file_runs') }} as folder
    on rows_in.file_id = folder.file_id
left join {{ ref('int_runs') }} as by_time
    on
        folder.run_key is null
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
