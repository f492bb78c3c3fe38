"""Parse raw files in parallel, land them from one writer: what ``mqcap ingest --jobs N`` runs.

A parser is a function from a file's bytes to rows, so the expensive part of ingest (hashing,
sniffing the format, parsing, typing the rows) runs in a process pool, while ONE writer (the
ingest process) takes the results in the batch's order and does every DuckDB transaction.
Whatever ``jobs`` is, the writer sees the same :class:`Prepared` results in the same order, so
the ledger, the landing rows and their lineage, set-aside reasons, duplicate messages and
progress lines are those of ``--jobs 1`` (``tests/test_ingest_parallel.py`` checks it).

The writer trusts a worker's result only for the file as it finds it itself: a file with an
earlier version in the ledger it hashes, and takes a result of the same size and sha256; a new
file it stats, and takes a result of the same size and mtime (the worker's hash is of the bytes
it parsed, which the ledger then records). A result that differs (the file changed since), or
a worker that met an environment error (a file vanished or unreadable), is simply redone in
the writer, where the error then takes its documented course (``mqcap.faults``).

A large file whose parser can split it (``Parser.split``: binary SMF dumps) is cut into parts at
record boundaries by the writer (one quick pass) and its parts are parsed by the workers like
files, every batch to the spool. The writer takes the parts in order as they finish
(``Prepared.parts``) and lands each table's spooled batches of the file in one streamed insert,
in the file's one transaction: the file lands as if one process had parsed it (rows, lineage,
counts), and a part's bad input rolls the whole file back and sets it aside with the reason and
position the whole-file parse gives (:class:`PartError`).

Rows of a large file do not travel through memory whole: past ``SPOOL_BYTES`` a file's typed
batches are written as Arrow IPC files in a spool folder beside the warehouse and streamed by
the writer into one insert per table, a batch at a time (:func:`spooled_batches`; the folder is
emptied by every ingest).

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
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from mqcap import faults
from mqcap.arrowcols import repeat_int64
from mqcap.errors import InputError
from mqcap.parsers import detect
from mqcap.parsers.base import (
    ChangedWhileRead,
    GzipLimitError,
    ParseContext,
    ReadRules,
    open_raw,
    pinned,
    read_rules,
    reading,
    sha256_of,
)

if TYPE_CHECKING:  # (pyarrow is imported where rows are spooled or read back)
    import pyarrow as pa

# Typed rows a file may keep in memory before its batches go to the spool folder.
SPOOL_BYTES = 64 << 20
# Files larger than this report progress while they are parsed.
PROGRESS_BYTES = 8 << 20
# Times a file that changes while it is read is read again before it waits for the next ingest.
READ_ATTEMPTS = 3

__all__ = ["Prefetcher", "Prepared", "prepare", "sha256_of"]


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
    retry: bool = False  # the error can go away (a gzip limit raised): retried on every ingest
    batches: list[tuple[str, pa.Table | str]] = field(default_factory=list)
    per_table: dict[str, int] = field(default_factory=dict)
    facts: dict[str, int] = field(default_factory=dict)
    unknown_lines: int = 0
    skipped: dict[str, int] = field(default_factory=dict)
    # A split file's parts, in order, each given as its parse finishes; their rows and counts
    # join this result as ``frames`` reaches them (see the module doc).
    parts: Iterator[Prepared] | None = None

    def all_batches(self) -> Iterable[tuple[str, pa.Table | str]]:
        """(table, rows or the path of their spool file) of each batch, in the parser's order.
        A split file's parts are waited for here; one with bad input raises :class:`PartError`
        (the counts then are those up to its error, as a whole-file parse leaves them)."""
        yield from self.batches
        parts, self.parts = self.parts, None
        for part in iter(parts or ()):
            self.unknown_lines += part.unknown_lines
            for counts, more in ((self.facts, part.facts), (self.skipped, part.skipped)):
                for k, n in more.items():
                    counts[k] = counts.get(k, 0) + n
            if part.error is not None:
                if hasattr(parts, "close"):
                    parts.close()  # the parts after it are not wanted
                raise PartError(*part.error)
            for k, n in part.per_table.items():
                self.per_table[k] = self.per_table.get(k, 0) + n
            self.batches.extend(part.batches)  # (discard() removes their spool files)
            yield from part.batches

    def discard(self) -> None:
        """Remove the spooled batches (landed or not needed); parts not landed are dropped."""
        parts, self.parts = self.parts, None
        if parts is not None and hasattr(parts, "close"):
            parts.close()
        for _, data in self.batches:
            if isinstance(data, str):
                with contextlib.suppress(OSError):
                    os.unlink(data)


def spooled_batches(paths: list[str], extra: list[pa.Array] | None = None) -> pa.RecordBatchReader:
    """The record batches of spool files, one after the other, as one stream (memory: one batch
    at a time). ``extra``: per file, a column value to append to its rows (``file_id``).

    One ``insert ... select`` from this stream lands a table's rows of a whole file: DuckDB
    then writes full row groups as it goes, where many small inserts in one transaction keep
    every row in memory until the commit (bench/RESULTS.md: 4.2 GB for a 1.5 GB SMF dump).
    """
    import pyarrow as pa
    import pyarrow.ipc  # (pa.ipc)

    with pa.memory_map(paths[0]) as source:
        schema = pa.ipc.open_file(source).schema
    if extra is not None:
        schema = schema.append(pa.field("file_id", pa.int64()))

    def batches() -> Iterator[pa.RecordBatch]:
        for i, path in enumerate(paths):
            with pa.memory_map(path) as source:
                reader = pa.ipc.open_file(source)
                for k in range(reader.num_record_batches):
                    batch = reader.get_batch(k)
                    if extra is not None:
                        value = repeat_int64(extra[i], batch.num_rows)
                        batch = pa.RecordBatch.from_arrays([*batch.columns, value], schema=schema)
                    yield batch

    return pa.RecordBatchReader.from_batches(schema, batches())


class PartError(Exception):
    """Bad input in a part of a split file: (reason, position) as the whole-file parse says."""

    def __init__(self, reason: str, position: str | None) -> None:
        super().__init__(reason)
        self.reason, self.position = reason, position


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

    The bytes hashed are exactly the bytes parsed (``mqcap.parsers.base.pinned``: the file is
    opened once, beneath the raw root; a large one whose stat changes during the read is read
    again, up to ``READ_ATTEMPTS`` times, then raises ``ChangedWhileRead``). A gzip file past
    the expansion limits is refused before it is parsed (``error``).
    """
    for _ in range(READ_ATTEMPTS):
        with pinned(path, rel) as pin:
            out = _prepare_pinned(path, rel, pin, spool, on_progress, spool_bytes)
            if not pin.changed():
                return out
            out.discard()
    raise ChangedWhileRead(path)


