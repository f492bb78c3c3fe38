"""Crash safety: ``mqcap`` killed with SIGKILL mid-ingest and mid-build loses and doubles nothing.

A raw root with many small files (the ten-run study of tests/fixtures/mini_study) and a large
SMF dump (a real dump repeated to 8 MB) is ingested by ``python -m mqcap.cli`` subprocesses killed at seeded random points; a
build is killed right after ``marts.dim_run`` was written (marts that would look fresh) and at a
random point. After every kill the warehouse opens and its ledger and landing agree. The final
``mqcap run`` completes the work: landing equals a clean ingest's, and the marts are rebuilt.
"""

from __future__ import annotations

import hashlib
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import duckdb
import pytest

from mqcap import warehouse
from mqcap.ingest import ingest
from mqcap.settings import Settings

from helpers import FIXTURES, PROJECT, group_alive, landing_fingerprint, layout_settings
from reliability_summary import CRASH_SEED, KILL_POINTS, ledger_landing_disagreements

# Minutes of kills and rebuilds: scheduled among the first modules (tests/conftest.py).
pytestmark = pytest.mark.slow(minutes=8)


def _drop_raw(raw: Path) -> None:
    shutil.copytree(FIXTURES / "mini_study" / "attls", raw / "attls")
    # Named to sort first: after the manifests, ingest starts with the 8 MB dump.
    big = raw / "0-smf-day"
    big.mkdir()
    dump = (FIXTURES / "smf" / "TESTCHL.dat").read_bytes()
    (big / "TESTCHL-x10.dat").write_bytes(dump * 10)


# Kill points inside a build are drawn among its first BUILD_STEPS nodes: fewer than the
# build's 113 (109 models and 4 seeds, each checking its rows in its own node), so the kill
# lands while dbt still runs.
BUILD_STEPS = 100


def _settings(root: Path) -> Settings:
    return Settings.load(
        warehouse=root / "wh" / "warehouse.duckdb",
        raw=root / "raw",
        reports_out=root / "reports",
        project_root=PROJECT,
    )


class Killer:
    """Runs ``mqcap`` commands as subprocesses, each in a process group of its own (to see
    what it leaves running when killed)."""

    def __init__(self, settings: Settings, rng: random.Random):
        self.settings = settings
        self.rng = rng
        self.env = {
            **os.environ,
            "MQCAP_WAREHOUSE": str(settings.warehouse),
            "MQCAP_RAW": str(settings.raw_root),
            "MQCAP_REPORTS_OUT": str(settings.reports_out),
            # A progress line for every file landed and every dbt node built: the kill points
            # are counted in those steps, so they land mid-command however fast the machine is.
            "MQCAP_PROGRESS_EVERY_S": "0",
        }
        self.kills = 0
        self.cwd = PROJECT

    def start(self, *args: str) -> subprocess.Popen:
        return subprocess.Popen(
            [sys.executable, "-m", "mqcap.cli", *args],
            cwd=self.cwd,
            env=self.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )

    def complete(self, *args: str) -> subprocess.CompletedProcess:
        """Run a command to its end (no kill); its output is captured."""
        return subprocess.run(
            [sys.executable, "-m", "mqcap.cli", *args],
            env=self.env,
            cwd=self.cwd,
            capture_output=True,
            text=True,
            check=False,
        )

    def kill(self, proc: subprocess.Popen) -> bool:
        """SIGKILL the command alone, as a closed terminal or an OOM killer would; True when it
        was still running. What it started (dbt, the ingest workers, a report's kernel) must
        end with it: nothing of its process group may be left running after 30 s."""
        alive = proc.poll() is None
        if alive:
            proc.send_signal(signal.SIGKILL)
            self.kills += 1
        proc.wait(timeout=60)
        if proc.stdout is not None:
            proc.stdout.close()  # as a closed terminal: what writes there next gets EPIPE
        deadline = time.monotonic() + 30
        while left := group_alive(proc.pid):
            assert time.monotonic() < deadline, f"left running after mqcap was killed: {left}"
            time.sleep(0.05)
        return alive

    def kill_at_step(self, args: tuple[str, ...], step: int) -> bool:
        """Kill the command right after its ``step``-th progress line (files landed, nodes built)."""
        proc = self.start(*args)
        self.wait_for_steps(proc, step)
        return self.kill(proc)

    def wait_for_steps(self, proc: subprocess.Popen, steps: int, timeout: float = 180) -> bool:
        """Read output until ``steps`` progress lines went by; False when the process ended first."""
        deadline = time.monotonic() + timeout
        assert proc.stdout is not None
        seen = 0
        for line in proc.stdout:
            if PROGRESS_LINE.match(line):
                seen += 1
                if seen >= steps:
                    return True
            assert time.monotonic() < deadline, f"no {steps} progress lines within {timeout}s"
        return False

    def kill_when_built(self, model: str, extra: float) -> bool:
        """Kill ``mqcap build`` once dbt has written ``model`` (its log says so)."""
        log = self.settings.dbt_logs / "dbt.log"
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


