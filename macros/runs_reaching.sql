{#-
    The runs each record of ``relation`` reaches, one row per record ``key``: ``shared_runs``
    lists them (', ' between) when there are two or more, else null. fct_file_reconciliation
    left-joins it to a staging or intermediate model to count the records reached and those
    counted in two or more runs.
-#}
{% macro runs_reaching(key, relation) %}
    (
        select
            {{ key }},
            case
                when count(distinct run_key) > 1
                    then
                        {{ mqcap_string_agg('run_key', "', '", 'run_key', distinct=true) }}
            end as shared_runs
        from {{ relation }}
        group by {{ key }}
    )
{% endmacro %}