def _prepare_pinned(path, rel, pin, spool, on_progress, spool_bytes) -> Prepared:
    out = Prepared(pin.size, pin.mtime_ns, pin.sha256)
    try:
        parser = detect(path, path.name)
    except Exception as exc:  # a sniffer bug must not stop the other files of the batch
        _reraise_environment(exc)
        out.detect_error = repr(exc)
        return out
    if pin.refused is not None:  # a decompression bomb: nothing is parsed
        out.kind = parser.kind if parser is not None else None
        out.error = (pin.refused.reason, pin.refused.position or None)
        out.retry = True
        return out
    if parser is None:
        return out
    out.kind = parser.kind
    ctx = ParseContext(
        path=path,
        source_file=rel,
        size=pin.size,
        on_progress=on_progress if on_progress and pin.size > PROGRESS_BYTES else None,
    )
    out = _parse_into(out, parser, ctx, spool, spool_bytes)
    if out.error is None and not out.per_table and pin.size and ctx.nothing_to_land is None:
        out.error = _no_rows(parser, ctx)
    return out


def _no_rows(parser, ctx: ParseContext) -> tuple[str, str]:
    """(reason, position) for a non-empty file its parser read to no row at all: whatever it
    held did not land, so it is set aside rather than loaded as nothing."""
    counted = ctx.unknown_lines + ctx.skipped
    what = ", ".join(f"{n:,} {why}" for why, n in counted.most_common(3))
    return (
        f"no rows: read as {parser.description}, but nothing in it landed"
        + (f" ({what})" if what else ""),
        "line 1" if parser.mode == "text" else "byte 0",
    )