# "  ingest: 12 of 205 files (name)" and "  dbt build: 40 of 363 nodes (model OK)" (mqcap.progress,
# every step).
PROGRESS_LINE = re.compile(r"^  (ingest|dbt build): \d")


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
    files = sum(1 for p in settings.raw_root.rglob("*") if p.is_file())
    # Kill points 1-4: ingest after a random number of steps (files land in batches: some
    # kills fall inside a batch's transaction, some between batches).
    for _ in range(4):
        killer.kill_at_step(("ingest",), rng.randint(1, files - 1))
        _consistent(settings)
    # Kill point 5: `mqcap run` somewhere in its ingest or its build (86 dbt nodes).
    killer.kill_at_step(("run", "--no-reports"), rng.randint(1, files + BUILD_STEPS))
    _consistent(settings)
    # Everything landed now; landing equals the clean run's (no file twice, none lost).
    finish = killer.complete("ingest")
    assert finish.returncode == 0
    assert landing_fingerprint(settings.warehouse) == reference
    # Kill point 6: the build dies right after marts.dim_run is written (marts that exist
    # but are incomplete); kill point 7: at a random moment of another build.
    assert killer.kill_when_built("marts.dim_run", rng.uniform(0.0, 0.3))
    _consistent(settings)
    killer.kill_at_step(("build",), rng.randint(10, BUILD_STEPS))
    _consistent(settings)
    assert killer.kills == len(KILL_POINTS), "every kill point lands while the command runs"

    # The next run sees that no build completed since files landed, and rebuilds.
    done = killer.complete("run", "--no-reports")
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
    models = {
        p.stem for p in (PROJECT / "models" / "marts").iterdir() if p.suffix in (".sql", ".py")
    }
    assert models and _mart_tables(settings) == models
    # And now it is up to date: the next run has nothing to do.
    again = killer.complete("run", "--no-reports")
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
        if returncode["rc"] == 0:  # the marts a build leaves (the state checks they exist)
            with warehouse.connect(settings.warehouse) as con:
                con.execute("create schema if not exists marts")
                con.execute("create table if not exists marts.dim_run (study varchar)")
        return subprocess.CompletedProcess(args, returncode["rc"], "", "")

    def fake_validate(settings, scope, file_ids=None, progress=None, **kw):
        from mqcap.ledger.steps import record_checks

        with warehouse.connect(settings.warehouse) as con:
            record_checks(con, settings, scope, [], file_ids)

    # dbt itself is exercised by the SIGKILL tests; here only what run() asks it to build.
    monkeypatch.setattr(mqcap.build, "run_dbt", fake_dbt)
    monkeypatch.setattr(mqcap.pipeline, "validate", fake_validate)
    run_a = settings.raw_root / "s" / "a"
    run_a.mkdir(parents=True)
    (run_a / "run.yaml").write_text("study: s\nrun: a\n")
    (run_a / "results.csv").write_text("rate_per_s,round_trip_us\n1,2\n")

    # The row checks run in the models' nodes (no test node); the dbt unit tests are `make test`'s.
    no_unit = ["--exclude-resource-type", "test", "--exclude-resource-type", "unit_test"]
    first = run(settings, reports=False)
    assert calls == [["build", *no_unit]]  # first build: everything
    assert run(settings, reports=False).nothing_new and len(calls) == 1

    # A run killed after its ingest: the files are in, no build covered them.
    shutil.copy(FIXTURES / "chstatus" / "runmqsc_dis_chstatus_short.txt", run_a / "chs.txt")
    assert [o.kind for o in ingest(settings).landed] == ["chstatus"]
    again = run(settings, reports=False)
    assert not again.nothing_new
    assert calls[-1] == [
        "build",
        "--select",
        *selection_for(settings, _tables("chstatus")),
        *no_unit,
    ]

    # A build that fails (or dies) records nothing: the next run builds the same again.
    (run_a / "results.csv").write_text("rate_per_s,round_trip_us\n3,4\n")
    returncode["rc"] = 1
    with pytest.raises(DataError):
        run(settings, reports=False)
    returncode["rc"] = 0
    retried = run(settings, reports=False)
    assert retried.ingest.landed == [] and not retried.nothing_new
    assert calls[-1] == [
        "build",
        "--select",
        *selection_for(settings, _tables("driver_csv")),
        *no_unit,
    ]
    assert run(settings, reports=False).nothing_new
    assert first.build is not None and first.build.ok


