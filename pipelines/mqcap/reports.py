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
from mqcap.progress import Progress
from mqcap.settings import Settings

FORMATS = {"html": ("html",), "pdf": ("pdf",), "all": ("html", "pdf")}


@dataclass
class ReportResult:
    outputs: dict[str, dict[str, Path]] = field(default_factory=dict)  # study -> fmt -> path
    skipped: dict[str, str] = field(default_factory=dict)  # study -> why

    def paths(self) -> list[Path]:
        return [p for by_fmt in self.outputs.values() for p in by_fmt.values()]


def list_studies(settings: Settings) -> list[str]:
    with warehouse.connect(settings.warehouse, read_only=True) as con:
        try:
            rows = con.execute("select distinct study from marts.dim_run order by 1").fetchall()
        except Exception as exc:  # marts not built yet
            raise UsageError(f"no marts in {settings.warehouse}: run `mqcap build` first") from exc
    return [r[0] for r in rows]


def render_reports(
    settings: Settings,
    studies: list[str] | None = None,
    fmt: str = "all",
    blocked: dict[str, list[str]] | None = None,
    force: bool = False,
    progress: Progress | None = None,
) -> ReportResult:
    """Render the study reports (and the overview); studies with failed checks are skipped
    unless ``force``, in which case the report lists the failed checks on its first page.

    Example:
        result = render_reports(Settings.load(), ["attls"], fmt="html")
    """
    from mqcap.render import render_report

    progress = progress or Progress()
    formats = FORMATS[fmt]
    known = list_studies(settings)
    wanted = studies or known
    unknown = [s for s in wanted if s not in known]
    if unknown:
        raise UsageError(f"unknown study {', '.join(unknown)}; known: {', '.join(known) or 'none'}")
    blocked = blocked or {}
    result = ReportResult()
    out_dir = settings.reports_out
    out_dir.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "MQCAP_WAREHOUSE": str(settings.warehouse)}
    progress.start("render reports", total=len(wanted) + 1, unit="reports")
    for study in wanted:
        failed = blocked.get(study, [])
        if failed and not force:
            result.skipped[study] = f"{len(failed)} failed check(s); use --force to render anyway"
            progress.advance(1, study)
            continue
        result.outputs[study] = render_report(
            settings.reports_src / "study.qmd",
            out_dir,
            params={"study": study, "failed_checks": json.dumps(failed)},
            formats=formats,
            output_stem=study,
            env=env,
        )
        progress.advance(1, study)
    result.outputs["_overview"] = render_report(
        settings.reports_src / "index.qmd",
        out_dir,
        params={},
        formats=("html",),
        output_stem="index",
        env=env,
    )
    progress.advance(1, "overview")
    return result