def prepare_part(
    path: Path,
    rel: str,
    kind: str,
    window: object,
    spool: Path | None = None,
    on_progress: Callable[[int], None] | None = None,
    spool_bytes: int | None = None,
) -> Prepared:
    """One part of a split file (``Parser.split``) parsed: rows, counts and error of the part;
    size, mtime and sha256 are the whole file's (``Prepared.parts``)."""
    from mqcap.parsers import parser_for_kind

    parser = parser_for_kind(kind)
    ctx = ParseContext(path=path, source_file=rel, on_progress=on_progress, window=window)
    return _parse_into(Prepared(0, 0, "", kind), parser, ctx, spool, spool_bytes)


def _parse_into(
    out: Prepared,
    parser,
    ctx: ParseContext,
    spool: Path | None,
    spool_bytes: int | None,
) -> Prepared:
    from mqcap.ledger.files import attribution_facts

    held = 0
    spooled = 0
    limit = SPOOL_BYTES if spool_bytes is None else spool_bytes
    try:
        for table_name, rows in parser.parse(ctx):
            data = parser.table(table_name).arrow(rows)
            if data.num_rows == 0:
                continue
            out.per_table[table_name] = out.per_table.get(table_name, 0) + data.num_rows
            for k, n in attribution_facts(table_name, data).items():
                out.facts[k] = out.facts.get(k, 0) + n
            held += data.nbytes
            out.batches.append((table_name, data))
            if spool is not None and held >= limit:
                spooled = _spool(out, spool, spooled)
                held = 0
    except InputError as exc:
        out.discard()
        out.batches, out.per_table = [], {}
        out.error = (exc.reason, exc.position or None)
        out.retry = isinstance(exc, GzipLimitError)
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
    import pyarrow as pa
    import pyarrow.ipc  # (pa.ipc)

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


def _init_worker(progress_queue, owner: int | None = None) -> None:
    global _PROGRESS
    _PROGRESS = progress_queue
    # Ctrl-C is the writer's to handle (it stops the pool): no traceback from every worker.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if owner is not None:
        threading.Thread(target=_end_with, args=(owner,), daemon=True).start()


def _end_with(owner: int, every_s: float = 0.5) -> None:
    """End this worker once the mqcap process that started the pool is gone: killed alone (the
    OOM killer, a SIGKILL to its PID) it cannot stop its pool, whose idle workers would wait
    for work forever."""
    while True:
        time.sleep(every_s)
        try:
            os.kill(owner, 0)
        except ProcessLookupError:
            os._exit(0)
        except PermissionError:  # another user's process took the PID: ours is gone
            os._exit(0)


def _reporter(rel: str, part: int | None = None) -> Callable[[int], None]:
    """Bytes done of a file (or of one of its parts), sent to the writer at most 5 times/s."""
    last = [0.0]

    def report(done: int) -> None:
        now = time.monotonic()
        if _PROGRESS is not None and now - last[0] >= 0.2:
            last[0] = now
            _PROGRESS.put((rel, done, part))

    return report


def _work(
    items: list[tuple[str, str]],
    spool: str | None,
    spool_bytes: int,
    rules: ReadRules | None = None,
) -> list:
    """In a worker: ``prepare`` each (path, rel), or None for a file the environment got in
    the way of (the writer then does it itself and meets the error where the serial path
    meets it). ``rules``: the writer's (the raw root, the gzip limits)."""
    with reading(rules or ReadRules()):
        return _work_items(items, spool, spool_bytes)


def _work_items(items: list[tuple[str, str]], spool: str | None, spool_bytes: int) -> list:
    out: list[Prepared | None] = []
    for path, rel in items:
        try:
            out.append(
                prepare(
                    Path(path), rel, Path(spool) if spool else None, _reporter(rel), spool_bytes
                )
            )
        except Exception as exc:
            if faults.is_warehouse_problem(exc) or faults.is_raw_file_problem(exc):
                out.append(None)
                continue
            raise
    return out


