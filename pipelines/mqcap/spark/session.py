"""The Spark session the engine builds models in, and the catalog entries dbt's sources need.

``MQCAP_SPARK_MASTER`` (``Settings.spark_master``) picks where the work runs:

- ``local[*]``, ``local[2]``: Spark inside the mqcap process, on this machine's cores;
- ``spark://host:7077``, ``yarn``, ``k8s://https://host:443``: the driver is the mqcap process,
  the executors are the cluster's (client mode); the lake must be a path they all see;
- ``sc://host:15002``: Spark Connect; the driver is the server, mqcap only sends plans.

Locally the catalog lives in the session (in memory): each build registers the sources and makes
every model again, into a folder of its own (``lake/builds/<n>``), so the marts of the last
complete build stay readable until the next one completes. (A Hive metastore on Derby was tried
first: it cannot hold a view's text over 32,672 characters, and int_record_copies is longer.)
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from pathlib import Path

from mqcap import environment

# Schemas dbt-spark writes (generate_schema_name: one per layer) and the sources' schemas.
SCHEMAS = ("landing", "meta", "staging", "intermediate", "marts", "reference")
PRIOR = "mqcap_prior"  # the last complete build's marts, read by an incremental build
SOCKET_TIMEOUT_S = "120"


def is_connect(master: str) -> bool:
    return master.startswith("sc://")


# Spark's own log (the driver JVM's log4j2): to a file, never to mqcap's terminal.
LOG4J = """status = error
appender.file.type = File
appender.file.name = file
appender.file.fileName = {path}
appender.file.append = true
appender.file.layout.type = PatternLayout
appender.file.layout.pattern = %d{{yyyy-MM-dd HH:mm:ss}} %p %c{{1}}: %m%n
rootLogger.level = warn
rootLogger.appenderRef.file.ref = file
"""


def log_options(log_dir: Path) -> str:
    """Java options sending the driver's log to ``<log_dir>/spark.log`` (the configuration is
    written there too)."""
    log_dir.mkdir(parents=True, exist_ok=True)
    config = log_dir / "log4j2.properties"
    config.write_text(LOG4J.format(path=(log_dir / "spark.log").resolve()))
    return f"-Dlog4j2.configurationFile=file:{config.resolve()}"


def spark_session(
    master: str,
    lake: Path,
    build_dir: Path | None = None,
    app: str = "mqcap",
    log_dir: Path | None = None,
):
    """The session (created once per process; dbt-spark's ``method: session`` then finds it).
    ``build_dir``: where the tables dbt makes go (``spark.sql.warehouse.dir``); ``log_dir``:
    where Spark's log goes (``spark.log``; default ``MQCAP_SPARK_LOG_DIR``, which mqcap sets to
    ``<stem>.mqcap/spark``), never to the terminal. Shuffle partitions: ``MQCAP_SPARK_PARTITIONS``,
    else twice the cores the session has when it starts, at least 4.

    Example:
        spark = spark_session("local[2]", Path("/tmp/w.mqcap/lake"))
    """
    if log_dir is None and environment.is_set("MQCAP_SPARK_LOG_DIR"):
        log_dir = Path(environment.text("MQCAP_SPARK_LOG_DIR"))
    from pyspark.sql import SparkSession

    lake = Path(lake).resolve()
    # Results come back to Python through a local socket that the JVM opens and Python must
    # connect to within SPARK_AUTH_SOCKET_TIMEOUT (15 s by default, both sides). On a loaded
    # machine that wait ran out mid-build (the CI's kill chain beside the Spark tests: pyspark
    # then fails with "cannot access local variable 'sockfile'"). Two minutes, both sides.
    os.environ.setdefault("SPARK_AUTH_SOCKET_TIMEOUT", SOCKET_TIMEOUT_S)
    if is_connect(master):
        # Not SPARK_REMOTE in this process's environment: it outlives the session and turns
        # every later session of the process, and of its children, into a Connect client of
        # this server (a test's dbt build after a Connect test failed so). The dbt process
        # sets it for itself (mqcap.spark.dbt), where dbt-spark's cursor needs it.
        return SparkSession.builder.remote(master).appName(app).getOrCreate()
    if master.startswith("local"):
        # The Python workers of a local master are this Python (its packages, mqcap among
        # them): by default Spark starts `python3` from PATH, which may be another environment.
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    builder = (
        SparkSession.builder.master(master)
        .appName(app)
        .config("spark.sql.warehouse.dir", str(build_dir or lake / "builds" / "adhoc"))
        .config("spark.sql.catalogImplementation", "in-memory")
        .config("spark.sql.session.timeZone", "UTC")
        # DuckDB's TIMESTAMP has no zone: so are Spark's timestamps here, literals included.
        .config("spark.sql.timestampType", "TIMESTAMP_NTZ")
        .config("spark.sql.parquet.outputTimestampType", "TIMESTAMP_MICROS")
        .config("spark.sql.ansi.enabled", "false")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")  # mqcap prints its own progress
        .config("spark.python.authenticate.socketTimeout", f"{SOCKET_TIMEOUT_S}s")
        .config("spark.driver.memory", environment.text("MQCAP_SPARK_DRIVER_MEMORY"))
    )
    if log_dir is not None:
        builder = builder.config("spark.driver.extraJavaOptions", log_options(log_dir))
    event_log = environment.text("MQCAP_SPARK_EVENT_LOG")
    if event_log:  # per-task figures (bench/bench_engines.py)
        builder = (
            builder.config("spark.eventLog.enabled", "true")
            .config("spark.eventLog.dir", event_log)
            .config("spark.eventLog.compress", "false")
        )
    with _stderr_into(None if log_dir is None else log_dir / "spark.log"):
        spark = builder.getOrCreate()
    if log_dir is None:
        spark.sparkContext.setLogLevel("ERROR")
    spark.conf.set("spark.sql.shuffle.partitions", shuffle_partitions(spark))
    return spark


@contextlib.contextmanager
def _stderr_into(path: Path | None) -> Iterator[None]:
    """While the JVM starts, this process's stderr (file descriptor 2) is ``path``: the JVM
    inherits it, so what it prints outside log4j (``WARNING: Using incubator modules``) goes
    to the log file for good, and mqcap's own stderr is given back after."""
    if path is None:
        yield
        return
    sys.stderr.flush()
    saved = os.dup(2)
    log = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        os.dup2(log, 2)
        yield
    finally:
        sys.stderr.flush()
        os.dup2(saved, 2)
        os.close(saved)
        os.close(log)


