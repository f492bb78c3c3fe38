"""Text for report cells: captions numbered as the report runs, links, markdown escaping.

Example:
    from mqcap.sections.text import Captions
    Captions().table("Runs.")  # 'Table 1: Runs.'
"""

from __future__ import annotations

import json
import textwrap
from typing import TYPE_CHECKING
from urllib.parse import quote

if TYPE_CHECKING:
    import pandas as pd


class Captions:
    """Numbers tables and figures in document order, the same in every engine.

    Sections appear only when a study has their data, so numbers are given as the report
    runs instead of by cell labels.

    Example:
        cap = Captions()
        cap.table("Runs of the study.")  # 'Table 1: Runs of the study.'
    """

    def __init__(self) -> None:
        self.tables = 0
        self.figures = 0

    def table(self, text: str) -> str:
        self.tables += 1
        return f"Table {self.tables}: {text}"

    def figure(self, text: str) -> str:
        self.figures += 1
        return f"Figure {self.figures}: {text}"


def caption_lines(text: str, width: int = 95) -> list[str]:
    """A chart caption wrapped into lines (Vega titles do not wrap by themselves).

    Example:
        >>> caption_lines("a b c", width=3)
        ['a b', 'c']
    """
    return textwrap.wrap(text, width=width) or [""]


def report_link(study: str, fmt: str = "html") -> str:
    """Relative link from the overview to a study report (same output folder).

    Example:
        >>> report_link("my study", "pdf")
        'my%20study.pdf'
    """
    return quote(f"{study}.{fmt}")


_MD_SPECIAL = set("\\`*_{}[]()<>#+-.!|$@~^\"'&=:")


def md(text: object) -> str:
    """Text from data, safe inside markdown printed by an ``output: asis`` cell.

    Markdown specials are backslash-escaped so nothing becomes markup, and ``<``/``&`` are
    escaped so no HTML survives.

    Example:
        >>> print(md("<script>alert(1)</script>"))
        &lt;script&gt;alert\\(1\\)&lt;/script&gt;
    """
    out = []
    for ch in str(text):
        if ch == "<":
            out.append("&lt;")
        elif ch == ">":
            out.append("&gt;")
        elif ch == "&":
            out.append("&amp;")
        elif ch in _MD_SPECIAL:
            out.append("\\" + ch)
        elif ch in "\r\n":
            out.append(" ")
        else:
            out.append(ch)
    return "".join(out)


def title_block(title: str, subtitle: str) -> str:
    """A pandoc YAML metadata block setting the document title from data (escaped).

    Pandoc merges metadata blocks and the later one wins, so an ``output: asis`` cell can name
    the study in the title although the front matter cannot know it.

    Example:
        print(title_block("Study attls", "3 configurations"))
    """
    return (
        "\n---\n"
        f"title: {json.dumps(md(title), ensure_ascii=False)}\n"
        f"subtitle: {json.dumps(md(subtitle), ensure_ascii=False)}\n"
        "---\n"
    )


def finding_lines(findings: pd.DataFrame, anchors: set[str]) -> list[str]:
    """Markdown list items for the findings section: the mart's sentence, escaped, linked to
    the section that shows it when that section is in this report.

    Example:
        finding_lines(findings("attls"), {"sec-comparison"})
    """
    lines = []
    for row in findings.itertuples(index=False):
        sentence = md(row.sentence)
        anchor = getattr(row, "section_anchor", None)
        if isinstance(anchor, str) and anchor in anchors:
            sentence += f" ([details](#{anchor}))"
        lines.append(f"- {sentence}")
    return lines


def local_time(value: object) -> str:
    """A timestamp of the measured system, printed as it was measured (local time), or "not
    recorded" when the run has none (driver results without an interval).

    Example:
        >>> local_time(None)
        'not recorded'
    """
    import pandas as pd

    if value is None or pd.isna(value):
        return "not recorded"
    return pd.Timestamp(value).strftime("%Y-%m-%d %H:%M")
