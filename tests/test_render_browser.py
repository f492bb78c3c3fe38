"""The rendered HTML in headless Chromium: charts drawn, no console output, no network.

Needs the Debian package `chromium` (`apt-get install -y chromium`); the test fails, rather
than skips, without it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from mqcap.render import render_report

from browser_support import ChartFinder, PageRun, load_page

FIXTURES = Path(__file__).parent / "fixtures" / "render"

pytestmark = pytest.mark.e2e

CONTROL_PAGE = """<!DOCTYPE html><html><body><p>control</p>
<img src="http://127.0.0.1:9/probe.png">
<script>console.error("probe-error"); notDefined();</script></body></html>
"""


@pytest.fixture(scope="module")
def report_run(tmp_path_factory: pytest.TempPathFactory) -> PageRun:
    out = tmp_path_factory.mktemp("browser")
    paths = render_report(FIXTURES / "report.qmd", out, formats=["html"], engine="own")
    return load_page(paths["html"], out / "chromium")


@pytest.fixture(scope="module")
def control_run(tmp_path_factory: pytest.TempPathFactory) -> PageRun:
    out = tmp_path_factory.mktemp("control")
    page = out / "control.html"
    page.write_text(CONTROL_PAGE, encoding="utf-8")
    return load_page(page, out / "chromium")


def test_every_chart_is_drawn_as_svg(report_run: PageRun) -> None:
    finder = ChartFinder()
    finder.feed(report_run.dom)
    assert len(finder.charts) == 2
    for chart in finder.charts:
        assert chart.svgs >= 1, f"{chart.element_id} has no svg"
        assert chart.marks >= 5, f"{chart.element_id} has only {chart.marks} paths"
    # Axis labels come from data; the hostile one is drawn as text.
    assert "<script>alert(1)</script>" in finder.charts[0].texts
    assert "Round trip" in finder.charts[1].texts


def test_page_runs_no_injected_script(report_run: PageRun) -> None:
    finder = ChartFinder()
    finder.feed(report_run.dom)
    assert len(finder.scripts) == 3  # the Vega bundle and one vegaEmbed call per chart
    assert not any("<script>alert" in s or s.strip().startswith("alert") for s in finder.scripts)


def test_page_logs_nothing_to_the_console(report_run: PageRun) -> None:
    assert report_run.console == []


def test_page_makes_no_network_requests(report_run: PageRun) -> None:
    assert report_run.requests == []


def test_control_page_proves_console_and_network_are_seen(control_run: PageRun) -> None:
    assert any('"probe-error"' in line for line in control_run.console)
    assert any("Uncaught ReferenceError: notDefined" in line for line in control_run.console)
    assert control_run.requests == ["http://127.0.0.1:9/probe.png"]


def test_charts_drawn_from_the_same_rows_share_them_in_the_page(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """mqcap's own engine puts a dataset in the page once, however many charts draw it (a
    study's three NETSTAT charts): every chart is still drawn, and the console stays empty."""
    out = tmp_path_factory.mktemp("shared")
    paths = render_report(FIXTURES / "shared_data.qmd", out, formats=["html"], engine="own")
    page = paths["html"].read_text(encoding="utf-8")
    assert page.count("70001.25") == 1  # the shared rows, once
    assert page.count("4321.5") == 1
    run = load_page(paths["html"], out / "chromium")
    finder = ChartFinder()
    finder.feed(run.dom)
    assert len(finder.charts) == 3
    for chart in finder.charts:
        assert chart.svgs >= 1 and chart.marks >= 2, chart.element_id
    titles = [" ".join(c.texts) for c in finder.charts]
    assert "Window" in titles[0] and "Trip time" in titles[1] and "Rate" in titles[2]
    assert run.console == []
