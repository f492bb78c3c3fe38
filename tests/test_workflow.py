"""The drop-in workflow: a new run among many lands alone and reaches the marts, the watcher
never reads a file still growing, exports and query formats."""

from __future__ import annotations

import shutil

import duckdb
import polars as pl
from click.testing import CliRunner

from mqcap.cli import main
from mqcap.export import export_marts
from mqcap.pipeline import run
from mqcap.watch import Watcher

from helpers import PROJECT

MINI = PROJECT / "tests" / "fixtures" / "mini_study" / "attls"


def _copy_runs(raw, copies: int) -> None:
    """The ten-run mini study `copies` times over, as separate studies."""
    for k in range(copies):
        dest = raw / f"s{k}"
        shutil.copytree(MINI, dest)
        for manifest in dest.rglob("run.yaml"):
            manifest.write_text(manifest.read_text().replace("study: attls", f"study: s{k}"))


def test_a_new_run_among_many_lands_alone_and_reaches_the_marts(settings):
    _copy_runs(settings.raw_root, 3)
    first = run(settings, reports=False)
    assert len(first.ingest.landed) == 60 and first.marts.ok
    # A new run folder: a manifest and its results.
    new = settings.raw_root / "s1" / "extra-4k"
    new.mkdir()
    (new / "run.yaml").write_text(
        "study: s1\nrun: extra-4k\nconfiguration: MQ + AT-TLS\n"
        "interval: {start: 2021-06-02T10:00:00, end: 2021-06-02T10:05:00}\n"
        "workload: {type: request_reply, message_bytes: 4096, threads: 1}\n"
        "baseline: ssl-chacha-2k\n"
    )
    (new / "results.csv").write_text("rate_per_s,round_trip_us\n400,2500\n")
    second = run(settings, reports=False)
    assert sorted(o.path for o in second.ingest.landed) == [
        "s1/extra-4k/results.csv",
        "s1/extra-4k/run.yaml",
    ]
    assert len(second.ingest.by_status("unchanged")) == 60
    # Only the models downstream of the landing tables that changed were rebuilt.
    assert sum(first.build.counts.values()) > sum(second.build.counts.values())
    con = duckdb.connect(str(settings.warehouse), read_only=True)
    try:
        assert con.execute(
            "select round_trip_us, transactions from marts.fct_driver_results "
            "where run_key = 's1/extra-4k'"
        ).fetchall() == [(2500.0, 120000)]
        assert con.execute("select count(*) from marts.dim_run").fetchall() == [(31,)]
        assert con.execute(
            "select round(pct_change, 2) from marts.fct_comparison "
            "where run_key = 's1/extra-4k' and measure = 'round_trip_us'"
        ).fetchall() == [(15.1,)]
    finally:
        con.close()
    # Nothing new: says so without building.
    third = run(settings, reports=False)
    assert third.nothing_new and third.build is None


def test_watcher_never_hands_out_a_file_still_growing(settings):
    clock = [1000.0]
    watcher = Watcher(settings, settle_s=5.0, clock=lambda: clock[0])
    run_dir = settings.raw_root / "st" / "r1"
    run_dir.mkdir(parents=True)
    growing = run_dir / "results.csv"
    growing.write_text("rate_per_s,round_trip_us\n")
    assert watcher.poll() == []  # first seen
    for step in range(4):  # still being copied: a line every 3 seconds
        clock[0] += 3
        with growing.open("a") as fh:
            fh.write(f"{100 + step},2000\n")
        assert watcher.poll() == []
    clock[0] += 3
    assert watcher.poll() == []  # unchanged for 3 s only
    clock[0] += 3
    assert watcher.poll() == [growing]  # unchanged for 6 s >= settle
    assert growing.read_text().count("\n") == 5
    clock[0] += 10
    assert watcher.poll() == []  # handed out once


def test_watcher_batches_a_burst_until_every_file_has_settled(settings):
    clock = [0.0]
    watcher = Watcher(settings, settle_s=5.0, clock=lambda: clock[0])
    a = settings.raw_root / "a.csv"
    a.write_text("rate_per_s,round_trip_us\n1,2\n")
    watcher.poll()
    clock[0] += 6
    b = settings.raw_root / "b.csv"
    b.write_text("rate_per_s,round_trip_us\n")  # arrives while a has settled
    assert watcher.poll() == []  # b is still new: a waits for the burst to end
    clock[0] += 6
    assert watcher.poll() == [a, b]


def test_export_writes_marts_partitioned_by_study_and_sql_parquet(mini_settings):
    settings = mini_settings  # the mini study landed, built and checked (tests/conftest.py)
    out = settings.warehouse.parent / "export"
    written = export_marts(settings, out, ["fct_driver_results", "fct_comparison"])
    assert sorted(written) == ["fct_comparison", "fct_driver_results"]
    part = out / "fct_driver_results" / "study=attls"
    assert part.is_dir()
    frame = pl.read_parquet(part / "*.parquet")
    assert frame.height == 10
    assert sorted(frame["round_trip_us"].to_list())[-1] == 956592.0
    target = settings.warehouse.parent / "q.parquet"
    result = CliRunner().invoke(
        main,
        [
            "--warehouse",
            str(settings.warehouse),
            "-q",
            "sql",
            "select run_id, pct_change from marts.fct_comparison where measure = 'round_trip_us'",
            "--format",
            "parquet",
            "-o",
            str(target),
        ],
    )
    assert result.exit_code == 0, result.output
    got = pl.read_parquet(target)
    assert got.height == 5 and round(got["pct_change"].max(), 2) == 37.87
