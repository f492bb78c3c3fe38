"""SMF-fed marts on a real dump: class 4 task statistics and channel accounting of TESTCHL,
attributed to runs by time window, checked against sums computed from IBM's reference decoder
output (tests/fixtures/golden/mq-smf-csv/TESTCHL/csv)."""

from __future__ import annotations

import csv
import shutil
from collections import defaultdict
from datetime import datetime, timedelta

import duckdb
import pytest

from mqcap.build import build
from mqcap.ingest import ingest
from mqcap.settings import Settings

from helpers import FIXTURES, PROJECT

GOLDEN = FIXTURES / "golden" / "mq-smf-csv" / "TESTCHL" / "csv"
SPLIT = datetime(2016, 2, 27, 18, 8, 0)  # run a: 18:00-18:08, run b: 18:08-18:20 (local time)


def _golden(name: str) -> list[dict]:
    with open(GOLDEN / f"SMF-{name}.csv", newline="") as fh:
        return list(csv.DictReader(fh))


def _us(row: dict, field: str) -> int:
    return int(row[f"{field}(S)"].strip()) * 1_000_000 + int(row[f"{field}(US)"].strip())


def _record_time(row: dict) -> datetime:
    return datetime.strptime(f"{row['Date']} {row['Time']}", "%Y/%m/%d %H:%M:%S,%f")


def _manifest(run: str, start: datetime, end: datetime) -> str:
    return (
        f"study: chl\nrun: {run}\nconfiguration: test\nsystem: MPX1\nqmgr: QML1\n"
        f"interval: {{start: {start.isoformat()}, end: {end.isoformat()}}}\n"
        "workload: {type: other}\n"
    )


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory):
    """The dump and two run folders, ingested and built once for the module's readers."""
    root = tmp_path_factory.mktemp("chl")
    settings = Settings.load(
        warehouse=root / "wh" / "warehouse.duckdb",
        raw=root / "raw",
        reports_out=root / "reports",
        project_root=PROJECT,
    )
    for run, start, end in (
        ("a", datetime(2016, 2, 27, 18, 0), SPLIT),
        ("b", SPLIT, datetime(2016, 2, 27, 18, 20)),
    ):
        d = settings.raw_root / "chl" / run
        d.mkdir(parents=True)
        (d / "run.yaml").write_text(_manifest(run, start, end))
    # One dump covering both runs, dropped outside the run folders: attributed by time.
    shutil.copy(FIXTURES / "smf" / "TESTCHL.dat", settings.raw_root / "TESTCHL.dat")
    report = ingest(settings)
    assert report.set_aside == []
    assert build(settings).ok
    con = duckdb.connect(str(settings.warehouse), read_only=True)
    yield con
    con.close()


def test_class4_task_statistics_by_run(warehouse):
    expected: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0, 0, set()])
    for task_type, struct in (("dispatcher", "QCTDSP"), ("adapter", "QCTADP")):
        for row in _golden(struct):
            end = _record_time(row)
            mid = end - timedelta(seconds=int(row["Interval_Duration"]) / 2)
            run = "chl/a" if mid < SPLIT else "chl/b"
            acc = expected[(run, task_type)]
            acc[0] += int(row["Request_Count"])
            acc[1] += _us(row, "Task_CPU_Time")
            acc[2] += _us(row, "Task_Elapsed_Time")
            acc[3].add(row["Task_Number"])
    rows = warehouse.execute(
        """select run_key, task_type, requests, tasks, cpu_us_per_request, wait_us_per_request
           from marts.fct_chinit_tasks order by run_key, task_type"""
    ).fetchall()
    assert len(rows) == 4
    for run_key, task_type, requests, tasks, cpu_per_req, wait_per_req in rows:
        req, cpu, elapsed, numbers = expected[(run_key, task_type)]
        assert (requests, tasks) == (req, len(numbers))
        assert cpu_per_req == pytest.approx(cpu / req, rel=1e-12)
        assert wait_per_req == pytest.approx((elapsed - cpu) / req, rel=1e-12)
    # The dump's first interval alone: dispatchers served requests in both runs.
    assert {r[0] for r in rows} == {"chl/a", "chl/b"}


def test_channel_accounting_by_run(warehouse):
    expected: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    for row in _golden("QCST"):
        run = "chl/a" if _record_time(row) < SPLIT else "chl/b"
        acc = expected[(run, row["Chl_Name"].strip())]
        acc[0] += int(row["Msg_All_Count"])
        acc[1] += int(row["Batches"])
        acc[2] += int(row["Bytes_Sent"])
        acc[3] += int(row["Bytes_Received"])
    got = {
        (r[0], r[1]): list(r[2:])
        for r in warehouse.execute(
            """select run_key, channel_name, messages, batches, sent_bytes, received_bytes
               from marts.fct_channel_accounting"""
        ).fetchall()
    }
    assert got == {k: v for k, v in expected.items()}
    assert len(got) >= 2


def test_busy_pct_from_mq_smf_csv_task_statistics(settings):
    """mq-smf-csv prints the interval in whole seconds only (no microseconds): the task
    statistics still reach their runs by time and busy % = elapsed / interval is not empty."""
    for run, start, end in (
        ("a", datetime(2016, 2, 27, 18, 0), SPLIT),
        ("b", SPLIT, datetime(2016, 2, 27, 18, 20)),
    ):
        d = settings.raw_root / "chl" / run
        d.mkdir(parents=True)
        (d / "run.yaml").write_text(_manifest(run, start, end))
    for struct in ("QCTADP", "QCTDSP"):
        shutil.copy(GOLDEN / f"SMF-{struct}.csv", settings.raw_root / f"SMF-{struct}.csv")
    report = ingest(settings)
    assert report.set_aside == []
    build(settings)
    expected: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    for task_type, struct in (("dispatcher", "QCTDSP"), ("adapter", "QCTADP")):
        for row in _golden(struct):
            mid = _record_time(row) - timedelta(seconds=int(row["Interval_Duration"]) / 2)
            acc = expected[("chl/a" if mid < SPLIT else "chl/b", task_type)]
            acc[0] += _us(row, "Task_Elapsed_Time")
            acc[1] += int(row["Interval_Duration"]) * 1_000_000
    with duckdb.connect(str(settings.warehouse), read_only=True) as con:
        rows = con.execute(
            "select run_key, task_type, busy_pct from marts.fct_chinit_task_stack"
        ).fetchall()
    assert {(r[0], r[1]) for r in rows} == set(expected)
    for run_key, task_type, busy in rows:
        elapsed, interval = expected[(run_key, task_type)]
        assert busy == pytest.approx(elapsed * 100 / interval, rel=1e-12)
