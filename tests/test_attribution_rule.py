"""One attribution rule (README "Dropping files"): a file inside a run folder belongs to that
run, whatever its kind; time attribution is for files outside run folders. Address-space CPU
is the kind where time still matters inside a folder: an interval is pro-rated to its overlap
with the owning run's interval. Runs at overlapping times on one system fed the same CPU
seconds by one file outside run folders are reported (a failed mart check naming the other
run), not summed in silence.

As a user meets it: two studies measured at overlapping times on one z/OS system (MV41, the
same queue manager's address spaces), `mqcap run`, then the marts.
"""

from __future__ import annotations

import shutil

import duckdb
import pytest
from click.testing import CliRunner

from mqcap.cli import main as cli

from helpers import FIXTURES

# Three whole pipeline runs (dbt, checks).
pytestmark = [pytest.mark.e2e, pytest.mark.slow(minutes=3)]

MANIFEST = """\
study: {study}
run: {run}
configuration: {configuration}
interval:
  start: {start}
  end: {end}
system: MV41
qmgr: CSQ1
workload:
  type: request_reply
  message_bytes: 2048
  persistence: nonpersistent
  threads: 1
transactions: {transactions}
jobs:
  CSQ1MSTR: MSTR
  CSQ1CHIN: CHIN
"""
HEADER = "interval_start,interval_end,system,jobname,cpu_seconds\n"
# s1/r1 10:00-10:15 with 300,000 round trips; s2/r1 10:05-10:20 with 200,000: 10 minutes shared.
RUNS = {
    ("s1", "r1"): ("A", "2024-03-01T10:00:00", "2024-03-01T10:15:00", 300000),
    ("s2", "r1"): ("B", "2024-03-01T10:05:00", "2024-03-01T10:20:00", 200000),
}
# Each study's CPU export, of its own run's interval.
OWN_CPU = {
    ("s1", "r1"): HEADER
    + "2024-03-01 10:00,2024-03-01 10:15,MV41,CSQ1MSTR,6.0\n"
    + "2024-03-01 10:00,2024-03-01 10:15,MV41,CSQ1CHIN,30.0\n",
    ("s2", "r1"): HEADER
    + "2024-03-01 10:05,2024-03-01 10:20,MV41,CSQ1MSTR,9.0\n"
    + "2024-03-01 10:05,2024-03-01 10:20,MV41,CSQ1CHIN,45.0\n",
}
COST = """select run_key, role, cpu_source, cpu_s, interval_covered_pct, transactions,
                  cpu_us_per_txn, cpu_also_counted_in, source_file
           from marts.fct_address_space_cost order by run_key, role"""


def _manifests(settings, runs=RUNS) -> None:
    for (study, run), (configuration, start, end, transactions) in runs.items():
        folder = settings.raw_root / study / run
        folder.mkdir(parents=True)
        (folder / "run.yaml").write_text(
            MANIFEST.format(
                study=study,
                run=run,
                configuration=configuration,
                start=start,
                end=end,
                transactions=transactions,
            )
        )


def _run(settings):
    return CliRunner().invoke(
        cli,
        [
            "--warehouse",
            str(settings.warehouse),
            "--raw",
            str(settings.raw_root),
            "--quiet",
            "run",
            "--no-reports",
        ],
    )


def _rows(settings, sql: str) -> list[tuple]:
    con = duckdb.connect(str(settings.warehouse), read_only=True)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def test_overlapping_studies_on_one_system_each_get_their_own_folders_cpu(settings):
    _manifests(settings)
    for (study, run), text in OWN_CPU.items():
        (settings.raw_root / study / run / "cpu.csv").write_text(text)
    result = _run(settings)
    assert result.exit_code == 0, result.output
    assert "FAILED" not in result.output and "report not rendered" not in result.output
    summary = result.output.strip().splitlines()[-1]
    passed, total = summary.rsplit(", ", 1)[1].split(" ")[0].split("/")
    assert summary.startswith("summary: 2 runs, 4 files, 10 rows, ") and passed == total
    # Each run its own CPU, whole interval covered once: CPU us per round trip =
    # CPU s x 1,000,000 / round trips (s1: 30 s / 300,000 = 100 us; s2: 45 s / 200,000 = 225).
    assert _rows(settings, COST) == [
        ("s1/r1", "CHIN", "csv", 30.0, 100.0, 300000, 100.0, None, "s1/r1/cpu.csv"),
        ("s1/r1", "MSTR", "csv", 6.0, 100.0, 300000, 20.0, None, "s1/r1/cpu.csv"),
        ("s2/r1", "CHIN", "csv", 45.0, 100.0, 200000, 225.0, None, "s2/r1/cpu.csv"),
        ("s2/r1", "MSTR", "csv", 9.0, 100.0, 200000, 45.0, None, "s2/r1/cpu.csv"),
    ]
    assert _rows(
        settings,
        "select path, attribution from meta.ingest_ledger where path like '%cpu.csv' order by 1",
    ) == [("s1/r1/cpu.csv", "run_folder"), ("s2/r1/cpu.csv", "run_folder")]