def shuffle_partitions(spark) -> str:
    """``MQCAP_SPARK_PARTITIONS``, else twice the session's cores (default parallelism), at
    least 4: 4 on local[2] as before, and a cluster's cores all used."""
    chosen = environment.whole("MQCAP_SPARK_PARTITIONS")
    if chosen is not None:
        return str(chosen)
    return str(max(4, 2 * spark.sparkContext.defaultParallelism))


def register_sources(spark, lake: Path) -> list[str]:
    """Create the schemas, and one table per landing folder (plus the ledger and the build
    scope) over the lake's Parquet files; tables already known are refreshed (new and removed
    files). Returns the landing tables. The marts of the last complete build (``marts.json``)
    are registered as ``mqcap_prior.<mart>``: an incremental build carries their rows of the
    runs outside its scope (macros/run_scope.sql).

    Dropped and created again each time: they are external (dropping leaves the files), and a
    table's columns come from its files (mergeSchema), never from an older catalog entry."""
    import json

    lake = Path(lake).resolve()
    for schema in (*SCHEMAS, PRIOR):
        spark.sql(f"create database if not exists {schema}")
    tables = []
    folders = [("meta", "ingest_ledger", lake / "meta" / "ingest_ledger")]
    if (lake / "meta" / "build_scope").is_dir():
        folders.append(("meta", "build_scope", lake / "meta" / "build_scope"))
    landing = lake / "landing"
    if landing.is_dir():
        folders += [("landing", p.name, p) for p in sorted(landing.iterdir()) if p.is_dir()]
    try:
        prior = json.loads((lake / "marts.json").read_text())
    except FileNotFoundError:
        prior = {}
    # A folder gone (removed by hand) is not registered: that mart is then made whole.
    folders += [
        (PRIOR, name, Path(where))
        for name, where in sorted(prior.items())
        if any(Path(where).glob("*.parquet"))
    ]
    for schema, table, folder in folders:
        spark.sql(f"drop table if exists {schema}.{table}")
        spark.sql(
            f"create table {schema}.{table} using parquet "
            f"options (mergeSchema 'true') location '{folder}'"
        )
        if schema == "landing":
            tables.append(table)
    return tables
