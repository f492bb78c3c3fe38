"""The "Queue manager resources" section of a study report: amqsrua and amqsmon figures of a
generated appliance thread sweep, drawn from the marts, and absent from a study without them.

The threadsweep scenario is cut down to its monitored runs (local bindings, M2002A, 2 KB: two
configurations x ten thread counts, each with amqsrua.txt and amqsmon.txt) and generated with a
second, unmonitored copy of one size; both are landed, built with dbt and rendered to HTML (the
monitored one to PDF too) through the Jupyter kernel.
"""

from __future__ import annotations

import json
import re
import shutil
from datetime import timedelta
from html import unescape
from pathlib import Path

import duckdb
import pytest
from pypdf import PdfReader

from mqcap.build import build
from mqcap.generate import expand, generate, load_scenario
from mqcap.generate.distributed import publications
from mqcap.ingest import ingest
from mqcap.render import render_report
from mqcap.settings import Settings, find_project_root

pytestmark = pytest.mark.slow

PROJECT = find_project_root(Path(__file__).parent)
TITLE = "Queue manager resources"


def _scenario(study: str, monitored: bool) -> dict:
    doc = load_scenario(PROJECT / "data" / "scenarios" / "threadsweep.yaml")
    doc["study"] = study
    sweep = doc["thread_sweep"]
    sweep["scenarios"], sweep["hardware_models"] = ["local"], ["M2002A"]
    keep = sweep["message_bytes"].index(2048)
    for key in ("message_bytes", "peak_rate_per_s", "single_round_trip_us"):
        sweep[key] = [sweep[key][keep]]
    if not monitored:
        del sweep["monitoring"]
        sweep["threads"] = [1, 8, 64]
    return doc


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("distributed_reports")
    raw = root / "raw"
    settings = Settings.load(
        warehouse=root / "wh" / "warehouse.duckdb",
        raw=raw,
        reports_out=root / "out",
        project_root=PROJECT,
    )
    monitored = _scenario("mon", True)
    generate(monitored, raw)
    generate(_scenario("nomon", False), raw)
    ingest(settings)
    build(settings)
    env = {"MQCAP_WAREHOUSE": str(settings.warehouse)}
    out = {}
    for study, formats in (("mon", ("html", "pdf")), ("nomon", ("html",))):
        out[study] = render_report(
            PROJECT / "reports" / "study.qmd",
            settings.reports_out,
            params={"study": study, "failed_checks": json.dumps([])},
            formats=formats,
            output_stem=study,
            env=env,
        )
    yield settings, monitored, out
    shutil.rmtree(settings.reports_out, ignore_errors=True)


def _headings(html: str) -> list[str]:
    return [
        " ".join(re.sub(r"<[^>]+>", "", h).split())
        for h in re.findall(r"<h1[^>]*>(.*?)</h1>", html, flags=re.DOTALL)
    ]


def _section(html: str) -> str:
    # The section's HTML, from its anchor (report.qmd: anchor="sec-qmgr-resources") to the next.
    start = html.index('<section id="sec-qmgr-resources"')
    end = html.find("<section id=", start + 10)
    return html[start:] if end < 0 else html[start:end]


