"""Where a file's bytes are hashed, sniffed and parsed: the worker pool, Spark, or the writer.

An ingest hands the files its ledger cannot settle from their stat to ``mqcap.ingest_pool``'s
:class:`Prefetcher` (``--jobs`` processes, or the Spark executors of ``spark_parse``), and takes
each result back in the batch's order. A result counts only for the bytes the writer hashed
(same size and sha256); otherwise, or when a worker met an environment error, the file is
prepared again here, where the error takes its documented course.

Example:
    parsing = Parsing(settings, progress, spool)
    with parsing.start(todo, rels, parsing.executors(todo)):
        prepared = parsing.prepared(path, rel, sha, st)
"""

from __future__ import annotations

import os
from pathlib import Path

from mqcap.ingest_pool import Prefetcher, Prepared, prepare
from mqcap.names import printable
from mqcap.parsers.base import sha256_of
from mqcap.progress import Progress
from mqcap.settings import Settings


class Parsing:
    """The parse side of one ingest: its prefetcher while the batch runs, and its spool.

    ``spool``: the folder where the rows of large files wait between parsing and landing.
    """

    def __init__(self, settings: Settings, progress: Progress, spool: Path | None) -> None:
        self.settings = settings
        self.progress = progress
        self.spool = spool
        self.prefetch: Prefetcher | None = None

    def executors(self, todo: list[Path]):
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

    def start(self, todo: list[Path], rels: dict[Path, str], executors) -> Prefetcher:
        """The prefetcher of ``todo`` (in that order), kept until :meth:`stop`."""
        self.prefetch = Prefetcher(
            todo, rels, self.settings.jobs, self.spool, self._pool_progress, executors
        )
        return self.prefetch

    def stop(self) -> None:
        self.prefetch = None

    def spark_note(self, executors) -> str:
        """What the Spark executors did, for the report's notes."""
        failed = (
            f", {executors.tasks_failed} failed (parsed here; the first: {executors.first_failure})"
            if executors.tasks_failed
            else ""
        )
        return (
            f"parsed as {executors.tasks_run} Spark task(s) on {self.settings.spark_master}{failed}"
        )

    def sha256(self, path: Path, st: os.stat_result) -> str:
        # (a large file the prefetcher split was hashed then, by this process: not twice)
        return (self.prefetch and self.prefetch.sha256(path, st)) or sha256_of(path)

    def prepared(self, path: Path, rel: str, sha: str | None, st: os.stat_result) -> Prepared:
        """The file hashed, sniffed and parsed: a worker's result when it is of the bytes hashed
        here (same size and sha256) or, for a file not hashed here (``sha`` None: new), of the
        file as it is stat'ed here (same size and mtime: the evidence a settled file is taken
        on); else done here (where an environment error raises)."""
        got = self.prefetch.take(path) if self.prefetch is not None else None
        if got is not None and (
            (got.size, got.sha256) == (st.st_size, sha)
            if sha is not None
            else (got.size, got.mtime_ns) == (st.st_size, st.st_mtime_ns)
        ):
            return got
        if got is not None:
            got.discard()
        return prepare(path, rel, self.spool, self._file_progress(rel))

    def _pool_progress(self, rel: str, done: int) -> None:
        # Bytes of the file being parsed: said in the detail; the count stays whole files.
        self.progress.working(printable(f"{rel} ({done / 1e6:,.0f} MB read)"))

    def _file_progress(self, rel: str):
        return lambda done: self._pool_progress(rel, done)
