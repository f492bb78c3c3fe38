"""Headless Chromium for the report tests: load a page, read its DOM, console and requests.

Needs the Debian package `chromium` (make unit installs it); tests fail, not skip, without it.
"""

from __future__ import annotations

import html
import json
import shutil
import subprocess
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path


@dataclass
class PageRun:
    dom: str
    console: list[str]
    requests: list[str]


def _chromium(profile: Path) -> list[str]:
    """Headless Chromium as the house runs it (no sandbox, GPU or background network)."""
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    assert found, "headless Chromium is needed: apt-get install -y chromium"
    return [
        found,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        f"--user-data-dir={profile}",
    ]


def load_page(page: Path, work: Path, fragment: str = "") -> PageRun:
    """Open ``page`` in headless Chromium; the DOM after scripts ran, console lines, requests.

    ``fragment``: a URL fragment to open the page at (``#!/model/...`` for dbt docs).

    Example:
        load_page(Path("out/report.html"), tmp_path).console  # []
    """
    work.mkdir(parents=True, exist_ok=True)
    netlog = work / "netlog.json"
    proc = subprocess.run(
        [
            *_chromium(work / "profile"),
            "--enable-logging=stderr",
            "--v=0",
            f"--log-net-log={netlog}",
            # Virtual time lets vegaEmbed's promises settle before the DOM is dumped.
            "--virtual-time-budget=10000",
            "--dump-dom",
            page.resolve().as_uri() + fragment,
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
class Chart:
    element_id: str
    svgs: int = 0
    marks: int = 0
    texts: list[str] = field(default_factory=list)


class ChartFinder(HTMLParser):
    """Collects each ``div.mqcap-chart`` with the SVG elements drawn inside it."""

    def __init__(self) -> None:
        super().__init__()
        self.charts: list[Chart] = []
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
            self.charts.append(Chart(values.get("id") or ""))
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


_OVERFLOW_PROBE = """<script>window.addEventListener('load', () => setTimeout(() => {
  const edge = document.documentElement.clientWidth + 1, out = [];
  document.querySelectorAll('body *').forEach(e => {
    const r = e.getBoundingClientRect();
    if (r.width > 0 && r.right > edge && !e.closest('details:not([open])')) {
      const t = e.closest('table'), c = t && t.querySelector('caption');
      out.push(e.tagName + (c ? ' in "' + c.textContent.slice(0, 60) + '"' : '') + ': ' + Math.round(r.right));
    }
  });
  const p = document.createElement('pre'); p.id = 'overflow-probe';
  p.textContent = JSON.stringify(out.slice(0, 20)); document.body.appendChild(p);
}, 1500));</script></body>"""


def past_right_edge(page: Path, work: Path, width: int = 1300) -> list[str]:
    """Elements drawn past the right edge of a ``width``-pixel window (closed <details>
    excepted): what a reader would have to scroll sideways for.

    Example:
        assert past_right_edge(Path("out/attls.html"), tmp_path) == []
    """
    work.mkdir(parents=True, exist_ok=True)
    probe = work / f"probe-{page.name}"
    probe.write_text(page.read_text(encoding="utf-8").replace("</body>", _OVERFLOW_PROBE))
    proc = subprocess.run(
        [
            *_chromium(work / "profile-probe"),
            f"--window-size={width},2000",
            "--virtual-time-budget=15000",
            "--dump-dom",
            probe.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    start = proc.stdout.index('<pre id="overflow-probe">') + len('<pre id="overflow-probe">')
    return json.loads(html.unescape(proc.stdout[start : proc.stdout.index("</pre>", start)]))
