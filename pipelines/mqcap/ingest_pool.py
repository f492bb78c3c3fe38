"""Parse raw files in parallel, land them from one writer: what ``mqcap ingest --jobs N`` runs.

A parser is a function from a file's bytes to rows, so the expensive part of ingest (hashing,
sniffing the format, parsing, typing the rows) runs in a process pool, while ONE writer (the
ingest process) takes the results in the batch's order and does every DuckDB transaction.
Whatever ``jobs`` is, the writer sees the same :class:`Prepared` results in the same order, so
the ledger, the landing rows and their lineage, set-aside reasons, duplicate messages and
progress lines are those of ``--jobs 1`` (``tests/test_ingest_parallel.py`` checks it).

The writer trusts a worker's result only for the bytes it hashed itself: it hashes the file,
and a result whose size or sha256 differs (the file changed since), or a worker that met an
environment error (a file vanished or unreadable), is simply redone in the writer, where the
error then takes its documented course (``mqcap.faults``).

Rows of a large file do not travel through memory whole: past ``SPOOL_BYTES`` a file's typed
batches are written as Arrow IPC files in a spool folder beside the warehouse and read back one
at a time by the writer (the folder is emptied by every ingest).

Example:
    with Prefetcher(paths, jobs=2, spool=spool_dir) as pre:
        for path in paths:
            prepared = pre.take(path)  # None: not prefetched or failed; prepare() in the writer
"""

from __future__ import annotations

import contextlib
import hashlib
import multiprocessing as mp
import os
import shutil
import signal
import stat as stat_mod
import sys
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow as pa
import pyarrow.ipc

from mqcap import faults
from mqcap.errors import InputError
from mqcap.parsers import detect
from mqcap.parsers.base import ParseContext

# Typed rows a file may keep in memory before its batches go to the spool folder.
SPOOL_BYTES = 64 << 20
# Files larger than this report progress while they are parsed.
PROGRESS_BYTES = 8 << 20


