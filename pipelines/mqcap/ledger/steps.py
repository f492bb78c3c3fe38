"""The step ledger: which pipeline step completed, for which study, from which inputs.

One table, ``meta.pipeline_step``, written in the warehouse next to the data it describes, one
short transaction per step event (so a step's record commits or not at all). Rows per step:

- ``landing_checks`` (study ``*``): the ledger file ids whose landing rows were validated and
  the failures still standing (each with its files and studies);
- ``build`` (study ``*``): a ``dbt build`` that ran (``running``), completed (``done``) or
  failed (``failed``), with the loaded file ids it covered and a fingerprint of its inputs
  (those ids + the dbt project's files);
- ``mart_checks`` (study ``*``): the mart suites run on that build, their failures by study;
- ``report`` (study x format, and ``_overview`` x html): a render started (``running``),
  finished (``done``, with the output's size and mtime) or failed, and the inputs it was made
  from (the study's files, the dbt project, the report sources, the failed checks it lists).

"Up to date" (:class:`PipelineState`) is computed from these rows, the ingest ledger and the
outputs on disk, never assumed: a step that was killed left ``running`` (or nothing), a
report file deleted or changed after its render no longer counts, and each is redone by the
next ``mqcap run``. Rows are append-only per key; older rows are pruned, keeping the newest and
the newest ``done`` one (incremental builds need the last complete build's file ids).
"""

from __future__ import annotations

import hashlib
import json
import shutil
from contextlib import suppress
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

import duckdb

from mqcap.ledger import codeprint, schema
from mqcap.ledger.schema import (
    ALL,
    EVENTS,
    LEDGER,
    META,
    SCOPE,
    STEPS,
    VALIDATION,
    old_build,
    table_exists,
)
from mqcap.settings import Settings

OVERVIEW = "_overview"  # the index report's "study"


def _now() -> datetime:
    return datetime.now().replace(microsecond=0)


def record_step(
    con: duckdb.DuckDBPyConnection,
    step: str,
    status: str,
    *,
    study: str = ALL,
    part: str = "",
    inputs: str | None = None,
    covered: list[int] | None = None,
    detail: object = None,
    output: Path | None = None,
    started_at: datetime | None = None,
    finished_at: datetime | None = None,
) -> None:
    """Record one step event in its own transaction; prune older rows of the same key.
    ``started_at`` / ``finished_at``: when the step started and ended, if not now (an event
    recorded after the fact: the reports' outcomes, recorded once their renders are over).

    Example:
        record_step(con, "report", "done", study="attls", part="html", inputs=fp, output=path)
    """
    schema.ensure_meta(con)
    size = mtime = None
    if output is not None and output.exists():
        st = output.stat()
        size, mtime = st.st_size, st.st_mtime_ns
    now = _now()
    con.begin()
    con.execute(
        f"insert into {STEPS} values (nextval('meta.pipeline_step_seq'), {', '.join('?' * 12)})",
        [
            step,
            study,
            part,
            status,
            inputs,
            covered,
            None if detail is None else json.dumps(detail),
            None if output is None else str(output),
            size,
            mtime,
            started_at or now,
            None if status == "running" else finished_at or now,
        ],
    )
    # Keep the newest row and the newest 'done' row of this key.
    con.execute(
        f"""delete from {STEPS} where step = ? and study = ? and part = ?
            and event_id < (select max(event_id) from {STEPS}
                            where step = ? and study = ? and part = ?)
            and event_id is distinct from (
                select max(event_id) from {STEPS}
                where step = ? and study = ? and part = ? and status = 'done')""",
        [step, study, part] * 3,
    )
    con.commit()


# ----------------------------------------------------------------------------- fingerprints
def _hash(*parts: object) -> str:
    h = hashlib.sha256()
    for p in parts:
        h.update(json.dumps(p, sort_keys=True, default=str).encode())
        h.update(b"\0")
    return h.hexdigest()[:32]


