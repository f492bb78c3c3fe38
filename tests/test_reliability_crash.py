"""Crash safety: ``mqcap`` killed with SIGKILL mid-ingest and mid-build loses and doubles nothing.

A raw root with many files (the sample study) and a large SMF dump (a real dump repeated to
8 MB) is ingested by ``python -m mqcap.cli`` subprocesses killed at seeded random points; a
build is killed right after ``marts.dim_run`` was written (marts that would look fresh) and at a
random point. After every kill the warehouse opens and its ledger and landing agree. The final
``mqcap run`` completes the work: landing equals a clean ingest's, and the marts are rebuilt.
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pytest

from mqcap import warehouse
from mqcap.ingest import ingest
from mqcap.settings import Settings

from helpers import FIXTURES, PROJECT, landing_fingerprint
from reliability_summary import CRASH_SEED, KILL_POINTS, ledger_landing_disagreements

# Its own group: it runs beside the other reliability modules, keeping the suite under 2 min.
pytestmark = pytest.mark.xdist_group("reliability-crash")


def _drop_raw(raw: Path) -> None:
    shutil.copytree(PROJECT / "data" / "sample" / "attls", raw / "attls")
    # Named to sort first: after the manifests, ingest starts with the 8 MB dump.
    big = raw / "0-smf-day"
    big.mkdir()
    dump = (FIXTURES / "smf" / "TESTCHL.dat").read_bytes()
    (big / "TESTCHL-x10.dat").write_bytes(dump * 10)


def _settings(root: Path) -> Settings:
    return Settings.load(
        warehouse=root / "wh" / "warehouse.duckdb",
        raw=root / "raw",
        reports_out=root / "reports",
        project_root=PROJECT,
    )


class Killer:
    """Runs ``mqcap`` commands as subprocesses (own process group: dbt dies with them)."""

    def __init__(self, settings: Settings, rng: random.Random):
        self.settings = settings
        self.rng = rng
        self.env = {
            **os.environ,
            "MQCAP_WAREHOUSE": str(settings.warehouse),
            "MQCAP_RAW": str(settings.raw_root),
            "MQCAP_REPORTS_OUT": str(settings.reports_out),
        }
        self.kills = 0

    def start(self, *args: str) -> subprocess.Popen:
        return subprocess.Popen(
            [sys.executable, "-m", "mqcap.cli", *args],
            cwd=PROJECT,
            env=self.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )

    def wait_for(self, proc: subprocess.Popen, marker: str, timeout: float = 120) -> bool:
        """Read output until a line contains ``marker``; False when the process ended first."""
        deadline = time.monotonic() + timeout
        assert proc.stdout is not None
        for line in proc.stdout:
            if marker in line:
                return True
            assert time.monotonic() < deadline, f"no {marker!r} within {timeout}s"
        return False

    def kill(self, proc: subprocess.Popen) -> bool:
        """SIGKILL the command and its children; True when it was still running."""
        alive = proc.poll() is None
        if alive:
            os.killpg(proc.pid, signal.SIGKILL)
            self.kills += 1
        proc.wait(timeout=60)
        # dbt runs as a child in the same group; the warehouse lock goes with the last of them.
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                os.killpg(proc.pid, 0)
            except ProcessLookupError:
                break
            time.sleep(0.05)
        if proc.stdout is not None:
            proc.stdout.close()
        return alive

    def kill_after(self, args: tuple[str, ...], marker: str, delay: float) -> bool:
        proc = self.start(*args)
        if self.wait_for(proc, marker):
            time.sleep(delay)
        return self.kill(proc)

    def kill_when_built(self, model: str, extra: float) -> bool:
        """Kill ``mqcap build`` once dbt has written ``model`` (its log says so)."""
        log = self.settings.warehouse.parent / "logs" / "dbt.log"
        start = log.stat().st_size if log.exists() else 0
        proc = self.start("build")
        deadline = time.monotonic() + 180
        while proc.poll() is None and time.monotonic() < deadline:
            if log.exists():
                with open(log, "rb") as fh:
                    fh.seek(start)
                    text = fh.read().decode("utf-8", "replace")
                if f"OK created sql table model {model}" in text:
                    break
            time.sleep(0.05)
        time.sleep(extra)
        return self.kill(proc)


def _consistent(settings: Settings) -> None:
    # It opens (as the next command would: the WAL is replayed), then ledger and landing agree.
    with warehouse.connect(settings.warehouse) as con:
        con.execute("select count(*) from meta.ingest_ledger").fetchall()
    assert ledger_landing_disagreements(settings.warehouse) == []


def _mart_tables(settings: Settings) -> set[str]:
    con = duckdb.connect(str(settings.warehouse), read_only=True)
    try:
        return {
            r[0]
            for r in con.execute(
                "select table_name from information_schema.tables where table_schema = 'marts'"
            ).fetchall()
        }
    finally:
        con.close()


def test_sigkill_mid_ingest_and_mid_build_leaves_a_consistent_warehouse(tmp_path):
    rng = random.Random(CRASH_SEED)
    clean = _settings(tmp_path / "clean")
    _drop_raw(clean.raw_root)
    assert ingest(clean).set_aside == []
    reference = landing_fingerprint(clean.warehouse)

    settings = _settings(tmp_path / "crash")
    _drop_raw(settings.raw_root)
    killer = Killer(settings, rng)
    # Kill points 1-4: ingest at random moments after it starts work (files land one by one).
    for _ in range(4):
        killer.kill_after(("ingest",), "ingest...", rng.uniform(0.0, 2.5))
        _consistent(settings)
    # Kill point 5: `mqcap run` somewhere in its ingest or its build.
    killer.kill_after(("run", "--no-reports"), "ingest...", rng.uniform(1.0, 8.0))
    _consistent(settings)
    # Everything landed now; landing equals the clean run's (no file twice, none lost).
    finish = subprocess.run(
        [sys.executable, "-m", "mqcap.cli", "ingest"], env=killer.env, cwd=PROJECT, check=False
    )
    assert finish.returncode == 0
    assert landing_fingerprint(settings.warehouse) == reference
    # Kill point 6: the build dies right after marts.dim_run is written (marts that exist
    # but are incomplete); kill point 7: at a random moment of another build.
    assert killer.kill_when_built("marts.dim_run", rng.uniform(0.0, 0.3))
    _consistent(settings)
    killer.kill_after(("build",), "dbt build...", rng.uniform(2.0, 6.0))
    _consistent(settings)
    assert killer.kills >= 5, "most kill points must land while the command is running"

    # The next run sees that no build completed since files landed, and rebuilds.
    done = subprocess.run(
        [sys.executable, "-m", "mqcap.cli", "run", "--no-reports"],
        env=killer.env,
        cwd=PROJECT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert "nothing new" not in done.stdout
    assert "dbt build:" in done.stdout, done.stdout + done.stderr
    assert landing_fingerprint(settings.warehouse) == reference
    assert ledger_landing_disagreements(settings.warehouse) == []
    con = duckdb.connect(str(settings.warehouse), read_only=True)
    try:
        runs = con.execute("select count(*) from marts.dim_run").fetchall()[0][0]
        manifests = con.execute("select count(*) from landing.run_manifest").fetchall()[0][0]
    finally:
        con.close()
    assert runs == manifests > 0
    # Every mart model is there as a table (none missing after the killed builds).
    models = {p.stem for p in (PROJECT / "models" / "marts").glob("*.sql")}
    assert models and _mart_tables(settings) == models
    # And now it is up to date: the next run has nothing to do.
    again = subprocess.run(
        [sys.executable, "-m", "mqcap.cli", "run", "--no-reports"],
        env=killer.env,
        cwd=PROJECT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert "nothing new" in again.stdout, again.stdout + again.stderr
    # The figure for the README (`pytest -rP tests/test_reliability_crash.py` shows it).
    rows = sum(n for table, (n, _) in reference.items() if not table.startswith("meta."))
    print(
        f"reliability: {killer.kills}/{len(KILL_POINTS)} kills hit a running mqcap and were "
        f"survived; {rows} landing rows equal a clean run's"
    )


def test_run_rebuilds_what_landed_since_the_last_complete_build(settings, monkeypatch):
    """Files landed by a killed run, or a build that died, stay owed until a build completes."""
    import mqcap.build
    import mqcap.pipeline
    from mqcap.build import selection_for
    from mqcap.errors import DataError
    from mqcap.pipeline import run

    calls: list[list[str]] = []
    returncode = {"rc": 0}

    def fake_dbt(settings, args, progress=None):
        calls.append(args)
        return subprocess.CompletedProcess(args, returncode["rc"], "", "")

    # dbt itself is exercised by the SIGKILL test; here only what run() asks it to build.
    monkeypatch.setattr(mqcap.build, "run_dbt", fake_dbt)
    monkeypatch.setattr(mqcap.pipeline, "validate", lambda *a, **k: None)
    monkeypatch.setattr(mqcap.pipeline, "_marts_exist", lambda s: bool(calls))
    run_a = settings.raw_root / "s" / "a"
    run_a.mkdir(parents=True)
    (run_a / "run.yaml").write_text("study: s\nrun: a\n")
    (run_a / "results.csv").write_text("rate_per_s,round_trip_us\n1,2\n")

    first = run(settings, reports=False)
    assert calls == [["build"]]  # first build: everything
    assert run(settings, reports=False).nothing_new and len(calls) == 1

    # A run killed after its ingest: the files are in, no build covered them.
    shutil.copy(FIXTURES / "chstatus" / "runmqsc_dis_chstatus_short.txt", run_a / "chs.txt")
    assert [o.kind for o in ingest(settings).landed] == ["chstatus"]
    again = run(settings, reports=False)
    assert not again.nothing_new
    assert calls[-1] == ["build", "--select", *selection_for(settings, _tables("chstatus"))]

    # A build that fails (or dies) records nothing: the next run builds the same again.
    (run_a / "results.csv").write_text("rate_per_s,round_trip_us\n3,4\n")
    returncode["rc"] = 1
    with pytest.raises(DataError):
        run(settings, reports=False)
    returncode["rc"] = 0
    retried = run(settings, reports=False)
    assert retried.ingest.landed == [] and not retried.nothing_new
    assert calls[-1] == ["build", "--select", *selection_for(settings, _tables("driver_csv"))]
    assert run(settings, reports=False).nothing_new
    assert first.build is not None and first.build.ok


def _tables(kind: str) -> set[str]:
    from mqcap.parsers import parser_for_kind

    return {t.name for t in parser_for_kind(kind).tables}
