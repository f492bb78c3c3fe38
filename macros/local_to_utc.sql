{#-
    A local timestamp expression in UTC, with the first clock stated of: the run's fixed
    utc_offset_minutes, the run's IANA timezone, the study's offset, the study's timezone
    (`run` and `study` are relations with utc_offset_minutes and timezone columns). None
    stated: the local clock is taken to be UTC. An IANA zone is resolved at that instant
    (summer time), with DuckDB's ICU time zones.
-#}
{% macro local_to_utc(ts, run, study) %}
case
    when {{ run }}.utc_offset_minutes is not null
        then {{ ts }} - to_minutes(cast({{ run }}.utc_offset_minutes as bigint))
    when {{ run }}.timezone is not null
        then timezone('UTC', timezone({{ run }}.timezone, {{ ts }}))
    when {{ study }}.utc_offset_minutes is not null
        then {{ ts }} - to_minutes(cast({{ study }}.utc_offset_minutes as bigint))
    when {{ study }}.timezone is not null
        then timezone('UTC', timezone({{ study }}.timezone, {{ ts }}))
    else {{ ts }}
end
{% endmacro %}