def files_fingerprint(root: Path, patterns: tuple[str, ...]) -> str:
    """sha256 over the names and contents of the files matching ``patterns`` under ``root``."""
    h = hashlib.sha256()
    for pattern in patterns:
        for path in sorted(root.glob(pattern)):
            if path.is_file():
                h.update(path.relative_to(root).as_posix().encode() + b"\0")
                h.update(path.read_bytes())
    return h.hexdigest()[:32]


# The libraries whose versions shape a step's output (an upgrade owes the step again).
BUILD_LIBRARIES = ("dbt-core", "dbt-duckdb", "duckdb")
SPARK_LIBRARIES = ("dbt-spark", "pyspark")
REPORT_LIBRARIES = (
    "altair", "vl-convert-python", "typst", "pypandoc_binary", "nbclient", "ipykernel",
    "pandas", "duckdb",
)  # fmt: skip


def dbt_fingerprint(settings: Settings) -> str:
    """What a build is made from: the dbt project's own files, the mqcap modules its Python
    models import (``mqcap.noise`` and what it imports: codeprint), the versions of dbt and the
    engine's libraries, and the engine: a change to any of them rebuilds all."""
    files = files_fingerprint(
        settings.project_root,
        ("dbt_project.yml", "models/**/*", "macros/**/*", "seeds/**/*"),
    )
    libraries = BUILD_LIBRARIES + (SPARK_LIBRARIES if settings.engine != "duckdb" else ())
    code = codeprint.code_fingerprint(
        codeprint.texts(settings.project_root, ("models/**/*.py",)), libraries
    )
    return (
        _hash(files, code) if settings.engine == "duckdb" else _hash(files, code, settings.engine)
    )


def suites_fingerprint(settings: Settings, scope: str) -> str:
    prefix = {"landing": "landing.", "mart": "marts."}[scope]
    return files_fingerprint(settings.expectations_dir, (f"{prefix}*.json",))


def reports_fingerprint(settings: Settings) -> str:
    """What a report is made from: the Quarto sources, every mqcap module they import
    (``mqcap.sections``, ``mqcap.render`` and onwards, with their stylesheet and templates), the
    renderer (the Quarto CLI found on PATH, or mqcap's own) and the drawing and converting
    libraries' versions."""
    files = files_fingerprint(settings.reports_src, ("*.qmd", "_quarto.yml"))
    sources = codeprint.texts(settings.reports_src, ("*.qmd",))
    # The renderer mqcap drives is part of what a report is made from too.
    sources.append("import mqcap.render")
    code = codeprint.code_fingerprint(sources, REPORT_LIBRARIES)
    # The engine mqcap.render picks: the Quarto CLI when it is on PATH (render.quarto.quarto_path).
    return _hash(files, code, f"quarto={shutil.which('quarto') or 'own'}")


# ----------------------------------------------------------------------------- state
@dataclass
class StepRow:
    event_id: int
    step: str
    study: str
    part: str
    status: str
    inputs: str | None
    covered: list[int] | None
    detail: object
    output: str | None
    output_bytes: int | None
    output_mtime_ns: int | None
    started_at: datetime
    finished_at: datetime | None

    @classmethod
    def of(cls, row: tuple) -> StepRow:
        r = list(row)
        r[7] = json.loads(r[7]) if r[7] else None
        return cls(*r)


