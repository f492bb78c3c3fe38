"""What the study report and the overview show, on a warehouse built from generated studies.

The attls, protection and keysize scenarios (data/scenarios, modelled on the published seeds)
are generated into raw files, landed and built with dbt once per module; the study report is
rendered to HTML and PDF, and each section must appear exactly when its study has the data.
"""

from __future__ import annotations

import json
import re
import shutil
from html import unescape
from pathlib import Path

import duckdb
import pandas as pd
import pytest
from pypdf import PdfReader

from mqcap.build import build
from mqcap.generate import generate, load_scenario
from mqcap.ingest import ingest
from mqcap.render import render_report
from mqcap.render.display import table
from mqcap.sections.labels import size_label
from mqcap.settings import Settings, find_project_root

from browser_support import ChartFinder, load_page, past_right_edge

pytestmark = pytest.mark.slow

PROJECT = find_project_root(Path(__file__).parent)
HOSTILE = 'Integrity <script>alert("x")</script> **loud** @fig-nope'
FAILED = ["marts.fct_fit: r_squared <= 1 failed for <b>2</b> rows"]
SECTIONS = {
    "environment": "Environment and configurations",
    "cost": "Cost per transaction by address space",
    "rate": "Transaction rate and round-trip time",
    "fit": "Cost as a function of message size",
    "findings": "Findings",
    "tasks": "Channel initiator tasks",
    "channels": "Channel batches and network time",
    "netstat": "TCP/IP behaviour (NETSTAT)",
    "crypto": "Cryptographic hardware",
    "starts": "Starting and stopping channels",
    "runs": "Appendix: runs and comparisons",
    "appendix": "Appendix: raw files behind every run",
}
# Which sections each generated study has data for (attls: no crypto card report; protection:
# address-space CSV-like RMF and driver only; keysize: crypto and channel starts, no NETSTAT).
EXPECTED = {
    "attls": set(SECTIONS) - {"crypto"},
    "protection": {"findings", "environment", "cost", "rate", "fit", "runs", "appendix"},
    "keysize": set(SECTIONS) - {"netstat", "fit"},
}