def sha256_of(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        while chunk := fh.read(1 << 20):
            h.update(chunk)
    return h.hexdigest()


@dataclass
class Prepared:
    """A file hashed, sniffed and parsed, ready for the writer to land (or set aside).

    ``batches``: (landing table, typed Arrow table or the path of a spooled Arrow IPC file),
    in the parser's order (Arrow: what DuckDB inserts from, converted where the parsing is). ``error``: (reason, position) of bad input, the file to be set aside.
    ``facts``: counts the ledger's attribution needs (``mqcap.ledger.files.attribution_facts``).
    """

    size: int
    mtime_ns: int
    sha256: str
    kind: str | None = None
    detect_error: str | None = None
    error: tuple[str, str | None] | None = None
    batches: list[tuple[str, pa.Table | str]] = field(default_factory=list)
    per_table: dict[str, int] = field(default_factory=dict)
    facts: dict[str, int] = field(default_factory=dict)
    unknown_lines: int = 0
    skipped: dict[str, int] = field(default_factory=dict)

    def frames(self) -> Iterable[tuple[str, pa.Table, bool]]:
        """(table, rows, spooled) of each batch; spooled batches are read back one at a time."""
        for table, data in self.batches:
            if isinstance(data, pa.Table):
                yield table, data, False
            else:
                with pa.memory_map(data) as source:
                    yield table, pa.ipc.open_file(source).read_all(), True

    def discard(self) -> None:
        """Remove the spooled batches (landed or not needed)."""
        for _, data in self.batches:
            if isinstance(data, str):
                with contextlib.suppress(OSError):
                    os.unlink(data)


def prepare(
    path: Path,
    rel: str,
    spool: Path | None = None,
    on_progress: Callable[[int], None] | None = None,
    spool_bytes: int | None = None,
) -> Prepared:
    """Hash, sniff and parse one file. Bad input is a result (``error``); an environment error
    (the file vanished, a folder now, unreadable) raises.

    Example:
        p = prepare(Path("data/raw/attls/r1/results.csv"), "attls/r1/results.csv")
        p.kind, p.per_table  # 'driver_csv', {'driver_results': 1}
    """
    st = os.stat(path)
    if stat_mod.S_ISDIR(st.st_mode):
        raise IsADirectoryError(21, "Is a directory", str(path))
    out = Prepared(st.st_size, st.st_mtime_ns, sha256_of(path))
    try:
        parser = detect(path, path.name)
    except Exception as exc:  # a sniffer bug must not stop the other files of the batch
        _reraise_environment(exc)
        out.detect_error = repr(exc)
        return out
    if parser is None:
        return out
    out.kind = parser.kind
    ctx = ParseContext(
        path=path,
        source_file=rel,
        size=st.st_size,
        on_progress=on_progress if on_progress and st.st_size > PROGRESS_BYTES else None,
    )
    from mqcap.ledger.files import attribution_facts

    held = 0
    spooled = 0
    limit = SPOOL_BYTES if spool_bytes is None else spool_bytes
    try:
        for table_name, rows in parser.parse(ctx):
            frame = parser.table(table_name).frame(rows)
            if frame.height == 0:
                continue
            out.per_table[table_name] = out.per_table.get(table_name, 0) + frame.height
            for k, n in attribution_facts(table_name, frame).items():
                out.facts[k] = out.facts.get(k, 0) + n
            held += frame.estimated_size()
            out.batches.append((table_name, frame.to_arrow()))
            if spool is not None and held >= limit:
                spooled = _spool(out, spool, spooled)
                held = 0
    except InputError as exc:
        out.discard()
        out.batches, out.per_table = [], {}
        out.error = (exc.reason, exc.position or None)
    except Exception as exc:
        # A parser bug (e.g. csv.Error on an over-long field) or a type the landing table
        # refuses: never half-land, never crash the whole batch; the file waits with the reason.
        _reraise_environment(exc)
        out.discard()
        out.batches, out.per_table = [], {}
        out.error = (f"could not land ({type(exc).__name__}: {exc})", None)
    out.unknown_lines = sum(ctx.unknown_lines.values())
    out.skipped = dict(ctx.skipped)
    return out


def _spool(out: Prepared, spool: Path, n: int) -> int:
    """Write the frames ``out`` holds to Arrow IPC files in ``spool``; returns the count."""
    spool.mkdir(parents=True, exist_ok=True)
    for i, (table, data) in enumerate(out.batches):
        if isinstance(data, pa.Table):
            target = spool / f"{os.getpid()}-{time.monotonic_ns()}-{n}.arrow"
            with pa.OSFile(str(target), "wb") as sink, pa.ipc.new_file(sink, data.schema) as w:
                w.write_table(data)
            out.batches[i] = (table, str(target))
            n += 1
    return n


def _reraise_environment(exc: BaseException) -> None:
    if faults.is_warehouse_problem(exc) or faults.is_raw_file_problem(exc):
        raise exc


# -- the pool -------------------------------------------------------------------------------------
_PROGRESS: mp.SimpleQueue | None = None


def _init_worker(progress_queue) -> None:
    global _PROGRESS
    _PROGRESS = progress_queue
    # Ctrl-C is the writer's to handle (it stops the pool): no traceback from every worker.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _work(items: list[tuple[str, str]], spool: str | None, spool_bytes: int) -> list:
    """In a worker: ``prepare`` each (path, rel), or None for a file the environment got in
    the way of (the writer then does it itself and meets the error where the serial path
    meets it)."""
    out: list[Prepared | None] = []
    for path, rel in items:
        last = [0.0]

        def report(done: int, rel: str = rel, last: list = last) -> None:
            now = time.monotonic()
            if _PROGRESS is not None and now - last[0] >= 0.2:
                last[0] = now
                _PROGRESS.put((rel, done))

        try:
            out.append(
                prepare(Path(path), rel, Path(spool) if spool else None, report, spool_bytes)
            )
        except Exception as exc:
            if faults.is_warehouse_problem(exc) or faults.is_raw_file_problem(exc):
                out.append(None)
                continue
            raise
    return out


def _context():
    methods = mp.get_all_start_methods()
    if "forkserver" in methods:
        ctx = mp.get_context("forkserver")
        # The workers fork from a server that imported the parsers once.
        ctx.set_forkserver_preload(["mqcap.parsers", "mqcap.ingest_pool"])
        return ctx
    return mp.get_context("spawn")


@contextlib.contextmanager
def _without_main() -> Iterator[None]:
    """Workers start without re-running the caller's main script (they need only this
    module), so a script without an ``if __name__ == "__main__"`` guard may call ingest."""
    main = sys.modules.get("__main__")
    saved = {k: main.__dict__[k] for k in ("__file__", "__spec__") if main and k in main.__dict__}
    try:
        for k in saved:
            if k == "__spec__":
                main.__spec__ = None  # type: ignore[union-attr]
            else:
                del main.__dict__[k]  # type: ignore[union-attr]
        yield
    finally:
        if main is not None:
            main.__dict__.update(saved)


class Prefetcher:
    """Results of :func:`prepare` for ``paths``, computed ahead by ``jobs`` worker processes
    and taken in order by the writer. Small files travel in groups (one task for up to
    ``GROUP_FILES`` files or ``GROUP_BYTES``), so a drop of many tiny files does not pay a
    round trip per file. With ``jobs`` 1 nothing is prefetched (``take`` returns None and the
    writer prepares each file itself).

    Example:
        with Prefetcher(paths, rels, 2, spool, progress_update) as pre:
            pre.take(paths[0])
    """

    def __init__(
        self,
        paths: list[Path],
        rels: dict[Path, str],
        jobs: int,
        spool: Path | None,
        on_progress: Callable[[str, int], None] | None = None,
    ) -> None:
        self.rels = rels
        self.jobs = jobs
        self.spool = spool
        self.on_progress = on_progress
        self.window = 2 * jobs + 1
        worth = jobs > 1 and len(paths) > 1 and _estimated_seconds(paths) >= POOL_MIN_SECONDS
        self.todo: deque[list[Path]] = deque(_groups(paths) if worth else [])
        self.where: dict[Path, tuple[Future, int]] = {}
        self.outstanding: deque[Future] = deque()
        self.submitted = 0  # files given to the workers
        self.pool: ProcessPoolExecutor | None = None
        self.queue = None

    def __enter__(self) -> Prefetcher:
        if self.todo:
            ctx = _context()
            self.queue = ctx.SimpleQueue()
            self.pool = ProcessPoolExecutor(
                max_workers=min(self.jobs, sum(len(g) for g in self.todo)),
                mp_context=ctx,
                initializer=_init_worker,
                initargs=(self.queue,),
            )
            self._fill()
        return self

    def __exit__(self, *exc) -> None:
        if self.pool is not None:
            # Stopped early (Ctrl-C, a full disk): the workers' files are not wanted; stop them
            # now rather than let them finish a large file nobody will land.
            workers = list((getattr(self.pool, "_processes", None) or {}).values())
            self.pool.shutdown(wait=exc[0] is None, cancel_futures=True)
            if exc[0] is not None:
                for proc in workers:
                    with contextlib.suppress(Exception):
                        proc.terminate()
            self.pool = None
        for fut in {f for f, _ in self.where.values()}:
            if fut.done() and not fut.cancelled() and fut.exception() is None:
                for result in fut.result():
                    if result is not None:
                        result.discard()
        self.where.clear()

    def _fill(self) -> None:
        assert self.pool is not None
        while self.outstanding and self.outstanding[0].done():
            self.outstanding.popleft()
        with _without_main():
            while self.todo and len(self.outstanding) < self.window:
                group = self.todo.popleft()
                fut = self.pool.submit(
                    _work,
                    [(str(p), self.rels[p]) for p in group],
                    str(self.spool) if self.spool else None,
                    SPOOL_BYTES,  # as the writer has it (tests lower it)
                )
                self.outstanding.append(fut)
                for i, p in enumerate(group):
                    self.where[p] = (fut, i)
                self.submitted += len(group)

    def _drain(self) -> None:
        if self.queue is None or self.on_progress is None:
            return
        while not self.queue.empty():
            rel, done = self.queue.get()
            self.on_progress(rel, done)

    def take(self, path: Path) -> Prepared | None:
        """The worker's result for ``path``; None when it was not prefetched or its worker met
        an environment error or crashed."""
        found = self.where.pop(path, None)
        if found is None:
            return None
        fut, i = found
        while True:
            try:
                result = fut.result(timeout=0.2)[i]
                break
            except FutureTimeout:
                self._drain()
            except Exception:  # a worker died (killed, out of memory): the writer redoes it
                result = None
                break
        self._drain()
        if self.pool is not None:
            with contextlib.suppress(RuntimeError):  # the pool broke: the writer does the rest
                self._fill()
        return result


GROUP_FILES = 32
GROUP_BYTES = 1 << 20
# Starting the workers costs about half a second: a drop that one process prepares in less
# than POOL_MIN_SECONDS (estimated from its files and bytes) is prepared by the writer alone.
POOL_MIN_SECONDS = 1.0
_SECONDS_PER_FILE = 0.0015
_SECONDS_PER_BYTE = 1 / 40e6


def _estimated_seconds(paths: list[Path]) -> float:
    total = 0
    for p in paths:
        with contextlib.suppress(OSError):
            total += os.stat(p).st_size
    return len(paths) * _SECONDS_PER_FILE + total * _SECONDS_PER_BYTE


def _groups(paths: list[Path]) -> list[list[Path]]:
    """Consecutive paths in groups of small files (a large file is a group of its own)."""
    groups: list[list[Path]] = []
    size = 0
    for p in paths:
        try:
            n = os.stat(p).st_size
        except OSError:
            n = 0
        if not groups or len(groups[-1]) >= GROUP_FILES or size + n > GROUP_BYTES:
            groups.append([])
            size = 0
        groups[-1].append(p)
        size += n
    return groups


def clear_spool(spool: Path) -> None:
    """Remove what an ingest killed half-way left in the spool folder."""
    shutil.rmtree(spool, ignore_errors=True)
