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

import os
import sys
from pathlib import Path

# Schemas dbt-spark writes (generate_schema_name: one per layer) and the sources' schemas.
SCHEMAS = ("landing", "meta", "staging", "intermediate", "marts", "reference")
PRIOR = "mqcap_prior"  # the last complete build's marts, read by an incremental build
SOCKET_TIMEOUT_S = "120"


def is_connect(master: str) -> bool:
    return master.startswith("sc://")


def spark_session(master: str, lake: Path, build_dir: Path | None = None, app: str = "mqcap"):
    """The session (created once per process; dbt-spark's ``method: session`` then finds it).
    ``build_dir``: where the tables dbt makes go (``spark.sql.warehouse.dir``).

    Example:
        spark = spark_session("local[2]", Path("/tmp/w.mqcap/lake"))
    """
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
        .config("spark.sql.shuffle.partitions", os.environ.get("MQCAP_SPARK_PARTITIONS", "4"))
        .config("spark.driver.memory", os.environ.get("MQCAP_SPARK_DRIVER_MEMORY", "2g"))
    )
    if os.environ.get("MQCAP_SPARK_EVENT_LOG"):  # per-task figures (bench/bench_engines.py)
        builder = (
            builder.config("spark.eventLog.enabled", "true")
            .config("spark.eventLog.dir", os.environ["MQCAP_SPARK_EVENT_LOG"])
            .config("spark.eventLog.compress", "false")
        )
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


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