def _work_part(
    path: str,
    rel: str,
    kind: str,
    window: object,
    part: int,
    spool: str | None,
    spool_bytes: int,
    rules: ReadRules | None = None,
) -> list:
    """In a worker: one part of a split file (:func:`prepare_part`), as ``_work`` gives files."""
    try:
        with reading(rules or ReadRules()):
            return [
                prepare_part(
                    Path(path),
                    rel,
                    kind,
                    window,
                    Path(spool) if spool else None,
                    _reporter(rel, part),
                    spool_bytes,
                )
            ]
    except Exception as exc:
        if faults.is_warehouse_problem(exc) or faults.is_raw_file_problem(exc):
            return [None]
        raise


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


@dataclass
class _Split:
    """A file parsed in parts: its stat and sha256 when it was split, its parts (windows) and
    their futures (None until submitted)."""

    kind: str
    size: int
    mtime_ns: int
    sha256: str
    windows: list
    futures: list[Future | None]
    ident: tuple = ()  # (dev, inode, size, mtime, ctime) when split: checked after the parts
    taken: int = 0  # parts given to the writer
    dropped: bool = False  # the rest are not wanted: not submitted, their results removed


class _Parts:
    """A split file's parts for ``Prepared.parts``: iterate to wait for them in order, close to
    drop those not taken."""

    def __init__(self, pre: Prefetcher, path: Path, sp: _Split) -> None:
        self.pre, self.path, self.sp = pre, path, sp

    def __iter__(self) -> Iterator[Prepared]:
        return self.pre._parts(self.path, self.sp)

    def close(self) -> None:
        _drop_parts(self.sp)


def _drop_parts(sp: _Split) -> None:
    """Parts not taken: cancelled, or their results removed when they finish."""
    sp.dropped = True
    for k in range(sp.taken, len(sp.futures)):
        fut = sp.futures[k]
        if fut is not None and not fut.cancel():
            fut.add_done_callback(_discard_results)
        sp.futures[k] = None


def _discard_results(fut: Future) -> None:
    if not fut.cancelled() and fut.exception() is None:
        for result in fut.result():
            if result is not None:
                result.discard()


