"""The Spark engine (``--engine spark``): the lake, the session, dbt-spark in it (README "Engines")."""

from __future__ import annotations

import importlib.util
import os
import shutil

from mqcap.errors import EnvironmentProblem

NEEDS = (
    "the Spark engine needs the spark extra (`make spark`, or `pip install -e '.[spark]'`: "
    "pyspark, dbt-spark){java}"
)


def check_ready(master: str) -> None:
    """Raise an environment problem (exit 3) saying what is missing, before any work starts:
    pyspark and dbt-spark, and (unless Spark Connect, where the server runs Spark) Java. The
    executors' Python is checked when Spark starts (``mqcap.spark.tasks.SparkTaskPool.start``).

    Example:
        check_ready("local[2]")
    """
    missing = [m for m in ("pyspark", "dbt.adapters.spark") if not _importable(m)]
    java = not master.startswith("sc://") and not (
        shutil.which("java") or os.environ.get("JAVA_HOME")
    )
    if missing or java:
        raise EnvironmentProblem(
            NEEDS.format(java=" and Java 17 (java on PATH or JAVA_HOME)" if java else "")
            if missing
            else "the Spark engine needs Java 17 (java on PATH or JAVA_HOME)"
        )


def _importable(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:
        return False