@dataclass
class PipelineState:
    """What is done and what is owed, computed from the ledgers and the outputs on disk.

    Example:
        state = pipeline_state(settings)
        state.up_to_date(("html", "pdf"))  # False when a report is missing
    """

    settings: Settings
    loaded: dict[int, str | None]  # loaded file_id -> study (None outside run folders)
    rows: dict[tuple[str, str, str], list[StepRow]]  # key -> rows, newest first
    studies: list[str]  # studies with runs in the marts (empty before a build)
    marts_exist: bool
    unattributed: list[tuple[str, str]] = field(default_factory=list)  # (path, why)
    # (study, why) for a comparison the marts cannot decide (dim_study.baseline_problem)
    undecided: list[tuple[str, str]] = field(default_factory=list)
    # Files whose records fall short of the marts (mqcap.reconcile.dropped), one line each;
    # notes: run folders that overrode the ids a file carries (attribution.folder_notes).
    dropped: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    _fp: dict[str, str] = field(default_factory=dict)

    # -- raw rows -----------------------------------------------------------------------------
    def latest(self, step: str, study: str = ALL, part: str = "") -> StepRow | None:
        rows = self.rows.get((step, study, part))
        return rows[0] if rows else None

    def last_done(self, step: str, study: str = ALL, part: str = "") -> StepRow | None:
        return next((r for r in self.rows.get((step, study, part), []) if r.status == "done"), None)

    def _fingerprint(self, name: str) -> str:
        if name not in self._fp:
            s = self.settings
            self._fp[name] = {
                "dbt": lambda: dbt_fingerprint(s),
                "landing": lambda: suites_fingerprint(s, "landing"),
                "mart": lambda: suites_fingerprint(s, "mart"),
                "reports": lambda: reports_fingerprint(s),
            }[name]()
        return self._fp[name]

    # -- landing checks -----------------------------------------------------------------------
    def landing_pending(self) -> list[int]:
        """Loaded files whose landing rows were not validated (by the current suites)."""
        row = self.last_done("landing_checks")
        if row is None or row.inputs != self._fingerprint("landing"):
            return sorted(self.loaded)
        return sorted(set(self.loaded) - set(row.covered or []))

    def landing_failures(self) -> list[dict]:
        """Landing failures still standing: their files are still loaded (or unknown)."""
        row = self.last_done("landing_checks")
        if row is None or row.inputs != self._fingerprint("landing"):
            return []
        return [
            f
            for f in row.detail or []
            if not f.get("file_ids") or any(i in self.loaded for i in f["file_ids"])
        ]

    # -- build -------------------------------------------------------------------------------
    def build_inputs(self) -> str:
        # (asked several times per state: hashing 30,000 file ids once is enough)
        if "build_inputs" not in self._fp:
            self._fp["build_inputs"] = _hash("build", self._fingerprint("dbt"), sorted(self.loaded))
        return self._fp["build_inputs"]

    def built(self) -> bool:
        row = self.latest("build")
        return (
            self.marts_exist
            and row is not None
            and row.status == "done"
            and row.inputs == self.build_inputs()
        )

    def build_failure(self) -> str | None:
        row = self.latest("build")
        if row is not None and row.status == "failed":
            return str(row.detail or "dbt build failed")
        return None

    def build_interrupted(self) -> bool:
        row = self.latest("build")
        return row is not None and row.status == "running"

    def build_delta(self) -> tuple[bool, set[int]]:
        """(full build needed, file ids added or removed since the last complete build)."""
        row = self.last_done("build")
        if row is None or not self.marts_exist:
            return True, set()
        full = row.inputs != _hash("build", self._fingerprint("dbt"), sorted(row.covered or []))
        return full, set(self.loaded) ^ set(row.covered or [])

    # -- mart checks --------------------------------------------------------------------------
    def mart_checked(self) -> bool:
        row = self.latest("mart_checks")
        return (
            self.built()
            and row is not None
            and row.status == "done"
            and row.inputs == self.mart_inputs()
        )

    def mart_inputs(self) -> str:
        return _hash("mart", self.build_inputs(), self._fingerprint("mart"))

    def mart_failures(self) -> list[dict]:
        row = self.latest("mart_checks")
        return (row.detail or []) if row is not None and row.status == "done" else []

    # -- blocking ----------------------------------------------------------------------------
    def blocked(self) -> dict[str, list[str]]:
        """Study -> failed checks naming it; a failure naming no study blocks every study."""
        out: dict[str, list[str]] = {}
        for f in [*self.landing_failures(), *self.mart_failures()]:
            for study in f.get("studies") or self.studies:
                out.setdefault(study, []).append(f["message"])
        return out

    # -- reports -----------------------------------------------------------------------------
    def study_files(self, study: str) -> list[int]:
        """The loaded files a study's marts can come from: its own and those outside runs."""
        return sorted(i for i, s in self.loaded.items() if s == study or s is None)

    def report_inputs(self, study: str, fmt: str, failed: list[str] | None = None) -> str:
        files = sorted(self.loaded) if study == OVERVIEW else self.study_files(study)
        extra = self.studies if study == OVERVIEW else sorted(failed or [])
        return _hash(
            "report",
            study,
            fmt,
            self._fingerprint("dbt"),
            self._fingerprint("reports"),
            files,
            extra,
        )

    def report_state(self, study: str, fmt: str) -> str:
        """ok | blocked | missing | interrupted | failed | stale (output changed or inputs)."""
        row = self.latest("report", study, fmt)
        failed = self.blocked().get(study, []) if study != OVERVIEW else []
        if row is None:
            return "blocked" if failed else "missing"
        if row.status == "running":
            return "interrupted"
        if row.status == "failed":
            return "failed"
        if row.inputs not in (
            self.report_inputs(study, fmt),
            self.report_inputs(study, fmt, failed),
        ):
            return "blocked" if failed else "stale"
        out = Path(row.output) if row.output else None
        if out is None or not out.is_file():
            return "blocked" if failed else "missing"
        st = out.stat()
        if (st.st_size, st.st_mtime_ns) != (row.output_bytes, row.output_mtime_ns):
            return "stale"
        return "ok"

    def withdrawn_reports(self, studies: list[str]) -> list[tuple[str, Path]]:
        """(study, file) of each report mqcap rendered for a study not among ``studies`` (those
        with runs in the marts, as read from marts that exist: its folder was deleted or
        renamed): the file its last render wrote, still there, a regular file directly in the
        reports folder. Computed from the ledger and the disk, so a file removed (by mqcap or by
        hand) is not listed again."""
        folder = self.settings.reports_out.resolve()
        out: list[tuple[str, Path]] = []
        for (step, study, fmt), rows in sorted(self.rows.items()):
            if step != "report" or study == OVERVIEW or study in studies:
                continue
            row = rows[0]
            if row.status != "done" or not row.output:
                continue
            path = Path(row.output)
            if path.name != f"{study}.{fmt}" or path.is_symlink() or not path.is_file():
                continue
            if path.parent.resolve() != folder:
                continue
            out.append((study, path))
        return out

    def reports_owed(self, formats: tuple[str, ...]) -> list[tuple[str, str]]:
        """(study, format) whose report must be rendered (blocked studies are not owed)."""
        if not formats:
            return []
        owed = [
            (study, fmt)
            for study in self.studies
            for fmt in formats
            if self.report_state(study, fmt) not in ("ok", "blocked")
        ]
        if self.studies and self.report_state(OVERVIEW, "html") != "ok":
            owed.append((OVERVIEW, "html"))
        return owed

    # -- verdict -----------------------------------------------------------------------------
    def up_to_date(self, formats: tuple[str, ...] | None) -> bool:
        """Every step complete for the current inputs, and (``formats``) every report on disk
        and no report left of a study that has no runs now."""
        if self.landing_pending() or not self.built() or not self.mart_checked():
            return False
        if formats is None:
            return True
        return not self.reports_owed(formats) and not self.withdrawn_reports(self.studies)

    def problems(self, formats: tuple[str, ...] = ("html", "pdf")) -> list[str]:
        """One line per thing that is not right, for ``mqcap status`` and ``mqcap run``."""
        out = []
        if failure := self.build_failure():
            out.append(f"dbt build failed: {failure}")
        elif self.build_interrupted():
            out.append("the last dbt build did not finish (interrupted): `mqcap run` redoes it")
        elif self.loaded and not self.built():
            out.append("the marts are not built from every loaded file: `mqcap run` builds them")
        pending = self.landing_pending()
        if pending:
            out.append(f"{len(pending)} loaded file(s) not validated yet: `mqcap run` checks them")
        if self.built() and not self.mart_checked():
            out.append("the marts of the last build are not validated yet: `mqcap run` does it")
        for study, failed in sorted(self.blocked().items()):
            out.append(
                f"study {study}: {len(failed)} failed check(s), report not rendered: {failed[0]}"
            )
        if self.built():
            for study, fmt in self.reports_owed(formats):
                name = "overview index" if study == OVERVIEW else f"{study}"
                state = self.report_state(study, fmt)
                out.append(f"report {name} ({fmt}) {state}: `mqcap run` renders it")
        for path, why in self.unattributed:
            out.append(f"loaded but reaches no run: {path}: {why}")
        for study, why in self.undecided:
            out.append(f"study {study}: baseline undecided: {why}")
        if self.built():  # (a build owed recounts them)
            out.extend(self.dropped)
        return out


