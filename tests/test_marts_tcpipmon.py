"""TCPIPMonitor print-outs reach marts.fct_tcpip_throughput: bytes, segments, retransmits and
printed rates per run x connection or interface, from the real samples in
tests/fixtures/tcpipmon, with the run interval deciding which samples count."""

from __future__ import annotations

import shutil

import duckdb
import pytest

from mqcap.build import build
from mqcap.ingest import ingest

from helpers import FIXTURES, PROJECT

DIR = FIXTURES / "tcpipmon"
INFO = DIR / "Port.md_L19-25_MONPORT_INFO_per_connection.txt"
CHANGE = DIR / "Port.md_L88-91_MONPORT_CHANGE.txt"
SYSPRINT = DIR / "Port.md_L9-14_MONPORT_SYSPRINT.csvish.txt"
IFST = DIR / "Interface.md_L9-19_IFST_output.csvish.txt"
SOCKET = "2001:7::3:43736"

RUNS = {
    # r1: the port print-out (17:09:50, 17:10:00, 17:10:10) with an interval holding the
    # first two samples only.
    "r1": ("2024-05-06T17:09:00", "2024-05-06T17:10:05", [SYSPRINT]),
    # r2: no interval: every sample of every print-out in its folder counts.
    "r2": (None, None, [SYSPRINT, IFST, INFO, CHANGE]),
    # r3: an interval crossing midnight: IFST's 09:11:12..09:12:42 fall on the next day.
    "r3": ("2024-05-06T23:00:00", "2024-05-07T10:00:00", [IFST]),
    # r4: the monitor ran outside the run's interval: nothing counts.
    "r4": ("2024-05-06T08:00:00", "2024-05-06T08:30:00", [SYSPRINT]),
}


def _manifest(run: str, start: str | None, end: str | None) -> str:
    interval = f"interval: {{start: {start}, end: {end}}}\n" if start else ""
    return f"study: tcp\nrun: {run}\nconfiguration: c\n{interval}workload: {{type: other}}\n"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    from mqcap.settings import Settings

    root = tmp_path_factory.mktemp("tcpipmon")
    raw = root / "raw"
    settings = Settings.load(
        warehouse=root / "wh" / "warehouse.duckdb", raw=raw, project_root=PROJECT
    )
    for run, (start, end, files) in RUNS.items():
        (raw / "tcp" / run).mkdir(parents=True)
        (raw / "tcp" / run / "run.yaml").write_text(_manifest(run, start, end))
        for f in files:
            shutil.copy(f, raw / "tcp" / run / f.name)
    report = ingest(settings)
    assert report.set_aside == []
    build(settings)
    return settings


@pytest.fixture(scope="module")
def throughput(built) -> dict[tuple[str, str, str], dict]:
    con = duckdb.connect(str(built.warehouse), read_only=True)
    try:
        cur = con.execute("select * from marts.fct_tcpip_throughput")
        names = [d[0] for d in cur.description]
        rows = [dict(zip(names, r, strict=True)) for r in cur.fetchall()]
        types = dict(
            con.execute(
                """select column_name, data_type from information_schema.columns
                   where table_schema = 'marts' and table_name = 'fct_tcpip_throughput'"""
            ).fetchall()
        )
    finally:
        con.close()
    out = {(r["run_key"], r["subject_kind"], r["subject"]): r for r in rows}
    out["types"] = types
    return out


def test_one_row_per_run_and_subject(throughput):
    keys = sorted(k for k in throughput if k != "types")
    assert keys == [
        ("tcp/r1", "connection", SOCKET),
        ("tcp/r2", "connection", SOCKET),
        ("tcp/r2", "interface", "TAP0"),
        ("tcp/r3", "interface", "TAP0"),
    ]  # r4's samples all fall outside its interval


def test_samples_inside_the_interval_count(throughput):
    r1 = throughput[("tcp/r1", "connection", SOCKET)]
    assert r1["samples"] == 2  # 17:10:10 is after the interval's end
    assert (r1["in_bytes"], r1["out_bytes"]) == (156 + 624, 1164 + 3020)
    assert (r1["in_segments"], r1["out_segments"], r1["retransmits"]) == (14 + 35, 11 + 23, 0)
    assert r1["in_bytes_per_s_mean"] == pytest.approx((15 + 62) / 2)
    assert (r1["in_bytes_per_s_max"], r1["out_bytes_per_s_max"]) == (62, 302)
    assert str(r1["first_sample_time"]) == "2024-05-06 17:09:50"
    assert str(r1["last_sample_time"]) == "2024-05-06 17:10:00"


def test_without_an_interval_every_sample_counts(throughput):
    port = throughput[("tcp/r2", "connection", SOCKET)]
    assert port["samples"] == 3
    assert (port["in_bytes"], port["out_bytes"]) == (1456, 4892)
    assert (port["in_segments"], port["out_segments"]) == (75, 47)
    assert port["out_bytes_per_s_mean"] == pytest.approx((116 + 302 + 70) / 3)
    assert port["first_sample_time"] is None  # no interval, no date
    tap = throughput[("tcp/r2", "interface", "TAP0")]
    assert tap["samples"] == 10
    assert (tap["in_bytes"], tap["out_bytes"]) == (348, 348)
    assert tap["in_segments"] is None and tap["retransmits"] is None
    # The first sample prints no rate (blank): the mean is over the nine that do.
    assert tap["in_bytes_per_s_mean"] == pytest.approx(34 / 9)
    assert tap["in_bytes_per_s_max"] == 34


def test_an_interval_across_midnight_places_samples_on_the_next_day(throughput):
    tap = throughput[("tcp/r3", "interface", "TAP0")]
    assert tap["samples"] == 10 and tap["in_bytes"] == 348
    assert str(tap["first_sample_time"]) == "2024-05-07 09:11:12"
    assert str(tap["last_sample_time"]) == "2024-05-07 09:12:42"


def test_sums_are_bigint(throughput):
    types = throughput["types"]
    for col in ("in_bytes", "out_bytes", "in_segments", "out_segments", "retransmits", "samples"):
        assert types[col] == "BIGINT", col


@pytest.mark.slow
def test_the_report_shows_the_throughput_section(built, throughput, tmp_path):
    # The section the README's recipe added: its heading, after NETSTAT's place, and the mart's
    # figures in the HTML and the PDF (r1: 4,184 bytes out over its two samples; r2's TAP0: ten
    # samples, 348 bytes in).
    from pypdf import PdfReader

    from mqcap.render import render_report

    paths = render_report(
        PROJECT / "reports" / "study.qmd",
        tmp_path,
        params={"study": "tcp", "failed_checks": "[]"},
        formats=("html", "pdf"),
        output_stem="tcp",
        env={"MQCAP_WAREHOUSE": str(built.warehouse)},
    )
    html = " ".join(paths["html"].read_text(encoding="utf-8").split())  # pandoc wraps lines
    assert 'id="sec-tcpip"' in html and "TCP/IP throughput (TCPIPMonitor)" in html
    r1 = throughput[("tcp/r1", "connection", SOCKET)]
    assert r1["out_bytes"] == 4184
    table = html[html.index('id="sec-tcpip"') :]
    for figure in ("4,184", SOCKET, "TAP0", "348"):
        assert figure in table, figure
    pdf = "\n".join(p.extract_text() for p in PdfReader(paths["pdf"]).pages).replace("\u200b", "")
    assert "TCP/IP throughput (TCPIPMonitor)" in pdf and "4,184" in pdf
