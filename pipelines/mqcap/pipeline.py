"""The whole job: ingest -> validate landing -> dbt build -> validate marts -> reports.

``run`` does what the step ledger (``mqcap.ledger.steps``) shows owed: with nothing owed it
says so and stops at once.

Each step opens the warehouse once (:func:`step_connection`; ingest opens its own), and the
bookkeeping between steps goes through a step's connection: what is owed is read through the
landing checks' connection (after ingest) and the mart checks' (after the build); the build's
end, once dbt is done, is recorded through the mart checks' connection, and the reports to
render are recorded as running through it too, since the build and the reports close their
own before dbt or the report kernel opens the file (DuckDB allows one writing process).
"""

from __future__ import annotations

import fcntl
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import duckdb

from mqcap import environment, interrupt, warehouse
from mqcap.build import (
    BuildResult,
    PendingBuild,
    begin_build,
    duckdb_views,
    end_build,
    run_build,
    selection_for,
    warm_dbt,
)
from mqcap.errors import WarehouseBusyError
from mqcap.ingest import IngestReport, ingest
from mqcap.ledger import files as ledger_files
from mqcap.ledger.files import tables_of_kinds
from mqcap.ledger.steps import PipelineState, pipeline_state
from mqcap.progress import Progress
from mqcap.publish import (
    FORMATS,
    ReportResult,
    plan_reports,
    record_rendered,
    render_planned,
)
from mqcap.settings import Settings, outputs_dir
from mqcap.validate import ValidationReport, validate

# The steps of `mqcap run`, as it names them: each opens the warehouse once.
STEPS = ("ingest", "landing checks", "build", "mart checks", "reports")


@dataclass
class RunResult:
    ingest: IngestReport
    landing: ValidationReport | None = None
    build: BuildResult | None = None
    marts: ValidationReport | None = None
    reports: ReportResult | None = None
    nothing_new: bool = False
    notes: list[str] = field(default_factory=list)
    # What is still not right after the run (failed checks, unattributed files, reports not
    # rendered), from the step ledger: one line each.
    problems: list[str] = field(default_factory=list)

    @property
    def data_problems(self) -> bool:
        bad_checks = any(v is not None and not v.ok for v in (self.landing, self.marts))
        failed_reports = bool(self.reports and self.reports.failed)
        ingest_problems = self.ingest.set_aside or self.ingest.skipped or self.ingest.unattributed
        return bool(ingest_problems) or bad_checks or failed_reports or bool(self.problems)

    def checks(self) -> tuple[int, int]:
        passed = total = 0
        for v in (self.landing, self.marts):
            if v is not None:
                passed += v.checks_passed
                total += v.checks
        return passed, total


def warehouse_totals(settings: Settings) -> dict[str, int]:
    """Runs, loaded files and landed rows in the warehouse (for the one-line summary)."""
    with warehouse.connect(settings.warehouse, read_only=True) as con:
        files, rows, set_aside = ledger_files.totals(con)
        try:
            runs = con.execute("select count(*) from marts.dim_run").fetchall()[0][0]
        except Exception:
            runs = 0
    return {"runs": runs, "files": files, "rows": rows, "set_aside": set_aside}


def build_selection(
    state: PipelineState, settings: Settings, con: duckdb.DuckDBPyConnection
) -> list[str] | None:
    """dbt selectors for what changed since the last complete build; None: build everything
    (no complete build on record, marts missing, or the dbt project itself changed)."""
    full, ids = state.build_delta()
    if full:
        return None
    return selection_for(settings, tables_of_kinds(ledger_files.kinds_of(con, ids)))


@contextmanager
def step_connection(
    settings: Settings, step: str, progress: Progress
) -> Iterator[duckdb.DuckDBPyConnection]:
    """The one connection a step of ``mqcap run`` receives (``step``: one of ``STEPS``),
    read-write (every step records what it did) and waiting for the file as every open does;
    closed before anything else opens the file (dbt, the report kernel).

    Example:
        with step_connection(settings, "landing checks", progress) as con:
            state = pipeline_state(settings, con)
    """
    if step not in STEPS:
        raise ValueError(f"no step {step!r} in mqcap run; its steps: {', '.join(STEPS)}")
    with warehouse.connect(settings.warehouse, on_wait=progress.log) as con:
        yield con


RUN_BUSY = (
    "another `mqcap run` (PID {pid}) is working on {path}; it does what this one would do. "
    "Let it finish (or stop it), then run again."
)