def pipeline_state(
    settings: Settings, con: duckdb.DuckDBPyConnection | None = None
) -> PipelineState:
    """Read the state (a read-only connection is enough; a missing table is an empty ledger).

    Example:
        with warehouse.connect(settings.warehouse, read_only=True) as con:
            print(pipeline_state(settings, con).problems())
    """
    if con is None:
        from mqcap import warehouse

        with warehouse.connect(settings.warehouse, read_only=True) as c:
            return pipeline_state(settings, c)
    loaded: dict[int, str | None] = {}
    unattributed: list[tuple[str, str]] = []
    if table_exists(con, "meta", "ingest_ledger"):
        loaded = dict(
            con.execute(f"select file_id, study from {LEDGER} where status = 'loaded'").fetchall()
        )
        cols = {
            r[0]
            for r in con.execute(
                "select column_name from information_schema.columns "
                "where table_schema = 'meta' and table_name = 'ingest_ledger'"
            ).fetchall()
        }
        if "attribution" in cols:  # an older warehouse has no attribution yet
            from mqcap.ledger.files import unattributed as unattributed_files

            unattributed = unattributed_files(con)
    rows: dict[tuple[str, str, str], list[StepRow]] = {}
    if table_exists(con, "meta", "pipeline_step"):
        raw = con.execute(f"select * from {STEPS} order by event_id desc").fetchall()
    else:  # an old warehouse opened read-only: what the migration would carry over
        old = old_build(con) if loaded else None
        raw = [old] if old else []
    for r in raw:
        row = StepRow.of(r)
        rows.setdefault((row.step, row.study, row.part), []).append(row)
    marts_exist = table_exists(con, "marts", "dim_run")
    studies = (
        [
            r[0]
            for r in con.execute("select distinct study from marts.dim_run order by 1").fetchall()
        ]
        if marts_exist
        else []
    )
    undecided: list[tuple[str, str]] = []
    if marts_exist and _column_exists(con, "marts", "dim_study", "baseline_problem"):
        undecided = con.execute(
            "select study, baseline_problem from marts.dim_study "
            "where baseline_problem is not null order by study"
        ).fetchall()
    from mqcap import reconcile
    from mqcap.ledger import attribution

    return PipelineState(
        settings,
        loaded,
        rows,
        studies,
        marts_exist,
        unattributed,
        undecided,
        reconcile.dropped(con),
        attribution.folder_notes(con) if loaded else [],
    )


