{#-
    A text that sorts in natural order where `expr` has numbers inside (mqcap.sections.labels
    natural_sorted: '2 threads' before '16 threads'): every run of digits becomes a \x01 mark
    and the number zero-padded to 20 digits, so byte order compares the numbers as numbers and
    a shorter text part before a longer one. The regular expressions' group reference is
    written `\1` in DuckDB's replacement and `$1` in Spark's (Java's).
-#}
{% macro mqcap_natural_key(expr) -%}
    {{ return(adapter.dispatch('mqcap_natural_key', 'mqcap')(expr) if adapter is defined else default__mqcap_natural_key(expr)) }}
{%- endmacro %}

{% macro default__mqcap_natural_key(expr) -%}
    regexp_replace(
        regexp_replace({{ expr }}, '([0-9]+)', chr(1) || '00000000000000000000\1', 'g'),
        '0*([0-9]{20,})', '\1', 'g'
    )
{%- endmacro %}

{% macro spark__mqcap_natural_key(expr) -%}
    regexp_replace(
        regexp_replace({{ expr }}, '([0-9]+)', concat(chr(1), '00000000000000000000$1')),
        '0*([0-9]{20,})', '$1'
    )
{%- endmacro %}
