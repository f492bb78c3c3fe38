"""``macros/measure_text.sql``: a measure's name as a finding's sentence gives it, written from
``seeds/measures.csv`` (``reader_name``), so that the findings' wording, the units and the
directions are defined in one place (``mqcap.measures``).

Example:
    >>> text = render()
    >>> "when 'cpu_us_per_txn' then 'CPU per transaction'" in text
    True
"""

from __future__ import annotations

from mqcap.measures import definitions

HEADER = (
    "-- Generated from seeds/measures.csv (reader_name) by python -m mqcap.codegen: edit the seed."
)


def render() -> str:
    """The macro: a CASE over the measures whose reader name is not their own name with spaces
    (the others, and names the seed does not list, read as the name with spaces)."""
    named = [m for m in definitions().values() if m.reader_name != m.measure.replace("_", " ")]
    whens = "\n".join(f"        when '{m.measure}' then '{m.reader_name}'" for m in named)
    return f"""{HEADER}
{{#- A measure's name as a reader says it, with its subject (an address space, a task type)
    where the measure has one other than TOTAL: 'CPU per transaction (CHIN)'. -#}}
{{% macro measure_text(measure_col, subject_col) -%}}
    case {{{{ measure_col }}}}
{whens}
        else replace({{{{ measure_col }}}}, '_', ' ')
    end
    || case
        when {{{{ subject_col }}}} is null or {{{{ subject_col }}}} in ('TOTAL', '-', '') then ''
        else ' (' || {{{{ subject_col }}}} || ')'
    end
{{%- endmacro %}}
"""
