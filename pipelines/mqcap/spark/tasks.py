"""Parsing as Spark tasks: with ``--engine spark``, ingest's parsing runs on the executors.

A parser is a function from a file's bytes (or from a record-aligned slice of a large SMF dump) to
typed rows, so the expensive part of ingest maps over the files to load. Ingest keeps its two
other parts in the mqcap process, the Spark driver:

- **planning**: which files need parsing (the ledger settles the others from their stat), how
  small files are grouped and where large dumps are cut (``mqcap.ingest_pool.Prefetcher``);
- **committing**: one DuckDB writer lands each file's rows and its ledger row in one transaction,
  after checking that the result is of the bytes it hashed itself (README "Dropping files").

Each Prefetcher task (a group of small files, or one part of a split dump) becomes one Spark job
of one task, submitted from a driver thread; up to ``2 x cores + 1`` are in flight, and Spark
places them on its executors. A task's result (the Arrow rows, pickled) comes back to the
driver, which takes the results in the batch's order, exactly as it takes worker processes'
results: the ledger, the landing rows and their lineage are those of a local ingest
(``tests/test_spark_engine.py`` compares them). A task that fails (an executor lost, the file
unreadable there) gives no result, and the writer parses that file itself, as it does when a
worker process dies.

What runs where on a cluster: the executors read the raw files by the driver's path (mount the
raw root at the same path on every executor host) and import mqcap (shipped with the session as
a zip of the package; its dependencies, polars and pyarrow, must be in the executors' Python).
Their rows come back in memory; on ``local[N]`` large results go through the spool folder as
with worker processes.

Example:
    with SparkTaskPool.start(settings) as pool:
        future = pool.submit(len, "abc")  # runs as a Spark task; future.result() == 3
"""

from __future__ import annotations

import contextlib
import os
import pickle
import re
import threading
import zipfile
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

from mqcap.errors import EnvironmentProblem

# Starting Spark costs seconds (the JVM, the session): with spark_parse "auto" a drop goes to the
# executors when one process would take at least this long to parse it (its estimate).
AUTO_MIN_SECONDS = 30.0
# A Spark job per task: small files travel in larger groups than to local workers, and a split
# dump's parts are at most PART_MAX_BYTES (a result travels as one value).
GROUP_FILES = 256
GROUP_BYTES = 16 << 20
PART_MAX_BYTES = 64 << 20

# What pyspark sets in the environment when it opens a Spark Connect session.
CONNECT_MARKS = ("SPARK_CONNECT_MODE_ENABLED", "SPARK_REMOTE")

_TASK_SCHEMA = "task binary"
_RESULT_SCHEMA = "result binary"


def run_tasks(batches: Iterator) -> Iterator:
    """On an executor (``mapInArrow``): each row's pickled (function, args), called; the pickled
    result as one row."""
    import pyarrow as pa

    for batch in batches:
        for payload in batch.column(0).to_pylist():
            fn, args = pickle.loads(payload)
            result = pickle.dumps(fn(*args), protocol=pickle.HIGHEST_PROTOCOL)
            yield pa.RecordBatch.from_pydict({"result": [result]})


def probe() -> str:
    """On an executor: import what the parsers need; its Python's version and path."""
    import sys

    import polars  # noqa: F401
    import pyarrow  # noqa: F401

    import mqcap.parsers  # noqa: F401

    return f"Python {sys.version.split()[0]} ({sys.executable})"


_REASON = re.compile(r"^\s*(?:[\w.]+\.)?(\w+(?:Error|Exception|Exit)):?\s?(.*)$")


def failure_reason(exc: BaseException) -> str:
    """The line of a failed Spark task that says why: the last ``SomeError: text`` line of the
    executor's traceback that Spark wraps (a PythonException, a Py4J error), else the first line.

    Example:
        >>> text = "Job aborted.\\nTraceback:\\nModuleNotFoundError: No module named 'x'\\n\\tat org"
        >>> failure_reason(RuntimeError(text))
        "ModuleNotFoundError: No module named 'x'"
    """
    lines = [line.strip() for line in str(exc).replace("\\n", "\n").splitlines() if line.strip()]
    named = [line for line in lines if _REASON.match(line) and not line.startswith("at ")]
    found = named[-1] if named else (lines[0] if lines else type(exc).__name__)
    return found[:300]


PROBE_FAILED = (
    "the Spark executors on {master} cannot run mqcap's parsers: {reason}. Their Python needs "
    "mqcap's dependencies (pyarrow, polars): point PYSPARK_PYTHON at such a Python on every "
    "executor host (the same path), or parse on this machine with MQCAP_SPARK_PARSE=local"
)
TASK_FAILED = (
    "a Spark task failed on {master}: {reason}. The files landed so far stay; fix the executors "
    "and run again, or parse on this machine with MQCAP_SPARK_PARSE=local"
)


def is_local(master: str) -> bool:
    return master.startswith("local")


def use_executors(settings, estimated_seconds: float) -> bool:
    """Whether this ingest parses on Spark: the engine is Spark and ``spark_parse`` says
    ``executors``, or ``auto``, the master is a cluster's and the drop is worth starting Spark
    for. On ``local[N]`` the executors are this machine's cores, which the ``--jobs`` workers
    use without Spark's costs: the 2 GB bench decoded 1.18x slower on local[2] executors than
    with two worker processes (bench/RESULTS.md), so auto parses locally there."""
    if settings.engine != "spark" or settings.spark_parse == "local":
        return False
    if settings.spark_parse == "executors":
        return True
    return not is_local(settings.spark_master) and estimated_seconds >= AUTO_MIN_SECONDS


