"""Render the Quarto reports of ``reports/``: one per study plus an overview of all studies.

The same ``.qmd`` files render with the Quarto CLI when it is installed, else with mqcap's own
engine (``mqcap.render``): a real Jupyter kernel, pandoc, and Typst for the PDF.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

import duckdb

from mqcap import warehouse
from mqcap.errors import UsageError
from mqcap.ledger.steps import OVERVIEW, PipelineState, pipeline_state, record_step
from mqcap.progress import Progress
from mqcap.settings import Settings

FORMATS = {"html": ("html",), "pdf": ("pdf",), "all": ("html", "pdf")}


def _now() -> datetime:
    return datetime.now().replace(microsecond=0)


@dataclass
class ReportResult:
    outputs: dict[str, dict[str, Path]] = field(default_factory=dict)  # study -> fmt -> path
    skipped: dict[str, str] = field(default_factory=dict)  # study -> why (failed checks)
    failed: dict[str, str] = field(default_factory=dict)  # study -> the render's error
    up_to_date: list[str] = field(default_factory=list)  # studies not rendered: nothing new
    withdrawn: dict[str, Path] = field(default_factory=dict)  # a gone study's report removed

    def paths(self) -> list[Path]:
        return [p for by_fmt in self.outputs.values() for p in by_fmt.values()]


def studies_in(con: duckdb.DuckDBPyConnection, settings: Settings) -> list[str]:
    """The studies in the marts (``marts.dim_run``); a usage error before the first build."""
    try:
        rows = con.execute("select distinct study from marts.dim_run order by 1").fetchall()
    except Exception as exc:  # marts not built yet
        raise UsageError(f"no marts in {settings.warehouse}: run `mqcap build` first") from exc
    return [r[0] for r in rows]


@dataclass
class ReportPlan:
    """The reports a pass renders (:func:`plan_reports`) and, once rendered
    (:func:`render_planned`), each one's outcome to record (:func:`record_rendered`)."""

    result: ReportResult
    wanted: list[str]  # the studies asked for, in order (progress counts them all)
    todo: dict[str, tuple[tuple[str, ...], list[str]]]  # study -> (formats, failed checks)
    inputs: dict[tuple[str, str], str]  # (study, format) -> the inputs it is rendered from
    overview: bool  # the overview is rendered whatever the studies' renders do (it is owed)
    # (study, format, status, started, finished, output or None, detail or None)
    outcomes: list[tuple] = field(default_factory=list)


def plan_reports(
    con: duckdb.DuckDBPyConnection,
    settings: Settings,
    studies: list[str] | None = None,
    fmt: str = "all",
    blocked: dict[str, list[str]] | None = None,
    force: bool = False,
    only_owed: bool = False,
    state: PipelineState | None = None,
) -> ReportPlan:
    """Which reports to render (see :func:`render_reports`), each recorded as running through
    ``con`` before any render starts (a kill leaves them 'running': owed, and shown as
    interrupted). ``state``: the step ledger as ``con`` reads it, if the caller has it."""
    formats = FORMATS[fmt]
    known = studies_in(con, settings)
    wanted = studies or known
    unknown = [s for s in wanted if s not in known]
    if unknown:
        raise UsageError(f"unknown study {', '.join(unknown)}; known: {', '.join(known) or 'none'}")
    if state is None:
        state = pipeline_state(settings, con)
    blocked = state.blocked() if blocked is None else blocked
    result = ReportResult()
    plan = ReportPlan(result, wanted, {}, {}, False)
    # A study whose runs are all gone has no report: the one its last render wrote is removed
    # (`mqcap open` then says there is none), not left to read as current.
    for study, path in state.withdrawn_reports(known):
        try:
            path.unlink()
        except FileNotFoundError:
            continue
        result.withdrawn[f"{study}.{path.suffix[1:]}"] = path
    for study in wanted:
        failed = blocked.get(study, [])
        if failed and not force:
            result.skipped[study] = f"{len(failed)} failed check(s); use --force to render anyway"
            continue
        todo = tuple(f for f in formats if not only_owed or state.report_state(study, f) != "ok")
        if not todo:
            result.up_to_date.append(study)
            continue
        plan.todo[study] = (todo, failed)
        plan.inputs.update({(study, f): state.report_inputs(study, f, failed) for f in todo})
    # The overview is rendered when it is owed itself (or every report is asked for), else
    # only once a study's report has rendered (render_planned): not recorded as running here,
    # since its last render stands for the current inputs until then.
    plan.overview = not only_owed or state.report_state(OVERVIEW, "html") != "ok"
    plan.inputs[(OVERVIEW, "html")] = state.report_inputs(OVERVIEW, "html", [])
    running = [(study, f) for study, (todo, _) in plan.todo.items() for f in todo]
    if plan.overview:
        running.append((OVERVIEW, "html"))
    for study, f in running:
        record_step(con, "report", "running", study=study, part=f, inputs=plan.inputs[study, f])
    return plan


