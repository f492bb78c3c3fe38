"""Run dbt (dbt-duckdb) on the warehouse: staging -> intermediate -> marts, with its tests.

dbt runs as a subprocess of the same virtualenv so its DuckDB connection is the only writer;
the run_results.json it writes is read back for a summary and for failures by name.

With ``settings.engine == "spark"`` the same project is built by dbt-spark instead: the lake is
synced from the warehouse first, dbt runs in ``python -m mqcap.spark.dbt`` (the Spark driver),
every model is made again in a new build folder (the run-keyed marts of an incremental build
from the last build's rows outside the scope plus the scope's rows), and the marts are attached
back to the warehouse as views over the lake's Parquet files when the build completes
(``mqcap.spark``). The scope is computed, as on DuckDB, from the warehouse's staging and
intermediate views, which dbt-duckdb makes first (views only: no rows move).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import duckdb

from mqcap import dbt_warm, environment, lifeline, parse_cache, warehouse
from mqcap.errors import DataError, EnvironmentProblem, WarehouseBusyError
from mqcap.ledger import schema
from mqcap.ledger import scope as build_scope
from mqcap.ledger.steps import pipeline_state, record_step
from mqcap.progress import Progress
from mqcap.settings import Settings


@dataclass
class BuildResult:
    command: list[str]
    returncode: int
    counts: dict[str, int] = field(default_factory=dict)  # status -> nodes
    scope: str = ""  # what the run-keyed marts recomputed (full, or how many runs)
    failures: list[str] = field(default_factory=list)
    elapsed_s: float = 0.0
    log_tail: str = ""
    docs: Path | None = None  # the dbt docs page, when written

    @property
    def ok(self) -> bool:
        return self.returncode == 0

    def summary(self) -> str:
        parts = ", ".join(f"{n} {s}" for s, n in sorted(self.counts.items()))
        scope = f"; {self.scope}" if self.scope else ""
        return f"dbt build: {parts or 'nothing run'} in {self.elapsed_s:.1f}s{scope}"


# dbt's entry point run by this interpreter: what its `dbt` script does, after asking to die
# with mqcap (mqcap.lifeline) and, for a build, writing manifest.json once (mqcap.dbt_process).
DBT_MAIN = "from mqcap.dbt_process import main; main()"


def dbt_executable() -> list[str]:
    """The dbt of this interpreter's environment, never one found elsewhere on PATH: dbt's
    entry point run by this interpreter (a venv, a pipx install), which first asks to die
    with mqcap (``mqcap.dbt_process``).

    Example:
        >>> dbt_executable()[1:2]
        ['-c']
    """
    return [sys.executable, "-c", DBT_MAIN]


def _dbt_command_env(settings: Settings, target: Path) -> dict[str, str]:
    """The environment of a dbt command on ``settings``' warehouse (the Spark engine adds its
    own values to it)."""
    env = settings.dbt_env
    env["DBT_TARGET_PATH"] = str(target)
    # Not measured by a parent's coverage run (`make test`, coverage's subprocess patch): tracing
    # dbt's own Python costs half again its CPU (27.5-27.8 s against 18.2-19.6 s for a 10-run
    # build), and mqcap's code runs there only in the Python models' calls into mqcap.noise,
    # which tests/test_noise.py measures directly.
    for name in ("COVERAGE_PROCESS_CONFIG", "COVERAGE_PROCESS_START"):
        env.pop(name, None)
    if settings.engine != "spark":
        # Run in the warehouse's folder with its bare file name: the profile's connection
        # values, which dbt's saved parse depends on, are then the same for every warehouse of
        # that name (mqcap.parse_cache).
        env["MQCAP_WAREHOUSE"] = settings.warehouse.name
    return env


def warm_dbt(settings: Settings) -> None:
    """Start the warm dbt process for this warehouse's commands, if there is none (a DuckDB
    build; ``mqcap.dbt_warm``): its imports then overlap what the caller does before the build
    (``mqcap run``'s landing checks)."""
    if settings.engine != "spark":
        dbt_warm.warm(_dbt_command_env(settings, settings.dbt_target))


def run_dbt(
    settings: Settings,
    args: list[str],
    progress: Progress | None = None,
    target: Path | None = None,
) -> subprocess.CompletedProcess:
    """Run ``dbt <args>`` in the project with mqcap's warehouse; output streamed to progress.
    ``target``: dbt's target folder, if not the warehouse's usual one."""
    progress = progress or Progress()
    target = target or settings.dbt_target
    spark = settings.engine == "spark"
    cmd = [
        *([sys.executable, "-m", "mqcap.spark.dbt"] if spark else dbt_executable()),
        *args,
        *(["--target", "spark"] if spark else []),
        "--project-dir",
        str(settings.project_root),
        "--profiles-dir",
        str(settings.project_root),
        "--target-path",
        str(target),
        "--log-path",
        str(settings.dbt_logs),
    ]
    env = _dbt_command_env(settings, target)
    cwd = settings.warehouse.parent if not spark else settings.project_root
    variant = parse_cache.variant(settings, args)
    parse_cache.restore(settings, target, variant)
    if spark:
        from mqcap.spark.lake import new_build_dir

        env["MQCAP_SPARK_MASTER"] = settings.spark_master
        # The master alone decides: pyspark marks a process that opened a Connect session
        # (SPARK_CONNECT_MODE_ENABLED, SPARK_REMOTE), and a child that inherits the mark is a
        # Connect client whatever its master (mqcap.spark.dbt sets them for sc:// itself).
        for name in ("SPARK_CONNECT_MODE_ENABLED", "SPARK_REMOTE"):
            env.pop(name, None)
        env["MQCAP_LAKE"] = str(settings.lake)
        env["MQCAP_SPARK_LOG_DIR"] = str(settings.outputs / "spark")  # Spark's log, not dbt's
        env["MQCAP_SPARK_BUILD"] = str(new_build_dir(settings.lake))
    # dbt dies with this process, and holds the build lock as long as it lives (mqcap.lifeline).
    env[lifeline.PARENT_ENV] = str(os.getpid())
    lock = settings.outputs / "build.lock"
    with lifeline.build_lock(lock, settings.warehouse) as held:
        # On DuckDB a child of the warm dbt process when there is one (mqcap.dbt_warm).
        proc = dbt_warm.popen(cmd, cwd=cwd, env=env, pass_fds=(held,), fork=not spark)
        lifeline.note_holder(held, proc.pid)
        lines = _follow(proc, progress)
    parse_cache.keep(settings, target, variant)
    return subprocess.CompletedProcess(cmd, proc.returncode, "\n".join(lines), "")


def _follow(proc: subprocess.Popen, progress: Progress) -> list[str]:
    """dbt's output lines, each shown as progress, until dbt ends."""
    lines: list[str] = []
    assert proc.stdout is not None
    try:
        for line in proc.stdout:
            lines.append(line.rstrip())
            node = dbt_node_line(line)
            if node is not None:
                total, detail = node
                if total:
                    progress.set_total(total)
                progress.advance(1, detail)
            elif line.startswith("mqcap: carried "):  # mqcap.spark.carry's plan
                progress.log(line.removeprefix("mqcap: ").strip())
            elif DBT_DOCS_STEP.search(line):  # dbt docs: reading the catalog, writing the page
                progress.working(line.split("  ", 1)[-1].strip())
        proc.wait()
    except BaseException:  # Ctrl-C: dbt must not keep writing the warehouse after we exit
        proc.terminate()
        proc.wait()
        raise
    return lines


# dbt's line for a node done: "12:00:01  10 of 363 OK created sql table model marts.dim_run
# ....... [OK in 0.10s]" (also PASS, WARN, ERROR, FAIL, SKIP; tests "PASS unit_test...").
_DBT_NODE = re.compile(r"\b\d+ of (\d+) (OK|PASS|WARN|ERROR|FAIL|SKIP)\b\s*(.*?)\s*(?:\.{2,}|\[|$)")
_DBT_WHAT = re.compile(
    r"^(?:(?:created|creating|loaded|loading)\s+)?(?:(?:sql|python)\s+)?"
    r"(?:(?:table|view|incremental|ephemeral)\s+)?(?:model|seed|snapshot)\s+(?:file\s+)?"
)
DBT_DOCS_STEP = re.compile(r"Building catalog|Catalog written|Generating|static")


def dbt_node_line(line: str) -> tuple[int, str] | None:
    """(dbt's node total, a short detail) of a line saying a node is done; None otherwise.

    Example:
        >>> dbt_node_line("12:00:01  10 of 363 OK created sql table model marts.dim_run .... [OK in 0.1s]")
        (363, 'marts.dim_run OK')
        >>> dbt_node_line("12:00:02  11 of 363 PASS not_null_dim_run_run_key ..... [PASS in 0.0s]")
        (363, 'not_null_dim_run_run_key PASS')
        >>> dbt_node_line("12:00:00  Concurrency: 2 threads") is None
        True

    The project's hooks are numbered apart ("1 of 1 OK hook: mqcap.on-run-start.0"): not nodes.

        >>> dbt_node_line("12:00:00  1 of 1 OK hook: mqcap.on-run-start.0 ..... [OK in 0.0s]") is None
        True
    """
    m = _DBT_NODE.search(line)
    if m is None or m.group(3).startswith("hook:"):
        return None
    what = _DBT_WHAT.sub("", m.group(3), count=1) or m.group(3)
    return int(m.group(1)), f"{what} {m.group(2)}".strip()


LOCKED = "could not set lock on file"  # DuckDB's words when another process holds the file


def _dbt_waiting(
    settings: Settings, args: list[str], progress: Progress, target: Path | None = None
) -> subprocess.CompletedProcess:
    """``run_dbt`` on the warehouse its caller has just closed (a connection that waited for
    the file, like every step's); a lock another process takes before dbt's own open is waited
    out and dbt run again, until ``MQCAP_LOCK_WAIT_S``, then one clear error."""
    wait_s = environment.seconds("MQCAP_LOCK_WAIT_S")
    deadline = time.monotonic() + wait_s
    results = (target or settings.dbt_target) / "run_results.json"
    retry = False
    while True:
        if retry:
            # Raises WarehouseBusyError with the documented message when the wait runs out.
            with warehouse.connect(
                settings.warehouse,
                wait_s=max(0.0, deadline - time.monotonic()),
                on_wait=progress.log,
            ):
                pass
        retry = True
        results.unlink(missing_ok=True)  # a failed start must not read the last build's results
        proc = (
            run_dbt(settings, args, progress)
            if target is None
            else run_dbt(settings, args, progress, target)
        )
        if proc.returncode == 0 or LOCKED not in proc.stdout.lower():
            return proc
        if time.monotonic() >= deadline:
            holder = warehouse._busy_holder(proc.stdout)
            raise WarehouseBusyError(
                warehouse.BUSY_HELP.format(path=settings.warehouse, holder=holder)
            )
        time.sleep(0.5)


# What a node's error says when the machine failed it, not the data (mqcap.faults).
_DISK_TEXTS = ("no space left on device", "disk quota exceeded", "read-only file system")


def _machine_failed(result: BuildResult) -> bool:
    """A failed build whose every failure (or, with none by node, dbt's own output) is a full
    or read-only disk: an environment problem (exit 3), not a data one."""
    texts = result.failures or [result.log_tail]
    return all(any(t in text.lower() for t in _DISK_TEXTS) for text in texts)


_DBT_SUMMARY = re.compile(r"\bERROR=\d+\b")


def _failure_line(result: BuildResult, settings: Settings) -> str:
    """One line: the failed nodes, else dbt's first error line, and where the full log is."""
    if result.failures:
        shown = "; ".join(result.failures[:3])
        more = f" (and {len(result.failures) - 3} more)" if len(result.failures) > 3 else ""
        return shown + more
    # dbt's summary ("Done. PASS=379 WARN=0 ERROR=0 ...") says "error" without being one; the
    # last error line is the one that ended the process (mqcap.spark.dbt's own "dbt: error:").
    errors = [
        ln.strip()
        for ln in result.log_tail.splitlines()
        if "error" in ln.lower() and not _DBT_SUMMARY.search(ln)
    ]
    first = errors[-1] if errors else f"dbt exited with code {result.returncode}"
    return f"{first[:300]} (full log: {settings.dbt_logs / 'dbt.log'})"


def build(
    settings: Settings,
    select: list[str] | None = None,
    progress: Progress | None = None,
    docs: bool = False,
    complete: bool = False,
    full: bool = False,
    unit_tests: bool = False,
) -> BuildResult:
    """``dbt build`` of the models and seeds, each checking its rows in its own node
    (macros/row_checks.sql), optionally limited by dbt selectors; raises on failure.

    ``complete``: the selection covers everything landed since the last complete build (the
    pipeline's own selection); a build without ``select`` always does. A complete build is
    recorded in the step ledger (running, then done or failed, with the file ids it covered);
    any failed build is recorded, so ``mqcap status`` shows it and the next run rebuilds.

    A complete build is incremental when it can be (``mqcap.ledger.scope``): the run-keyed marts
    recompute only the runs touched since the last complete build.
    ``full``: rebuild every mart whole (also what happens with no complete build on record, or
    after a change of the dbt project's files).
    ``unit_tests``: also run the models' dbt unit tests. They check the SQL's arithmetic on
    made-up rows, not the data: they depend on the project's code only, which `make test` checks
    (tests/test_pipeline_e2e.py runs every one), so a user's build leaves them out (29 of them,
    a fifth of a small study's build time).

    The three parts, for a caller that holds its own connections (``mqcap run``):
    :func:`begin_build` before dbt, :func:`run_build` (dbt, the warehouse closed) and
    :func:`end_build` after it.

    Example:
        result = build(Settings.load())
        print(result.summary())
    """
    progress = progress or Progress()
    if settings.engine == "spark":  # the Spark engine builds the whole project each time
        from mqcap.spark import check_ready

        check_ready(settings.spark_master)
        with warehouse.connect(settings.warehouse, on_wait=progress.log) as con:
            schema.ensure(con)  # the views read the landing tables
        duckdb_views(settings, progress)
    with warehouse.connect(settings.warehouse, on_wait=progress.log) as con:
        pending = begin_build(con, settings, progress, select=select, complete=complete, full=full)
    result = run_build(settings, pending, progress, docs=docs, unit_tests=unit_tests)
    with warehouse.connect(settings.warehouse, on_wait=progress.log) as con:
        end_build(con, settings, result, pending)
    return result


@dataclass
class PendingBuild:
    """A build begun (:func:`begin_build`): the files it covers, its inputs' fingerprint, the
    dbt selection, whether it is a complete build (recorded in the step ledger) and whether it
    is incremental, and the scope's one line."""

    covered: list[int]
    inputs: str
    select: list[str] | None = None
    whole: bool = True
    incremental: bool = False
    note: str = ""


def begin_build(
    con: duckdb.DuckDBPyConnection,
    settings: Settings,
    progress: Progress,
    *,
    select: list[str] | None = None,
    complete: bool = False,
    full: bool = False,
) -> PendingBuild:
    """Before dbt, through ``con`` (its caller closes it before :func:`run_build`): the landing
    tables made (dbt resolves every source, even of formats never dropped), a complete build
    recorded as running with its scope (``mqcap.ledger.scope``), and on Spark the lake synced
    (the Spark engine builds the whole project each time: README "Engines"; its
    dbt-duckdb views, :func:`duckdb_views`, are made before this)."""
    spark = settings.engine == "spark"
    if spark:
        select = None
    whole = complete or not select
    schema.ensure(con)
    state = pipeline_state(settings, con)
    start = PendingBuild(sorted(state.loaded), state.build_inputs(), select, whole)
    if whole:
        record_step(con, "build", "running", inputs=start.inputs, covered=start.covered)
        scope = (
            build_scope.Scope(True, reason="asked for")
            if full
            else build_scope.compute_scope(con, state)
        )
        if not scope.full:
            # Before dbt runs, and kept until a build completes (a killed build's runs stay).
            runs = build_scope.begin(con, scope)
            start.incremental = True
            start.note = f"{len(runs)} run(s) recomputed ({scope.changed_files} file(s) changed)"
        else:
            start.note = scope.describe()
    if spark:
        from mqcap.spark import lake

        progress.log(lake.sync(con, settings.lake).summary())
    return start


def run_build(
    settings: Settings,
    pending: PendingBuild,
    progress: Progress,
    *,
    docs: bool = False,
    unit_tests: bool = False,
) -> BuildResult:
    """dbt's build of what :func:`begin_build` began, in its own process (the warehouse closed
    here), and with ``docs`` the dbt docs page when it succeeds; nothing is recorded here, and
    nothing raised for a failed build (:func:`end_build` does both)."""
    progress.start("dbt build", total=None, unit="nodes")
    args = _dbt_args(pending.select, pending.incremental, unit_tests)
    proc = _dbt_waiting(settings, args, progress)
    result = _read_results(settings, proc)
    # The Spark engine's incremental build says what it carried (mqcap.spark.carry).
    carried = [
        ln[len("mqcap: ") :] for ln in proc.stdout.splitlines() if ln.startswith("mqcap: carried ")
    ]
    result.scope = "; ".join([pending.note, *carried[-1:]]) if pending.note else pending.note
    if docs and result.ok:
        result.docs = write_dbt_docs(settings, progress)
    return result


def _dbt_args(select: list[str] | None, incremental: bool, unit_tests: bool) -> list[str]:
    args = ["build"]
    if select:
        args += ["--select", *select]
    if incremental:
        args += ["--vars", "{mqcap_incremental: true}"]
    # The models' row checks run in each model's own node (macros/row_checks.sql), not as test
    # nodes; a view selected is made again so that its checks read the rows just landed.
    args += ["--exclude-resource-type", "test"]
    if not unit_tests:
        args += ["--exclude-resource-type", "unit_test"]
    return args


def end_build(
    con: duckdb.DuckDBPyConnection, settings: Settings, result: BuildResult, pending: PendingBuild
) -> None:
    """After dbt, through ``con``: on Spark the marts copied in and old builds pruned; a failure
    recorded and raised as what it is (damage, the environment, or the data); a complete
    build's scope snapshot taken and the build recorded done."""
    if settings.engine == "spark":
        from mqcap.spark import lake

        if result.ok:
            lake.attach_marts(con, settings.lake)
        lake.prune_builds(settings.lake)
    if not result.ok:
        line = _failure_line(result, settings)
        record_step(
            con, "build", "failed", inputs=pending.inputs, covered=pending.covered, detail=line
        )
        if any(warehouse.damaged_text(t) for t in result.failures or [result.log_tail]):
            raise warehouse.damaged_error(settings.warehouse, Exception(line))
        if _machine_failed(result):
            raise EnvironmentProblem(
                f"dbt build stopped: the disk is full or not writable ({line}). Nothing was "
                "set aside; make room and run again (the build is owed)"
            )
        raise DataError(f"dbt build failed: {line}")
    if pending.whole:
        build_scope.complete(con, pending.covered, settings.project_root)
        record_step(con, "build", "done", inputs=pending.inputs, covered=pending.covered)


def duckdb_views(settings: Settings, progress: Progress) -> None:
    """The Spark engine's warehouse gets dbt-duckdb's staging and intermediate views (over its
    landing tables, where ingest lands) and the seeds they read: the build scope is computed from them before the build,
    and the snapshot of the runs taken from them after it (``mqcap.ledger.scope``). A failure is a
    failed build, like dbt-spark's. Its own target folder keeps both dbt's parse caches."""
    duck = settings.with_(engine="duckdb")
    target = settings.dbt_target.with_name(settings.dbt_target.name + "-duckdb-views")
    progress.start("dbt views (DuckDB, for the build scope)", total=None, unit="views")
    # The seeds too: views read them (int_distributed_intervals the measures' units).
    views = [
        "build",
        "--select", "config.materialized:view", "resource_type:seed",
        "--exclude-resource-type", "test", "--exclude-resource-type", "unit_test",
        "--vars", "{mqcap_views_only: true}",
    ]  # fmt: skip
    proc = _dbt_waiting(duck, views, progress, target)
    if proc.returncode != 0:
        lines = [ln.strip() for ln in proc.stdout.splitlines() if "error" in ln.lower()]
        first = lines[0] if lines else f"dbt exited with code {proc.returncode}"
        raise DataError(f"dbt-duckdb views for the build scope failed: {first[:300]}")


def dbt_docs_path(settings: Settings) -> Path:
    """The dbt docs page of this warehouse: one self-contained file beside the reports."""
    return settings.reports_out / "dbt-docs.html"


def write_dbt_docs(settings: Settings, progress: Progress | None = None) -> Path:
    """``dbt docs generate --static``: the docs and lineage graph in one HTML file that opens
    from disk (the plain index.html fetches its JSON and hangs under file://).

    Example:
        write_dbt_docs(Settings.load())  # data/warehouse.mqcap/reports/dbt-docs.html
    """
    progress = progress or Progress()
    # About 40 s on the demo (dbt parses, reads the catalog, writes one page): say so first.
    progress.start("dbt docs", unit="")
    proc = run_dbt(settings, ["docs", "generate", "--static"], progress)
    page = settings.dbt_target / "static_index.html"
    if proc.returncode != 0 or not page.exists():
        tail = "\n".join(proc.stdout.splitlines()[-5:])
        raise DataError(f"dbt docs generate failed: {tail}")
    out = dbt_docs_path(settings)
    out.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(page, out)
    return out


def source_of_tables(settings: Settings) -> dict[str, str]:
    """Landing table -> dbt source name, read from the staging folders' ``_*__sources.yml``."""
    import yaml

    out: dict[str, str] = {}
    for path in sorted((settings.project_root / "models").rglob("_*__sources.yml")):
        doc = yaml.safe_load(path.read_text()) or {}
        for src in doc.get("sources", []):
            for table in src.get("tables", []):
                out[table["name"]] = src["name"]
    return out


def selection_for(settings: Settings, tables: set[str]) -> list[str]:
    """dbt selectors rebuilding what depends on the changed landing tables (and the ledger).

    Example:
        selection_for(settings, {"driver_results"})
        # ['source:meta.ingest_ledger+', 'source:driver.driver_results+']
    """
    sources = source_of_tables(settings)
    selectors = ["source:meta.ingest_ledger+"]
    for table in sorted(tables):
        if table in sources:
            selectors.append(f"source:{sources[table]}.{table}+")
    return selectors


def _read_results(settings: Settings, proc: subprocess.CompletedProcess) -> BuildResult:
    result = BuildResult(
        proc.args, proc.returncode, log_tail="\n".join(proc.stdout.splitlines()[-15:])
    )
    path = settings.dbt_target / "run_results.json"
    if not path.exists():
        return result
    data = json.loads(path.read_text())
    result.elapsed_s = float(data.get("elapsed_time", 0.0))
    for r in data.get("results", []):
        status = str(r.get("status"))
        if not str(r.get("unique_id", "")).startswith("operation."):  # on-run-start, not a node
            result.counts[status] = result.counts.get(status, 0) + 1
        if status in ("error", "fail", "runtime error"):
            result.failures.append(f"{r.get('unique_id')}: {_node_error(r.get('message'), status)}")
    return result


def _node_error(message: str | None, status: str) -> str:
    """The line of a failed node's message that says what failed: dbt's "Runtime Error in model
    x (path)" heading is followed by the database's error (a model's row checks, a full disk).

    Example:
        >>> _node_error("Runtime Error in model m (models/m.sql)\\n  Invalid Input Error: row"
        ...             " checks of m failed: 1 failure(s): null key (1 rows)", "error")
        'Invalid Input Error: row checks of m failed: 1 failure(s): null key (1 rows)'
        >>> _node_error("Got 2 results, configured to fail if != 0", "fail")
        'Got 2 results, configured to fail if != 0'
    """
    lines = [ln.strip() for ln in (message or "").splitlines() if ln.strip()]
    if not lines:
        return status
    if len(lines) > 1 and re.match(r"\w+ Error in \w+ ", lines[0]):
        return lines[1]
    return lines[0]