class SparkTaskPool:
    """A ``concurrent.futures``-style pool (``submit``, ``shutdown``) whose calls run as Spark
    tasks; what ``Prefetcher`` uses in place of its worker processes.

    ``workers``: the cores Spark has (its default parallelism), which sizes the Prefetcher's
    window; ``spool_ok``: whether a task's spool files are visible here (local masters only).
    """

    def __init__(self, spark, workers: int, spool_ok: bool, owned: bool = False) -> None:
        self.spark = spark
        self.workers = max(1, workers)
        self.spool_ok = spool_ok
        self.group_files, self.group_bytes, self.part_max = GROUP_FILES, GROUP_BYTES, PART_MAX_BYTES
        self.tasks_run = 0
        self.tasks_failed = 0
        self.first_failure: str | None = None  # failure_reason() of the first failed task
        self.master = "local"
        self.executor_python = ""
        self._lock = threading.Lock()
        self._owned = owned
        self._marks: dict[str, str | None] = {}  # the environment before the session (start)
        self._threads = ThreadPoolExecutor(2 * self.workers + 1, thread_name_prefix="mqcap-spark")

    @classmethod
    def start(cls, settings) -> SparkTaskPool:
        """A session on ``settings.spark_master`` with mqcap's code shipped to its executors
        (stopped when the pool is)."""
        from mqcap.spark import check_ready
        from mqcap.spark.session import is_connect, spark_session

        check_ready(settings.spark_master)
        marks = {name: os.environ.get(name) for name in CONNECT_MARKS}
        spark = spark_session(
            settings.spark_master,
            settings.lake,
            app="mqcap-ingest",
            log_dir=settings.outputs / "spark",
        )
        master = settings.spark_master
        if not is_local(master):
            ship_code(spark, settings.outputs / "spark", is_connect(master))
        if is_connect(master):
            # A Connect client has no SparkContext: the server's parallelism if it sets one.
            workers = int(spark.conf.get("spark.default.parallelism", None) or settings.jobs)
        else:
            workers = spark.sparkContext.defaultParallelism
        pool = cls(spark, workers, spool_ok=is_local(master), owned=True)
        pool._marks = marks
        pool.master = master
        # Before any file: a task that imports what the parsers need. Without it, executors
        # whose Python lacks pyarrow failed every task and each file was parsed here instead.
        try:
            pool.executor_python = pool.submit(probe).result()
        except Exception as exc:
            pool.shutdown(wait=False, cancel_futures=True)
            raise EnvironmentProblem(
                PROBE_FAILED.format(master=master, reason=failure_reason(exc))
            ) from None
        pool.tasks_run = 0
        return pool

    def failure_stop(self) -> EnvironmentProblem | None:
        """After a task failed on a cluster: the error that stops the ingest (exit 3), naming
        the first failure's reason. None on ``local[N]`` (the executors are this machine: the
        file is parsed here and the note names the reason) and while no task failed."""
        if not self.tasks_failed or is_local(self.master):
            return None
        return EnvironmentProblem(TASK_FAILED.format(master=self.master, reason=self.first_failure))

    def __enter__(self) -> SparkTaskPool:
        return self

    def __exit__(self, *exc) -> None:
        self.shutdown(wait=exc[0] is None, cancel_futures=exc[0] is not None)

    def submit(self, fn: Callable, *args) -> Future:
        payload = pickle.dumps((fn, args), protocol=pickle.HIGHEST_PROTOCOL)
        return self._threads.submit(self._run, payload)

    def _run(self, payload: bytes):
        # One partition: a local list is cut into defaultParallelism slices, and the empty ones
        # were tasks too (520 for 260 calls on local[2] in the 2 GB bench).
        frame = self.spark.createDataFrame([(bytearray(payload),)], _TASK_SCHEMA).coalesce(1)
        try:
            table = frame.mapInArrow(run_tasks, _RESULT_SCHEMA).toArrow()
        except Exception as exc:
            with self._lock:
                self.tasks_failed += 1
                if self.first_failure is None:
                    self.first_failure = failure_reason(exc)
            raise
        with self._lock:
            self.tasks_run += 1
        return pickle.loads(table.column(0)[0].as_py())

    def shutdown(self, wait: bool = True, cancel_futures: bool = False) -> None:
        if cancel_futures:
            # Stopped early: the jobs in flight are not wanted.
            with contextlib.suppress(Exception):
                self.spark.interruptAll()
        self._threads.shutdown(wait=wait, cancel_futures=cancel_futures)
        if self._owned:
            self._owned = False
            with contextlib.suppress(Exception):
                self.spark.stop()
            # pyspark leaves a Connect session's mark in the environment after stop(): every
            # later session of this process, and its children, would be Connect clients.
            for name, value in self._marks.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value


def ship_code(spark, folder: Path, connect: bool) -> Path:
    """mqcap's package as a zip added to the session's Python path (executors import it)."""
    from mqcap.settings import PACKAGE_DIR, SHIPPED_PROJECT

    folder.mkdir(parents=True, exist_ok=True)
    target = folder / "mqcap.zip"
    tmp = folder / f".tmp-{os.getpid()}-mqcap.zip"
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as zf:
        for path in sorted(PACKAGE_DIR.rglob("*")):
            # The code only: an installed package's project (models, samples) stays here.
            if path.is_relative_to(SHIPPED_PROJECT):
                continue
            if path.is_file() and "__pycache__" not in path.parts:
                zf.write(path, Path("mqcap") / path.relative_to(PACKAGE_DIR))
    os.replace(tmp, target)
    if connect:
        spark.addArtifacts(str(target), pyfile=True)
    else:
        spark.sparkContext.addPyFile(str(target))
    return target
