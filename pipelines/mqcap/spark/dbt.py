"""``python -m mqcap.spark.dbt <dbt args>``: dbt (dbt-spark, ``method: session``) in a Spark session
that knows the lake's tables.

This process is the Spark driver (or, with ``sc://``, a Spark Connect client). It starts the
session from ``MQCAP_SPARK_MASTER`` and ``MQCAP_LAKE``, registers the sources over the lake's
Parquet files, then runs dbt in-process, where dbt-spark's session method finds that session.

dbt-spark submits Python models only to Databricks; here they run in the same session
(``SessionPythonJobHelper``): the model's compiled code, which ends with dbt-spark's own
``saveAsTable``, is executed with ``spark`` bound.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

from mqcap import environment

# How many times a result is read again when the JVM refused the local socket it serves it on.
SOCKET_TRIES = 4


def _python_models_in_session() -> None:
    from dbt.adapters.base import PythonJobHelper
    from dbt.adapters.spark.impl import SparkAdapter

    class SessionPythonJobHelper(PythonJobHelper):
        def __init__(self, parsed_model: dict, credentials) -> None:
            self.name = str(parsed_model.get("alias") or parsed_model.get("name") or "model")

        def submit(self, compiled_code: str) -> None:
            from pyspark.sql import SparkSession

            spark = SparkSession.builder.getOrCreate()
            code = compile(compiled_code, f"<dbt python model {self.name}>", "exec")
            exec(code, {"spark": spark, "__name__": f"dbt_model_{self.name}"})

    helpers = dict(SparkAdapter.python_submission_helpers.fget(None))
    helpers["session"] = SessionPythonJobHelper
    SparkAdapter.python_submission_helpers = property(lambda self: helpers)
    SparkAdapter.default_python_submission_method = property(lambda self: "session")


def lost_result_socket(exc: BaseException) -> bool:
    """True for pyspark's failure to connect to the local socket the JVM serves a result on
    (``CANNOT_OPEN_SOCKET``), also when pyspark 4.3's ``_load_from_socket`` masks it with an
    ``UnboundLocalError`` for ``sockfile`` (its ``finally`` closes a file it never opened)."""
    from pyspark.errors import PySparkRuntimeError

    for e in (exc, exc.__context__):
        if isinstance(e, PySparkRuntimeError) and e.getCondition() == "CANNOT_OPEN_SOCKET":
            return True
    return False


def _reads_retried() -> None:
    """dbt-spark's session cursor reads a result again when the socket was refused.

    Seen twice under a loaded CI machine, in the middle of a build: "[Errno 111] Connection
    refused" from the JVM's result socket for one data test, which then failed the build. The
    statement itself ran in ``execute`` (Spark runs DDL and DML eagerly there); ``fetchall`` and
    ``fetchone`` only collect its result (a query's rows, or a command's output), so reading it
    again changes nothing but the outcome of the read.
    """
    from dbt.adapters.spark.session import Cursor

    def retried(read):
        def wrapper(self):
            for attempt in range(1, SOCKET_TRIES + 1):
                try:
                    return read(self)
                except Exception as exc:
                    if attempt == SOCKET_TRIES or not lost_result_socket(exc):
                        raise
                    print(
                        f"mqcap: Spark's result socket was refused (try {attempt} of "
                        f"{SOCKET_TRIES}); reading the result again",
                        file=sys.stderr,
                        flush=True,
                    )
                    self._rows = None
                    time.sleep(attempt)
            raise AssertionError("unreachable")

        wrapper.mqcap_retried = True
        return wrapper

    for name in ("fetchall", "fetchone"):
        read = getattr(Cursor, name)
        if not getattr(read, "mqcap_retried", False):
            setattr(Cursor, name, retried(read))


def main(argv: list[str] | None = None) -> int:
    from mqcap.spark.lake import new_build_dir
    from mqcap.spark.session import is_connect, register_sources, spark_session

    argv = list(sys.argv[1:] if argv is None else argv)
    master = environment.text("MQCAP_SPARK_MASTER") or "local[*]"
    if not environment.is_set("MQCAP_LAKE"):
        raise SystemExit("mqcap.spark.dbt: MQCAP_LAKE names no lake (mqcap build sets it)")
    lake = Path(environment.text("MQCAP_LAKE"))
    build_dir = Path(environment.text("MQCAP_SPARK_BUILD") or new_build_dir(lake))
    if is_connect(master):
        # dbt-spark's session cursor asks SparkSession.builder for the session: with this set,
        # that is the Connect session (this process only runs dbt, then exits).
        os.environ["SPARK_REMOTE"] = master
    spark = spark_session(master, lake, build_dir)
    register_sources(spark, lake)
    _python_models_in_session()
    _reads_retried()

    from dbt.cli.main import dbtRunner

    from mqcap.spark import carry

    fingerprints = carry.source_fingerprints(lake)
    runner = dbtRunner()
    if argv[:1] == ["build"] and incremental(argv):
        parsed = dbtRunner().invoke(parse_args(argv))
        if not parsed.success:
            print(f"dbt: error: the project could not be parsed: {parsed.exception}", flush=True)
            spark.stop()
            return 2
        nodes, sources = carry.graph_of(parsed.result)
        taken = carry.plan(nodes, sources, carry.read_record(lake), fingerprints)
        carry.register(spark, taken.carried)
        os.environ[carry.UNCHECKED_ENV] = ",".join(taken.unchecked)
        if taken.carried:
            argv += ["--exclude", *taken.exclude()]
        print(f"mqcap: {taken.summary()}", flush=True)
        runner = dbtRunner(manifest=parsed.result)
    result = runner.invoke(argv)
    if result.exception is not None and not result.success:
        print(f"dbt: {type(result.exception).__name__}: {result.exception}", flush=True)
    if result.success:
        try:
            write_locations(spark, lake, fingerprints)
        except Exception as exc:  # the build's own error line, not pyspark's traceback
            first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
            print(f"dbt: error: the marts were built, but their folders could not be read: {first}")
            spark.stop()
            return 2
    spark.stop()
    return 0 if result.success else (2 if result.exception is not None else 1)


def collected(spark, sql: str) -> list:
    """``spark.sql(sql).collect()``, read again when the JVM refused its result socket (as
    dbt-spark's cursor reads are: ``_reads_retried``; a catalog query changes nothing)."""
    for attempt in range(1, SOCKET_TRIES + 1):
        try:
            return spark.sql(sql).collect()
        except Exception as exc:
            if attempt == SOCKET_TRIES or not lost_result_socket(exc):
                raise
            print(
                f"mqcap: Spark's result socket was refused (try {attempt} of {SOCKET_TRIES}); "
                "reading the result again",
                file=sys.stderr,
                flush=True,
            )
            time.sleep(attempt)
    raise AssertionError("unreachable")


def incremental(argv: list[str]) -> bool:
    """True for mqcap's incremental build (``--vars {mqcap_incremental: true}``, mqcap.build):
    the project is the last complete build's, so what did not change can be carried.

    Example:
        >>> incremental(["build", "--vars", "{mqcap_incremental: true}"]), incremental(["build"])
        (True, False)
    """
    import yaml

    for i, arg in enumerate(argv[:-1]):
        if arg == "--vars":
            given = yaml.safe_load(argv[i + 1]) or {}
            if isinstance(given, dict) and given.get("mqcap_incremental") is True:
                return True
    return False


# The schemas dbt writes tables to (staging holds views only).
TABLE_SCHEMAS = ("reference", "intermediate", "marts")


def parse_args(argv: list[str]) -> list[str]:
    """``dbt parse`` with the global settings of a ``dbt build`` command line (its project,
    profiles, target, paths and vars; not its selection).

    Example:
        >>> parse_args(["build", "--vars", "{a: 1}", "--exclude-resource-type", "test",
        ...             "--target", "spark", "--project-dir", "/p"])
        ['parse', '--vars', '{a: 1}', '--target', 'spark', '--project-dir', '/p']
    """
    keep = {"--vars", "--target", "--project-dir", "--profiles-dir", "--target-path", "--log-path"}
    out = ["parse"]
    i = 1
    while i < len(argv):
        if argv[i] in keep and i + 1 < len(argv):
            out += argv[i : i + 2]
            i += 2
        else:
            i += 1
    return out


def write_locations(
    spark, lake: Path, fingerprints: dict[str, str] | None = None
) -> dict[str, str]:
    """``<lake>/marts.json``: each mart table's folder as the catalog has it, for DuckDB to read
    (``mqcap.spark.lake.attach_marts``); and ``<lake>/build.json`` (``mqcap.spark.carry``): every
    table's folder (a carried one's is in an earlier build's folder) with the source
    fingerprints this build read. Written only when the build succeeded: until then the last
    complete build's marts are the ones read."""
    from mqcap.spark import carry

    tables: dict[str, str] = {}
    for schema in TABLE_SCHEMAS:
        for row in collected(spark, f"show tables in {schema}"):
            if row["isTemporary"]:  # an incremental model's <name>__dbt_tmp view, not a mart
                continue
            name = row["tableName"]
            info = collected(spark, f"describe table extended {schema}.{name}")
            where = [r["data_type"] for r in info if r["col_name"] == "Location"]
            kind = [r["data_type"] for r in info if r["col_name"] == "Type"]
            if where and kind != ["VIEW"]:
                tables[f"{schema}.{name}"] = where[0].removeprefix("file:")
    out = {k.split(".", 1)[1]: v for k, v in tables.items() if k.startswith("marts.")}
    tmp = lake / ".marts.json.tmp"
    tmp.write_text(json.dumps(out, indent=1, sort_keys=True))
    os.replace(tmp, lake / "marts.json")
    if fingerprints is not None:
        carry.record(lake, fingerprints, tables)
    return out


if __name__ == "__main__":
    from mqcap.lifeline import die_with_parent

    die_with_parent()  # this process and the JVM it starts end with mqcap
    code = main()
    sys.stdout.flush()
    # The JVM's shutdown is slow and sometimes noisy; everything is written by now.
    os._exit(code)
