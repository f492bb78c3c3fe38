"""The whole job: ingest -> validate landing -> dbt build -> validate marts -> reports.

``run`` does only what changed: with nothing new it says so and stops in a few seconds.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from mqcap import warehouse
from mqcap.build import BuildResult, build, built_through, selection_for
from mqcap.ingest import LEDGER, IngestReport, ingest
from mqcap.parsers import parser_for_kind
from mqcap.progress import Progress
from mqcap.reports import ReportResult, render_reports
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

    @property
    def data_problems(self) -> bool:
        bad_checks = any(v is not None and not v.ok for v in (self.landing, self.marts))
        return bool(self.ingest.set_aside) or bad_checks

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
        files, rows = con.execute(
            "select count(*), coalesce(sum(rows_landed), 0) from meta.ingest_ledger "
            "where status = 'loaded'"
        ).fetchall()[0]
        try:
            runs = con.execute("select count(*) from marts.dim_run").fetchall()[0][0]
        except Exception:
            runs = 0
        set_aside = con.execute(
            "select count(distinct path) from meta.ingest_ledger where status = 'set_aside'"
        ).fetchall()[0][0]
    return {"runs": runs, "files": files, "rows": rows, "set_aside": set_aside}


def _marts_exist(settings: Settings) -> bool:
    if not settings.warehouse.exists():
        return False
    with warehouse.connect(settings.warehouse, read_only=True) as con:
        return bool(
            con.execute(
                "select 1 from information_schema.tables "
                "where table_schema = 'marts' and table_name = 'dim_run'"
            ).fetchall()
        )


def build_backlog(settings: Settings) -> tuple[set[str] | None, list[int]]:
    """(landing tables, loaded file ids) changed since the last complete build.

    Tables None: no complete build on record (none yet, or every one was killed or failed), so
    everything is rebuilt. Files landed by an ingest that was killed, or whose build was killed
    or failed, stay in the backlog until a build covering them succeeds.
    """
    with warehouse.connect(settings.warehouse) as con:
        through = built_through(con)
        ids = [
            r[0]
            for r in con.execute(
                f"select file_id from {LEDGER} where status = 'loaded' and file_id > ?",
                [through or 0],
            ).fetchall()
        ]
        kinds = con.execute(
            f"""select distinct kind from {LEDGER} where kind is not null
                and status <> 'set_aside' and path in (
                    select path from {LEDGER} where file_id > ? and status <> 'set_aside')""",
            [through or 0],
        ).fetchall()
    if through is None:
        return None, ids
    tables: set[str] = set()
    for (kind,) in kinds:
        try:
            tables |= {t.name for t in parser_for_kind(kind).tables}
        except KeyError:
            continue
    return tables, ids


def run(
    settings: Settings,
    paths: list[str] | None = None,
    fmt: str = "all",
    force: bool = False,
    reports: bool = True,
    progress: Progress | None = None,
) -> RunResult:
    """Ingest what is new, rebuild, validate and re-render the affected studies.

    Example:
        result = run(Settings.load())
        print(result.ingest.summary())
    """
    progress = progress or Progress()
    landed = ingest(settings, paths, progress)
    result = RunResult(ingest=landed)
    backlog, backlog_ids = build_backlog(settings)
    if not landed.landed and backlog == set() and _marts_exist(settings) and not force:
        result.nothing_new = True
        return result
    new_ids = sorted(set(landed.new_file_ids) | set(backlog_ids))
    if force:  # everything again, landing checks included (the demo reports them all)
        result.landing = validate(settings, "landing", None, progress)
    else:
        result.landing = validate(settings, "landing", new_ids, progress) if new_ids else None
    # First build, --force, or the last one did not complete: everything. Later: only what
    # depends on the tables changed since the last complete build.
    select = (
        None
        if force or backlog is None or not _marts_exist(settings)
        else selection_for(settings, landed.changed_tables | backlog)
    )
    result.build = build(settings, select=select, progress=progress, complete=True)
    result.marts = validate(settings, "mart", None, progress)
    if reports:
        blocked: dict[str, list[str]] = {}
        for v in (result.landing, result.marts):
            for f in v.failures if v else []:
                for study in f.studies() or {"*"}:
                    blocked.setdefault(study, []).append(f.message())
        affected = sorted({o.study for o in landed.landed if o.study}) or None
        if "*" in blocked:  # a failure that names no run blocks every study
            star = blocked.pop("*")
            for study in affected or []:
                blocked.setdefault(study, []).extend(star)
        result.reports = render_reports(
            settings, affected if affected and paths else None, fmt, blocked, force, progress
        )
    return result


def demo_settings(settings: Settings) -> Settings:
    """The demo's own warehouse and raw root: the bundled sample study, apart from user data."""
    root = settings.project_root
    demo = root / "data" / "demo" / "warehouse.duckdb"
    return settings.with_(
        raw_root=root / "data" / "sample", warehouse=demo, reports_out=outputs_dir(demo) / "reports"
    )


def report_paths(result: RunResult) -> list[Path]:
    return result.reports.paths() if result.reports else []
