"""The rendered HTML in headless Chromium: charts drawn, no console output, no network.

Needs the Debian package `chromium` (`apt-get install -y chromium`); the test fails, rather
than skips, without it.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

import pytest

from mqcap.render import render_report

FIXTURES = Path(__file__).parent / "fixtures" / "render"

pytestmark = pytest.mark.e2e

CONTROL_PAGE = """<!DOCTYPE html><html><body><p>control</p>
<img src="http://127.0.0.1:9/probe.png">
<script>console.error("probe-error"); notDefined();</script></body></html>
"""


@dataclass
class PageRun:
    dom: str
    console: list[str]
    requests: list[str]


def _chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    assert found, "headless Chromium is needed: apt-get install -y chromium"
    return found


def load_page(page: Path, work: Path) -> PageRun:
    """Open ``page`` in headless Chromium; the DOM after scripts ran, console lines, requests.

    Example:
        load_page(Path("out/report.html"), tmp_path).console  # []
    """
    work.mkdir(parents=True, exist_ok=True)
    netlog = work / "netlog.json"
    proc = subprocess.run(
        [
            _chromium(),
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            f"--user-data-dir={work / 'profile'}",
            "--enable-logging=stderr",
            "--v=0",
            f"--log-net-log={netlog}",
            # Virtual time lets vegaEmbed's promises settle before the DOM is dumped.
            "--virtual-time-budget=10000",
            "--dump-dom",
            page.resolve().as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    console = [line for line in proc.stderr.splitlines() if ":CONSOLE" in line]
    return PageRun(proc.stdout, console, _page_requests(netlog))


def _page_requests(netlog: Path) -> list[str]:
    # Chromium fetches its own update/time URLs; the page's requests are the ones isolated
    # under the file:// top frame.
    log = json.loads(netlog.read_text(encoding="utf-8"))
    start_job = log["constants"]["logEventTypes"]["URL_REQUEST_START_JOB"]
    urls = []
    for event in log["events"]:
        params = event.get("params") or {}
        from_page = "file://" in params.get("network_isolation_key", "")
        if event["type"] == start_job and from_page and not params["url"].startswith("file:"):
            urls.append(params["url"])
    return urls


@dataclass
class _Chart:
    element_id: str
    svgs: int = 0
    marks: int = 0
    texts: list[str] = field(default_factory=list)


class _ChartFinder(HTMLParser):
    """Collects each ``div.mqcap-chart`` with the SVG elements drawn inside it."""

    def __init__(self) -> None:
        super().__init__()
        self.charts: list[_Chart] = []
        self.scripts: list[str] = []
        self._depth = 0
        self._in_script = False
        self._in_text = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if tag == "script":
            self._in_script = True
            self.scripts.append("")
        if self._depth:
            if tag == "div":
                self._depth += 1
            chart = self.charts[-1]
            chart.svgs += tag == "svg"
            chart.marks += tag == "path"
            self._in_text = tag == "text"
        elif tag == "div" and "mqcap-chart" in (values.get("class") or "").split():
            self.charts.append(_Chart(values.get("id") or ""))
            self._depth = 1

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._in_script = False
        if tag == "text":
            self._in_text = False
        if self._depth and tag == "div":
            self._depth -= 1

    def handle_data(self, data: str) -> None:
        if self._in_script:
            self.scripts[-1] += data
        if self._depth and self._in_text:
            self.charts[-1].texts.append(data)


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
    finder = _ChartFinder()
    finder.feed(report_run.dom)
    assert len(finder.charts) == 2
    for chart in finder.charts:
        assert chart.svgs >= 1, f"{chart.element_id} has no svg"
        assert chart.marks >= 5, f"{chart.element_id} has only {chart.marks} paths"
    # Axis labels come from data; the hostile one is drawn as text.
    assert "<script>alert(1)</script>" in finder.charts[0].texts
    assert "Round trip" in finder.charts[1].texts


def test_page_runs_no_injected_script(report_run: PageRun) -> None:
    finder = _ChartFinder()
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
