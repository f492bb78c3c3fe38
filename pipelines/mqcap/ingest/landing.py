"""The writer: every row and ledger row an ingest writes, in the batch's order.

Parsed files queue here (:meth:`Writer.land`) and commit together, one transaction for a batch
of small files (up to ``BATCH_FILES`` files or ``BATCH_ROWS`` rows): each file's rows with its
lineage (``file_id``), the superseded version's rows out, the ledger rows in. When the batch
fails it is rolled back whole and each file commits again on its own, so bad input is set
aside alone (:meth:`Writer.set_aside`) and an environment error names the file whose commit it
stopped (:class:`WarehouseFailed`, which ``ingest`` turns into ``EnvironmentProblem``). A
manifest, a spooled file and a file set aside commit after the files queued before them, so
file ids and transactions follow the batch order whatever ``--jobs`` is.

Example:
    writer = Writer(con, ledger, progress, report, names)
    writer.land(path, rel, sha, st, parser, prior, run, prepared)  # queued
    writer.flush()  # committed, or each file set aside on its own
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

import duckdb

from mqcap import faults, warehouse
from mqcap.arrowcols import repeat_int64
from mqcap.ingest.discovery import RawNames
from mqcap.ingest.report import FileOutcome, IngestReport
from mqcap.ingest_pool import PartError, Prepared, spooled_batches
from mqcap.ledger import files as ledger_files
from mqcap.ledger.files import Entry, FileLedger
from mqcap.names import printable, raw_path
from mqcap.parsers.base import Parser
from mqcap.progress import Progress

if TYPE_CHECKING:  # (pyarrow is imported when rows land: a no-change ingest lands none)
    import pyarrow as pa

# A batch of small files is landed in one transaction up to this many files or rows.
BATCH_FILES = 500
BATCH_ROWS = 200_000


class Seen(NamedTuple):
    """The size and mtime of the bytes a file was read as (what its ledger row records)."""

    st_size: int
    st_mtime_ns: int


@dataclass
class Pending:
    """A file queued for the next batch transaction; ``index``: its outcome's place."""

    index: int
    rel: str
    sha: str
    st: Seen
    parser: Parser
    prior: Entry | None
    run: tuple[str | None, str | None]
    prep: Prepared
    file_id: int | None = None  # taken when its transaction starts


class WarehouseFailed(Exception):
    """Internal: the warehouse failed while landing ``rel`` (turned into EnvironmentProblem)."""

    def __init__(self, rel: str, exc: BaseException) -> None:
        super().__init__(rel)
        self.rel = rel
        self.exc = exc


def reraise_environment(exc: BaseException) -> None:
    if faults.is_warehouse_problem(exc) or faults.is_raw_file_problem(exc):
        raise exc


class Writer:
    """The one writer of an ingest: the queue of parsed files, their commits, the set-asides.

    ``report``: the ingest's report, whose outcomes it fills in (a queued file's outcome keeps
    its place in the batch's order until its transaction commits).
    """

    def __init__(
        self,
        con: duckdb.DuckDBPyConnection,
        ledger: FileLedger,
        progress: Progress,
        report: IngestReport,
        names: RawNames,
    ) -> None:
        self.con = con
        self.ledger = ledger
        self.progress = progress
        self.report = report
        self.names = names
        self.pending: list[Pending] = []  # files queued for the next batch transaction
        self._queued: set[str] = set()  # their paths
        self.pending_rows = 0

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
        st: os.stat_result | Seen | None = None,
    ) -> FileOutcome:
        self.flush()  # the files queued before this one commit first
        st = st or path.stat()
        file_id = self.ledger.set_aside(
            rel, sha, st.st_size, st.st_mtime_ns, kind, reason, position, retry, run, file_id
        )
        reason = ledger_files.cap(reason) or ""
        self.progress.log(printable(f"set aside {rel}: {reason}"))
        return FileOutcome(rel, "set_aside", kind, 0, reason, position, file_id, *run)

    # -- the batch transaction ----------------------------------------------------------------
    def queued_paths(self) -> set[str]:
        """The paths of the files queued in this batch (not yet committed)."""
        return self._queued

    def queued_runs(self) -> dict[str, tuple[str | None, str | None]]:
        """Manifest path -> the (study, run) it declares, for the manifests queued in this
        batch (not yet committed), in the order queued."""
        return {i.rel: i.run for i in self.pending if i.parser.kind == "manifest"}

    def pending_with_sha(
        self, sha: str, rel: str, run: tuple[str | None, str | None]
    ) -> str | None:
        """A file queued in this batch with the same content and run (it lands first)."""
        for item in self.pending:
            if item.sha == sha and item.rel != rel and item.run == run:
                return item.rel
        return None

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

        Manifests are queued like any file (a run of 352 folders committed one manifest at a
        time spent 1.7 s in commits): the ingest flushes after the last manifest, before the
        files of the run folders are attributed (``Ingestor.run``), and a manifest's run id is
        checked against the ones queued (:meth:`queued_runs`).
        """
        self.report.outcomes.append(None)  # type: ignore[arg-type]  # its place, see flush
        self._queued.add(rel)
        self.pending.append(
            Pending(len(self.report.outcomes) - 1, rel, sha, st, parser, prior, run, prep)
        )
        self.pending_rows += sum(prep.per_table.values())
        spooled = prep.parts is not None or any(isinstance(d, str) for _, d in prep.batches)
        if spooled or len(self.pending) >= BATCH_FILES or self.pending_rows >= BATCH_ROWS:
            self.flush()

    def flush(self) -> None:
        """Land the queued files: one transaction for the batch; when it fails, each file on its
        own (the batch without the bad file), so a file is set aside alone and an environment
        error names the file whose commit it stopped."""
        batch, self.pending, self.pending_rows = self.pending, [], 0
        self._queued = set()
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
                        raise WarehouseFailed(item.rel, exc) from exc
                    if isinstance(exc, KeyboardInterrupt | SystemExit):
                        raise
                    reraise_environment(exc)
                    if isinstance(exc, PartError):  # bad input in a part of a split file
                        # (alone in its transaction: it keeps the id it took beforehand, see
                        # _commit, as if its whole-file parse had failed before landing)
                        reason, position, file_id = exc.reason, exc.position, item.file_id
                    else:
                        reason, position = f"could not land ({type(exc).__name__}: {exc})", None
                        file_id = None
                    self.report.outcomes[item.index] = self.set_aside(
                        raw_path(self.names.root(), item.rel),
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

    def _commit(self, batch: list[Pending]) -> None:
        """One transaction: every file's rows (per table, the batches held in memory in one
        insert and the spooled ones streamed in another), the superseded versions' rows out, the
        ledger rows in one insert."""
        import pyarrow as pa

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
                        data.append_column("file_id", repeat_int64(file_id, data.num_rows))
                    )
                changed = set(item.prep.per_table)
                if item.prior is not None:
                    changed |= self.ledger.supersede(item.prior, file_id)
                touched.append(changed)
            for table, parts in frames.items():
                data = pa.concat_tables(parts)
                if len(parts) > 8 and data.num_rows < 4096 * len(parts):
                    # Small files' batches as one chunk: DuckDB's scan of 500 chunks of 20 rows
                    # costs 6-7x that of the same rows in one (the copy is small beside it).
                    data = data.combine_chunks()
                self._insert(table, data)
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
