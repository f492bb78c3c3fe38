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


def test_a_table_of_long_point_labels_fits_the_page(tmp_path: Path) -> None:
    """The 1,012-run attls page's "Significant changes" table ran 50 px past a 1,300-px window:
    its point labels hold words such as "cipher=TLS_CHACHA20_POLY1305_SHA256;" that did not
    break. A cell with a word of over 30 characters is marked "long" and the report's stylesheet
    lets that word break where it must; the same table fits, and without the rule it does not
    (the probe sees it)."""
    import polars as pl

    from mqcap.render.display import table
    from mqcap.render.pandoc import package_file

    from browser_support import past_right_edge

    label = (
        "request_reply, 1048576 B, nonpersistent, 1 thread [cipher=TLS_CHACHA20_POLY1305_SHA256;"
        "cipher_kind=software;tls_version=1.3;key_exchange=X25519MLKEM768_hybrid_group]"
    )
    frame = pl.DataFrame(
        {
            "configuration": ["MQ + AT-TLS_with_a_long_configuration_name"] * 3,
            "point": [label.replace("1048576", str(n)) for n in (1048576, 65536, 32768)],
            "measure": ["cpu_us_per_txn_of_the_channel_initiator_address_space"] * 3,
            "subject": ["TCPIP_STACK_OF_THE_LPAR_UNDER_TEST"] * 3,
            "change_pct": [5015.38, 4538.89, 4190.0],
            "interval": ["[+5015.38%, +5015.38%]"] * 3,
        }
    )
    html = table(frame, caption="Table 6: Significant changes.").data["text/html"]
    css = package_file("report.css").read_text(encoding="utf-8")
    page = tmp_path / "table.html"
    assert html.count('<td class="long">') == 12  # 3 rows x 4 text columns with such words
    rule = ".mqcap-table td.long { overflow-wrap: anywhere; }"
    assert rule in css
    for name, style in (("with", css), ("without", css.replace(rule, ""))):
        page.write_text(
            f"<!DOCTYPE html><html><head><style>{style}</style></head><body>"
            f"<section>{html}</section></body></html>",
            encoding="utf-8",
        )
        past = past_right_edge(page, tmp_path / name)
        if name == "with":
            assert past == []
        else:
            assert past and all("Significant changes" in p for p in past), past