def test_one_cpu_file_at_the_raw_root_feeding_overlapping_runs_is_reported_not_summed(settings):
    _manifests(settings)
    # One export of the system's CPU over both runs, dropped at the raw root: it cannot say
    # which run 10:05-10:15 was spent for.
    (settings.raw_root / "mv41-cpu.csv").write_text(
        HEADER
        + "2024-03-01 10:00,2024-03-01 10:20,MV41,CSQ1MSTR,8.0\n"
        + "2024-03-01 10:00,2024-03-01 10:20,MV41,CSQ1CHIN,40.0\n"
    )
    # And a NETSTAT poll series of the same system at the raw root, polled at 10:06 and 10:07:
    # its records fall in both runs too (reported in the reconciliation, not summed).
    (settings.raw_root / "netstat-day.txt").write_text(_netstat_at_1006())
    result = _run(settings)
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    records = _rows(
        settings,
        """select count(*) from landing.netstat_conn as c join meta.ingest_ledger as l
           using (file_id) where l.path = 'netstat-day.txt'""",
    )[0][0]
    assert records > 0
    shared = [line.strip() for line in result.output.splitlines() if "two or more runs" in line]
    assert shared == [
        f"records counted in two or more runs: netstat-day.txt: {records:,} of {records:,} NETSTAT "
        "poll x connection record(s) (landing.netstat_conn) fall in the intervals of runs "
        "s1/r1, s2/r1 on their system and queue manager, and each of those runs counts them: put "
        "the file in its run's folder, or make the runs' intervals not overlap"
    ], result.output
    failed = [line.strip() for line in result.output.splitlines() if "FAILED" in line]
    assert len(failed) == 1, result.output
    assert failed[0].startswith(
        "FAILED suite marts.fct_address_space_cost: expect_column_values_to_be_null on column "
        "cpu_also_counted_in failed in table marts.fct_address_space_cost for 4 row(s): "
    )
    for run, other in (("s1/r1", "s2/r1"), ("s2/r1", "s1/r1")):
        assert f"run {run}, file mv41-cpu.csv (value '{other}')" in failed[0]
    for study in ("s1", "s2"):
        assert f"study {study}: 1 failed check(s), report not rendered" in result.output
    # Each run has its own part of the interval (15 of 20 minutes: 6 and 30 s), the whole
    # interval covered once; the 10 shared minutes are named, not hidden.
    assert _rows(settings, COST) == [
        ("s1/r1", "CHIN", "csv", 30.0, 100.0, 300000, 100.0, "s2/r1", "mv41-cpu.csv"),
        ("s1/r1", "MSTR", "csv", 6.0, 100.0, 300000, 20.0, "s2/r1", "mv41-cpu.csv"),
        ("s2/r1", "CHIN", "csv", 30.0, 100.0, 200000, 150.0, "s1/r1", "mv41-cpu.csv"),
        ("s2/r1", "MSTR", "csv", 6.0, 100.0, 200000, 30.0, "s1/r1", "mv41-cpu.csv"),
    ]
    status = CliRunner().invoke(
        cli, ["--warehouse", str(settings.warehouse), "--raw", str(settings.raw_root), "status"]
    )
    assert "cpu_also_counted_in" in status.output
    assert shared[0] in status.output


def _netstat_at_1006() -> str:
    """tests/fixtures/netstat/netstat_all_v2r4_poll_series.txt (two polls, 23:59:58 and 00:00:03
    over midnight) moved to 2024-03-01 10:06:58 and 10:07:03."""
    text = (FIXTURES / "netstat" / "netstat_all_v2r4_poll_series.txt").read_text()
    for old, new in (
        ("Sat Nov 21 23:59:58 UTC 2026", "Fri Mar  1 10:06:58 UTC 2024"),
        ("11/21/2026", "03/01/2024"),
        ("23:41:07", "10:01:07"),
        ("23:59:5", "10:06:5"),
        ("00:00:03", "10:07:03"),
    ):
        assert old in text, old
        text = text.replace(old, new)
    return text


def test_a_day_cpu_file_copied_into_each_run_folder_feeds_each_run_its_part(settings, tmp_path):
    """One study, two runs one after the other, the day's CPU export copied into both run
    folders: the copy counts once (first_copy), yet each run gets its own part of it."""
    runs = {
        ("day", "r1"): ("A", "2024-03-01T10:00:00", "2024-03-01T10:15:00", 300000),
        ("day", "r2"): ("B", "2024-03-01T10:30:00", "2024-03-01T10:40:00", 200000),
    }
    _manifests(settings, runs)
    day = tmp_path / "day.csv"
    day.write_text(
        HEADER
        + "2024-03-01 10:00,2024-03-01 11:00,MV41,CSQ1MSTR,36.0\n"
        + "2024-03-01 10:00,2024-03-01 11:00,MV41,CSQ1CHIN,360.0\n"
    )
    for run in ("r1", "r2"):
        shutil.copy(day, settings.raw_root / "day" / run / "cpu.csv")
    result = _run(settings)
    assert result.exit_code == 0, result.output
    # 36 s and 360 s an hour: r1's 15 minutes 9 and 90 s, r2's 10 minutes 6 and 60 s.
    assert _rows(settings, COST) == [
        ("day/r1", "CHIN", "csv", 90.0, 100.0, 300000, 300.0, None, "day/r1/cpu.csv"),
        ("day/r1", "MSTR", "csv", 9.0, 100.0, 300000, 30.0, None, "day/r1/cpu.csv"),
        ("day/r2", "CHIN", "csv", 60.0, 100.0, 200000, 300.0, None, "day/r1/cpu.csv"),
        ("day/r2", "MSTR", "csv", 6.0, 100.0, 200000, 30.0, None, "day/r1/cpu.csv"),
    ]
