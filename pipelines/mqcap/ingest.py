"""Land raw files in DuckDB: discover, detect the format, parse, land; the ledger records each.

Guarantees (README "Dropping files" and "Reliability"):
- raw files are only read, never moved or modified, and only inside the raw root;
- one file = one transaction: its rows and its ledger row commit together or not at all;
- re-dropping an identical file is a no-op; a changed file under the same path replaces its
  own rows atomically; the same content under another name is set aside as a duplicate;
- bad input is set aside with a reason naming the file and the position, and the next file loads;
- environment errors are not bad input: a file that vanishes, turns into a folder or cannot be
  read is skipped with a message and retried by the next ingest; a warehouse that cannot be
  written (disk full) stops the batch, keeping everything committed before;
- deletions follow the raw folder: the rows of a file that is gone leave landing;
- any byte sequence is a file name (stored escaped, printed safely: ``mqcap.names``).

Every read and write of ``meta.ingest_ledger`` is in :mod:`mqcap.ledger.files`.
"""

from __future__ import annotations

import hashlib
import os
import stat as stat_mod
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

import duckdb

from mqcap import duplicates, faults, warehouse
from mqcap.errors import EnvironmentProblem, InputError, UsageError
from mqcap.ledger import files as ledger_files
from mqcap.ledger.files import LEDGER, Entry, FileLedger, folder_of
from mqcap.names import printable, raw_path, relative_name
from mqcap.parsers import all_parsers, detect, refusal_hint
from mqcap.parsers import manifest as manifest_mod
from mqcap.parsers.base import ParseContext, Parser
from mqcap.progress import Progress
from mqcap.settings import Settings

__all__ = ["LEDGER", "FileOutcome", "IngestReport", "discover", "ingest", "sha256_of"]


@dataclass
class FileOutcome:
    path: str
    status: str  # loaded | replaced | unchanged | set_aside | skipped | deleted
    kind: str | None = None
    rows: int = 0
    reason: str | None = None
    position: str | None = None
    file_id: int | None = None
    study: str | None = None
    run_id: str | None = None
    tables: tuple[str, ...] = ()  # landing tables whose rows changed (added, replaced, removed)


