"""Render the Quarto reports of ``reports/``: one per study plus an overview of all studies.

The same ``.qmd`` files render with the Quarto CLI when it is installed, else with mqcap's own
engine (``mqcap.render``): a real Jupyter kernel, pandoc, and Typst for the PDF.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from mqcap import warehouse
from mqcap.errors import UsageError
from mqcap.ledger.steps import OVERVIEW, PipelineState, pipeline_state, record_step
from mqcap.progress import Progress
from mqcap.settings import Settings

FORMATS = {"html": ("html",), "pdf": ("pdf",), "all": ("html", "pdf")}


@dataclass
class ReportResult:
    outputs: dict[str, dict[str, Path]] = field(default_factory=dict)  # study -> fmt -> path
    skipped: dict[str, str] = field(default_factory=dict)  # study -> why (failed checks)
    failed: dict[str, str] = field(default_factory=dict)  # study -> the render's error
    up_to_date: list[str] = field(default_factory=list)  # studies not rendered: nothing new

    def paths(self) -> list[Path]:
        return [p for by_fmt in self.outputs.values() for p in by_fmt.values()]


def list_studies(settings: Settings) -> list[str]:
    with warehouse.connect(settings.warehouse, read_only=True) as con:
        try:
            rows = con.execute("select distinct study from marts.dim_run order by 1").fetchall()
        except Exception as exc:  # marts not built yet
            raise UsageError(f"no marts in {settings.warehouse}: run `mqcap build` first") from exc
    return [r[0] for r in rows]


def _record(settings: Settings, study: str, fmt: str, status: str, **kw) -> None:
    with warehouse.connect(settings.warehouse) as con:
        record_step(con, "report", status, study=study, part=fmt, **kw)


def _render_one(
    settings: Settings,
    state: PipelineState,
    study: str,
    formats: tuple[str, ...],
    failed_checks: list[str],
    env: dict[str, str],
) -> dict[str, Path]:
    """Render one report, its start and end recorded per format (a kill leaves 'running')."""
    from mqcap.render import render_report

    overview = study == OVERVIEW
    inputs = {f: state.report_inputs(study, f, failed_checks) for f in formats}
    for f in formats:
        _record(settings, study, f, "running", inputs=inputs[f])
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
        for f in formats:
            _record(settings, study, f, "failed", inputs=inputs[f], detail=why)
        raise
    for f, path in paths.items():
        _record(settings, study, f, "done", inputs=inputs[f], output=path)
    return paths


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

    Example:
        result = render_reports(Settings.load(), ["attls"], fmt="html")
    """
    progress = progress or Progress()
    formats = FORMATS[fmt]
    known = list_studies(settings)
    wanted = studies or known
    unknown = [s for s in wanted if s not in known]
    if unknown:
        raise UsageError(f"unknown study {', '.join(unknown)}; known: {', '.join(known) or 'none'}")
    state = pipeline_state(settings)
    blocked = state.blocked() if blocked is None else blocked
    result = ReportResult()
    settings.reports_out.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "MQCAP_WAREHOUSE": str(settings.warehouse)}
    progress.start("render reports", total=len(wanted) + 1, unit="reports")
    for study in wanted:
        failed = blocked.get(study, [])
        if failed and not force:
            result.skipped[study] = f"{len(failed)} failed check(s); use --force to render anyway"
            progress.advance(1, study)
            continue
        todo = tuple(f for f in formats if not only_owed or state.report_state(study, f) != "ok")
        if not todo:
            result.up_to_date.append(study)
        else:
            try:
                result.outputs[study] = _render_one(settings, state, study, todo, failed, env)
            except Exception as exc:
                result.failed[study] = str(exc).splitlines()[0] if str(exc) else repr(exc)
        progress.advance(1, study)
    if result.outputs or not only_owed or state.report_state(OVERVIEW, "html") != "ok":
        try:
            result.outputs[OVERVIEW] = _render_one(settings, state, OVERVIEW, ("html",), [], env)
        except Exception as exc:
            result.failed[OVERVIEW] = str(exc).splitlines()[0] if str(exc) else repr(exc)
    progress.advance(1, "overview")
    return result
