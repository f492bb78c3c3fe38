{#-
    Conversions between the measured system's local clock and UTC, for a run's clock as
    int_runs states it: `tz` an IANA zone (resolved at that instant, summer time included, with
    DuckDB's ICU time zones) or, when it is NULL, `offset` minutes east of UTC (NULL: 0, the
    local clock taken to be UTC). Arguments are SQL expressions.
-#}
{% macro local_to_utc(ts, offset, tz) %}
case
    when {{ tz }} is not null then {{ mqcap_zone_to_utc(ts, tz) }}
    else {{ mqcap_add_minutes(ts, '-coalesce(' ~ offset ~ ', 0)') }}
end
{% endmacro %}

{% macro utc_to_local(ts, offset, tz) %}
case
    when {{ tz }} is not null then {{ mqcap_utc_to_zone(ts, tz) }}
    else {{ mqcap_add_minutes(ts, 'coalesce(' ~ offset ~ ', 0)') }}
end
{% endmacro %}