@dataclass
class IngestReport:
    outcomes: list[FileOutcome] = field(default_factory=list)
    # (path, reason) of every loaded file no run can claim (whole warehouse, not only this batch)
    unattributed: list[tuple[str, str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def by_status(self, *statuses: str) -> list[FileOutcome]:
        return [o for o in self.outcomes if o.status in statuses]

    @property
    def landed(self) -> list[FileOutcome]:
        return self.by_status("loaded", "replaced")

    @property
    def set_aside(self) -> list[FileOutcome]:
        return self.by_status("set_aside")

    @property
    def skipped(self) -> list[FileOutcome]:
        """Files not read for an environment reason; the next ingest retries them."""
        return self.by_status("skipped")

    @property
    def deleted(self) -> list[FileOutcome]:
        return self.by_status("deleted")

    @property
    def rows(self) -> int:
        return sum(o.rows for o in self.landed)

    @property
    def changed_tables(self) -> set[str]:
        return {t for o in self.landed + self.deleted for t in o.tables}

    @property
    def new_file_ids(self) -> list[int]:
        return [o.file_id for o in self.landed if o.file_id is not None]

    def summary(self) -> str:
        extra = [
            f"{len(items)} {what}"
            for items, what in (
                (self.deleted, "deleted"),
                (self.skipped, "skipped (retried next time)"),
                (self.unattributed, "unattributed"),
            )
            if items
        ]
        return (
            f"{len(self.landed)} file(s) landed ({self.rows} rows), "
            f"{len(self.by_status('unchanged'))} unchanged, {len(self.set_aside)} set aside"
            + "".join(f", {e}" for e in extra)
        )

    def problem_lines(self) -> list[str]:
        """One printable line per file that needs the user's attention."""
        lines = []
        for o in self.set_aside:
            where = f" ({o.position})" if o.position else ""
            lines.append(f"set aside: {o.path}{where}: {o.reason}")
        for o in self.skipped:
            lines.append(f"skipped: {o.path}: {o.reason}")
        for path, reason in self.unattributed:
            lines.append(f"unattributed: {path}: {reason}")
        return [printable(line) for line in lines]


def sha256_of(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        while chunk := fh.read(1 << 20):
            h.update(chunk)
    return h.hexdigest()


def _walk(folder: Path, unreadable: list[Path] | None) -> Iterable[Path]:
    """Files under ``folder`` (hidden folders pruned); folders that cannot be listed are noted
    in ``unreadable`` (their files are neither read nor taken as deleted)."""

    def note(exc: OSError) -> None:
        if unreadable is not None and not isinstance(exc, FileNotFoundError):
            unreadable.append(Path(exc.filename) if exc.filename else folder)

    for dirpath, dirnames, filenames in os.walk(folder, onerror=note):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for name in filenames:
            p = Path(dirpath) / name
            if os.path.isfile(p):
                yield p


def discover(
    settings: Settings,
    paths: Iterable[str | os.PathLike] | None = None,
    unreadable: list[Path] | None = None,
) -> list[Path]:
    """Files to consider: everything under the given paths (default: the raw root).

    Paths outside the raw root (also through symlinks or ``..``) are refused: mqcap reads only
    what was dropped there. Hidden files and folders (``.name``) are ignored. Folders that
    cannot be listed are appended to ``unreadable``.
    """
    root = settings.raw_root.resolve()
    targets = [Path(p) for p in paths] if paths else [root]
    found: list[Path] = []
    for target in targets:
        full = (target if target.is_absolute() else Path.cwd() / target).resolve()
        if not full.is_relative_to(root):
            raise UsageError(
                f"{printable(target)} is outside the raw root {root}; copy it under the raw root "
                "(or point --raw / MQCAP_RAW at its folder)"
            )
        if not full.exists():
            raise UsageError(f"{printable(target)} does not exist")
        candidates = [full] if full.is_file() else _walk(full, unreadable)
        for p in candidates:
            rel = p.relative_to(root)
            if any(part.startswith(".") for part in rel.parts):
                continue
            if p.is_symlink() and not p.resolve().is_relative_to(root):
                continue
            found.append(p)
    return sorted(set(found), key=_batch_order)


def _batch_order(p: Path) -> tuple[bool, Path]:
    return (p.name.lower() not in manifest_mod.MANIFEST_NAMES, p)


def _gone(path: Path) -> str | None:
    """Why the raw file of a ledger entry no longer exists, or None (it does, or we cannot
    tell: a folder we may not enter is not a deletion)."""
    try:
        st = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return "deleted from the raw folder"
    except OSError:
        return None
    if stat_mod.S_ISDIR(st.st_mode):
        return "replaced by a folder in the raw folder"
    return None


class _Ingestor:
    def __init__(self, settings: Settings, con: duckdb.DuckDBPyConnection, progress: Progress):
        self.settings = settings
        self.con = con
        self.progress = progress
        self.report = IngestReport()
        self.now = datetime.now().replace(microsecond=0)
        self.ledger = FileLedger(con, self.now)
        self.batch_runs: dict[str, set[str]] = {}

    def _root(self) -> Path:
        return self.settings.raw_root.resolve()

    def rel(self, path: Path) -> str:
        return relative_name(self._root(), path)

    # -- outcomes that write no rows ---------------------------------------------------------
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
        file_id = self.ledger.set_aside(
            rel, sha, st.st_size, st.st_mtime_ns, kind, reason, position, retry, run
        )
        reason = ledger_files.cap(reason) or ""
        self.progress.log(printable(f"set aside {rel}: {reason}"))
        return FileOutcome(rel, "set_aside", kind, 0, reason, position, file_id, *run)

    def skip(self, rel: str, exc: BaseException) -> None:
        reason = f"{faults.describe(exc)}; not set aside, retried on the next ingest"
        self.progress.log(printable(f"skipped {rel}: {reason}"))
        self.report.outcomes.append(FileOutcome(rel, "skipped", reason=reason))

    def sweep_deleted(self, files: list[Path]) -> None:
        """Deletions follow the raw folder: entries whose file is gone leave landing.

        An empty raw root is more likely an unmounted share than a deliberate wipe: then
        nothing is deleted and the user is told.
        """
        entries = list(self.ledger.entries().values())
        if not entries:
            return
        root = self._root()
        if not files and not any(not e.name.startswith(".") for e in os.scandir(root)):
            note = (
                f"the raw root {root} is empty: {len(entries)} ledger file(s) kept "
                "(an unmounted folder is not a deletion; delete the warehouse to start over)"
            )
            self.progress.log(printable(note))
            self.report.notes.append(note)
            return
        for entry in entries:
            why = _gone(raw_path(root, entry.path))
            if why is None:
                continue
            removed = self.ledger.delete(entry, why)
            tables = tuple(sorted(removed)) if entry.status == "loaded" else ()
            if entry.status == "loaded":
                self.progress.log(printable(f"deleted {entry.path}: {why}"))
            self.report.outcomes.append(
                FileOutcome(
                    entry.path,
                    "deleted",
                    entry.kind,
                    sum(removed.values()),
                    why,
                    None,
                    entry.file_id,
                    entry.study,
                    entry.run_id,
                    tables,
                )
            )

    # -- one file -------------------------------------------------------------------------------
    def needs_work(self, path: Path, rel: str) -> tuple[bool, str, Entry | None, os.stat_result]:
        """(work needed, sha256, current ledger entry, stat of the file)."""
        prior = self.ledger.current(rel)
        st = path.stat()
        if stat_mod.S_ISDIR(st.st_mode):
            raise IsADirectoryError(21, "Is a directory", str(path))
        settled = prior is not None and (prior.status == "loaded" or not prior.retry)
        if settled and prior.bytes == st.st_size and prior.mtime_ns == st.st_mtime_ns:
            return False, prior.sha256, prior, st
        sha = sha256_of(path)
        if settled and prior.sha256 == sha:
            if prior.mtime_ns != st.st_mtime_ns:  # touched, not changed: remember the new mtime
                self.ledger.touch(prior, st.st_mtime_ns)
            return False, sha, prior, st
        return True, sha, prior, st

    def land(
        self,
        path: Path,
        rel: str,
        sha: str,
        st: os.stat_result,
        parser: Parser,
        prior: Entry | None,
        run: tuple[str | None, str | None],
    ) -> FileOutcome:
        ctx = ParseContext(
            path=path,
            source_file=rel,
            size=st.st_size,
            on_progress=lambda done: (
                self.progress.update(done, printable(rel)) if st.st_size > 8 << 20 else None
            ),
        )
        per_table: dict[str, int] = {}
        replaced = prior is not None and prior.status == "loaded"
        with self.ledger.transaction():
            file_id = self.ledger.next_id()
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
            touched = set(per_table)
            if prior is not None:
                touched |= self.ledger.supersede(prior, file_id)
            self.ledger.record_loaded(
                file_id,
                rel,
                sha,
                st.st_size,
                st.st_mtime_ns,
                parser.kind,
                run,
                per_table,
                sum(ctx.unknown_lines.values()),
                dict(ctx.skipped),
            )
        self.ledger.refresh(rel)
        status = "replaced" if replaced else "loaded"
        rows_total = sum(per_table.values())
        return FileOutcome(
            rel, status, parser.kind, rows_total, None, None, file_id, *run, tuple(sorted(touched))
        )

    def process(self, path: Path, folders: dict, pending: dict, only_manifests: bool) -> None:
        """One file; an environment error skips it (raw file) or stops the batch (warehouse)."""
        rel = self.rel(path)
        try:
            self._process(path, rel, folders, pending, only_manifests)
        except Exception as exc:
            if faults.is_warehouse_problem(exc):
                raise _WarehouseFailed(rel, exc) from exc
            if faults.is_raw_file_problem(exc):
                self.skip(rel, exc)
                return
            raise

    def _process(
        self, path: Path, rel: str, folders: dict, pending: dict, only_manifests: bool
    ) -> None:
        work, sha, prior, st = self.needs_work(path, rel)
        if not work:
            assert prior is not None
            self.report.outcomes.append(
                FileOutcome(
                    rel,
                    "unchanged" if prior.status == "loaded" else "set_aside",
                    prior.kind,
                    0,
                    prior.reason if prior.status == "set_aside" else None,
                    prior.position if prior.status == "set_aside" else None,
                    prior.file_id,
                    prior.study,
                    prior.run_id,
                )
            )
            return
        try:
            parser = detect(path, path.name)
        except Exception as exc:  # a sniffer bug must not stop the other files of the batch
            _reraise_environment(exc)
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
        folder = folder_of(rel, {**folders, **pending})
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
        duplicate = self.ledger.loaded_with_sha(sha, rel, run)
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
            outcome = self.land(path, rel, sha, st, parser, prior, run)
        except InputError as exc:
            pos = exc.position or None
            outcome = self.set_aside(path, rel, sha, parser.kind, exc.reason, pos)
        except Exception as exc:
            # A parser bug (e.g. csv.Error on an over-long field) or a type the landing table
            # refuses: never half-land, never crash the whole batch; the file waits with the
            # reason. Environment errors are not the file's fault: they propagate (process
            # skips the file or stops the batch). KeyboardInterrupt / SystemExit stop the batch
            # (land rolled back).
            _reraise_environment(exc)
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
            _reraise_environment(exc)
            return (f"not a valid manifest ({type(exc).__name__}: {exc})", None, False), (
                None,
                None,
            )
        declared = (m["study"], m["run"])
        other = self.ledger.run_defined_by(m["study"], m["run"], rel)
        if other is not None:
            # A moved run folder: the old manifest is gone, so this is a rename, not a conflict.
            why = _gone(raw_path(self._root(), other))
            entry = self.ledger.current(other)
            if why is not None and entry is not None:
                self.ledger.delete(entry, why)
                other = None
        if other is not None:
            problem = f"run {m['run']} of study {m['study']} is already defined by {other}"
            return (problem, None, False), declared
        if m["baseline"] and m["baseline"] != m["run"]:
            known = self.ledger.run_defined_by(m["study"], m["baseline"])
            if known is None and m["baseline"] not in self.batch_runs.get(m["study"], set()):
                problem = (
                    f"field baseline: expected a run of study {m['study']}, "
                    f"got {m['baseline']!r} (no such run)"
                )
                return (problem, "line " + str(_line_of(path, "baseline")), True), declared
        return None, declared

    # -- the batch ------------------------------------------------------------------------------
    def run(self, files: list[Path]) -> None:
        self.batch_runs = _batch_runs(files)
        self.sweep_deleted(files)
        root = self._root()
        retry = [raw_path(root, p) for p in self.ledger.retry_paths()]
        files = sorted(set(files) | {p for p in retry if p.is_file()}, key=_batch_order)
        self.progress.start("ingest", total=len(files), unit="files")
        manifests = [p for p in files if p.name.lower() in manifest_mod.MANIFEST_NAMES]
        for path in manifests:
            self.process(path, {}, {}, only_manifests=True)
            self.progress.advance(1, printable(path.name))
        folders, pending = self.ledger.run_folders(), self.ledger.pending_manifests()
        # A run-id edit, a manifest added late or deleted: loaded files follow their folder.
        self.ledger.reattribute(folders)
        for path in files:
            if path in manifests:
                continue
            self.process(path, folders, pending, only_manifests=False)
            self.progress.advance(1, printable(path.name))
        self.report.unattributed = ledger_files.unattributed(self.con)
        self.con.execute(
            f"insert into {warehouse.META}.pipeline_event values (?, 'ingest', ?)",
            [self.now, self.report.summary()],
        )


class _WarehouseFailed(Exception):
    """Internal: the warehouse failed while landing ``rel`` (turned into EnvironmentProblem)."""

    def __init__(self, rel: str, exc: BaseException) -> None:
        super().__init__(rel)
        self.rel = rel
        self.exc = exc


def _reraise_environment(exc: BaseException) -> None:
    if faults.is_warehouse_problem(exc) or faults.is_raw_file_problem(exc):
        raise exc


def _line_of(path: Path, key: str) -> int:
    for n, line in enumerate(path.read_text(errors="replace").splitlines(), start=1):
        if line.startswith(f"{key}:"):
            return n
    return 1


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


def _stopped(settings: Settings, report: IngestReport, rel: str | None, exc: BaseException) -> str:
    first = (str(exc).splitlines() or [type(exc).__name__])[0]
    where = f" while landing {rel}" if rel else ""
    return printable(
        f"the warehouse {settings.warehouse} could not be written{where} "
        f"({type(exc).__name__}: {first}). Nothing was set aside; the {len(report.landed)} "
        "file(s) landed before stay. Free space (or make the warehouse writable) and run the "
        "command again: the rest of the batch is retried."
    )


def ingest(
    settings: Settings,
    paths: Iterable[str | os.PathLike] | None = None,
    progress: Progress | None = None,
) -> IngestReport:
    """Land every new or changed file under ``paths`` (default: the whole raw root).

    Raises :class:`EnvironmentProblem` when the warehouse cannot be written (disk full).

    Example:
        report = ingest(Settings.load(), ["data/raw/attls/ssl-2k"])
        print(report.summary())
    """
    progress = progress or Progress()
    unreadable: list[Path] = []
    files = discover(settings, paths, unreadable)
    with warehouse.connect(settings.warehouse) as con:
        ing = _Ingestor(settings, con, progress)
        for folder in unreadable:
            note = f"folder {folder} cannot be listed (permission denied): its files are kept as they are"
            progress.log(printable(note))
            ing.report.notes.append(note)
        try:
            warehouse.ensure_schema(con)
            ledger_files.migrate(con)
            ing.run(files)
            # Records the new files repeat from earlier-loaded files: said here, counted once.
            for note in duplicates.describe_landed(con, ing.report.landed):
                progress.log(printable(note))
        except _WarehouseFailed as failed:
            raise EnvironmentProblem(_stopped(settings, ing.report, failed.rel, failed.exc)) from (
                failed.exc
            )
        except Exception as exc:
            if not faults.is_warehouse_problem(exc):
                raise
            raise EnvironmentProblem(_stopped(settings, ing.report, None, exc)) from exc
    return ing.report
