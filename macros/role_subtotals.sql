{#-
  The rows of `relation` (one CPU figure per `keys` x address-space role) and, per `keys`, two
  subtotals as further roles: 'MQ' = MSTR + CHIN (MP16's MQ cost: the queue manager and its
  channel initiator), only where `mq_where` holds, and 'TOTAL' (every role measured).
  `relation` has the columns `keys`, `role` and `value`. Used by fct_cost_delta (per run) and
  fct_series_cost (per series and point).
  Example: {{ role_subtotals('cost', ['run_key']) }}
-#}
{% macro role_subtotals(relation, keys, value='cpu_us_per_txn', mq_where='true') %}
    {%- set k = keys | join(', ') -%}
    select {{ k }}, role, {{ value }}
    from {{ relation }}
    union all
    select {{ k }}, 'MQ' as role, sum({{ value }}) as {{ value }}
    from {{ relation }}
    where role in ('MSTR', 'CHIN') and ({{ mq_where }})
    group by {{ k }}
    union all
    select {{ k }}, 'TOTAL' as role, sum({{ value }}) as {{ value }}
    from {{ relation }}
    group by {{ k }}
{%- endmacro %}
