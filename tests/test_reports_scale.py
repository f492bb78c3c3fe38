"""A 640-run distributed thread-sweep study rendered to HTML and PDF: findings first, the
thread-sweep section drawn from its marts, per-run detail collapsed, the PDF body short.

The warehouse is hand-filled (tests/report_support.py) with the contract marts only, so the
report also proves that marts it does not find (costs, channels, files) never crash it.
"""

from __future__ import annotations

import re
from html import unescape
from pathlib import Path

import pytest
from pypdf import PdfReader

from mqcap.render import render_report
from mqcap.sections.text import md
from mqcap.settings import find_project_root

from browser_support import ChartFinder, load_page, past_right_edge
from report_support import thread_sweep_study, write_warehouse

pytestmark = pytest.mark.slow

PROJECT = find_project_root(Path(__file__).parent)


@pytest.fixture(scope="module")
def frames():
    return thread_sweep_study()


@pytest.fixture(scope="module")
def rendered(tmp_path_factory, frames) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("scale")
    warehouse = write_warehouse(root / "w.duckdb", frames)
    return render_report(
        PROJECT / "reports" / "study.qmd",
        root / "out",
        params={"study": "appliance", "failed_checks": "[]"},
        formats=("html", "pdf"),
        output_stem="appliance",
        env={"MQCAP_WAREHOUSE": str(warehouse)},
    )


def _html(rendered) -> str:
    return rendered["html"].read_text(encoding="utf-8")


def _text(fragment: str) -> str:
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", fragment)).split())


def test_findings_come_first_and_state_the_mart_sentences(rendered, frames):
    html = _html(rendered)
    headings = re.findall(r"<h1[^>]*>(.*?)</h1>", html, flags=re.DOTALL)
    assert _text(headings[1]).endswith("Findings")  # [0] is the document title
    section = html[html.index('id="sec-findings"') : html.index('id="sec-environment"')]
    items = re.findall(r"<li>(.*?)</li>", section, flags=re.DOTALL)
    sentences = frames["fct_findings"].sort_values("finding_rank")["sentence"].tolist()
    assert len(items) == len(sentences) == 2
    assert _text(items[0]).startswith(sentences[0].rstrip(".")) and "-10.0%" in items[0]
    # Linked to the section that shows it; a finding whose section is absent has no link.
    assert 'href="#sec-thread-sweep"' in items[0]
    assert "href" not in items[1] and "&lt;everywhere&gt;" in items[1]


def test_environment_names_the_appliance_and_the_missing_intervals(rendered):
    text = _text(_html(rendered))
    assert "MQ Appliance, host mqa-a, model M2002A, queue manager QM1 (320 runs)" in text
    assert "system –" not in text and "system nan" not in text
    assert "640 of 640 runs have no measured interval" in text
    # The title says what the runs are (dim_study.run_summary).
    assert (
        "640 request/reply runs over 2 configurations, 2 scenarios, 2 hardware models, "
        "4 message sizes and 10 thread counts" in text
    )


def test_sweep_tables_read_the_mart(rendered, frames):
    html = _html(rendered)
    # MP16's tables in the body: one per scenario x model, sizes down, no baseline rows.
    body = html[html.index('id="sec-thread-sweep"') : html.index('id="sec-appendix"')]
    pivots = re.findall(r"against Feature off: maximum throughput and single-thread", body)
    assert len(pivots) == 4
    # Every series, the baselines with no comparison of their own, in the appendix.
    table = html[html.index("Every thread-sweep series") :]
    table = table[: table.index("</table>")]
    rows = [re.findall(r"<td[^>]*>(.*?)</td>", r) for r in table.split("<tr>")[2:]]
    assert len(rows) == len(frames["fct_sweep_summary"]) == 32
    assert "+0.0%" not in table
    summary = frames["fct_sweep_summary"]
    on = summary[
        (summary["scenario"] == "request_responder")
        & (summary["hardware_model"] == "M2002B")
        & (summary["message_bytes"] == 102400)
        & (summary["configuration"] == "feature_on")
    ].iloc[0]
    row = next(
        r for r in rows if r[:4] == ["request_responder", "M2002B", "100\u00a0KB", "Feature on"]
    )
    assert (
        row[4] == f"{on['max_rate_per_s']:,.1f}" and row[6] == f"{on['max_rate_pct_change']:+.1f}%"
    )
    assert row[8] == f"{on['single_thread_round_trip_pct_change']:+.1f}%"


def test_per_run_detail_is_collapsed_in_html(rendered):
    html = _html(rendered)
    details = re.findall(
        r"<details>\s*<summary>(.*?)</summary>(.*?)</details>", html, flags=re.DOTALL
    )
    runs = next(body for summary, body in details if summary == "All 640 runs")
    assert runs.count("<tr>") - 1 == 640
    # Nothing per run before the appendix.
    assert html.index("All 640 runs") > html.index('id="sec-appendix"')


def test_pdf_body_stays_under_30_pages_with_the_runs_in_an_appendix(rendered):
    pages = [p.extract_text() for p in PdfReader(rendered["pdf"]).pages]
    # The first page whose text starts the appendix (the contents on page 1 only list it).
    first = next(k for k, t in enumerate(pages) if k > 0 and "Appendix: runs and comparisons" in t)
    assert first + 1 <= 30
    assert (
        sum(
            "feature_off-fire-A-256-1t-r1" in t.replace("\u200b", "").replace("\n", "")
            for t in pages[first:]
        )
        == 1
    )


def test_sweep_charts_are_drawn_offline_with_numeric_thread_axes(rendered, tmp_path):
    run = load_page(rendered["html"], tmp_path / "chromium")
    finder = ChartFinder()
    finder.feed(run.dom)
    assert len(finder.charts) == 4  # rate, round trip, latency x throughput, tasks
    for chart in finder.charts:
        assert chart.svgs >= 1 and chart.marks >= 32, chart.element_id
    rate = finder.charts[0].texts
    assert "fire_and_forget · M2002A · 256 bytes" in rate
    # Thread ticks in numeric order (labels that would collide are dropped, never reordered).
    ticks = [
        int(t) for t in rate if t.isdigit() and int(t) in (1, 2, 4, 8, 16, 32, 64, 100, 150, 200)
    ]
    assert ticks[:6] == [1, 2, 4, 8, 16, 32]
    assert run.console == [] and run.requests == []


def test_task_chart_pools_640_runs_and_the_per_run_table_is_in_the_appendix(rendered, frames):
    html = _html(rendered)
    section = _text(html[html.index('id="sec-tasks"') : html.index('id="sec-appendix"')])
    assert "The task figures of each of the 640 runs are tabled in the appendix" in section
    assert "1280 rows" in section and "Busy % is not shown" in section
    details = re.findall(
        r"<details>\s*<summary>(.*?)</summary>(.*?)</details>", html, flags=re.DOTALL
    )
    tasks = next(b for s, b in details if s == "Channel-initiator tasks of 640 runs, 1280 rows")
    assert tasks.count("<tr>") - 1 == len(frames["fct_chinit_tasks"]) == 1280
    assert html.index("Channel-initiator tasks of 640 runs") > html.index('id="sec-appendix"')


def test_nothing_runs_past_the_right_edge_at_1300_px(rendered, tmp_path):
    assert past_right_edge(rendered["html"], tmp_path / "probe") == []


def test_markdown_escape_used_for_sentences_is_the_reports():
    # The sentences above are compared as text; this pins the escaping they went through.
    assert md("-10.0% <x>") == "\\-10\\.0% &lt;x&gt;"