def _column_exists(con: duckdb.DuckDBPyConnection, schema: str, table: str, column: str) -> bool:
    return bool(
        con.execute(
            "select count(*) from information_schema.columns "
            "where table_schema = ? and table_name = ? and column_name = ?",
            [schema, table, column],
        ).fetchone()[0]
    )


# ----------------------------------------------------------------------------- check records
def record_checks(
    con: duckdb.DuckDBPyConnection,
    settings: Settings,
    scope: str,
    failures: list,
    validated_ids: list[int] | None = None,
) -> None:
    """Record a completed validation pass (``scope`` landing or mart) and its failures.

    Landing: ``validated_ids`` are the files whose rows were checked (None: every loaded
    file); the failures of files not re-checked stay standing while those files are loaded.
    Each failure (a ``validate.Failure``) is kept as its message, studies and file ids.

    Example:
        record_checks(con, settings, "mart", report.failures)
    """
    state = pipeline_state(settings, con)
    if scope == "mart":
        detail = [{"message": f.message(), "studies": sorted(f.studies())} for f in failures]
        record_step(con, "mart_checks", "done", inputs=state.mart_inputs(), detail=detail)
        return
    ids_of = dict(
        con.execute(
            f"select path, max(file_id) from {LEDGER} where status = 'loaded' group by path"
        ).fetchall()
    )
    checked = set(state.loaded if validated_ids is None else validated_ids)
    prev = state.last_done("landing_checks")
    fingerprint = state._fingerprint("landing")
    covered = set(checked)
    kept: list[dict] = []
    if validated_ids is not None and prev is not None and prev.inputs == fingerprint:
        covered |= set(prev.covered or []) & set(state.loaded)
        kept = [
            f
            for f in prev.detail or []
            if f.get("file_ids")
            and any(i in state.loaded and i not in checked for i in f["file_ids"])
        ]
    new = [
        {
            "message": f.message(),
            "studies": sorted(f.studies()),
            "file_ids": sorted({ids_of[p] for p in f.files() if p in ids_of}),
        }
        for f in failures
    ]
    record_step(
        con,
        "landing_checks",
        "done",
        inputs=fingerprint,
        covered=sorted(covered),
        detail=kept + new,
    )