def _tables(kind: str) -> set[str]:
    from mqcap.parsers import parser_for_kind

    return {t.name for t in parser_for_kind(kind).tables}


# ------------------------------------------------------------------------------ kill chain
# Phases of `mqcap run`, by the progress line it prints when the phase starts.
PHASES = {
    "ingest": "ingest...",
    "landing checks": "validate landing...",
    "build": "dbt build...",
    "mart checks": "validate mart...",
    "render": "render reports...",
}
# How long after its first line a phase is killed (seconds): within the phase's usual length.
KILL_DELAY = {
    "ingest": (0.0, 0.3),
    "landing checks": (0.0, 2.0),
    "build": (0.0, 8.0),
    "mart checks": (0.0, 2.0),
    "render": (0.0, 6.0),
}


def warehouse_fingerprint(path: Path) -> dict[str, tuple[int, str]]:
    """Rows and an order-independent checksum of every landing and mart table.

    ``file_id`` columns are left out, and a row's own file id inside its key columns (``*_key``
    built from it, e.g. ``fct_file_reconciliation.file_reconciliation_key``,
    ``driver_results|24``) is read as ``<file>``: ids number files in the order they landed,
    which differs when a kill interrupts a batch; the rows' source file and position stay in.
    Only keys: other text (a manifest, a label) may hold the same number by chance.
    Floats are compared to 9 significant digits (1e-9 relative): DuckDB's aggregates add in
    the order rows arrive, which follows file ids, so the fits' standard errors of runs landed
    again after a deletion differ at about 3e-12 relative (seen: 1895.2648285697 against
    1895.2648285754).
    """
    con = duckdb.connect(str(path), read_only=True)
    try:
        out = {}
        for schema, name in con.execute(
            """select table_schema, table_name from information_schema.tables
               where table_schema in ('landing', 'marts') order by 1, 2"""
        ).fetchall():
            names = [
                c
                for (c,) in con.execute(
                    """select column_name from information_schema.columns
                       where table_schema = ? and table_name = ? order by ordinal_position""",
                    [schema, name],
                ).fetchall()
            ]
            cols = ", ".join(f'"{c}"' for c in names)
            at = names.index("file_id") if "file_id" in names else None
            keys = {i for i, c in enumerate(names) if c.endswith("_key")}
            rows = [
                _row_print(r, at, keys)
                for r in con.execute(f'select {cols} from {schema}."{name}"').fetchall()
            ]
            digest = hashlib.sha256("\n".join(sorted(repr(r) for r in rows)).encode()).hexdigest()
            out[f"{schema}.{name}"] = (len(rows), digest)
        return out
    finally:
        con.close()


def _row_print(row: tuple, file_id_at: int | None, keys: set[int] = frozenset()) -> tuple:
    """A row as the fingerprint compares it: floats to 9 significant digits, without its file id
    (the column, and the id standing alone inside the key columns at ``keys``:
    ``driver_results|24`` reads ``driver_results|<file>``; ``24k`` or ``124`` are not the id 24).

    Example:
        >>> row = ("driver_results|24", 24, "a/run-24k|124", "threads 24", 0.1 + 0.2)
        >>> _row_print(row, 1, {0, 2})
        ('driver_results|<file>', 'a/run-24k|124', 'threads 24', 0.3)
    """
    if file_id_at is None:
        return tuple(float(f"{v:.9g}") if isinstance(v, float) else v for v in row)
    own = re.compile(rf"(?<![0-9A-Za-z]){row[file_id_at]}(?![0-9A-Za-z])")
    return tuple(
        float(f"{v:.9g}")
        if isinstance(v, float)
        else own.sub("<file>", v)
        if i in keys and isinstance(v, str)
        else v
        for i, v in enumerate(row)
        if i != file_id_at
    )


def _kill_plan(rng: random.Random, kills: int, batches: int) -> list[list[str]]:
    """Per batch of dropped runs, the phases to kill in, in pipeline order (a kill leaves the
    later phases owed, so the next run reaches them); every phase at least once per batch
    when there are enough kills."""
    names = list(PHASES)
    plan = []
    for b in range(batches):
        n = kills // batches + (1 if b < kills % batches else 0)
        picks = names[:n] + [rng.choice(names) for _ in range(max(0, n - len(names)))]
        plan.append(sorted(picks, key=names.index))
    return plan