class Prefetcher:
    """Results of :func:`prepare` for ``paths``, computed ahead by ``jobs`` worker processes
    and taken in order by the writer. Small files travel in groups (one task for up to
    ``GROUP_FILES`` files or ``GROUP_BYTES``), so a drop of many tiny files does not pay a
    round trip per file; a file of ``SPLIT_BYTES`` or more that its parser can split travels
    as parts (about ``PARTS_PER_JOB`` per worker), so one large SMF dump keeps every worker
    busy. With ``jobs`` 1 nothing is prefetched (``take`` returns None and the writer
    prepares each file itself).

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
        executors=None,
    ) -> None:
        self.rels = rels
        self.rules = read_rules()  # the writer's: the workers open files as it does
        # executors: a pool of the same interface that is not this machine's processes
        # (mqcap.spark.tasks.SparkTaskPool); its size and its task sizes replace jobs' and ours.
        self.executors = executors
        if executors is not None:
            jobs = executors.workers
        self.jobs = jobs
        self.spool = spool
        self.on_progress = on_progress
        self.window = 2 * jobs + 1
        if executors is not None:
            worth = bool(paths)
            tasks = _tasks(paths, executors.group_files, executors.group_bytes) if worth else []
        else:
            worth = jobs > 1 and _estimated_seconds(paths) >= POOL_MIN_SECONDS
            tasks = _tasks(paths) if worth else []
        if len(paths) == 1 and tasks and tasks[0][0] == "files":
            tasks = []  # one file that is not split: nothing to do side by side
        self.todo: deque[tuple] = deque(tasks)
        self.where: dict[Path, tuple[Future, int] | _Split] = {}
        self.outstanding: deque[Future] = deque()
        self.part_done: dict[str, dict[int, int]] = {}  # bytes done per part of split files
        self.splits: list[_Split] = []
        self.hashed: dict[Path, tuple[int, int, int, str]] = {}  # split files, hashed here
        self.pool: ProcessPoolExecutor | None = None
        self.queue = None

    def __enter__(self) -> Prefetcher:
        if self.todo and self.executors is not None:
            self.pool = self.executors
            self._fill()
        elif self.todo:
            ctx = _context()
            self.queue = ctx.SimpleQueue()
            units = sum(len(t[1]) if t[0] == "files" else self.jobs for t in self.todo)
            self.pool = ProcessPoolExecutor(
                max_workers=min(self.jobs, units),
                mp_context=ctx,
                initializer=_init_worker,
                initargs=(self.queue, os.getpid()),
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
        futures: set[Future] = set()
        for found in self.where.values():
            if not isinstance(found, _Split):
                futures.add(found[0])
        for sp in self.splits:  # parts not taken (a file not landed, or stopped early)
            futures.update(f for f in sp.futures[sp.taken :] if f is not None)
            sp.dropped = True
        for fut in futures:
            if fut.done():
                _discard_results(fut)
        self.where.clear()

    def _fill(self) -> None:
        assert self.pool is not None
        while self.outstanding and self.outstanding[0].done():
            self.outstanding.popleft()
        spool = str(self.spool) if self.spool else None
        if self.executors is not None and not self.executors.spool_ok:
            spool = None  # the executors' disks: their rows come back in memory
        with _without_main():
            while self.todo and len(self.outstanding) < self.window:
                task = self.todo.popleft()
                if task[0] == "split":
                    self._split(task[1], task[2])
                    continue
                if task[0] == "part":
                    _, path, sp, k = task
                    if sp.dropped:
                        continue
                    fut = self.pool.submit(
                        _work_part,
                        str(path),
                        self.rels[path],
                        sp.kind,
                        sp.windows[k],
                        k,
                        spool,
                        # every batch of a part to the spool: the writer streams a file's
                        # spooled batches per table into one insert, with nothing held
                        0 if spool else SPOOL_BYTES,
                        self.rules,
                    )
                    sp.futures[k] = fut
                    self.outstanding.append(fut)
                    continue
                group = task[1]
                fut = self.pool.submit(
                    _work,
                    [(str(p), self.rels[p]) for p in group],
                    spool,
                    SPOOL_BYTES,  # as the writer has it (tests lower it)
                    self.rules,
                )
                self.outstanding.append(fut)
                for i, p in enumerate(group):
                    self.where[p] = (fut, i)

    def _split(self, path: Path, kind: str) -> None:
        """Cut ``path`` into parts (here, in the writer: one quick pass) and queue them first;
        a file that cannot be split is queued whole, one that cannot be read is left to the
        writer (which meets the error where the serial path meets it)."""
        from mqcap.parsers import parser_for_kind

        try:
            fd = open_raw(path)  # (beneath the raw root)
            try:
                st = os.fstat(fd)
                h, at = hashlib.sha256(), 0
                while chunk := os.pread(fd, 1 << 20, at):
                    h.update(chunk)
                    at += len(chunk)
                sha = h.hexdigest()
            finally:
                os.close(fd)
        except OSError:
            return
        part_bytes = max(PART_MIN_BYTES, st.st_size // (PARTS_PER_JOB * self.jobs))
        if self.executors is not None:
            part_bytes = max(PART_MIN_BYTES, min(part_bytes, self.executors.part_max))
        split = parser_for_kind(kind).split
        windows = split(path, self.rels[path], part_bytes) if split is not None else None
        if not windows:
            self.todo.appendleft(("files", [path]))
            return
        self.hashed[path] = (st.st_size, st.st_mtime_ns, st.st_ino, sha)
        sp = _Split(kind, st.st_size, st.st_mtime_ns, sha, windows, [None] * len(windows))
        sp.ident = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
        self.where[path] = sp
        self.splits.append(sp)
        self.todo.extendleft(("part", path, sp, k) for k in reversed(range(len(windows))))

    def sha256(self, path: Path, st: os.stat_result) -> str | None:
        """The sha256 this (writer) process took of ``path`` when it split it, if the file's
        stat is still the one it had then; else None (hash it)."""
        known = self.hashed.get(path)
        if known is not None and known[:3] == (st.st_size, st.st_mtime_ns, st.st_ino):
            return known[3]
        return None

    def _drain(self) -> None:
        if self.queue is None or self.on_progress is None:
            return
        while not self.queue.empty():
            rel, done, part = self.queue.get()
            if part is not None:
                parts = self.part_done.setdefault(rel, {})
                parts[part] = done
                done = sum(parts.values())
            self.on_progress(rel, done)

    def _result(self, fut: Future) -> list | None:
        """The future's results, progress drained while waiting; None when its worker died
        (killed, out of memory): the writer then redoes the file."""
        while True:
            try:
                return fut.result(timeout=0.2)
            except FutureTimeout:
                self._drain()
            except Exception:
                return None

    def take(self, path: Path) -> Prepared | None:
        """The worker's result for ``path``; None when it was not prefetched or its worker met
        an environment error or crashed."""
        found = self.where.pop(path, None)
        if found is None:
            return None
        if isinstance(found, _Split):
            return Prepared(
                found.size,
                found.mtime_ns,
                found.sha256,
                found.kind,
                parts=_Parts(self, path, found),
            )
        else:
            fut, i = found
            results = self._result(fut)
            result = None if results is None else results[i]
        self._drain()
        if self.pool is not None:
            with contextlib.suppress(RuntimeError):  # the pool broke: the writer does the rest
                self._fill()
        return result

    def _parts(self, path: Path, sp: _Split) -> Iterator[Prepared]:
        """The parts' results in order, each as soon as it is ready; parts not yet submitted (the
        window was full) are submitted as earlier ones finish. A part whose worker died or met an
        environment error is parsed here (where that error then raises)."""
        rel = self.rels[path]
        try:
            for k in range(len(sp.windows)):
                while sp.futures[k] is None and self.pool is not None and not sp.dropped:
                    head = self.outstanding[0] if self.outstanding else None
                    if head is not None:
                        self._result(head)
                    try:
                        self._fill()
                    except RuntimeError:  # the pool broke: the rest are parsed here
                        break
                    if head is None and sp.futures[k] is None:
                        break
                fut = sp.futures[k]
                got = self._result(fut) if fut is not None else None
                part = got[0] if got else None
                if part is None:
                    part = prepare_part(path, rel, sp.kind, sp.windows[k], self.spool)
                sp.taken = k + 1
                if self.pool is not None:
                    with contextlib.suppress(RuntimeError):
                        self._fill()
                yield part
            # The parts were read by name: the file must be the one hashed when it was split.
            fd = open_raw(path)
            try:
                st = os.fstat(fd)
            finally:
                os.close(fd)
            if (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns) != sp.ident:
                raise ChangedWhileRead(path)
        finally:
            self.part_done.pop(rel, None)
            _drop_parts(sp)


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


# A file at least this large whose parser can split it is parsed in parts, each about
# 1 / (PARTS_PER_JOB * jobs) of it and at least PART_MIN_BYTES.
SPLIT_BYTES = 32 << 20
PARTS_PER_JOB = 4
PART_MIN_BYTES = 8 << 20


def _tasks(
    paths: list[Path], group_files: int | None = None, group_bytes: int | None = None
) -> list[tuple]:
    """The workers' tasks, in the paths' order: ``("files", [paths])`` for consecutive small
    files grouped (a large file is a group of its own), ``("split", path, kind)`` for a large
    file its parser can split (cut into parts when the task comes up)."""
    group_files = group_files or GROUP_FILES
    group_bytes = group_bytes or GROUP_BYTES
    tasks: list[tuple] = []
    size = 0
    for p in paths:
        try:
            n = os.stat(p).st_size
        except OSError:
            n = 0
        if n >= SPLIT_BYTES and (kind := _splits(p)) is not None:
            tasks.append(("split", p, kind))
            continue
        group = tasks[-1][1] if tasks and tasks[-1][0] == "files" else None
        if group is None or len(group) >= group_files or size + n > group_bytes:
            group = []
            tasks.append(("files", group))
            size = 0
        group.append(p)
        size += n
    return tasks


def _splits(path: Path) -> str | None:
    """The kind of the file when its parser can split it, else None."""
    try:
        parser = detect(path, path.name)
    except Exception:  # unreadable, or a sniffer bug: prepared whole, where it says why
        return None
    return parser.kind if parser is not None and parser.split is not None else None


def clear_spool(spool: Path) -> None:
    """Remove what an ingest killed half-way left in the spool folder."""
    shutil.rmtree(spool, ignore_errors=True)