def record_event(con: duckdb.DuckDBPyConnection, at: datetime, command: str, message: str) -> None:
    """One line of the warehouse's event log (``meta.pipeline_event``).

    Example:
        record_event(con, datetime.now(), "ingest", report.summary())
    """
    con.execute(f"insert into {EVENTS} values (?, ?, ?)", [at, command, message])


def record_validation(con: duckdb.DuckDBPyConnection, at: datetime, results: list[tuple]) -> None:
    """Each suite's outcome (suite, table, scope, success, evaluated, failed, rows, details
    JSON), in one transaction.

    Example:
        record_validation(con, now, [("landing.driver_results", "landing.driver_results",
                                      "landing", True, 12, 0, 10, "[]")])
    """
    con.begin()
    try:
        con.executemany(
            f"insert into {VALIDATION} values (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [[at, *r] for r in results],
        )
        con.commit()
    except BaseException:
        # A failed commit already ended the transaction: its error, not rollback's, is raised.
        with suppress(duckdb.TransactionException):
            con.rollback()
        raise


def last_checks(con: duckdb.DuckDBPyConnection) -> list[tuple]:
    """Each suite's last outcome: (suite, success, evaluated, failed, rows checked, when).

    Example:
        last_checks(con)[0]  # ('landing.driver_results', True, 12, 0, 10, datetime(...))
    """
    return con.execute(
        f"""select suite, success, evaluated, failed, rows_checked, validated_at
            from {VALIDATION}
            qualify row_number() over (partition by suite order by validated_at desc) = 1
            order by suite"""
    ).fetchall()


def scope_runs(con: duckdb.DuckDBPyConnection) -> str:
    """The query of the runs the build owes (``meta.build_scope``; none before the table exists),
    for the Spark lake to copy.

    Example:
        scope_runs(con)  # 'select run_key from meta.build_scope'
    """
    if table_exists(con, META, "build_scope"):
        return f"select run_key from {SCOPE}"
    return "select cast(null as varchar) as run_key where false"
