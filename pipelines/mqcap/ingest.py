"""Land raw files in DuckDB: discover, detect the format, parse, land; the ledger records each.

Guarantees (README "Dropping files" and "Reliability"):
- raw files are only read, never moved or modified, and only inside the raw root;
- a file's rows and its ledger row commit together or not at all: small files land in batches
  (one transaction for many), and a file the batch cannot take is landed (or set aside) on its
  own, so a bad file never costs the others;
- files are hashed, sniffed and parsed by ``settings.jobs`` processes (``mqcap.ingest_pool``)
  while this process alone writes, in the same order whatever the number of jobs;
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

import contextlib
import os
import stat as stat_mod
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import NamedTuple

import duckdb
import pyarrow as pa

from mqcap import duplicates, faults, ingest_pool, warehouse
from mqcap.errors import EnvironmentProblem, InputError, UsageError
from mqcap.ingest_pool import (
    PartError,
    Prefetcher,
    Prepared,
    clear_spool,
    prepare,
    spooled_batches,
)
from mqcap.ledger import files as ledger_files
from mqcap.ledger import schema
from mqcap.ledger.files import Entry, FileLedger, folder_of
from mqcap.ledger.steps import record_event
from mqcap.names import printable, raw_path, relative_name
from mqcap.parsers import all_parsers, parser_for_kind, refusal_hint
from mqcap.parsers import manifest as manifest_mod
from mqcap.parsers.base import (
    OutsideRoot,
    ParseContext,
    Parser,
    ReadRules,
    open_input,
    reading,
    sha256_of,
)
from mqcap.progress import Progress
from mqcap.settings import Settings

# A batch of small files is landed in one transaction up to this many files or rows.
BATCH_FILES = 500
BATCH_ROWS = 200_000

__all__ = ["FileOutcome", "IngestReport", "discover", "ingest", "sha256_of"]


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


def _walk(
    folder: Path, root: Path, unreadable: list[Path] | None, outside: list[Path] | None = None
) -> Iterable[str]:
    """Files under ``folder`` that are not hidden (``.name``, folders pruned) and, when a
    symlink, point inside ``root``; folders that cannot be listed are noted in ``unreadable``
    (their files are neither read nor taken as deleted), links to a file outside ``root`` in
    ``outside`` (never read: ingest says so).

    ``os.scandir`` answers "file or folder" from the directory listing itself, so a walk over
    thousands of files makes no system call per file (only symlinks are resolved); the paths
    stay strings until the batch is sorted (a no-change run over 30,000 files is mostly this).
    """
    stack = [str(folder)]
    while stack:
        here = stack.pop()
        try:
            with os.scandir(here) as it:
                listing = list(it)
        except FileNotFoundError:
            continue
        except OSError as exc:
            if unreadable is not None:
                unreadable.append(Path(exc.filename) if exc.filename else Path(here))
            continue
        for entry in listing:
            if entry.name.startswith("."):
                continue
            try:
                if entry.is_dir(follow_symlinks=False):
                    stack.append(entry.path)
                elif entry.is_file():  # (not a socket, fifo, dangling or folder symlink)
                    if not entry.is_symlink() or Path(entry.path).resolve().is_relative_to(root):
                        yield entry.path
                    elif outside is not None:
                        outside.append(Path(entry.path))
            except OSError:
                continue


def discover(
    settings: Settings,
    paths: Iterable[str | os.PathLike] | None = None,
    unreadable: list[Path] | None = None,
    outside: list[Path] | None = None,
) -> list[Path]:
    """Files to consider: everything under the given paths (default: the raw root).

    Paths outside the raw root (also through symlinks or ``..``) are refused: mqcap reads only
    what was dropped there. Hidden files and folders (``.name``) are ignored. Folders that
    cannot be listed are appended to ``unreadable``, links in the root to a file outside it
    to ``outside``.
    """
    root = settings.raw_root.resolve()
    targets = [Path(p) for p in paths] if paths else [root]
    found: set[str] = set()
    for target in targets:
        full = (target if target.is_absolute() else Path.cwd() / target).resolve()
        if not full.is_relative_to(root):
            raise UsageError(
                f"{printable(target)} is outside the raw root {root}; copy it under the raw root "
                "(or point --raw / MQCAP_RAW at its folder)"
            )
        if not full.exists():
            raise UsageError(f"{printable(target)} does not exist")
        if any(part.startswith(".") for part in full.relative_to(root).parts):
            continue  # hidden, or under a hidden folder
        if full.is_file():
            found.add(str(full))
        else:
            found.update(_walk(full, root, unreadable, outside))
    return [Path(p) for p in sorted(found, key=_order_key)]


def _order_key(path: str) -> tuple[bool, list[str]]:
    """Manifests first, then by path component by component (as ``Path`` orders paths)."""
    parts = path.split("/")
    return (parts[-1].lower() not in manifest_mod.MANIFEST_NAMES, parts)


def _batch_order(p: Path) -> tuple[bool, list[str]]:
    return _order_key(str(p))


OUTSIDE_REASON = "now a link leading outside the raw root (its target is not read)"


def _gone(path: Path, root: Path | None = None) -> str | None:
    """Why the raw file of a ledger entry no longer exists, or None (it does, or we cannot
    tell: a folder we may not enter is not a deletion). A path that now leads outside ``root``
    (a link re-pointed) is gone from the raw root: rows read through it must not stay."""
    if root is not None and not Path(os.path.realpath(path)).is_relative_to(root):
        return OUTSIDE_REASON
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
        self.manifests: dict[Path, tuple[tuple[int, int], dict | BaseException]] = {}
        self.pending: list[_Pending] = []  # files queued for the next batch transaction
        self.pending_rows = 0
        self.prefetch: Prefetcher | None = None
        self.spool: Path | None = None
        self._resolved_root: Path | None = None
        self._rels: dict[Path, str] = {}
        self._settled_stat: dict[Path, os.stat_result] = {}
        self._folders: dict | None = None  # run folders, for the duplicates set aside

    def _root(self) -> Path:
        """The raw root, resolved once per ingest (a no-change run names thousands of files)."""
        if self._resolved_root is None:
            self._resolved_root = self.settings.raw_root.resolve()
        return self._resolved_root

    def rel(self, path: Path) -> str:
        """The stored name of a raw file (computed once per path per ingest)."""
        name = self._rels.get(path)
        if name is None:
            name = self._rels[path] = relative_name(self._root(), path)
        return name

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
        file_id: int | None = None,
        st: os.stat_result | _Seen | None = None,
    ) -> FileOutcome:
        self.flush()  # the files queued before this one commit first
        st = st or path.stat()
        file_id = self.ledger.set_aside(
            rel, sha, st.st_size, st.st_mtime_ns, kind, reason, position, retry, run, file_id
        )
        reason = ledger_files.cap(reason) or ""
        self.progress.log(printable(f"set aside {rel}: {reason}"))
        return FileOutcome(rel, "set_aside", kind, 0, reason, position, file_id, *run)

    def skip(self, rel: str, exc: BaseException) -> None:
        reason = f"{faults.describe(exc)}; not set aside, retried on the next ingest"
        self.progress.log(printable(f"skipped {rel}: {reason}"))
        self.report.outcomes.append(FileOutcome(rel, "skipped", reason=reason))

    def sweep_deleted(self, files: list[Path], seen: set[str]) -> None:
        """Deletions follow the raw folder: entries whose file is gone leave landing.

        ``seen``: the stored names of ``files`` (just listed, so not gone: no stat for them).

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
        for entry in sorted(entries, key=lambda e: e.file_id):  # (in the order they landed)
            if entry.path in seen:
                continue
            why = _gone(raw_path(root, entry.path), root)
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
        st = self._settled_stat.pop(path, None) or path.stat()
        if stat_mod.S_ISDIR(st.st_mode):
            raise IsADirectoryError(21, "Is a directory", str(path))
        settled = prior is not None and (prior.status == "loaded" or not prior.retry)
        if settled and prior.status == "set_aside" and self._original_gone(rel, prior):
            settled = False
        if settled and prior.bytes == st.st_size and prior.mtime_ns == st.st_mtime_ns:
            return False, prior.sha256, prior, st
        # (a large file the prefetcher split was hashed then, by this process: not twice)
        sha = (self.prefetch and self.prefetch.sha256(path, st)) or sha256_of(path)
        if settled and prior.sha256 == sha:
            if prior.mtime_ns != st.st_mtime_ns:  # touched, not changed: remember the new mtime
                self.ledger.touch(prior, st.st_mtime_ns)
            return False, sha, prior, st
        return True, sha, prior, st

    def unchanged(self, rel: str, prior: Entry) -> None:
        """The outcome of a file that is as the ledger has it (loaded, or set aside for good)."""
        set_aside = prior.status == "set_aside"
        self.report.outcomes.append(
            FileOutcome(
                rel,
                "set_aside" if set_aside else "unchanged",
                prior.kind,
                0,
                prior.reason if set_aside else None,
                prior.position if set_aside else None,
                prior.file_id,
                prior.study,
                prior.run_id,
            )
        )

    def process_or_settle(
        self, path: Path, rel: str, folders: dict, pending: dict, only_manifests: bool
    ) -> None:
        """:meth:`process`, or the outcome at once for a file :meth:`settled` stat'ed as the
        ledger has it (most files of a large raw folder, on every run)."""
        if self._settled_stat.pop(path, None) is not None:
            prior = self.ledger.current(rel)
            assert prior is not None
            self.unchanged(rel, prior)
        else:
            self.process(path, folders, pending, only_manifests)

    def settled(self, path: Path, rel: str) -> bool:
        """True when the stat alone says the file is as the ledger has it (no work, no hashing);
        a file that cannot be stat'ed is left to :meth:`process` (it says why). A file set aside
        as a duplicate is settled only while a loaded file of its run still has its content:
        when that one is deleted (swept before this), the duplicate lands."""
        prior = self.ledger.current(rel)
        if prior is None or (prior.status != "loaded" and prior.retry):
            return False
        if prior.status == "set_aside" and self._original_gone(rel, prior):
            return False
        try:
            st = path.stat()
        except OSError:
            return True
        if prior.bytes == st.st_size and prior.mtime_ns == st.st_mtime_ns:
            self._settled_stat[path] = st  # process() takes it (one stat per settled file)
            return True
        return False

    def _original_gone(self, rel: str, prior: Entry) -> bool:
        """``prior`` was set aside as a duplicate, and no loaded file of its run (see
        ``FileLedger.loaded_with_sha``) has its content any more."""
        if not (prior.reason or "").startswith(DUPLICATE_REASON.partition("{")[0]):
            return False
        if self._folders is None:
            self._folders = self.ledger.run_folders()
        folder = folder_of(rel, self._folders)
        run = self._folders[folder] if folder is not None else (None, None)
        return self.ledger.loaded_with_sha(prior.sha256, rel, run) is None

    def prepared(self, path: Path, rel: str, sha: str, st: os.stat_result) -> Prepared:
        """The file hashed, sniffed and parsed: a worker's result when it is of the bytes hashed
        here (same size and sha256), else done here (where an environment error raises)."""
        got = self.prefetch.take(path) if self.prefetch is not None else None
        if got is not None and (got.size, got.sha256) == (st.st_size, sha):
            return got
        if got is not None:
            got.discard()
        return prepare(path, rel, self.spool, self._file_progress(rel))

    def _pool_progress(self, rel: str, done: int) -> None:
        # Bytes of the file being parsed: said in the detail; the count stays whole files.
        self.progress.working(printable(f"{rel} ({done / 1e6:,.0f} MB read)"))

    def _file_progress(self, rel: str):
        return lambda done: self._pool_progress(rel, done)

    def land(
        self,
        path: Path,
        rel: str,
        sha: str,
        st: os.stat_result,
        parser: Parser,
        prior: Entry | None,
        run: tuple[str | None, str | None],
        prep: Prepared,
    ) -> None:
        """Queue the file for the next batch transaction (its outcome is taken when it commits).

        A manifest commits at once: the files of its run folder depend on it.
        """
        self.report.outcomes.append(None)  # type: ignore[arg-type]  # its place, see flush
        self.pending.append(
            _Pending(len(self.report.outcomes) - 1, rel, sha, st, parser, prior, run, prep)
        )
        self.pending_rows += sum(prep.per_table.values())
        spooled = prep.parts is not None or any(isinstance(d, str) for _, d in prep.batches)
        if (
            parser.kind == "manifest"
            or spooled
            or len(self.pending) >= BATCH_FILES
            or self.pending_rows >= BATCH_ROWS
        ):
            self.flush()

    def flush(self) -> None:
        """Land the queued files: one transaction for the batch; when it fails, each file on its
        own (the batch without the bad file), so a file is set aside alone and an environment
        error names the file whose commit it stopped."""
        batch, self.pending, self.pending_rows = self.pending, [], 0
        if not batch:
            return
        try:
            if len(batch) > 1:
                try:
                    self._commit(batch)
                    return
                except Exception:  # rolled back whole: each file again on its own
                    pass
            for item in batch:
                try:
                    self._commit([item])
                except Exception as exc:
                    if faults.is_warehouse_problem(exc):
                        raise _WarehouseFailed(item.rel, exc) from exc
                    if isinstance(exc, KeyboardInterrupt | SystemExit):
                        raise
                    _reraise_environment(exc)
                    if isinstance(exc, PartError):  # bad input in a part of a split file
                        # (alone in its transaction: it keeps the id it took beforehand, see
                        # _commit, as if its whole-file parse had failed before landing)
                        reason, position, file_id = exc.reason, exc.position, item.file_id
                    else:
                        reason, position = f"could not land ({type(exc).__name__}: {exc})", None
                        file_id = None
                    self.report.outcomes[item.index] = self.set_aside(
                        raw_path(self._root(), item.rel),
                        item.rel,
                        item.sha,
                        item.parser.kind,
                        reason,
                        position,
                        file_id=file_id,
                        st=item.st,
                    )
        finally:
            for item in batch:
                item.prep.discard()
            # Files whose commit an environment error stopped have no outcome: not landed.
            self.report.outcomes[:] = [o for o in self.report.outcomes if o is not None]

    def _commit(self, batch: list[_Pending]) -> None:
        """One transaction: every file's rows (per table, the batches held in memory in one
        insert and the spooled ones streamed in another), the superseded versions' rows out, the
        ledger rows in one insert."""
        frames: dict[str, list[pa.Table]] = {}
        spooled: dict[str, tuple[list[str], list[int]]] = {}
        touched: list[set[str]] = []
        # A file landed in parts takes its id in a transaction of its own first: bad input in
        # a part rolls its landing back, and it is then set aside under that id (as if its
        # whole-file parse had failed before landing), which must stay taken after a restart
        # (DuckDB keeps a sequence's use only when the transaction that used it commits).
        streamed = len(batch) == 1 and batch[0].prep.parts is not None
        ids = self.ledger.next_ids(len(batch)) if streamed else []
        with self.ledger.transaction():
            ids = ids or self.ledger.next_ids(len(batch))
            for file_id, item in zip(ids, batch, strict=True):
                item.file_id = file_id
                for table, data in item.prep.all_batches():
                    if isinstance(data, str):
                        paths, file_ids = spooled.setdefault(table, ([], []))
                        paths.append(data)
                        file_ids.append(file_id)
                        continue
                    frames.setdefault(table, []).append(
                        data.append_column(
                            "file_id", pa.repeat(pa.scalar(file_id, pa.int64()), data.num_rows)
                        )
                    )
                changed = set(item.prep.per_table)
                if item.prior is not None:
                    changed |= self.ledger.supersede(item.prior, file_id)
                touched.append(changed)
            for table, parts in frames.items():
                self._insert(table, pa.concat_tables(parts))
            for table, (paths, file_ids) in spooled.items():
                self._insert(table, spooled_batches(paths, file_ids))
            entries = self.ledger.insert_loaded(
                [
                    (
                        file_id,
                        item.rel,
                        item.sha,
                        item.st.st_size,
                        item.st.st_mtime_ns,
                        item.parser.kind,
                        item.run,
                        item.prep.per_table,
                        item.prep.unknown_lines,
                        item.prep.skipped,
                        item.prep.facts,
                    )
                    for file_id, item in zip(ids, batch, strict=True)
                ]
            )
        for file_id, item, entry, changed in zip(ids, batch, entries, touched, strict=True):
            self.ledger.remember(entry)
            replaced = item.prior is not None and item.prior.status == "loaded"
            self.report.outcomes[item.index] = FileOutcome(
                item.rel,
                "replaced" if replaced else "loaded",
                item.parser.kind,
                sum(item.prep.per_table.values()),
                None,
                None,
                file_id,
                *item.run,
                tuple(sorted(changed)),
            )

    def _insert(self, table: str, frame: pa.Table | pa.RecordBatchReader) -> None:
        # Columns named (not "by name"): DuckDB then skips matching names, ~25 % of the insert
        # of a wide SMF table (bench/RESULTS.md); columns a frame lacks stay NULL either way.
        cols = ", ".join(f'"{c}"' for c in frame.schema.names)
        self.con.register("mqcap_batch", frame)
        try:
            self.con.execute(
                f'insert into {warehouse.LANDING}."{table}" ({cols}) select {cols} from mqcap_batch'
            )
        finally:
            self.con.unregister("mqcap_batch")

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
            self.unchanged(rel, prior)
            return
        prep = self.prepared(path, rel, sha, st)
        if prep.sha256 != sha or (prep.size, prep.mtime_ns) != (st.st_size, st.st_mtime_ns):
            # The file changed after it was hashed above: the ledger takes the hash and stat of
            # exactly the bytes that were parsed (prepare reads them once for both).
            sha, st = prep.sha256, _Seen(prep.size, prep.mtime_ns)
            settled = prior is not None and (prior.status == "loaded" or not prior.retry)
            if settled and prior.sha256 == sha and prior.status == "loaded":
                prep.discard()
                if prior.mtime_ns != st.st_mtime_ns:
                    self.ledger.touch(prior, st.st_mtime_ns)
                self.unchanged(rel, prior)
                return
        else:
            st = _Seen(st.st_size, st.st_mtime_ns)
        try:
            self._decide(path, rel, sha, st, prior, prep, folders, pending, only_manifests)
        except BaseException:
            prep.discard()
            raise

    def _decide(
        self,
        path: Path,
        rel: str,
        sha: str,
        st: os.stat_result,
        prior: Entry | None,
        prep: Prepared,
        folders: dict,
        pending: dict,
        only_manifests: bool,
    ) -> None:
        if prep.detect_error is not None:
            self.report.outcomes.append(
                self.set_aside(
                    path,
                    rel,
                    sha,
                    None,
                    f"could not detect the format ({prep.detect_error})",
                    "byte 0",
                    st=st,
                )
            )
            return
        if prep.kind is None:
            reason, position = prep.error or (_unrecognised(path), "byte 0")
            self.report.outcomes.append(
                self.set_aside(path, rel, sha, None, reason, position, retry=prep.retry, st=st)
            )
            return
        parser = parser_for_kind(prep.kind)
        if only_manifests != (parser.kind == "manifest"):
            prep.discard()
            return
        if parser.split is not None and st.st_size >= ingest_pool.SPLIT_BYTES:
            # A file --jobs may land in parts commits on its own, after the files queued before
            # it, whatever --jobs is: so file ids and transactions do not depend on --jobs.
            self.flush()
        folder = folder_of(rel, folders, pending)
        run: tuple[str | None, str | None] = (None, None)
        if parser.kind != "manifest" and folder is not None:
            if folder in folders:
                run = folders[folder]
            else:
                self.report.outcomes.append(
                    self.set_aside(
                        path, rel, sha, parser.kind, pending[folder], None, retry=True, st=st
                    )
                )
                return
        if parser.kind == "manifest":
            problem, declared = self.check_manifest(path, rel)
            run = declared
            if problem is not None:
                self.report.outcomes.append(
                    self.set_aside(path, rel, sha, parser.kind, *problem, st=st)
                )
                return
        duplicate = self.ledger.loaded_with_sha(sha, rel, run) or self._pending_with_sha(
            sha, rel, run
        )
        if duplicate is not None:
            self.report.outcomes.append(
                self.set_aside(
                    path, rel, sha, parser.kind, DUPLICATE_REASON.format(duplicate), None, st=st
                )
            )
            return
        if prep.error is not None:
            reason, position = prep.error
            self.report.outcomes.append(
                self.set_aside(
                    path, rel, sha, parser.kind, reason, position, retry=prep.retry, st=st
                )
            )
            return
        self.land(path, rel, sha, st, parser, prior, run, prep)

    def _pending_with_sha(
        self, sha: str, rel: str, run: tuple[str | None, str | None]
    ) -> str | None:
        """A file queued in this batch with the same content and run (it lands first)."""
        for item in self.pending:
            if item.sha == sha and item.rel != rel and item.run == run:
                return item.rel
        return None

    def check_manifest(
        self, path: Path, rel: str
    ) -> tuple[tuple[str, str | None, bool] | None, tuple[str | None, str | None]]:
        """(problem or None, (study, run)): run ids unique per study, baselines must exist."""
        try:
            m = self._manifest(path, rel)
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
            why = _gone(raw_path(self._root(), other), self._root())
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

    def _manifest(self, path: Path, rel: str) -> dict:
        """A manifest read and validated, once per ingest (the batch's run ids are read first,
        see :meth:`batch_run_ids`); read again if the file changed since."""
        st = path.stat()
        key = (st.st_size, st.st_mtime_ns)
        known = self.manifests.get(path)
        if known is not None and known[0] == key:
            if isinstance(known[1], BaseException):
                raise known[1]
            return known[1]
        m = manifest_mod.load(ParseContext(path=path, source_file=rel))
        self.manifests[path] = (key, m)
        return m

    def batch_run_ids(self, files: list[Path]) -> dict[str, set[str]]:
        """Study -> run ids declared by the manifests among ``files`` (the batch's unsettled
        files: baselines may be among them); each reading is kept for :meth:`check_manifest`."""
        runs: dict[str, set[str]] = {}
        for p in files:
            if p.name.lower() not in manifest_mod.MANIFEST_NAMES:
                continue
            try:
                st = p.stat()
                m = manifest_mod.load(ParseContext(path=p, source_file=self.rel(p)))
            except Exception as exc:  # reported with its reason when the manifest is processed
                if not (faults.is_raw_file_problem(exc) or faults.is_warehouse_problem(exc)):
                    self.manifests[p] = ((st.st_size, st.st_mtime_ns), exc)
                continue
            self.manifests[p] = ((st.st_size, st.st_mtime_ns), m)
            runs.setdefault(m["study"], set()).add(m["run"])
        return runs

    def _executors(self, todo: list[Path]):
        """The Spark executors to parse ``todo`` on (``mqcap.spark.tasks``), or None: the
        engine is DuckDB, ``spark_parse`` is local, or the drop is not worth starting Spark."""
        from mqcap.ingest_pool import _estimated_seconds
        from mqcap.spark.tasks import SparkTaskPool, use_executors

        if not todo or not use_executors(self.settings, _estimated_seconds(todo)):
            return None
        self.progress.log(
            f"starting Spark ({self.settings.spark_master}) to parse {len(todo)} file(s)"
        )
        return SparkTaskPool.start(self.settings)

    # -- the batch ------------------------------------------------------------------------------
    def run(self, files: list[Path]) -> None:
        root = self._root()
        rels = {p: self.rel(p) for p in files}
        # Deletions first: a file set aside as the duplicate of one deleted now lands (settled).
        self.sweep_deleted(files, set(rels.values()))
        # Files set aside for a reason that can go away are retried (those gone are not files).
        retry = [raw_path(root, p) for p in self.ledger.retry_paths()]
        if retry:  # (files come sorted from discover)
            files = sorted(set(files) | {p for p in retry if p.is_file()}, key=_batch_order)
        manifests = [p for p in files if p.name.lower() in manifest_mod.MANIFEST_NAMES]
        is_manifest = set(manifests)
        data = [p for p in files if p not in is_manifest]
        rels.update((p, self.rel(p)) for p in files if p not in rels)
        # Workers start on the files the ledger cannot settle from their stat alone (manifests
        # first: they land first) while this process sweeps deletions (the results are checked
        # on use).
        todo = [p for p in manifests + data if not self.settled(p, rels[p])]
        # Run ids a new manifest may name as its baseline: those of the ledger (loaded runs, see
        # check_manifest) and those declared by the manifests this batch loads (read here, once):
        # a manifest the ledger settles is not read at all (a no-change run reads no YAML).
        self.batch_runs = self.batch_run_ids(todo)
        executors = self._executors(todo)
        self.prefetch = Prefetcher(
            todo, rels, self.settings.jobs, self.spool, self._pool_progress, executors
        )
        with contextlib.ExitStack() as stack:
            if executors is not None:
                stack.enter_context(executors)
            stack.enter_context(self.prefetch)
            self.progress.start("ingest", total=len(files), unit="files")
            for path in manifests:
                self.process_or_settle(path, rels[path], {}, {}, only_manifests=True)
                self.progress.advance(1, printable(path.name))
            folders, pending = self.ledger.run_folders(), self.ledger.pending_manifests()
            # A run-id edit, a manifest added late or deleted: loaded files follow their folder.
            self.ledger.reattribute(folders)
            for path in data:
                self.process_or_settle(path, rels[path], folders, pending, only_manifests=False)
                self.progress.advance(1, printable(path.name))
                stop = executors.failure_stop() if executors is not None else None
                if stop is not None:  # a cluster's task failed: say why, keep what landed
                    self.flush()
                    raise stop
            self.flush()
        self.prefetch = None
        if executors is not None:
            failed = (
                f", {executors.tasks_failed} failed (parsed here; the first: "
                f"{executors.first_failure})"
                if executors.tasks_failed
                else ""
            )
            note = f"parsed as {executors.tasks_run} Spark task(s) on {self.settings.spark_master}{failed}"
            self.progress.log(note)
            self.report.notes.append(note)
        self.report.unattributed = ledger_files.unattributed(self.con)
        record_event(self.con, self.now, "ingest", self.report.summary())