@contextmanager
def run_lock(settings: Settings, wait_s: float | None = None) -> Iterator[None]:
    """One ``mqcap run`` per warehouse at a time: a second one waits up to ``MQCAP_LOCK_WAIT_S``
    then stops with one line. An OS file lock (flock) on ``<stem>.mqcap/run.lock``, in the
    warehouse's own outputs folder: it goes with the process, so a killed run never leaves it
    behind.

    Example:
        with run_lock(settings):
            ...
    """
    if wait_s is None:
        wait_s = environment.seconds("MQCAP_LOCK_WAIT_S")
    path = settings.outputs / "run.lock"
    path.parent.mkdir(parents=True, exist_ok=True)
    deadline = time.monotonic() + wait_s
    with open(path, "a+") as fh:
        while True:
            try:
                fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    fh.seek(0)
                    pid = fh.read().strip() or "?"
                    raise WarehouseBusyError(
                        RUN_BUSY.format(pid=pid, path=settings.warehouse)
                    ) from None
                time.sleep(0.25)
        fh.seek(0)
        fh.truncate()
        fh.write(str(os.getpid()))
        fh.flush()
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def run(
    settings: Settings,
    paths: list[str] | None = None,
    fmt: str = "all",
    force: bool = False,
    reports: bool = True,
    progress: Progress | None = None,
) -> RunResult:
    """Ingest what is new, then do every step the step ledger shows owed: landing checks of
    files not yet checked, the build, the mart checks, and the reports missing or out of date.

    Nothing is assumed done: a step killed or failed last time is done again. With nothing
    owed it stops at once (``nothing_new``), still listing what is not right (``problems``).

    Example:
        result = run(Settings.load())
        print(result.ingest.summary())
    """
    with run_lock(settings):
        return _run(settings, paths, fmt, force, reports, progress or Progress())


def _run(
    settings: Settings,
    paths: list[str] | None,
    fmt: str,
    force: bool,
    reports: bool,
    progress: Progress,
) -> RunResult:
    formats = FORMATS[fmt] if reports else None
    landed = ingest(settings, paths, progress)  # (ingest opens the warehouse itself)
    interrupt.check()  # a Ctrl-C that a callback swallowed stops the run here
    result = RunResult(ingest=landed)
    with step_connection(settings, "landing checks", progress) as con:
        state = pipeline_state(settings, con)
        result.notes = state.notes
        if not force and state.up_to_date(formats):
            result.nothing_new = True
            result.problems = state.problems(formats or ())
            return result
        if force or not state.built():  # dbt's imports beside the landing checks
            warm_dbt(settings)
        if force:  # everything again, landing checks included (the demo reports them all)
            result.landing = validate(settings, "landing", None, progress, con=con)
        elif pending := state.landing_pending():
            result.landing = validate(settings, "landing", pending, progress, con=con)
    interrupt.check()
    begun: PendingBuild | None = None
    if force or not state.built():
        if settings.engine == "spark":  # (ingest checked the engine and made the landing tables)
            duckdb_views(settings, progress)
        with step_connection(settings, "build", progress) as con:
            select = None if force else build_selection(state, settings, con)
            begun = begin_build(con, settings, progress, select=select, complete=True, full=force)
        result.build = run_build(settings, begun, progress)  # dbt: the warehouse closed
    with step_connection(settings, "mart checks", progress) as con:
        if begun is not None and result.build is not None:
            end_build(con, settings, result.build, begun)  # raises when the build failed
        interrupt.check()
        state = pipeline_state(settings, con)
        if force or not state.mart_checked():
            result.marts = validate(settings, "mart", None, progress, con=con)
            state = pipeline_state(settings, con)
        interrupt.check()
        if not reports:
            result.problems = state.problems(())
            return result
        touched = landed.landed + landed.deleted
        affected = sorted({o.study for o in touched if o.study}) if paths else None
        plan = plan_reports(
            con, settings, affected or None, fmt, state.blocked(), force, not force, state
        )
    try:
        result.reports = render_planned(settings, plan, progress)  # the kernel: closed
    finally:
        # What was rendered is recorded, also when a Ctrl-C stopped the renders.
        if plan.outcomes:
            with step_connection(settings, "reports", progress) as con:
                record_rendered(con, plan)
                state = pipeline_state(settings, con)
    result.problems = state.problems(formats or ())
    return result


def demo_settings(settings: Settings) -> Settings:
    """The demo's own warehouse and raw root: the bundled sample study, apart from user data.

    The warehouse is ``data/demo/warehouse.duckdb`` under the checkout, or under the current
    folder when mqcap is installed (the sample studies are read where the package holds them).
    """
    from mqcap.settings import defaults_base

    demo = defaults_base(settings.project_root) / "data" / "demo" / "warehouse.duckdb"
    return settings.with_(
        raw_root=settings.sample_root, warehouse=demo, reports_out=outputs_dir(demo) / "reports"
    )


def report_paths(result: RunResult) -> list[Path]:
    return result.reports.paths() if result.reports else []
