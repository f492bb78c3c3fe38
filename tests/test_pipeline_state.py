"""The step ledger tells the truth: what `mqcap run` owes is computed, never assumed.

A two-point fit (R^2 = 1.0000000000000004) passes its check and renders; a report deleted is
rendered again; a failed check blocks only its study and the state says so; a failed dbt build
is recorded and shown by `mqcap status`; dbt waits for the lock; a damaged warehouse, a killed
render's work folder and Ctrl-C each end with one clear line and the documented exit code.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest
from click.testing import CliRunner

from mqcap import warehouse
from mqcap.cli import main
from mqcap.ledger import schema
from mqcap.ledger.steps import pipeline_state, record_step
from mqcap.settings import Settings

from helpers import PROJECT

# Whole pipeline runs, killed and resumed: minutes.
pytestmark = pytest.mark.slow

MANIFEST = """study: {study}
run: {run}
configuration: MQ + TLS
interval:
  start: 2021-06-01T1{i}:00:00
  end: 2021-06-01T1{i}:05:00
workload:
  type: request_reply
  message_bytes: {size}
  threads: 1
"""


def _drop_run(raw: Path, study: str, run: str, i: int, size: int, rate: float, rt: float) -> Path:
    folder = raw / study / run
    folder.mkdir(parents=True)
    (folder / "run.yaml").write_text(MANIFEST.format(study=study, run=run, i=i, size=size))
    (folder / "results.csv").write_text(f"rate_per_s,round_trip_us\n{rate},{rt}\n")
    return folder


def _invoke(settings: Settings, *args: str):
    return CliRunner().invoke(
        main,
        ["--warehouse", str(settings.warehouse), "--raw", str(settings.raw_root), "-q", *args],
        catch_exceptions=False,
    )


@pytest.mark.e2e
@pytest.mark.slow
def test_two_point_fit_renders_and_a_failed_check_blocks_only_its_study(settings):
    from mqcap.pipeline import run

    # Round trips chosen so DuckDB's regr_r2 of the exact two-point line is 1.0000000000000004.
    _drop_run(settings.raw_root, "fit2", "small", 0, 2048, 303.7, 3292.8)
    _drop_run(settings.raw_root, "fit2", "large", 1, 1048576, 25.3, 39457.3)
    # A second study whose only result has a zero round trip: its landing check fails.
    _drop_run(settings.raw_root, "other", "r1", 2, 2048, 100.0, 0.0)

    first = run(settings, fmt="html")
    con = duckdb.connect(str(settings.warehouse), read_only=True)
    try:
        r2 = con.execute(
            """select max(r_squared) from marts.fct_fit
               where study = 'fit2' and measure = 'round_trip_us'"""
        ).fetchall()[0][0]
    finally:
        con.close()
    assert r2 > 1.0  # the rounding case is really exercised
    # r_squared within 1 + 1e-9 passes: no mart check fails on fit2 (only on the bad study).
    assert first.marts is not None
    assert [f.studies() for f in first.marts.failures if f.studies() != {"other"}] == []
    assert set(first.reports.outputs) == {"fit2", "_overview"}
    assert (settings.reports_out / "fit2.html").stat().st_size > 10_000
    # The failure names the run and the file with its line, never "?".
    [failure] = first.landing.failures
    message = failure.message()
    assert "run other/r1, file other/r1/results.csv line 2 (value 0.0)" in message
    assert "?" not in message
    assert list(first.reports.skipped) == ["other"]
    assert first.data_problems
    assert [p.split(":")[0] for p in first.problems] == ["study other"]
    assert "failed check(s), report not rendered: suite landing.driver_results" in first.problems[0]

    # Nothing new: stops without a step, still saying what is not right (exit 1 in the CLI).
    again = run(settings, fmt="html")
    assert again.nothing_new and again.build is None and again.landing is None
    assert [p.split(":")[0] for p in again.problems] == ["study other"]
    assert again.data_problems

    # A report deleted is not "up to date": the next run renders it, and nothing else.
    (settings.reports_out / "fit2.html").unlink()
    state = pipeline_state(settings)
    assert state.report_state("fit2", "html") == "missing"
    assert not state.up_to_date(("html",))
    redo = run(settings, fmt="html")
    assert not redo.nothing_new
    assert redo.build is None and redo.marts is None and redo.landing is None
    assert "fit2" in redo.reports.outputs and (settings.reports_out / "fit2.html").exists()

    # A render that was killed (its 'running' row is the newest) is owed too.
    with warehouse.connect(settings.warehouse) as con:
        record_step(con, "report", "running", study="fit2", part="html", inputs="x")
    assert pipeline_state(settings).report_state("fit2", "html") == "interrupted"

    # Fixing the bad file unblocks that study only; afterwards everything is up to date.
    (settings.raw_root / "other" / "r1" / "results.csv").write_text(
        "rate_per_s,round_trip_us\n100,10000\n"
    )
    fixed = run(settings, fmt="html")
    assert fixed.reports.skipped == {} and {"other", "fit2"} <= set(fixed.reports.outputs)
    assert not fixed.problems and not fixed.data_problems
    status = _invoke(settings, "status")
    assert "OK: every check passed, every report is up to date" in status.output
    assert run(settings, fmt="html").nothing_new


def _fake_dbt(results: dict, rc: int, calls: list):
    """A dbt that writes ``run_results.json`` and returns ``rc`` (the pipeline's view of dbt)."""

    def fake(settings, args, progress=None):
        calls.append(args)
        target = settings.dbt_target
        target.mkdir(parents=True, exist_ok=True)
        (target / "run_results.json").write_text(json.dumps(results))
        if rc == 0:
            with warehouse.connect(settings.warehouse) as con:
                con.execute("create schema if not exists marts")
                con.execute("create table if not exists marts.dim_run (study varchar)")
        return subprocess.CompletedProcess(args, rc, "", "")

    return fake


UNIQUE_FAIL = {
    "elapsed_time": 1.0,
    "results": [
        {
            "unique_id": "model.mqcap.fct_driver_results",
            "status": "error",
            "message": "Runtime Error in model fct_driver_results (models/marts/"
            "fct_driver_results.sql)\n  Invalid Input Error: row checks of "
            '"warehouse"."marts"."fct_driver_results" failed: 1 failure(s): repeated key '
            "s/a (2 rows)",
        },
        {"unique_id": "model.mqcap.dim_run", "status": "success", "message": "OK"},
    ],
}


def test_failed_dbt_build_is_recorded_shown_by_status_and_exits_1(
    settings, sample_study, monkeypatch
):
    import mqcap.build

    calls: list = []
    assert _invoke(settings, "ingest").exit_code == 0
    monkeypatch.setattr(mqcap.build, "run_dbt", _fake_dbt(UNIQUE_FAIL, 1, calls))
    failed = _invoke(settings, "build")
    assert failed.exit_code == 1
    [line] = [ln for ln in failed.output.splitlines() if ln.strip()]
    assert line == (
        "mqcap: error: dbt build failed: model.mqcap.fct_driver_results: Invalid Input Error: "
        'row checks of "warehouse"."marts"."fct_driver_results" failed: 1 failure(s): '
        "repeated key s/a (2 rows)"
    )
    status = _invoke(settings, "status")
    assert status.exit_code == 0
    assert "  dbt build:    FAILED at " in status.output
    assert "NOT OK:" in status.output
    assert (
        "  dbt build failed: model.mqcap.fct_driver_results: Invalid Input Error: row checks of"
        in status.output
    )
    assert "OK: every check passed" not in status.output
    state = pipeline_state(settings)
    assert not state.built() and state.build_failure() is not None

    # The next successful complete build clears it.
    ok = {
        "elapsed_time": 1.0,
        "results": [{"unique_id": "model.mqcap.dim_run", "status": "success"}],
    }
    monkeypatch.setattr(mqcap.build, "run_dbt", _fake_dbt(ok, 0, calls))
    assert _invoke(settings, "build").exit_code == 0
    state = pipeline_state(settings)
    assert state.built() and state.build_failure() is None
    assert "  dbt build:    done at " in _invoke(settings, "status").output


DISK_FULL = {
    "elapsed_time": 1.0,
    "results": [
        {
            "unique_id": "model.mqcap.int_cpu_attributed",
            "status": "error",
            "message": "Runtime Error in model int_cpu_attributed (models/intermediate/"
            "int_cpu_attributed.sql)\n  IO Error: Could not write file "
            '"w.duckdb.tmp/duckdb_temp_1.tmp": No space left on device',
        },
        {"unique_id": "model.mqcap.dim_run", "status": "success", "message": "OK"},
    ],
}


def test_a_build_the_disk_stopped_is_an_environment_problem(settings, sample_study, monkeypatch):
    """The 2 GB bench's build filled the disk in a model's row checks: that is the machine (exit 3,
    "run again"), not the data (exit 1); the build is still recorded as failed, so it is owed."""
    import mqcap.build

    calls: list = []
    assert _invoke(settings, "ingest").exit_code == 0
    monkeypatch.setattr(mqcap.build, "run_dbt", _fake_dbt(DISK_FULL, 1, calls))
    stopped = _invoke(settings, "build")
    assert stopped.exit_code == 3
    [line] = [ln for ln in stopped.output.splitlines() if ln.strip()]
    assert "the disk is full or not writable" in line and "No space left on device" in line
    assert "make room and run again" in line
    state = pipeline_state(settings)
    assert not state.built() and state.build_failure() is not None
    # A data failure beside it is the data's: exit 1.
    both = {"elapsed_time": 1.0, "results": DISK_FULL["results"] + UNIQUE_FAIL["results"][:1]}
    monkeypatch.setattr(mqcap.build, "run_dbt", _fake_dbt(both, 1, calls))
    assert _invoke(settings, "build").exit_code == 1


def _hold_lock(path: Path) -> subprocess.Popen:
    """Another process holding the warehouse for writing until killed."""
    code = (
        "import duckdb, sys, time; c = duckdb.connect(sys.argv[1]); "
        "print('held', flush=True); time.sleep(600)"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", code, str(path)], stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout.readline().strip() == "held"
    return proc


def test_dbt_waits_for_the_lock_then_stops_with_one_clear_message(
    settings, sample_study, monkeypatch
):
    import mqcap.build

    assert _invoke(settings, "ingest").exit_code == 0
    calls: list = []
    monkeypatch.setattr(mqcap.build, "run_dbt", _fake_dbt(UNIQUE_FAIL, 0, calls))
    monkeypatch.setenv("MQCAP_LOCK_WAIT_S", "1")
    holder = _hold_lock(settings.warehouse)
    try:
        busy = _invoke(settings, "build")
    finally:
        holder.kill()
        holder.wait()
    assert busy.exit_code == 1
    assert calls == []  # dbt never started while another process held the file
    lines = [ln for ln in busy.output.splitlines() if ln.strip() and "waiting" not in ln]
    assert len(lines) == 1 and "Traceback" not in busy.output
    assert lines[0].startswith(f"mqcap: error: the warehouse {settings.warehouse} is locked by")
    assert f"(PID {holder.pid})" in lines[0]


def test_dbt_failing_on_the_lock_is_retried(settings, sample_study, monkeypatch):
    """Another process may take the file between our wait and dbt's own open: dbt's
    "Could not set lock on file" is retried within MQCAP_LOCK_WAIT_S."""
    import mqcap.build

    assert _invoke(settings, "ingest").exit_code == 0
    calls: list = []
    ok = _fake_dbt({"elapsed_time": 1.0, "results": []}, 0, calls)

    def locked_once(settings, args, progress=None):
        if not calls:
            calls.append(args)
            text = 'IO Error: Could not set lock on file "w.duckdb": Conflicting lock (PID 42)'
            return subprocess.CompletedProcess(args, 2, text, "")
        return ok(settings, args, progress)

    monkeypatch.setattr(mqcap.build, "run_dbt", locked_once)
    monkeypatch.setenv("MQCAP_LOCK_WAIT_S", "5")
    assert _invoke(settings, "build").exit_code == 0
    assert len(calls) == 2 and pipeline_state(settings).built()

    # Still locked when the wait runs out: one clear line, no pasted dbt output.
    def always_locked(settings, args, progress=None):
        text = 'IO Error: Could not set lock on file "w.duckdb": Conflicting lock (PID 42)'
        return subprocess.CompletedProcess(
            args, 2, "Traceback (most recent call last):\n" + text, ""
        )

    monkeypatch.setattr(mqcap.build, "run_dbt", always_locked)
    monkeypatch.setenv("MQCAP_LOCK_WAIT_S", "0.5")
    busy = _invoke(settings, "build")
    assert busy.exit_code == 1
    assert busy.output.count("\n") == 1 and "Traceback" not in busy.output
    assert "is locked by another process (PID 42)" in busy.output


@pytest.mark.parametrize("damage", ["truncated", "overwritten", "not_duckdb", "stale_wal"])
def test_damaged_warehouse_gives_one_clear_error(settings, sample_study, damage):
    assert _invoke(settings, "ingest").exit_code == 0
    path = settings.warehouse
    data = path.read_bytes()
    if damage == "stale_wal":
        # An older copy of the file put back beside the write-ahead log of a newer one (a
        # backup restored, the .wal left): DuckDB cannot replay it.
        script = (
            "import duckdb, os\n"
            f"con = duckdb.connect({str(path)!r})\n"
            "con.execute('create table meta.older as select 1 as x')\n"
            "con.execute('checkpoint')\n"
            "con.execute(\"set checkpoint_threshold = '1TB'\")\n"
            "con.execute('create table meta.newer as select 1 as x')\n"
            "os._exit(0)\n"
        )
        subprocess.run([sys.executable, "-c", script], check=True)
        assert path.with_name(path.name + ".wal").is_file()
        path.write_bytes(data)
    elif damage == "truncated":
        path.write_bytes(data[: len(data) // 3])
    elif damage == "overwritten":
        path.write_bytes(data[:100] + os.urandom(8192) + data[8292:])
    else:
        path.write_bytes(b"this is a spreadsheet, not a database\n" * 50)
    for command in ("status", "ingest"):
        result = _invoke(settings, command)
        assert result.exit_code == 1, result.output
        lines = [ln for ln in result.output.splitlines() if ln.strip()]
        assert "Traceback" not in result.output
        assert lines[-1].startswith(f"mqcap: error: the warehouse {path} cannot be read")
        assert f"mv {path} {path}.damaged" in lines[-1]


def test_killed_render_work_folders_are_removed_by_the_next_render(tmp_path):
    from mqcap.render import clean_stale_work

    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    stale = tmp_path / f".attls-render-{dead.pid}-k2j3"
    live = tmp_path / f".attls-render-{os.getpid()}-a1b2"
    other = tmp_path / ".not-ours"
    for d in (stale, live, other):
        (d / "html_files").mkdir(parents=True)
    assert clean_stale_work(tmp_path) == [stale]
    assert not stale.exists() and live.exists() and other.exists()


def test_old_warehouse_build_record_is_migrated(settings, sample_study):
    """A warehouse of an earlier mqcap (build recorded as a pipeline_event message) opens; the
    build it records is carried over, and since the dbt project that made it is unknown, the
    next run rebuilds everything once."""
    from mqcap.ingest import ingest

    ingest(settings)
    with warehouse.connect(settings.warehouse) as con:
        con.execute("drop table meta.pipeline_step")
        con.execute(
            "insert into meta.pipeline_event values (now(), 'build', 'built through file 7')"
        )
        assert pipeline_state(settings, con).latest("build").covered == list(range(1, 8))
        schema.ensure(con)
        state = pipeline_state(settings, con)
    row = state.latest("build")
    assert row.status == "done" and row.covered == list(range(1, 8))
    assert state.build_delta() == (True, set())  # no marts: a full build
    assert not state.built()


def test_ctrl_c_exits_130_with_one_line(settings, sample_study):
    env = {
        **os.environ,
        "MQCAP_WAREHOUSE": str(settings.warehouse),
        "MQCAP_RAW": str(settings.raw_root),
        "MQCAP_REPORTS_OUT": str(settings.reports_out),
    }
    proc = subprocess.Popen(
        [sys.executable, "-m", "mqcap.cli", "run", "--no-reports"],
        cwd=PROJECT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    for line in proc.stdout:
        if "ingest..." in line:
            break
    proc.send_signal(signal.SIGINT)
    rest = proc.stdout.read()
    assert proc.wait(timeout=60) == 130, rest
    assert "Traceback" not in rest
    assert rest.strip().splitlines()[-1] == (
        "mqcap: interrupted; what completed is kept, `mqcap run` does the rest"
    )


@pytest.mark.e2e
@pytest.mark.slow
def test_two_runs_at_once_the_second_waits_or_stops_with_the_documented_message(settings):
    _drop_run(settings.raw_root, "fit2", "small", 0, 2048, 303.7, 3292.8)
    _drop_run(settings.raw_root, "fit2", "large", 1, 1048576, 25.3, 39457.3)
    env = {
        **os.environ,
        "MQCAP_WAREHOUSE": str(settings.warehouse),
        "MQCAP_RAW": str(settings.raw_root),
        "MQCAP_REPORTS_OUT": str(settings.reports_out),
    }

    def start(wait_s: str) -> subprocess.Popen:
        return subprocess.Popen(
            [sys.executable, "-m", "mqcap.cli", "run", "--no-reports"],
            cwd=PROJECT,
            env={**env, "MQCAP_LOCK_WAIT_S": wait_s},
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )

    first = start("120")
    for line in first.stdout:
        if "dbt build..." in line:
            break
    second = start("1")  # while the first one's dbt holds (or is about to hold) the file
    out2 = second.communicate(timeout=600)[0]
    out1 = first.communicate(timeout=600)[0]
    # The first is not disturbed; the second stops after its wait with one line.
    assert first.returncode == 0, out1
    assert second.returncode == 1, out2
    assert "Traceback" not in out1 + out2
    assert out2.strip().splitlines()[-1] == (
        f"mqcap: error: another `mqcap run` (PID {first.pid}) is working on "
        f"{settings.warehouse}; it does what this one would do. "
        "Let it finish (or stop it), then run again."
    )
    done = subprocess.run(
        [sys.executable, "-m", "mqcap.cli", "run", "--no-reports"],
        cwd=PROJECT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0 and "nothing new" in done.stdout, done.stdout + done.stderr