INGEST_MEMORY_LIMIT = "512MB"
DUPLICATE_REASON = "duplicate of {} (same content already loaded)"


class _Seen(NamedTuple):
    """The size and mtime of the bytes a file was read as (what its ledger row records)."""

    st_size: int
    st_mtime_ns: int


@dataclass
class _Pending:
    """A file queued for the next batch transaction; ``index``: its outcome's place."""

    index: int
    rel: str
    sha: str
    st: _Seen
    parser: Parser
    prior: Entry | None
    run: tuple[str | None, str | None]
    prep: Prepared
    file_id: int | None = None  # taken when its transaction starts


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
    with open_input(path, path.name) as fh:  # (beneath the raw root, like every raw read)
        text = fh.read(manifest_mod.MAX_MANIFEST_BYTES).decode(errors="replace")
    for n, line in enumerate(text.splitlines(), start=1):
        if line.startswith(f"{key}:"):
            return n
    return 1


def _unrecognised(path: Path) -> str:
    kinds = ", ".join(p.kind for p in all_parsers())
    hint = refusal_hint(path)
    return f"unrecognised format{f' ({hint})' if hint else ''} (not one of: {kinds})"


def _stopped(settings: Settings, report: IngestReport, rel: str | None, exc: BaseException) -> str:
    first = (str(exc).splitlines() or [type(exc).__name__])[0]
    where = f" while landing {rel}" if rel else ""
    return printable(
        f"the warehouse {settings.warehouse} could not be written{where} "
        f"({type(exc).__name__}: {first}). Nothing was set aside; the {len(report.landed)} "
        "file(s) landed before stay. Free space (or make the warehouse writable) and run the "
        "command again: the rest of the batch is retried."
    )


