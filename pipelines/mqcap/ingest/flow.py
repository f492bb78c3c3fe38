"""One ingest's batch, file by file: each concern asked in turn, in the same order every time.

The conductor of ``mqcap.ingest``: :meth:`Ingestor.run` sweeps deletions
(:mod:`~mqcap.ingest.sweep`), lets the ledger settle what it can from the stat alone
(:mod:`~mqcap.ingest.changes`), starts the parse workers on the rest
(:mod:`~mqcap.ingest.parsing`), then takes the manifests and the data files in the batch's
order (:mod:`~mqcap.ingest.discovery`): what needs work is parsed, checked (format, run folder,
manifest: :mod:`~mqcap.ingest.manifests`, duplicate) and handed to the writer
(:mod:`~mqcap.ingest.landing`), or set aside with its reason. An environment error skips a raw
file (retried by the next ingest) or stops the batch (the warehouse), never blames the file.

Example:
    ing = Ingestor(settings, con, Progress(), spool=settings.outputs / "spool")
    ing.run(discover(settings))
    print(ing.report.summary())
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Sequence
from datetime import datetime
from functools import partial
from pathlib import Path

import duckdb

from mqcap import faults, ingest_pool
from mqcap.ingest import sweep
from mqcap.ingest.changes import DUPLICATE_REASON, Changes, unchanged, unchanged_outcomes
from mqcap.ingest.discovery import RawNames, order_key, split_manifests
from mqcap.ingest.landing import Seen, WarehouseFailed, Writer
from mqcap.ingest.manifests import Manifests
from mqcap.ingest.parsing import Parsing
from mqcap.ingest.report import FileOutcome, IngestReport, UnchangedFiles
from mqcap.ingest_pool import Prepared
from mqcap.ledger import files as ledger_files
from mqcap.ledger.files import Entry, FileLedger, folder_of
from mqcap.ledger.steps import record_event
from mqcap.names import printable, raw_path
from mqcap.parsers import all_parsers, parser_for_kind, refusal_hint
from mqcap.progress import Progress
from mqcap.settings import Settings


class Ingestor:
    """One ingest of a batch of raw files into the warehouse ``con``; its outcomes in ``report``.

    ``spool``: the folder where the rows of large files wait between parsing and landing.
    """

    def __init__(
        self,
        settings: Settings,
        con: duckdb.DuckDBPyConnection,
        progress: Progress,
        spool: Path | None = None,
    ):
        self.settings = settings
        self.con = con
        self.progress = progress
        self.report = IngestReport()
        self.now = datetime.now().replace(microsecond=0)
        self.ledger = FileLedger(con, self.now)
        self.names = RawNames(settings.raw_root)
        self.parsing = Parsing(settings, progress, spool)
        self.changes = Changes(self.ledger, self.parsing.sha256)
        self.manifests = Manifests(self.ledger, self.names)
        self.writer = Writer(con, self.ledger, progress, self.report, self.names)

    def rel(self, path: Path | str) -> str:
        """The stored name of a raw file (computed once per path per ingest)."""
        return self.names.rel(path)

    def skip(self, rel: str, exc: BaseException) -> None:
        reason = f"{faults.describe(exc)}; not set aside, retried on the next ingest"
        self.progress.log(printable(f"skipped {rel}: {reason}"))
        self.report.outcomes.append(FileOutcome(rel, "skipped", reason=reason))

    # -- the batch ------------------------------------------------------------------------------
    def run(self, files: Sequence[str | os.PathLike]) -> None:
        """Ingest ``files`` (in :func:`~mqcap.ingest.discovery.order_key` order, as
        ``discover_names`` gives them). Files the ledger settles from their stat stay strings:
        only the files to read become ``Path`` objects."""
        root = self.names.root()
        names = [os.fspath(p) for p in files]
        rels = self.names.rels(names)
        # Deletions first: a file set aside as the duplicate of one deleted now lands (settled).
        sweep.sweep_deleted(
            self.ledger, root, names, set(rels.values()), self.progress, self.report
        )
        # Files set aside for a reason that can go away are retried (those gone are not files).
        retry = [raw_path(root, p) for p in self.ledger.retry_paths()]
        if retry:  # (files come sorted from discover)
            names = sorted(set(names) | {str(p) for p in retry if p.is_file()}, key=order_key)
        manifests, data = split_manifests(names)
        rels.update((n, self.rel(n)) for n in names if n not in rels)
        # Workers start on the files the ledger cannot settle from their stat alone (manifests
        # first: they land first); most files of a large raw folder are settled in bulk.
        ordered = manifests + data
        settled = self.changes.settled_in_bulk(ordered, rels)
        todo = [
            Path(n) for n in ordered if n not in settled and not self.changes.settled(n, rels[n])
        ]
        todo_rels = {p: rels[str(p)] for p in todo}
        # Run ids a new manifest may name as its baseline: those of the ledger (loaded runs, see
        # check_manifest) and those declared by the manifests this batch loads (read here, once):
        # a manifest the ledger settles is not read at all (a no-change run reads no YAML).
        self.manifests.batch_runs = self.manifests.batch_run_ids(todo)
        executors = self.parsing.executors(todo)
        prefetch = self.parsing.start(todo, todo_rels, executors)
        with contextlib.ExitStack() as stack:
            if executors is not None:
                stack.enter_context(executors)
            stack.enter_context(prefetch)
            self.progress.start("ingest", total=len(names), unit="files")
            self.take(manifests, rels, settled, {}, {}, only_manifests=True)
            self.writer.flush()  # the manifests committed: the run folders are read next
            folders, pending = self.ledger.run_folders(), self.ledger.pending_manifests()
            # A run-id edit, a manifest added late or deleted: loaded files follow their folder.
            self.ledger.reattribute(folders)
            self.take(data, rels, settled, folders, pending, False, executors)
            self.writer.flush()
        self.parsing.stop()
        if executors is not None:
            note = self.parsing.spark_note(executors)
            self.progress.log(note)
            self.report.notes.append(note)
        if self.changes.reread:
            note = (
                f"{len(self.changes.reread)} file(s) read again: read by other parser code than "
                "this mqcap's (their rows replaced)"
            )
            self.progress.log(note)
            self.report.notes.append(note)
        self.report.unattributed = ledger_files.unattributed(self.con)
        record_event(self.con, self.now, "ingest", self.report.summary())

    def take(
        self,
        names: list[str],
        rels: dict[str, str],
        settled: dict[str, tuple],
        folders: dict,
        pending: dict,
        only_manifests: bool,
        executors=None,
    ) -> None:
        """Each file of ``names`` in turn: a stretch of files settled in bulk (``settled``, see
        ``Changes.settled_in_bulk``) is reported as one :class:`UnchangedFiles` (their outcomes
        made only when read), every other file goes through :meth:`process_or_settle`.
        ``executors``: a cluster's, whose failed task stops the batch (what landed stays)."""
        start = 0
        for i in [i for i, n in enumerate(names) if n not in settled] + [len(names)]:
            if i > start:
                block = names[start:i]
                make = partial(unchanged_outcomes, block, rels, settled)
                self.report.add_unchanged(UnchangedFiles(len(block), make))
                self.progress.advance(len(block), printable(block[-1].rpartition("/")[2]))
            if i < len(names):
                name = names[i]
                self.process_or_settle(name, rels[name], folders, pending, only_manifests)
                self.progress.advance(1, printable(name.rpartition("/")[2]))
            start = i + 1
            stop = executors.failure_stop() if executors is not None else None
            if stop is not None:  # a cluster's task failed: say why, keep what landed
                self.writer.flush()
                raise stop

    # -- one file -------------------------------------------------------------------------------
    def process_or_settle(
        self, name: str, rel: str, folders: dict, pending: dict, only_manifests: bool
    ) -> None:
        """:meth:`process`, or the outcome at once for a file ``Changes.settled`` stat'ed as the
        ledger has it (most files of a large raw folder, on every run)."""
        standing = self.changes.take_settled(name)
        if standing is not None:
            self.report.outcomes.append(unchanged(rel, standing))
        else:
            self.process(Path(name), folders, pending, only_manifests)

    def process(self, path: Path, folders: dict, pending: dict, only_manifests: bool) -> None:
        """One file; an environment error skips it (raw file) or stops the batch (warehouse)."""
        rel = self.rel(path)
        try:
            self._process(path, rel, folders, pending, only_manifests)
        except Exception as exc:
            if faults.is_warehouse_problem(exc):
                raise WarehouseFailed(rel, exc) from exc
            if faults.is_raw_file_problem(exc):
                self.skip(rel, exc)
                return
            raise

    def _process(
        self, path: Path, rel: str, folders: dict, pending: dict, only_manifests: bool
    ) -> None:
        work, sha, prior, st = self.changes.needs_work(path, rel)
        if not work:
            assert prior is not None
            self.report.outcomes.append(unchanged(rel, prior))
            return
        prep = self.parsing.prepared(path, rel, sha, st)
        if sha is None:  # nothing to compare it with: the hash and stat of the bytes parsed
            sha, st = prep.sha256, Seen(prep.size, prep.mtime_ns)
        elif prep.sha256 != sha or (prep.size, prep.mtime_ns) != (st.st_size, st.st_mtime_ns):
            # The file changed after it was hashed above: the ledger takes the hash and stat of
            # exactly the bytes that were parsed (prepare reads them once for both).
            sha, st = prep.sha256, Seen(prep.size, prep.mtime_ns)
            settled = prior is not None and (prior.status == "loaded" or not prior.retry)
            settled = settled and not self.changes.stale(prior)
            if settled and prior.sha256 == sha and prior.status == "loaded":
                prep.discard()
                if prior.mtime_ns != st.st_mtime_ns:
                    self.ledger.touch(prior, st.st_mtime_ns)
                self.report.outcomes.append(unchanged(rel, prior))
                return
        else:
            st = Seen(st.st_size, st.st_mtime_ns)
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
        st: Seen,
        prior: Entry | None,
        prep: Prepared,
        folders: dict,
        pending: dict,
        only_manifests: bool,
    ) -> None:
        writer = self.writer
        if prep.detect_error is not None:
            self.report.outcomes.append(
                writer.set_aside(
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
                writer.set_aside(path, rel, sha, None, reason, position, retry=prep.retry, st=st)
            )
            return
        parser = parser_for_kind(prep.kind)
        if only_manifests != (parser.kind == "manifest"):
            prep.discard()
            return
        if parser.split is not None and st.st_size >= ingest_pool.SPLIT_BYTES:
            # A file --jobs may land in parts commits on its own, after the files queued before
            # it, whatever --jobs is: so file ids and transactions do not depend on --jobs.
            writer.flush()
        folder = folder_of(rel, folders, pending)
        run: tuple[str | None, str | None] = (None, None)
        if parser.kind != "manifest" and folder is not None:
            if folder in folders:
                run = folders[folder]
            else:
                self.report.outcomes.append(
                    writer.set_aside(
                        path, rel, sha, parser.kind, pending[folder], None, retry=True, st=st
                    )
                )
                return
        if parser.kind == "manifest":
            problem, declared = self.manifests.check_manifest(path, rel, writer.queued_runs())
            run = declared
            if problem is not None:
                self.report.outcomes.append(
                    writer.set_aside(path, rel, sha, parser.kind, *problem, st=st)
                )
                return
        duplicate = self.ledger.loaded_with_sha(
            sha, rel, run, writer.queued_paths()
        ) or writer.pending_with_sha(sha, rel, run)
        if duplicate is not None:
            self.report.outcomes.append(
                writer.set_aside(
                    path, rel, sha, parser.kind, DUPLICATE_REASON.format(duplicate), None, st=st
                )
            )
            return
        if prep.error is not None:
            reason, position = prep.error
            self.report.outcomes.append(
                writer.set_aside(
                    path, rel, sha, parser.kind, reason, position, retry=prep.retry, st=st
                )
            )
            return
        writer.land(path, rel, sha, st, parser, prior, run, prep)


def _unrecognised(path: Path) -> str:
    kinds = ", ".join(p.kind for p in all_parsers())
    hint = refusal_hint(path)
    return f"unrecognised format{f' ({hint})' if hint else ''} (not one of: {kinds})"
