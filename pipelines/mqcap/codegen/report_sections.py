"""``seeds/report_sections.csv`` and ``seeds/finding_sections.csv``: the study report's sections
and the section each kind of finding links to, written from the registry
(``mqcap.sections.registry``), so that ``fct_findings.section_anchor`` and the report's headings
come from one list.

``report_sections``: one row per section, in the report's order (anchor, sort_order, title, the
marts it reads, space-separated). ``finding_sections``: one row per link, ``finding_link`` =
``kind|measure`` (``measure`` ``*``: any measure no other row of the kind names); fct_findings
takes the row of its kind and measure, else the kind's ``*`` row.

Example:
    >>> files = render()
    >>> files["seeds/finding_sections.csv"].splitlines()[0]
    'finding_link,kind,measure,section_anchor'
    >>> "pair_change|cpu_us_per_txn,pair_change,cpu_us_per_txn,sec-cost" in files[
    ...     "seeds/finding_sections.csv"]
    True
"""

from __future__ import annotations

import csv
import io

from mqcap.sections.registry import SECTIONS, finding_links


def _csv(header: list[str], rows: list[list[object]]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return out.getvalue()


def render() -> dict[str, str]:
    """Project-relative path -> content of the two seeds."""
    sections = _csv(
        ["anchor", "sort_order", "title", "marts"],
        [[s.anchor, n, s.title, " ".join(s.marts)] for n, s in enumerate(SECTIONS, 1)],
    )
    links = _csv(
        ["finding_link", "kind", "measure", "section_anchor"],
        [
            [f"{link.kind}|{link.measure}", link.kind, link.measure, a]
            for link, a in finding_links()
        ],
    )
    return {"seeds/report_sections.csv": sections, "seeds/finding_sections.csv": links}