def _repeated_records(con: duckdb.DuckDBPyConnection, report: IngestReport) -> list[str]:
    """The sentences of ``duplicates.describe_landed``; when the warehouse cannot answer (out of
    memory, say), one note saying so: every file has landed by then, and the build's
    ``fct_duplicate_records`` counts each copy once whether or not ingest described it."""
    try:
        return duplicates.describe_landed(con, report.landed)
    except Exception as exc:
        if not faults.is_warehouse_problem(exc):
            raise
        first = (str(exc).splitlines() or [type(exc).__name__])[0]
        note = (
            f"the new files could not be compared with earlier ones ({type(exc).__name__}: "
            f"{first}); every file landed, and marts.fct_duplicate_records lists the copies"
        )
        report.notes.append(note)
        return [note]


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
    if settings.engine == "spark":  # what the engine needs, before any work (exit 3)
        from mqcap.spark import check_ready

        check_ready(settings.spark_master)
    unreadable: list[Path] = []
    outside: list[Path] = []
    files = discover(settings, paths, unreadable, outside)
    # Every raw file is opened beneath the raw root (a link re-pointed out of it while this
    # runs is refused when opened), and gzip expansion is held to the settings' limits.
    rules = ReadRules(
        root=str(settings.raw_root.resolve()),
        max_expanded_bytes=settings.max_expanded_bytes,
        max_gzip_ratio=settings.max_gzip_ratio,
    )
    with warehouse.connect(settings.warehouse) as con, reading(rules):
        ing = _Ingestor(settings, con, progress)
        # Rows of large files wait here between parsing and landing (one ingest at a time holds
        # the warehouse, so what is here was left by a killed one).
        ing.spool = settings.outputs / "spool"
        clear_spool(ing.spool)
        for folder in unreadable:
            note = f"folder {folder} cannot be listed (permission denied): its files are kept as they are"
            progress.log(printable(note))
            ing.report.notes.append(note)
        for link in outside:  # (never read; said on every ingest while it stays so)
            rel = ing.rel(link)
            ing.skip(rel, OutsideRoot(link, os.path.realpath(link)))
        try:
            schema.ensure(con)
            # DuckDB's own memory (it spills past this, into <warehouse>.tmp/): a large file's
            # rows stream through it, so ingest stays within about 1 GB whatever the file size
            # (bench/RESULTS.md); DuckDB's default is 80 % of the machine.
            con.execute(
                f"set memory_limit = '{INGEST_MEMORY_LIMIT}'"
            )  # (this instance's: closed after)
            ing.run(files)
            # Records the new files repeat from earlier-loaded files: said here, counted once.
            for note in _repeated_records(con, ing.report):
                progress.log(printable(note))
        except _WarehouseFailed as failed:
            if warehouse.damaged(failed.exc):  # (a block of the file is missing: not the disk)
                raise warehouse.damaged_error(settings.warehouse, failed.exc) from None
            raise EnvironmentProblem(_stopped(settings, ing.report, failed.rel, failed.exc)) from (
                failed.exc
            )
        except Exception as exc:
            if not faults.is_warehouse_problem(exc):
                raise
            if warehouse.damaged(exc):
                raise warehouse.damaged_error(settings.warehouse, exc) from None
            raise EnvironmentProblem(_stopped(settings, ing.report, None, exc)) from exc
        finally:
            clear_spool(ing.spool)
    return ing.report