# The code a lane runs from when it changes report code: a copy of the project (the package,
# the dbt project, the report sources), so the change touches no file another test reads.
# Coverage leaves the copy out (pyproject.toml: omit */kill-chain-code/*).
_PROJECT_PARTS = (
    "pipelines/mqcap",
    "models",
    "macros",
    "seeds",
    "reports",
    "expectations",
    "dbt_project.yml",
    "profiles.yml",
)


def _project_copy(dest: Path) -> Path:
    ignore = shutil.ignore_patterns("__pycache__", "_output", "_freeze", ".quarto")
    for part in _PROJECT_PARTS:
        src = PROJECT / part
        if src.is_dir():
            shutil.copytree(src, dest / part, ignore=ignore)
        else:
            (dest / part).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(src, dest / part)
    return dest


def _change_report_code(project: Path) -> None:
    """One byte more in a module every report imports (a comment): the reports are owed."""
    module = project / "pipelines" / "mqcap" / "sections" / "tables.py"
    with open(module, "a") as fh:
        fh.write("#\n")


class Lane:
    """One chain: its own warehouse and seed; runs share nothing but the clean reference."""

    def __init__(self, root: Path, index: int, kills: int, seed: int, code: Path | None):
        self.root = root
        self.index = index
        self.kills = kills
        self.rng = random.Random(seed)
        self.settings = _settings(root)
        self.killer = Killer(self.settings, self.rng)
        self.code = code
        if code is not None:  # run from the project copy (its package, its dbt project)
            self.killer.env["PYTHONPATH"] = str(code / "pipelines")
            self.killer.cwd = code
        # Not measured by a parent's coverage run (CI's): most of the chain's runs die by
        # SIGKILL and never write their coverage data, so tracing them is only cost; the code
        # they run is measured by the other tests, this module's mid-ingest and mid-build kills
        # among them.
        for name in ("COVERAGE_PROCESS_CONFIG", "COVERAGE_PROCESS_START"):
            self.killer.env.pop(name, None)
        self.hit: dict[str, int] = {}
        self.render_kills_after_change = 0

    def kill_in(self, phases: list[str], after_change: bool = False) -> None:
        for phase in phases:
            proc = self.killer.start("run", "--format", "html")
            seen = _read_until(proc, PHASES[phase])
            if seen is None:  # the run ended before that phase: nothing owed there
                self.killer.kill(proc)
                continue
            time.sleep(self.rng.uniform(*KILL_DELAY[phase]))
            if self.killer.kill(proc):
                self.hit[phase] = self.hit.get(phase, 0) + 1
                if after_change and phase == "render":
                    self.render_kills_after_change += 1
            _consistent(self.settings)

    def chain(self, source: Path, runs: list[str]) -> None:
        # One batch of runs per 20 kills (at least one): each batch costs a complete build.
        batches = max(1, min(len(runs), self.kills // 20))
        chunks = [runs[i::batches] for i in range(batches)]
        raw = self.settings.raw_root / "attls"
        for chunk, phases in zip(chunks, _kill_plan(self.rng, self.kills, batches), strict=True):
            for run_id in chunk:
                shutil.copytree(source / run_id, raw / run_id)
            self.kill_in(phases)
        names = list(PHASES)
        if self.code is not None:
            # The report code changes with the data unchanged: only the reports are owed, and
            # a render killed now must not leave a report that looks made by the new code.
            done = self.killer.complete("run", "--format", "html")
            assert done.returncode == 0, done.stdout + done.stderr
            _change_report_code(self.code)
            self.kill_in(["render", "render"], after_change=True)
        # A kill that comes after the run ended does not count (on an idle machine phases are
        # short). Until the lane has its kills, take a run folder away and bring it back: each
        # makes every phase owed again (a deletion, then the same files anew), and the end
        # state is the same data, so the comparison with the clean run still holds.
        held = self.root / "held"
        held.mkdir()
        for extra in range(self.kills):
            if sum(self.hit.values()) >= self.kills:
                break
            run_dir = raw / runs[(extra + self.index) % len(runs)]
            shutil.move(run_dir, held / run_dir.name)
            self.kill_in(sorted(self.rng.sample(names, 2), key=names.index))
            shutil.move(held / run_dir.name, run_dir)
            self.kill_in(sorted(self.rng.sample(names, 2), key=names.index))

    def finish(self, reference: dict) -> None:
        """Runs until one completes; then the lane equals the clean run and is up to date."""
        settings, killer = self.settings, self.killer
        final = killer.complete("run", "--format", "html")
        assert final.returncode == 0, final.stdout + final.stderr
        assert warehouse_fingerprint(settings.warehouse) == reference
        assert ledger_landing_disagreements(settings.warehouse) == []
        assert (settings.reports_out / "attls.html").stat().st_size > 100_000  # charts inlined
        assert 'href="attls.html"' in (settings.reports_out / "index.html").read_text()
        # No work folder of a killed render is left behind.
        assert [p.name for p in settings.reports_out.glob(".*render*")] == []
        again = killer.complete("run", "--format", "html")
        assert again.returncode == 0 and "nothing new: warehouse and reports are up to date" in (
            again.stdout
        ), again.stdout + again.stderr
        status = killer.complete("status")
        assert "report attls                  html ok" in status.stdout, status.stdout
        assert "OK: every check passed, every report is up to date" in status.stdout, status.stdout
        if self.code is not None:
            # The reports on disk were made by the changed code: the checkout's code (the one
            # before the change) finds them stale, the changed code finds them current.
            assert self.render_kills_after_change > 0, self.hit
            env = {k: v for k, v in killer.env.items() if k != "PYTHONPATH"}
            before = subprocess.run(
                [sys.executable, "-m", "mqcap.cli", "status"],
                env=env,
                cwd=PROJECT,
                capture_output=True,
                text=True,
                check=False,
            )
            assert "report attls                  html stale" in before.stdout, before.stdout


@pytest.mark.ci
def test_seeded_kill_chain_over_every_phase_ends_equal_to_a_clean_run(tmp_path, mini_run):
    """SIGKILL `mqcap run` again and again in ingest, landing checks, build, mart checks and
    rendering, each kill followed by the next `mqcap run`: at the end landing and marts equal
    a clean run's table for table, every report exists, and status says all is done. One lane
    changes the reports' code half-way and kills the renders that follow: its reports end as
    the new code's.

    MQCAP_KILL_CHAIN sets the number of kills (default 5, every phase once; CI, the only
    suite that runs this test, sets 100: marked ``ci``). The kills are shared among lanes (one
    per 5 kills, at most 4), each its own warehouse and seed, run side by side: the chain spends
    most of its time waiting for a phase to start, so lanes give more kills per minute with the
    same phases and the same checks.
    """
    kills_wanted = int(os.environ.get("MQCAP_KILL_CHAIN", "5"))
    lanes_n = max(1, min(4, kills_wanted // 5))
    source = FIXTURES / "mini_study" / "attls"
    runs = sorted(p.name for p in source.iterdir() if p.is_dir())

    # The clean run: the session's mini study through `run` without reports (tests/conftest.py).
    reference = warehouse_fingerprint(layout_settings(mini_run).warehouse)

    code = _project_copy(tmp_path / "kill-chain-code")
    lanes = [
        Lane(
            tmp_path / f"lane{i}",
            i,
            kills_wanted // lanes_n + (1 if i < kills_wanted % lanes_n else 0),
            CRASH_SEED + kills_wanted + i,
            code if i == 0 else None,
        )
        for i in range(lanes_n)
    ]
    started = time.monotonic()
    with ThreadPoolExecutor(max_workers=lanes_n) as pool:
        for done in [pool.submit(lane.chain, source, runs) for lane in lanes]:
            done.result()
    chain_s = time.monotonic() - started
    with ThreadPoolExecutor(max_workers=lanes_n) as pool:
        for done in [pool.submit(lane.finish, reference) for lane in lanes]:
            done.result()

    hit: dict[str, int] = {}
    for lane in lanes:
        for phase, n in lane.hit.items():
            hit[phase] = hit.get(phase, 0) + n
    total = sum(hit.values())
    assert total >= kills_wanted * 0.8, hit
    # Spread: each of ingest, validation, build and rendering was hit.
    assert hit.get("ingest") and hit.get("build") and hit.get("render"), hit
    assert hit.get("landing checks", 0) + hit.get("mart checks", 0) > 0, hit
    print(
        f"kill chain: {total} kills {hit} in {chain_s:.0f}s over {lanes_n} lane(s); "
        f"{lanes[0].render_kills_after_change} render kill(s) after a report-code change; "
        f"tables equal: {len(reference)}"
    )


def _read_until(proc: subprocess.Popen, marker: str, timeout: float = 600) -> str | None:
    """Output lines until one contains ``marker`` (returned); None when the run ended first."""
    deadline = time.monotonic() + timeout
    assert proc.stdout is not None
    for line in proc.stdout:
        if marker in line:
            return line
        assert time.monotonic() < deadline, f"no {marker!r} within {timeout}s"
    return None