@pytest.fixture(scope="module")
def settings(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    root = tmp_path_factory.mktemp("reports")
    raw = root / "raw"
    raw.mkdir()
    settings = Settings.load(
        warehouse=root / "wh" / "warehouse.duckdb",
        raw=raw,
        reports_out=root / "out",
        project_root=PROJECT,
    )
    protection = load_scenario(PROJECT / "data" / "scenarios" / "protection.yaml")
    protection["configurations"]["integrity"]["name"] = HOSTILE
    generate(protection, raw)
    for study in ("attls", "keysize"):
        generate(load_scenario(PROJECT / "data" / "scenarios" / f"{study}.yaml"), raw)
    ingest(settings)
    build(settings)
    return settings


@pytest.fixture(scope="module")
def rendered(settings: Settings) -> dict[str, dict[str, Path]]:
    env = {"MQCAP_WAREHOUSE": str(settings.warehouse)}
    out = settings.reports_out
    qmd = PROJECT / "reports" / "study.qmd"
    paths = {}
    for study, formats, failed in (
        ("attls", ("html", "pdf"), []),
        ("protection", ("html", "pdf"), FAILED),
        ("keysize", ("html",), []),
    ):
        paths[study] = render_report(
            qmd,
            out,
            params={"study": study, "failed_checks": json.dumps(failed)},
            formats=formats,
            output_stem=study,
            env=env,
        )
    paths["index"] = render_report(
        PROJECT / "reports" / "index.qmd",
        out,
        params={},
        formats=("html",),
        output_stem="index",
        env=env,
    )
    yield paths
    shutil.rmtree(out, ignore_errors=True)


def _html(rendered, study: str) -> str:
    return rendered[study]["html"].read_text(encoding="utf-8")


def _headings(html: str) -> list[str]:
    return [
        " ".join(re.sub(r"<[^>]+>", "", h).split())
        for h in re.findall(r"<h1[^>]*>(.*?)</h1>", html, flags=re.DOTALL)
    ]


def _pdf_text(path: Path) -> str:
    # Zero-width spaces let long identifiers wrap in PDF tables; they are not text.
    return "\n".join(p.extract_text() for p in PdfReader(path).pages).replace("\u200b", "")


def _forms(path: Path) -> int:
    forms = 0
    for page in PdfReader(path).pages:
        xobjects = page["/Resources"].get("/XObject") or {}
        forms += sum(ref.get_object()["/Subtype"] == "/Form" for ref in xobjects.values())
    return forms


@pytest.mark.parametrize("study", sorted(EXPECTED))
def test_each_section_appears_exactly_when_the_study_has_its_data(rendered, study):
    headings = " | ".join(_headings(_html(rendered, study)))
    for key, title in SECTIONS.items():
        assert (title in headings) == (key in EXPECTED[study]), (study, title, headings)


ATTLS_RUNS = (
    "44 runs: 30 request/reply runs over 2 configurations, 5 message sizes and 4 ciphers; "
    "7 channel-start runs over 3 configurations and 4 ciphers; 7 channel-stop runs over 3 "
    "configurations and 4 ciphers"
)


def test_title_names_the_study(rendered):
    html = _html(rendered, "attls")
    assert "<title>MQ performance study: attls</title>" in html
    # What the runs are, from dim_study.run_summary (not a configuration count).
    assert ATTLS_RUNS in _plain(html)
    # Local time of the measured system, labelled as such (the manifests' times).
    assert (
        "between 2021-06-01 08:00 and 2021-06-01 11:17 (local time of the measured system"
        in _plain(html)
    )


def test_round_trip_table_has_the_published_increase_row(rendered):
    html = _html(rendered, "attls")
    # Seed 000: sizes as columns, configurations as rows, a "% increase" row.
    table = html[html.index("Average round-trip time (µs) against MQ + System SSL · TLS_CHACHA") :]
    table = table[: table.index("</table>")]
    cells = re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", table)
    assert cells[:6] == ["Configuration", "2 KB", "16 KB", "32 KB", "64 KB", "1 MB"]
    row = cells[cells.index("% increase in round-trip time") :][:6]
    assert row[1:] == ["+1.24", "+7.48", "+11.64", "+16.32", "+37.87"]
    assert "693,844" in table and "956,592" in table
    assert "+37.87" in _pdf_text(rendered["attls"]["pdf"])


def test_protection_fits_match_the_published_lines(rendered):
    html = _html(rendered, "protection")
    fits = html[html.index("Fitted lines y = a × x + b") :]
    fits = fits[: fits.index("</table>")]
    header = re.findall(r"<th[^>]*>(.*?)</th>", fits)
    rows = [
        dict(zip(header, re.findall(r"<td[^>]*>(.*?)</td>", r), strict=True))
        for r in fits.split("<tr>")[2:]
    ]
    no_protection = next(
        r
        for r in rows
        if r["Configuration"] == "No protection"
        and r["Measure"] == "Total CPU µs/txn"
        and r["x"] == "message bytes"
    )
    assert no_protection["a, µs per unit of x (95% CI)"].startswith("0.00714 (0.007")
    assert no_protection["b, µs (95% CI)"].startswith("357.7 (")
    assert no_protection["n"] == "3"
    assert "0.10594" in fits and "2,616.5" in fits and "0.39537" in fits
    pdf = _pdf_text(rendered["protection"]["pdf"])
    assert "0.00714" in pdf and "357.7" in pdf


def test_crypto_pivot_and_start_time_increase_read_like_seed_001(rendered):
    html = _html(rendered, "keysize")
    crypto = html[html.index("Highest utilisation (%) of a single crypto card") :]
    crypto = crypto[: crypto.index("</table>")]
    headers = re.findall(r"<th[^>]*>(.*?)</th>", crypto)
    assert headers == ["TLS", "Cipher prefix", "Medium %", "High %", "Very high %"]
    assert "TLS_ECDHE_ECDSA" in crypto and "TLS 1.3" in crypto
    increase = html[html.index("% increase in time to start a channel") :]
    increase = increase[: increase.index("</table>")]
    assert "Medium → very high" not in increase and "High → very high %" in increase
    assert re.search(r"<td[^>]*>\+\d+\.\d</td>", increase)


def test_one_colour_per_configuration_across_charts(rendered):
    html = _html(rendered, "attls")
    specs = re.findall(r"vegaEmbed\([^,]+, (\{.*?\}), \{\"actions\"", html)
    assert len(specs) >= 6
    seen: dict[str, str] = {}
    for spec in specs:
        for scale in re.findall(r'"domain":(\[[^\]]*\]),"range":(\[[^\]]*\])', spec):
            domain, colours = (json.loads(x) for x in scale)
            if all(isinstance(c, str) and c.startswith("#") for c in colours):
                for name, colour in zip(domain, colours, strict=True):
                    assert seen.setdefault(name, colour) == colour
    assert set(seen) == {"MQ, no TLS", "MQ + System SSL", "MQ + AT-TLS"}


def test_pdf_has_one_vector_image_per_chart(rendered):
    for study in ("attls", "protection"):
        html = _html(rendered, study)
        charts = html.count('class="mqcap-chart"')
        assert charts > 0
        assert _forms(rendered[study]["pdf"]) == charts, study


def test_hostile_label_is_text_everywhere(rendered):
    html = _html(rendered, "protection")
    assert "<script>alert(" not in html
    assert "&lt;script&gt;alert(" in html  # in tables and in the run list
    assert "<strong>loud</strong>" not in html
    pdf = _pdf_text(rendered["protection"]["pdf"])
    assert "**loud**" in pdf and "@fig-nope" in pdf


def test_failed_checks_are_listed_on_the_first_page(rendered):
    first = PdfReader(rendered["protection"]["pdf"]).pages[0].extract_text()
    assert "Rendered although quality checks failed" in first
    assert "<b>2</b>" in first
    assert "Rendered although" not in _html(rendered, "attls")


def test_appendix_traces_every_run_to_its_files(rendered, settings):
    html = _html(rendered, "attls")
    appendix = html[html.index("Raw files per run.") :]
    assert "rmf_workload.txt" in appendix and "mqsmf.bin" in appendix
    assert re.search(r"<td>[0-9a-f]{12}</td>", appendix)
    assert appendix.count("<tr>") - 1 == 202  # every attls file generated lands in a run


def _first_findings(settings) -> dict[str, list[str]]:
    con = duckdb.connect(str(settings.warehouse), read_only=True)
    try:
        rows = con.execute(
            "select study, sentence from marts.fct_findings order by study, finding_rank"
        ).fetchall()
    finally:
        con.close()
    out: dict[str, list[str]] = {}
    for study, sentence in rows:
        out.setdefault(study, []).append(sentence)
    return out


def _plain(fragment: str) -> str:
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", fragment)).split())


def test_overview_links_every_study_with_its_first_finding(rendered, settings):
    html = _html(rendered, "index")
    for study in ("attls", "keysize", "protection"):
        assert f'href="{study}.html"' in html and f'href="{study}.pdf"' in html
    findings = _first_findings(settings)
    attls = _plain(html[html.index('href="attls.html"') : html.index('href="keysize.html"')])
    assert ATTLS_RUNS in attls
    # keysize names each run's configuration after its labels: the line says what varies
    # (cipher and key strength; SSLRKEYC and key strength), not "26 runs, 26 configurations".
    keysize = _plain(html[html.index('href="keysize.html"') : html.index('href="protection.html"')])
    assert (
        "26 runs: 22 channel-start runs over 8 ciphers and 3 key strengths; 4 request/reply "
        "runs over 2 key strengths and 2 SSLRKEYC values" in keysize
    )
    assert "26 configurations" not in keysize
    protection = _plain(html[html.index('href="protection.html"') :])
    assert "12 put/get runs over 4 configurations, 3 message sizes and 3 recipient counts" in (
        protection
    )
    # The headline is the study's first-ranked finding, as fct_findings words it.
    assert findings["attls"][0].rstrip(".") in attls
    assert "(local time)" in html and "(UTC)" not in html


def test_findings_section_states_every_finding_in_rank_order_with_working_links(rendered, settings):
    html = _html(rendered, "attls")
    section = html[html.index('id="sec-findings"') : html.index('id="sec-environment"')]
    items = [_plain(i) for i in re.findall(r"<li>(.*?)</li>", section, flags=re.DOTALL)]
    expected = _first_findings(settings)["attls"]
    assert len(items) == len(expected) >= 3
    for item, sentence in zip(items, expected, strict=True):
        assert item.startswith(sentence.rstrip("."))
    for anchor in set(re.findall(r'href="#(sec-[a-z-]+)"', section)):
        assert f'id="{anchor}"' in html, anchor


def test_cost_delta_rows_show_mq_subtotal_against_the_baseline(rendered, settings):
    html = _html(rendered, "attls")
    table = html[html.index("and its change against the baseline (MQ = MSTR + CHIN)") :]
    table = table[: table.index("</table>")]
    header = re.findall(r"<th[^>]*>(.*?)</th>", table)
    assert header[:3] == ["Size", "Run", "Row"] and {"MSTR", "CHIN", "MQ", "TCPIP"} <= set(header)
    con = duckdb.connect(str(settings.warehouse), read_only=True)
    try:
        mq = con.execute(
            "select cpu_us_per_txn, delta_us_per_txn, pct_change from marts.fct_cost_delta "
            "where run_id = 'attls-chacha-1m' and role = 'MQ'"
        ).fetchone()
    finally:
        con.close()
    assert f"{mq[0]:,.1f}" in table and f"{mq[1]:+,.1f} ({mq[2]:+.1f}%)" in table


def _shown(cell: str, value: float) -> bool:
    # The cell shows the value to the places it prints ("1,300", "20.0").
    text = unescape(cell).replace(",", "")
    places = len(text.split(".")[1]) if "." in text else 0
    return abs(float(text) - value) <= 0.5 * 10**-places + 1e-9


def test_cost_table_is_the_rows_of_its_mart(rendered, settings):
    # The section's table equals a query of fct_series_cost (runs of a series averaged, MQ and
    # Total summed there): every point, every role, nothing else, in the mart's figures.
    html = _html(rendered, "attls")
    table = html[html.index("CPU microseconds per transaction by address space, per message") :]
    table = table[: table.index("</table>")]
    header = re.findall(r"<th[^>]*>(.*?)</th>", table)
    shown = {}
    for row in table.split("<tr")[2:]:
        cells = dict(zip(header, re.findall(r"<td[^>]*>(.*?)</td>", row), strict=True))
        key = (cells.pop("Size"), unescape(cells.pop("Configuration")), cells.pop("Variant", ""))
        assert key not in shown, key
        shown[key] = {role: cell for role, cell in cells.items() if cell != "–"}
    con = duckdb.connect(str(settings.warehouse), read_only=True)
    try:
        rows = con.execute(
            """select s.message_bytes, c.display_name, s.detail, s.role, s.cpu_us_per_txn
               from marts.fct_series_cost s
               join marts.dim_configuration c using (study, configuration)
               where s.study = 'attls'"""
        ).fetchall()
    finally:
        con.close()
    mart: dict[tuple, dict[str, float]] = {}
    for size, name, detail, role, us in rows:
        key = (size_label(size), name, detail)
        mart.setdefault(key, {})["Total" if role == "TOTAL" else role] = us
    assert set(shown) == set(mart) and len(mart) == 30
    for key, cells in shown.items():
        assert set(cells) == set(mart[key]), key
        for role, cell in cells.items():
            assert _shown(cell, mart[key][role]), (key, role, cell, mart[key][role])


def test_table_caption_travels_with_the_table_and_text_columns_can_align_right():
    frame = pd.DataFrame(
        {"Configuration": ["TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384"], "1 MB": ["+37.87"]}
    )
    data = table(frame, caption="Table 3: <b>x</b> µs", right=["1 MB"]).data
    assert "<caption>Table 3: &lt;b&gt;x&lt;/b&gt; µs</caption>" in data["text/html"]
    assert '<td class="num" style="text-align: right">+37.87</td>' in data["text/html"]
    lines = data["text/markdown"].splitlines()
    # Column widths follow the content (pandoc reads them from the rule's dashes): the cipher
    # column gets 36 of 42 parts, so its name wraps once at most in a PDF.
    assert lines[1] == "|:" + "-" * 35 + "|" + "-" * 5 + ":|"
    assert lines[-1] == r": Table 3\: \<b\>x\<\/b\> µs"
    # Long identifiers may wrap in a PDF table after each underscore (zero-width space).
    assert "TLS\\_\u200bECDHE\\_\u200bRSA" in lines[2]


def test_channel_table_shows_the_published_1mb_batch_size_and_nettime(rendered):
    html = _html(rendered, "attls")
    section = html[html.index("Per sending channel: achieved batch size") :]
    section = section[: section.index("</table>")]
    rows = [re.findall(r"<td[^>]*>(.*?)</td>", r) for r in section.split("<tr>")[2:]]
    one_mb = {r[0]: r for r in rows if r[1] == "1 MB"}
    # Seed 000: at 1 MB XBATCHSZ 5 for both; NETTIME 2-8 ms (System SSL) vs 28-130 ms (AT-TLS).
    ssl = one_mb["MQ + System SSL · TLS_CHACHA20_POLY1305_SHA256"]
    attls = one_mb["MQ + AT-TLS · TLS_CHACHA20_POLY1305_SHA256"]
    # Configuration, Size, Batch size, XBATCHSZ, NETTIME ms, Range ms, CHSTATUS ms
    assert ssl[3] == attls[3] == "5"
    assert ssl[5] == "2.1–7.7" and attls[5] == "28.9–128.3"
    assert "Sending channel: QML1.TO.QML2." in html


def test_study_report_charts_are_drawn_in_a_browser_offline(rendered, tmp_path):
    """The attls report in headless Chromium: every chart an SVG with marks, nothing logged to
    the console, no network request (the Vega bundle is inlined)."""
    run = load_page(rendered["attls"]["html"], tmp_path / "chromium")
    finder = ChartFinder()
    finder.feed(run.dom)
    charts_in_html = _html(rendered, "attls").count('class="mqcap-chart"')
    assert len(finder.charts) == charts_in_html >= 5
    for chart in finder.charts:
        assert chart.svgs >= 1 and chart.marks >= 3, chart.element_id
    assert run.console == []
    assert run.requests == []


def test_attls_report_fits_a_1300_px_window(rendered, tmp_path):
    """The fit table (a and b with their intervals) and the cipher tables once ran off the
    right edge; nothing outside a closed <details> may now."""
    assert past_right_edge(rendered["attls"]["html"], tmp_path / "probe") == []


def test_chinit_tasks_are_pooled_in_the_chart_and_tabled_per_run_in_the_appendix(rendered):
    html = _html(rendered, "attls")
    raw = html[html.index('id="sec-tasks"') : html.index('id="sec-channels"')]
    # The chart's caption (drawn by Vega from the embedded spec) names the pooled mart.
    assert "(fct_chinit_task_profile)." in raw and '"bar_label"' in raw
    section = _plain(raw)
    assert "The task figures of each of the 30 runs are tabled in the appendix" in section
    assert "75 rows" in section
    # The per-run table, collapsed in the appendix; its summary is plain text (no "\-").
    appendix = html[html.index('id="sec-appendix"') :]
    summary = "<summary>Channel-initiator tasks of 30 runs, 75 rows</summary>"
    assert summary in appendix
    table = appendix[appendix.index(summary) :]
    table = table[table.index("<tbody>") : table.index("</tbody>")]
    assert table.count("<tr>") == 75