def _render_one(
    settings: Settings,
    plan: ReportPlan,
    study: str,
    formats: tuple[str, ...],
    failed_checks: list[str],
    env: dict[str, str],
) -> dict[str, Path]:
    """Render one report; its outcome per format noted in ``plan.outcomes``."""
    from mqcap.render import render_report

    overview = study == OVERVIEW
    started = _now()
    try:
        paths = render_report(
            settings.reports_src / ("index.qmd" if overview else "study.qmd"),
            settings.reports_out,
            params={} if overview else {"study": study, "failed_checks": json.dumps(failed_checks)},
            formats=formats,
            output_stem="index" if overview else study,
            env=env,
        )
    except Exception as exc:
        # Recorded, and the next run renders it again; the other studies still render.
        why = str(exc).splitlines()[0][:500] if str(exc) else type(exc).__name__
        plan.outcomes += [(study, f, "failed", started, _now(), None, why) for f in formats]
        raise
    plan.outcomes += [(study, f, "done", started, _now(), path, None) for f, path in paths.items()]
    return paths


def render_planned(settings: Settings, plan: ReportPlan, progress: Progress) -> ReportResult:
    """Render what ``plan`` holds, through the report kernel (its own process, which opens the
    warehouse itself: nothing here holds it); a report that fails is noted and the others
    still render. Each outcome is noted in ``plan.outcomes``, for :func:`record_rendered`."""
    result = plan.result
    settings.reports_out.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "MQCAP_WAREHOUSE": str(settings.warehouse)}
    progress.start("render reports", total=len(plan.wanted) + 1, unit="reports")
    for study in plan.wanted:
        if study in plan.todo:
            todo, failed = plan.todo[study]
            try:
                result.outputs[study] = _render_one(settings, plan, study, todo, failed, env)
            except Exception as exc:
                result.failed[study] = str(exc).splitlines()[0] if str(exc) else repr(exc)
        progress.advance(1, study)
    if result.outputs or plan.overview:
        try:
            result.outputs[OVERVIEW] = _render_one(settings, plan, OVERVIEW, ("html",), [], env)
        except Exception as exc:
            result.failed[OVERVIEW] = str(exc).splitlines()[0] if str(exc) else repr(exc)
    progress.advance(1, "overview")
    return result


def record_rendered(con: duckdb.DuckDBPyConnection, plan: ReportPlan) -> None:
    """Each rendered report's outcome (done with its file, or failed with why), recorded
    through ``con`` with when its render started and ended; each its own transaction."""
    for study, f, status, started, finished, output, detail in plan.outcomes:
        record_step(
            con,
            "report",
            status,
            study=study,
            part=f,
            inputs=plan.inputs[study, f],
            output=output,
            detail=detail,
            started_at=started,
            finished_at=finished,
        )


def render_reports(
    settings: Settings,
    studies: list[str] | None = None,
    fmt: str = "all",
    blocked: dict[str, list[str]] | None = None,
    force: bool = False,
    progress: Progress | None = None,
    only_owed: bool = False,
) -> ReportResult:
    """Render the study reports (and the overview); studies with failed checks are skipped
    unless ``force``, in which case the report lists the failed checks on its first page.

    ``blocked``: study -> failed checks (default: from the step ledger). ``only_owed``: skip
    reports the step ledger shows rendered from the current inputs and still on disk.
    A report that fails to render is recorded and reported; the others still render.

    The warehouse is opened before the renders (:func:`plan_reports`: what to render, recorded
    as running) and after them (:func:`record_rendered`: what became of each, also when a
    Ctrl-C stopped them), never while the report kernel reads it.

    Example:
        result = render_reports(Settings.load(), ["attls"], fmt="html")
    """
    progress = progress or Progress()
    with warehouse.connect(settings.warehouse, on_wait=progress.log) as con:
        plan = plan_reports(con, settings, studies, fmt, blocked, force, only_owed)
    try:
        return render_planned(settings, plan, progress)
    finally:
        if plan.outcomes:
            with warehouse.connect(settings.warehouse, on_wait=progress.log) as con:
                record_rendered(con, plan)
