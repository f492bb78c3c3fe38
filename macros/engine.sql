{#-
    Where DuckDB and Spark SQL say the same thing differently (README "Engines"). Each macro is
    adapter-dispatched: `default__` is DuckDB's SQL, `spark__` Spark's; the models call the macro
    and stay one copy. Arguments are SQL expressions. (sqlfluff lints the models without dbt,
    so without an adapter: it sees DuckDB's SQL.)
-#}

{#- string_agg(expr, sep order by ...): the non-NULL values joined in order; NULL when none. -#}
{% macro mqcap_string_agg(expr, sep, order_by, distinct=false) -%}
    {{ return(adapter.dispatch('mqcap_string_agg', 'mqcap')(expr, sep, order_by, distinct) if adapter is defined else default__mqcap_string_agg(expr, sep, order_by, distinct)) }}
{%- endmacro %}

{% macro default__mqcap_string_agg(expr, sep, order_by, distinct) -%}
    string_agg({{ 'distinct ' if distinct }}{{ expr }}, {{ sep }} order by {{ order_by }})
{%- endmacro %}

{#- Spark 4.3's listagg(distinct ...) within group fails to plan: the distinct values sorted. -#}
{% macro spark__mqcap_string_agg(expr, sep, order_by, distinct) -%}
    {%- if distinct -%}
        {%- if order_by != expr -%}
            {{ exceptions.raise_compiler_error('mqcap_string_agg: distinct orders by the value') }}
        {%- endif -%}
    case when count({{ expr }}) > 0
        then array_join(array_sort(collect_set({{ expr }})), {{ sep }}) end
    {%- else -%}
    listagg({{ expr }}, {{ sep }}) within group (order by {{ order_by }})
    {%- endif -%}
{%- endmacro %}

{#- A JSON array of the group's values in ascending order (never NULL values here). -#}
{% macro mqcap_json_sorted_list(expr) -%}
    {{ return(adapter.dispatch('mqcap_json_sorted_list', 'mqcap')(expr) if adapter is defined else default__mqcap_json_sorted_list(expr)) }}
{%- endmacro %}

{% macro default__mqcap_json_sorted_list(expr) -%}
    to_json(list({{ expr }} order by {{ expr }}))
{%- endmacro %}

{% macro spark__mqcap_json_sorted_list(expr) -%}
    to_json(array_sort(collect_list({{ expr }})))
{%- endmacro %}

{#- A timestamp moved by a whole number of microseconds / minutes. -#}
{% macro mqcap_add_microseconds(ts, n) -%}
    {{ return(adapter.dispatch('mqcap_add_microseconds', 'mqcap')(ts, n) if adapter is defined else default__mqcap_add_microseconds(ts, n)) }}
{%- endmacro %}

{% macro default__mqcap_add_microseconds(ts, n) -%}
    ({{ ts }} + to_microseconds(cast({{ n }} as bigint)))
{%- endmacro %}

{% macro spark__mqcap_add_microseconds(ts, n) -%}
    timestampadd(microsecond, cast({{ n }} as bigint), {{ ts }})
{%- endmacro %}

{% macro mqcap_add_minutes(ts, n) -%}
    {{ return(adapter.dispatch('mqcap_add_minutes', 'mqcap')(ts, n) if adapter is defined else default__mqcap_add_minutes(ts, n)) }}
{%- endmacro %}

{% macro default__mqcap_add_minutes(ts, n) -%}
    ({{ ts }} + to_minutes(cast({{ n }} as bigint)))
{%- endmacro %}

{% macro spark__mqcap_add_minutes(ts, n) -%}
    timestampadd(minute, cast({{ n }} as bigint), {{ ts }})
{%- endmacro %}

{#-
    A wall-clock time in the IANA zone `tz` as UTC, and back (summer time included; DuckDB's
    ICU zones, Java's on Spark).
-#}
{% macro mqcap_zone_to_utc(ts, tz) -%}
    {{ return(adapter.dispatch('mqcap_zone_to_utc', 'mqcap')(ts, tz) if adapter is defined else default__mqcap_zone_to_utc(ts, tz)) }}
{%- endmacro %}

{% macro default__mqcap_zone_to_utc(ts, tz) -%}
    timezone('UTC', timezone({{ tz }}, {{ ts }}))
{%- endmacro %}

{% macro spark__mqcap_zone_to_utc(ts, tz) -%}
    cast(to_utc_timestamp({{ ts }}, {{ tz }}) as timestamp_ntz)
{%- endmacro %}

{% macro mqcap_utc_to_zone(ts, tz) -%}
    {{ return(adapter.dispatch('mqcap_utc_to_zone', 'mqcap')(ts, tz) if adapter is defined else default__mqcap_utc_to_zone(ts, tz)) }}
{%- endmacro %}

{% macro default__mqcap_utc_to_zone(ts, tz) -%}
    timezone({{ tz }}, timezone('UTC', {{ ts }}))
{%- endmacro %}

{% macro spark__mqcap_utc_to_zone(ts, tz) -%}
    cast(from_utc_timestamp({{ ts }}, {{ tz }}) as timestamp_ntz)
{%- endmacro %}

{#-
    In a FROM clause after `relation_alias`: one row per item of `text` split at `sep`, as
    `alias.item` with its place `alias.pos` (increasing along the text).
-#}
{% macro mqcap_split_rows(text, sep, alias) -%}
    {{ return(adapter.dispatch('mqcap_split_rows', 'mqcap')(text, sep, alias) if adapter is defined else default__mqcap_split_rows(text, sep, alias)) }}
{%- endmacro %}

{% macro default__mqcap_split_rows(text, sep, alias) -%}
    , unnest(string_split({{ text }}, {{ sep }})) with ordinality as {{ alias }} (item, pos)
{%- endmacro %}

{% macro spark__mqcap_split_rows(text, sep, alias) -%}
    lateral view posexplode(split({{ text }}, {{ sep }})) {{ alias }} as pos, item
{%- endmacro %}

{#-
    A number as text: `decimals` places with thousands commas ('1,234.5'), or a signed percent
    with one place ('+12.3%').
-#}
{% macro mqcap_format_number(expr, decimals) -%}
    {{ return(adapter.dispatch('mqcap_format_number', 'mqcap')(expr, decimals) if adapter is defined else default__mqcap_format_number(expr, decimals)) }}
{%- endmacro %}

{% macro default__mqcap_format_number(expr, decimals) -%}
    format('{:,.{{ decimals }}f}', cast({{ expr }} as double))
{%- endmacro %}

{% macro spark__mqcap_format_number(expr, decimals) -%}
    format_number(cast({{ expr }} as double), {{ decimals }})
{%- endmacro %}

{% macro mqcap_format_signed_pct(expr, decimals=1) -%}
    {{ return(adapter.dispatch('mqcap_format_signed_pct', 'mqcap')(expr, decimals) if adapter is defined else default__mqcap_format_signed_pct(expr, decimals)) }}
{%- endmacro %}

{#- fmt has no sign together with a thousands separator: the sign is written first. -#}
{% macro default__mqcap_format_signed_pct(expr, decimals) -%}
    case when cast({{ expr }} as double) < 0 then '-' else '+' end
    || format('{:,.{{ decimals }}f}%', abs(cast({{ expr }} as double)))
{%- endmacro %}

{% macro spark__mqcap_format_signed_pct(expr, decimals) -%}
    format_string('%+,.{{ decimals }}f%%', cast({{ expr }} as double))
{%- endmacro %}

{#-
    dbt-spark's datediff counts whole seconds for every sub-day part (to_unix_timestamp), so
    milliseconds are lost; DuckDB counts the part's boundaries crossed. This is DuckDB's count.
-#}
{% macro spark__datediff(first_date, second_date, datepart) -%}
    {%- set per = {'hour': 3600000000, 'minute': 60000000, 'second': 1000000,
                   'millisecond': 1000, 'microsecond': 1} -%}
    {%- if datepart in per -%}
        (floor(unix_micros(cast({{ second_date }} as timestamp)) / {{ per[datepart] }})
         - floor(unix_micros(cast({{ first_date }} as timestamp)) / {{ per[datepart] }}))
    {%- else -%}
        {{ return(dbt_spark.spark__datediff(first_date, second_date, datepart)) }}
    {%- endif -%}
{%- endmacro %}

{#- arg_max / arg_min: `x` of the row with the largest / smallest `y`, rows with NULL x or y
    left out (DuckDB's rule). -#}
{% macro mqcap_arg_max(x, y) -%}
    {{ return(adapter.dispatch('mqcap_arg_max', 'mqcap')(x, y) if adapter is defined else default__mqcap_arg_max(x, y)) }}
{%- endmacro %}

{% macro default__mqcap_arg_max(x, y) -%}
    arg_max({{ x }}, {{ y }})
{%- endmacro %}

{% macro spark__mqcap_arg_max(x, y) -%}
    max_by({{ x }}, case when ({{ x }}) is not null then {{ y }} end)
{%- endmacro %}

{% macro mqcap_arg_min(x, y) -%}
    {{ return(adapter.dispatch('mqcap_arg_min', 'mqcap')(x, y) if adapter is defined else default__mqcap_arg_min(x, y)) }}
{%- endmacro %}

{% macro default__mqcap_arg_min(x, y) -%}
    arg_min({{ x }}, {{ y }})
{%- endmacro %}

{% macro spark__mqcap_arg_min(x, y) -%}
    min_by({{ x }}, case when ({{ x }}) is not null then {{ y }} end)
{%- endmacro %}

{#- A date and a time of day ('HH:MM:SS[.ffffff]' text) as one timestamp (Spark has no TIME). -#}
{% macro mqcap_date_at_time(day, time_text) -%}
    {{ return(adapter.dispatch('mqcap_date_at_time', 'mqcap')(day, time_text) if adapter is defined else default__mqcap_date_at_time(day, time_text)) }}
{%- endmacro %}

{% macro default__mqcap_date_at_time(day, time_text) -%}
    ({{ day }} + cast({{ time_text }} as time))
{%- endmacro %}

{% macro spark__mqcap_date_at_time(day, time_text) -%}
    cast(concat(cast({{ day }} as string), ' ', {{ time_text }}) as timestamp_ntz)
{%- endmacro %}

{#-
    dbt-spark's dateadd drops the fraction of a second (to_unix_timestamp) and scales
    milliseconds by 1/1,000,000. This is dbt-duckdb's: the amount cast to a whole number (half
    to even, as DuckDB casts a double) of the part, added exactly.
-#}
{% macro spark__dateadd(datepart, interval, from_date_or_timestamp) -%}
    {%- set per = {'hour': 3600000000, 'minute': 60000000, 'second': 1000000,
                   'millisecond': 1000, 'microsecond': 1} -%}
    {%- if datepart in per -%}
        timestampadd(microsecond, cast(bround({{ interval }}, 0) as bigint) * {{ per[datepart] }},
            {{ from_date_or_timestamp }})
    {%- else -%}
        {{ return(dbt_spark.spark__dateadd(datepart, interval, from_date_or_timestamp)) }}
    {%- endif -%}
{%- endmacro %}

{#-
    Interval joins hash on the hour (README "Engines"): open-source Spark has no range join, so
    a join on inequalities alone (a point in a run's interval, two intervals overlapping) is a
    nested loop, every row against every run; DuckDB's range joins do not need this, but both
    engines run the same join. mqcap_hour(ts) is the hour number of a timestamp (any whole-hour
    numbering that never decreases with time: DuckDB's epoch, Spark's in its UTC session clock);
    mqcap_hours(start, end), in a select list, gives one row per hour number from start's to
    end's (none when either is NULL). A point in [start, end) has one of that interval's hour
    numbers; two overlapping intervals share the hour of the later start (keep the pair there
    only, and it counts once).
-#}
{% macro mqcap_hour(ts) -%}
    {{ return(adapter.dispatch('mqcap_hour', 'mqcap')(ts) if adapter is defined else default__mqcap_hour(ts)) }}
{%- endmacro %}

{% macro default__mqcap_hour(ts) -%}
    cast(floor(epoch({{ ts }}) / 3600) as bigint)
{%- endmacro %}

{% macro spark__mqcap_hour(ts) -%}
    cast(floor(unix_micros(cast({{ ts }} as timestamp)) / 3600000000) as bigint)
{%- endmacro %}

{% macro mqcap_hours(start, end) -%}
    {{ return(adapter.dispatch('mqcap_hours', 'mqcap')(start, end) if adapter is defined else default__mqcap_hours(start, end)) }}
{%- endmacro %}

{% macro default__mqcap_hours(start, end) -%}
    unnest(generate_series({{ mqcap_hour(start) }}, {{ mqcap_hour(end) }}))
{%- endmacro %}

{#- sequence() counts down when start > end: such an interval holds no point, and overlaps
    nothing, so its rows find no pair either way. -#}
{% macro spark__mqcap_hours(start, end) -%}
    explode(sequence({{ mqcap_hour(start) }}, {{ mqcap_hour(end) }}))
{%- endmacro %}

{#- Every match of `pattern` replaced (DuckDB replaces the first without the 'g' option). -#}
{% macro mqcap_regexp_replace_all(expr, pattern, replacement) -%}
    {{ return(adapter.dispatch('mqcap_regexp_replace_all', 'mqcap')(expr, pattern, replacement) if adapter is defined else default__mqcap_regexp_replace_all(expr, pattern, replacement)) }}
{%- endmacro %}

{% macro default__mqcap_regexp_replace_all(expr, pattern, replacement) -%}
    regexp_replace({{ expr }}, {{ pattern }}, {{ replacement }}, 'g')
{%- endmacro %}

{% macro spark__mqcap_regexp_replace_all(expr, pattern, replacement) -%}
    regexp_replace({{ expr }}, {{ pattern }}, {{ replacement }})
{%- endmacro %}

{#- A cast that gives NULL where the text is not of the type ('n/a' as a number), on both
    engines: dbt's safe_cast is a plain cast on DuckDB and on Spark (ANSI mode raises), so one
    odd value in a capture failed every build after it. -#}
{% macro mqcap_try_cast(field, type) -%}
    try_cast({{ field }} as {{ type }})
{%- endmacro %}