def _rows(section: str, caption_word: str) -> list[list[str]]:
    tables = re.findall(r"<table.*?</table>", section, flags=re.DOTALL)
    (found,) = [t for t in tables if caption_word in t]
    rows = re.findall(r"<tr>(.*?)</tr>", found, flags=re.DOTALL)
    return [
        [unescape(re.sub(r"<[^>]+>", "", c)).strip() for c in re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", r, flags=re.DOTALL)]
        for r in rows
    ]  # fmt: skip


def test_section_appears_only_for_the_study_with_amqsrua_and_amqsmon(built):
    _, _, out = built
    assert f"4 {TITLE}" in _headings(out["mon"]["html"].read_text(encoding="utf-8"))
    nomon = out["nomon"]["html"].read_text(encoding="utf-8")
    assert "Throughput and latency against threads" in " ".join(_headings(nomon))
    assert TITLE not in nomon
    pdf = "\n".join(p.extract_text() for p in PdfReader(out["mon"]["pdf"]).pages)
    assert TITLE in pdf


def test_section_names_both_sources_and_draws_two_charts(built):
    _, _, out = built
    section = _section(out["mon"]["html"].read_text(encoding="utf-8"))
    text = " ".join(section.split())
    assert "amqsrua resource-usage publications and amqsmon statistics records" in text
    assert len(re.findall(r"vegaEmbed\(\"#mqcap-chart", section)) == 2
    assert "Log write latency publication by publication" in text
    assert "Queue manager CPU, log write latency and log bytes written per run" in text


def test_run_table_shows_the_marts_figures_which_match_the_generated_files(built):
    settings, doc, out = built
    section = _section(out["mon"]["html"].read_text(encoding="utf-8"))
    rows = _rows(section, "MQPUT/MQGET rates per run")
    header, body = rows[0], rows[1:]
    assert header[:4] == ["Configuration", "Run", "Threads", "Size"]
    assert len(body) == 20  # 2 configurations x 10 thread counts
    shown = {r[1]: dict(zip(header, r, strict=True)) for r in body}
    with duckdb.connect(str(settings.warehouse), read_only=True) as con:
        mart = {
            (run, measure): value
            for run, measure, value in con.execute(
                """select r.run_id, m.measure, m.measure_value from marts.fct_run_measures m
                   join marts.dim_run r using (run_key)
                   where r.study = 'mon' and m.subject in ('QMGR', 'HOST', 'RUN')"""
            ).fetchall()
        }
    # Exact from the generated publications: the mean of user + system per publication, the
    # mean latency, MQPUTs of both queues over the publications' seconds.
    for plan in expand(doc):
        pubs = publications(plan)
        qmgr = sum(p["qmgr_user"] + p["qmgr_system"] for p in pubs) / len(pubs)
        latency = sum(p["latency_us"] for p in pubs) / len(pubs)
        puts = sum(2 * p["puts"] for p in pubs) / (10 * len(pubs))
        assert mart[(plan.run_id, "qmgr_cpu_pct")] == pytest.approx(qmgr, abs=1e-9)
        assert mart[(plan.run_id, "log_write_latency_us")] == pytest.approx(latency, abs=1e-9)
        assert mart[(plan.run_id, "mqput_rate_per_s")] == pytest.approx(puts, abs=1e-9)
        # The table prints the mart's figures (a half-way value rounds as the mart's double).
        row = shown[plan.run_id]
        assert row["Queue manager CPU %"] == f"{mart[(plan.run_id, 'qmgr_cpu_pct')]:,.2f}"
        assert row["Log write latency µs"] == f"{mart[(plan.run_id, 'log_write_latency_us')]:,.0f}"
        assert row["MQPUT/MQPUT1 per s"] == f"{mart[(plan.run_id, 'mqput_rate_per_s')]:,.0f}"
        assert row["Threads"] == str(plan.workload["threads"])


def test_queue_table_lists_both_queues_of_every_run(built):
    _, _, out = built
    section = _section(out["mon"]["html"].read_text(encoding="utf-8"))
    rows = _rows(section, "per queue")
    body = rows[1:]
    assert len(body) == 40  # 20 runs x (CPH.REQUEST, CPH.REPLY)
    assert {r[3] for r in body} == {"CPH.REQUEST", "CPH.REPLY"}


def test_series_times_are_local_although_amqsrua_stamps_utc(built):
    settings, doc, _ = built
    plan = next(p for p in expand(doc) if p.run_id == "local-m2002a-off-2k-t8")
    with duckdb.connect(str(settings.warehouse), read_only=True) as con:
        rows = con.execute(
            """select interval_end_local, seconds_into_run, measure_value
               from marts.fct_distributed_series
               where study = 'mon' and run_id = ? and measure = 'log_write_latency_us'
               order by interval_end_local""",
            [plan.run_id],
        ).fetchall()
        clock = con.execute(
            "select clock_source, utc_offset_minutes from marts.dim_run where run_id = ?",
            [plan.run_id],
        ).fetchone()
    pubs = publications(plan)
    assert clock == ("study", 60)
    # The files print UTC (local - 1 h); the mart shows the run's local clock again.
    assert [r[0] for r in rows] == [p["put_utc"] + timedelta(hours=1) for p in pubs]
    assert rows[0][0] == plan.start + timedelta(seconds=10, milliseconds=130)
    assert [r[1] for r in rows] == pytest.approx([10.13 + 10 * k for k in range(len(pubs))])
    assert [r[2] for r in rows] == [float(p["latency_us"]) for p in pubs]
