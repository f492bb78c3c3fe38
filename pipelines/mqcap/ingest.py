"""Land raw files in DuckDB: detect the format, parse, and record every file in the ledger.

Guarantees (README "Reliability"):
- raw files are only read, never moved or modified, and only inside the raw root;
- one file = one transaction: its rows and its ledger row commit together or not at all;
- re-dropping an identical file is a no-op; a changed file under the same path replaces its
  own rows atomically; the same content under another name is set aside as a duplicate;
- bad input is set aside with a reason naming the file and the position, and the next file loads.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path, PurePosixPath

import duckdb

from mqcap import warehouse
from mqcap.errors import InputError, UsageError
from mqcap.parsers import all_parsers, detect, parser_for_kind, refusal_hint
from mqcap.parsers import manifest as manifest_mod
from mqcap.parsers.base import ParseContext, Parser
from mqcap.progress import Progress
from mqcap.settings import Settings

LEDGER = f"{warehouse.META}.ingest_ledger"


@dataclass
class FileOutcome:
    path: str
    status: str  # loaded | replaced | unchanged | set_aside
    kind: str | None = None
    rows: int = 0
    reason: str | None = None
    position: str | None = None
    file_id: int | None = None
    study: str | None = None
    run_id: str | None = None
    tables: tuple[str, ...] = ()  # landing tables whose rows changed (added or replaced)


@dataclass
class IngestReport:
    outcomes: list[FileOutcome] = field(default_factory=list)

    def by_status(self, *statuses: str) -> list[FileOutcome]:
        return [o for o in self.outcomes if o.status in statuses]

    @property
    def landed(self) -> list[FileOutcome]:
        return self.by_status("loaded", "replaced")

    @property
    def set_aside(self) -> list[FileOutcome]:
        return self.by_status("set_aside")

    @property
    def rows(self) -> int:
        return sum(o.rows for o in self.landed)

    @property
    def changed_tables(self) -> set[str]:
        return {t for o in self.landed for t in o.tables}

    @property
    def new_file_ids(self) -> list[int]:
        return [o.file_id for o in self.landed if o.file_id is not None]

    def summary(self) -> str:
        return (
            f"{len(self.landed)} file(s) landed ({self.rows} rows), "
            f"{len(self.by_status('unchanged'))} unchanged, {len(self.set_aside)} set aside"
        )


def sha256_of(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        while chunk := fh.read(1 << 20):
            h.update(chunk)
    return h.hexdigest()


def _relative(settings: Settings, path: Path) -> str:
    return PurePosixPath(path.relative_to(settings.raw_root)).as_posix()


def discover(settings: Settings, paths: Iterable[str | os.PathLike] | None = None) -> list[Path]:
    """Files to consider: everything under the given paths (default: the raw root).

    Paths outside the raw root (also through symlinks or ``..``) are refused: mqcap reads only
    what was dropped there. Hidden files and folders (``.name``) are ignored.
    """
    root = settings.raw_root.resolve()
    targets = [Path(p) for p in paths] if paths else [root]
    found: list[Path] = []
    for target in targets:
        full = (target if target.is_absolute() else Path.cwd() / target).resolve()
        if not full.is_relative_to(root):
            raise UsageError(
                f"{target} is outside the raw root {root}; copy it under the raw root "
                "(or point --raw / MQCAP_RAW at its folder)"
            )
        if not full.exists():
            raise UsageError(f"{target} does not exist")
        candidates = [full] if full.is_file() else sorted(p for p in full.rglob("*") if p.is_file())
        for p in candidates:
            rel = p.relative_to(root)
            if any(part.startswith(".") for part in rel.parts):
                continue
            if p.is_symlink() and not p.resolve().is_relative_to(root):
                continue
            found.append(p)
    return sorted(set(found), key=lambda p: (p.name.lower() not in manifest_mod.MANIFEST_NAMES, p))


class _Ingestor:
    def __init__(self, settings: Settings, con: duckdb.DuckDBPyConnection, progress: Progress):
        self.settings = settings
        self.con = con
        self.progress = progress
        self.report = IngestReport()
        self.now = datetime.now().replace(microsecond=0)
        self.batch_runs: dict[str, set[str]] = {}
        self._current: dict[str, tuple] | None = None

    # -- ledger helpers ---------------------------------------------------------------------
    _CURRENT_SQL = f"""
        select path, file_id, sha256, status, retry, bytes, mtime_ns, kind, study, run_id
        from (
            select *, row_number() over (
                partition by path order by status = 'loaded' desc, file_id desc
            ) as pick
            from {LEDGER} where status <> 'replaced' {{only}}
        ) where pick = 1"""

    def current(self, rel: str) -> tuple | None:
        """The ledger entry that currently stands for ``rel``: loaded, else the newest other.

        The whole ledger is read once per ingest (one query, not one per file: a no-change run
        over thousands of files stays fast) and each path is re-read after it is written.
        """
        if self._current is None:
            self._current = {
                row[0]: row[1:]
                for row in self.con.execute(self._CURRENT_SQL.format(only="")).fetchall()
            }
        return self._current.get(rel)

    def _refresh(self, rel: str) -> None:
        if self._current is not None:
            row = warehouse.one(self.con, self._CURRENT_SQL.format(only="and path = ?"), [rel])
            if row is None:
                self._current.pop(rel, None)
            else:
                self._current[rel] = row[1:]

    def loaded_with_sha(self, sha: str, rel: str, run: tuple[str | None, str | None]) -> str | None:
        """Another loaded file with the same content that would count the same data again.

        Within one run folder (or among files outside run folders, which carry their own
        identity) the same bytes are the same data. The same small file in two run folders
        (say a results CSV without a run column) describes two runs: not a duplicate.
        """
        row = warehouse.one(
            self.con,
            f"""select path from {LEDGER}
                where sha256 = ? and status = 'loaded' and path <> ?
                  and study is not distinct from ? and run_id is not distinct from ?
                limit 1""",
            [sha, rel, run[0], run[1]],
        )
        return row[0] if row else None

    def next_id(self) -> int:
        return self.con.execute(f"select nextval('{warehouse.META}.file_id_seq')").fetchall()[0][0]

    def record(self, values: dict) -> None:
        cols = ", ".join(values)
        marks = ", ".join("?" for _ in values)
        self.con.execute(f"insert into {LEDGER} ({cols}) values ({marks})", list(values.values()))

    def set_aside(
        self,
        path: Path,
        rel: str,
        sha: str,
        kind: str | None,
        reason: str,
        position: str | None,
        retry: bool = False,
        run: tuple[str | None, str | None] = (None, None),
    ) -> FileOutcome:
        st = path.stat()
        prior = self.current(rel)
        self.con.begin()
        if prior is not None and prior[2] == "set_aside":
            # The newest verdict on this path replaces the older set-aside entry.
            self.con.execute(
                f"update {LEDGER} set status = 'replaced' where file_id = ?", [prior[0]]
            )
        file_id = self.next_id()
        self.record(
            {
                "file_id": file_id,
                "path": rel,
                "sha256": sha,
                "bytes": st.st_size,
                "mtime_ns": st.st_mtime_ns,
                "kind": kind,
                "status": "set_aside",
                "reason": reason,
                "position": position,
                "retry": retry,
                "study": run[0],
                "run_id": run[1],
                "seen_at": self.now,
            }
        )
        self.con.commit()
        self._refresh(rel)
        self.progress.log(f"set aside {rel}: {reason}")
        return FileOutcome(rel, "set_aside", kind, 0, reason, position, file_id, *run)

    # -- run folders --------------------------------------------------------------------------
    def run_folders(self) -> dict[str, tuple[str, str]]:
        """Folder (relative) -> (study, run) for every loaded manifest."""
        rows = self.con.execute(
            f"""select l.path, m.study, m.run_id from {LEDGER} l
                join {warehouse.LANDING}.run_manifest m using (file_id)
                where l.status = 'loaded'"""
        ).fetchall()
        return {str(PurePosixPath(p).parent): (s, r) for p, s, r in rows}

    def pending_manifests(self) -> dict[str, str]:
        """Folder -> reason, for run folders whose manifest is set aside."""
        rows = self.con.execute(
            f"""select path, reason from {LEDGER}
                where status = 'set_aside' and kind = 'manifest'"""
        ).fetchall()
        return {
            str(PurePosixPath(p).parent): f"run manifest {p} is set aside: {r}" for p, r in rows
        }

    @staticmethod
    def folder_of(rel: str, folders: dict) -> str | None:
        parent = PurePosixPath(rel).parent
        for candidate in [parent, *parent.parents]:
            key = str(candidate)
            if key in folders:
                return key
        return None

    # -- one file -------------------------------------------------------------------------------
    def needs_work(self, path: Path, rel: str) -> tuple[bool, str | None, tuple | None]:
        """(work needed, sha256 if computed, current ledger entry)."""
        prior = self.current(rel)
        st = path.stat()
        settled = prior is not None and (prior[2] == "loaded" or not prior[3])
        if settled and prior[4] == st.st_size and prior[5] == st.st_mtime_ns:
            return False, prior[1], prior
        sha = sha256_of(path)
        if prior is not None and prior[1] == sha and (prior[2] == "loaded" or not prior[3]):
            if prior[5] != st.st_mtime_ns:  # touched, not changed: remember the new mtime
                self.con.execute(
                    f"update {LEDGER} set mtime_ns = ? where file_id = ?",
                    [st.st_mtime_ns, prior[0]],
                )
                self._refresh(rel)
            return False, sha, prior
        return True, sha, prior

    def land(
        self,
        path: Path,
        rel: str,
        sha: str,
        parser: Parser,
        prior: tuple | None,
        run: tuple[str | None, str | None],
    ) -> FileOutcome:
        st = path.stat()
        ctx = ParseContext(
            path=path,
            source_file=rel,
            size=st.st_size,
            on_progress=lambda done: (
                self.progress.update(done, rel) if st.st_size > 8 << 20 else None
            ),
        )
        per_table: dict[str, int] = {}
        self.con.begin()
        try:
            file_id = self.next_id()
            for table_name, rows in parser.parse(ctx):
                frame = parser.table(table_name).frame(rows)
                if frame.height == 0:
                    continue
                self.con.register("mqcap_batch", frame)
                self.con.execute(
                    f'insert into {warehouse.LANDING}."{table_name}" by name '
                    "select ?::bigint as file_id, * from mqcap_batch",
                    [file_id],
                )
                self.con.unregister("mqcap_batch")
                per_table[table_name] = per_table.get(table_name, 0) + frame.height
            replaced = prior is not None and prior[2] == "loaded"
            touched = set(per_table)
            if prior is not None:
                if replaced:
                    old_parser = _parser_or_none(prior[6])
                    touched |= {t.name for t in old_parser.tables} if old_parser else set()
                    for table in old_parser.tables if old_parser else ():
                        self.con.execute(
                            f'delete from {warehouse.LANDING}."{table.name}" where file_id = ?',
                            [prior[0]],
                        )
                self.con.execute(
                    f"update {LEDGER} set status = 'replaced', reason = ? where file_id = ?",
                    [f"superseded by file {file_id}", prior[0]],
                )
            rows_total = sum(per_table.values())
            self.record(
                {
                    "file_id": file_id,
                    "path": rel,
                    "sha256": sha,
                    "bytes": st.st_size,
                    "mtime_ns": st.st_mtime_ns,
                    "kind": parser.kind,
                    "status": "loaded",
                    "study": run[0],
                    "run_id": run[1],
                    "rows_landed": rows_total,
                    "rows_by_table": json.dumps(per_table, sort_keys=True),
                    "unknown_lines": sum(ctx.unknown_lines.values()),
                    "skipped": json.dumps(dict(ctx.skipped), sort_keys=True)
                    if ctx.skipped
                    else None,
                    "seen_at": self.now,
                    "landed_at": datetime.now().replace(microsecond=0),
                }
            )
            self.con.commit()
            self._refresh(rel)
        except BaseException:
            self.con.rollback()
            raise
        status = "replaced" if replaced else "loaded"
        return FileOutcome(
            rel, status, parser.kind, rows_total, None, None, file_id, *run, tuple(sorted(touched))
        )

    def process(self, path: Path, folders: dict, pending: dict, only_manifests: bool) -> None:
        rel = _relative(self.settings, path)
        work, sha, prior = self.needs_work(path, rel)
        if not work:
            self.report.outcomes.append(
                FileOutcome(
                    rel,
                    "unchanged" if prior[2] == "loaded" else "set_aside",
                    prior[6],
                    0,
                    None,
                    None,
                    prior[0],
                    prior[7],
                    prior[8],
                )
            )
            return
        try:
            parser = detect(path, path.name)
        except Exception as exc:  # a sniffer bug must not stop the other files of the batch
            self.report.outcomes.append(
                self.set_aside(
                    path, rel, sha, None, f"could not detect the format ({exc!r})", "byte 0"
                )
            )
            return
        if parser is None:
            self.report.outcomes.append(
                self.set_aside(path, rel, sha, None, _unrecognised(path), "byte 0")
            )
            return
        if only_manifests != (parser.kind == "manifest"):
            return
        folder = self.folder_of(rel, {**folders, **pending})
        run: tuple[str | None, str | None] = (None, None)
        if parser.kind != "manifest" and folder is not None:
            if folder in folders:
                run = folders[folder]
            else:
                self.report.outcomes.append(
                    self.set_aside(path, rel, sha, parser.kind, pending[folder], None, retry=True)
                )
                return
        if parser.kind == "manifest":
            problem, declared = self.check_manifest(path, rel)
            run = declared
            if problem is not None:
                self.report.outcomes.append(self.set_aside(path, rel, sha, parser.kind, *problem))
                return
        duplicate = self.loaded_with_sha(sha, rel, run)
        if duplicate is not None:
            self.report.outcomes.append(
                self.set_aside(
                    path,
                    rel,
                    sha,
                    parser.kind,
                    f"duplicate of {duplicate} (same content already loaded)",
                    None,
                )
            )
            return
        try:
            outcome = self.land(path, rel, sha, parser, prior, run)
        except InputError as exc:
            pos = exc.position or None
            outcome = self.set_aside(path, rel, sha, parser.kind, exc.reason, pos)
        except Exception as exc:
            # A parser bug (e.g. csv.Error on an over-long field) or a type the landing table
            # refuses: never half-land, never crash the whole batch; the file waits with the
            # reason. KeyboardInterrupt / SystemExit still stop the batch (land rolled back).
            outcome = self.set_aside(
                path, rel, sha, parser.kind, f"could not land ({type(exc).__name__}: {exc})", None
            )
        self.report.outcomes.append(outcome)

    def check_manifest(
        self, path: Path, rel: str
    ) -> tuple[tuple[str, str | None, bool] | None, tuple[str | None, str | None]]:
        """(problem or None, (study, run)): run ids unique per study, baselines must exist."""
        ctx = ParseContext(path=path, source_file=rel)
        try:
            m = manifest_mod.load(ctx)
        except InputError as exc:
            return (exc.reason, exc.position or None, False), (None, None)
        except Exception as exc:  # a YAML value the loader chokes on (e.g. 2021-02-30)
            return (f"not a valid manifest ({type(exc).__name__}: {exc})", None, False), (
                None,
                None,
            )
        declared = (m["study"], m["run"])
        other = warehouse.one(
            self.con,
            f"""select l.path from {LEDGER} l join {warehouse.LANDING}.run_manifest m using (file_id)
                where l.status = 'loaded' and m.study = ? and m.run_id = ? and l.path <> ?""",
            [m["study"], m["run"], rel],
        )
        if other:
            problem = f"run {m['run']} of study {m['study']} is already defined by {other[0]}"
            return (problem, None, False), declared
        if m["baseline"] and m["baseline"] != m["run"]:
            known = self.con.execute(
                f"""select 1 from {LEDGER} l join {warehouse.LANDING}.run_manifest m using (file_id)
                    where l.status = 'loaded' and m.study = ? and m.run_id = ?""",
                [m["study"], m["baseline"]],
            ).fetchall()
            if not known and m["baseline"] not in self.batch_runs.get(m["study"], set()):
                problem = (
                    f"field baseline: expected a run of study {m['study']}, "
                    f"got {m['baseline']!r} (no such run)"
                )
                return (problem, "line " + str(_line_of(path, "baseline")), True), declared
        return None, declared


def _line_of(path: Path, key: str) -> int:
    for n, line in enumerate(path.read_text(errors="replace").splitlines(), start=1):
        if line.startswith(f"{key}:"):
            return n
    return 1


def _parser_or_none(kind: str | None) -> Parser | None:
    try:
        return parser_for_kind(kind) if kind else None
    except KeyError:
        return None


def _unrecognised(path: Path) -> str:
    kinds = ", ".join(p.kind for p in all_parsers())
    hint = refusal_hint(path)
    return f"unrecognised format{f' ({hint})' if hint else ''} (not one of: {kinds})"


def _batch_runs(files: list[Path]) -> dict[str, set[str]]:
    """Study -> run ids declared by the manifests in this batch (baselines may be among them)."""
    runs: dict[str, set[str]] = {}
    for p in files:
        if p.name.lower() in manifest_mod.MANIFEST_NAMES:
            try:
                m = manifest_mod.load(ParseContext(path=p, source_file=p.name))
            except Exception:  # reported with its reason when the manifest itself is processed
                continue
            runs.setdefault(m["study"], set()).add(m["run"])
    return runs


def ingest(
    settings: Settings,
    paths: Iterable[str | os.PathLike] | None = None,
    progress: Progress | None = None,
) -> IngestReport:
    """Land every new or changed file under ``paths`` (default: the whole raw root).

    Example:
        report = ingest(Settings.load(), ["data/raw/attls/ssl-2k"])
        print(report.summary())
    """
    progress = progress or Progress()
    files = discover(settings, paths)
    with warehouse.connect(settings.warehouse) as con:
        warehouse.ensure_schema(con)
        ing = _Ingestor(settings, con, progress)
        ing.batch_runs = _batch_runs(files)
        retry = [
            settings.raw_root / p
            for (p,) in con.execute(
                f"select path from {LEDGER} where status = 'set_aside' and retry"
            ).fetchall()
            if (settings.raw_root / p).is_file()
        ]
        files = sorted(
            set(files) | set(retry),
            key=lambda p: (p.name.lower() not in manifest_mod.MANIFEST_NAMES, p),
        )
        progress.start("ingest", total=len(files), unit="files")
        manifests = [p for p in files if p.name.lower() in manifest_mod.MANIFEST_NAMES]
        for path in manifests:
            ing.process(path, {}, {}, only_manifests=True)
            progress.advance(1, path.name)
        folders, pending = ing.run_folders(), ing.pending_manifests()
        for path in files:
            if path in manifests:
                continue
            ing.process(path, folders, pending, only_manifests=False)
            progress.advance(1, path.name)
        con.execute(
            f"insert into {warehouse.META}.pipeline_event values (?, 'ingest', ?)",
            [ing.now, ing.report.summary()],
        )
    return ing.report
