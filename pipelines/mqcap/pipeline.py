"""The whole job: ingest -> validate landing -> dbt build -> validate marts -> reports.

``run`` does what the step ledger (``mqcap.ledger.steps``) shows owed: with nothing owed it
says so and stops at once.
"""

from __future__ import annotations

import fcntl
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from mqcap import environment, interrupt, warehouse
from mqcap.build import BuildResult, build, selection_for
from mqcap.errors import WarehouseBusyError
from mqcap.ingest import IngestReport, ingest
from mqcap.ledger import files as ledger_files
from mqcap.ledger.files import tables_of_kinds
from mqcap.ledger.steps import PipelineState, pipeline_state
from mqcap.progress import Progress
from mqcap.publish import FORMATS, ReportResult, render_reports
from mqcap.settings import Settings, outputs_dir
from mqcap.validate import ValidationReport, validate


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


def build_selection(state: PipelineState, settings: Settings) -> list[str] | None:
    """dbt selectors for what changed since the last complete build; None: build everything
    (no complete build on record, marts missing, or the dbt project itself changed)."""
    full, ids = state.build_delta()
    if full:
        return None
    with warehouse.connect(settings.warehouse, read_only=True) as con:
        kinds = ledger_files.kinds_of(con, ids)
    return selection_for(settings, tables_of_kinds(kinds))


def _state(settings: Settings) -> PipelineState:
    with warehouse.connect(settings.warehouse, read_only=True) as con:
        return pipeline_state(settings, con)


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
    landed = ingest(settings, paths, progress)
    interrupt.check()  # a Ctrl-C that a callback swallowed stops the run here
    result = RunResult(ingest=landed)
    state = _state(settings)
    result.notes = state.notes
    if not force and state.up_to_date(formats):
        result.nothing_new = True
        result.problems = state.problems(formats or ())
        return result
    if force:  # everything again, landing checks included (the demo reports them all)
        result.landing = validate(settings, "landing", None, progress)
    elif pending := state.landing_pending():
        result.landing = validate(settings, "landing", pending, progress)
    interrupt.check()
    if force or not state.built():
        select = None if force else build_selection(state, settings)
        result.build = build(settings, select=select, progress=progress, complete=True, full=force)
    interrupt.check()
    state = _state(settings)
    if force or not state.mart_checked():
        result.marts = validate(settings, "mart", None, progress)
        state = _state(settings)
    interrupt.check()
    if reports:
        touched = landed.landed + landed.deleted
        affected = sorted({o.study for o in touched if o.study}) if paths else None
        result.reports = render_reports(
            settings, affected or None, fmt, state.blocked(), force, progress, only_owed=not force
        )
        state = _state(settings)
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
