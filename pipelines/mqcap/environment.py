"""Every ``MQCAP_`` environment variable mqcap reads, in one place: its name, its default, what
it does, and the one function that reads (and checks) it.

No other module of mqcap reads an ``MQCAP_`` variable from ``os.environ``
(``tests/test_environment.py`` walks the package's code to hold that); modules that start a
child process still *set* variables in the child's environment. ``docs/settings.md`` lists the
same variables (the test compares the two lists). A value that cannot be used (``MQCAP_LOCK_WAIT_S=abc``)
stops the command with a usage error naming the variable and what it takes (exit 2), never a
traceback.

Example:
    from mqcap import environment
    wait_s = environment.seconds("MQCAP_LOCK_WAIT_S")        # 15.0 unless set
    cache = environment.text("MQCAP_DBT_PARSE_CACHE")        # None unless set
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from mqcap.errors import UsageError


@dataclass(frozen=True)
class Variable:
    """One variable: ``default`` is what mqcap uses when it is unset or blank (None: no value,
    the reader decides), ``internal`` marks those mqcap sets for its own children."""

    name: str
    default: str | None
    meaning: str
    internal: bool = False
    kind: str = "text"  # "seconds" or "whole": checked by check() when a command starts


VARIABLES: dict[str, Variable] = {
    v.name: v
    for v in (
        # The settings with a key in mqcap.toml and (some) a flag: mqcap.settings.
        Variable("MQCAP_WAREHOUSE", None, "the DuckDB file (setting `warehouse`)"),
        Variable("MQCAP_RAW", None, "the raw root (setting `raw`)"),
        Variable("MQCAP_REPORTS_OUT", None, "where reports go (setting `reports`)"),
        Variable("MQCAP_JOBS", None, "parse processes (setting `jobs`)"),
        Variable("MQCAP_ENGINE", None, "duckdb or spark (setting `engine`)"),
        Variable("MQCAP_SPARK_MASTER", None, "the Spark master (setting `spark_master`)"),
        Variable("MQCAP_LAKE", None, "the Spark engine's lake (setting `lake`)"),
        Variable("MQCAP_SPARK_PARSE", None, "where Spark parses (setting `spark_parse`)"),
        Variable("MQCAP_MAX_EXPANDED_BYTES", None, "a .gz file's largest expansion"),
        Variable("MQCAP_MAX_GZIP_RATIO", None, "a .gz file's largest expansion ratio"),
        # Settings without a key.
        Variable(
            "MQCAP_LOCK_WAIT_S",
            "15",
            "seconds a step waits for a busy warehouse or build",
            kind="seconds",
        ),
        Variable(
            "MQCAP_PROGRESS_EVERY_S", "5", "seconds between plain progress lines", kind="seconds"
        ),
        Variable("MQCAP_SPARK_DRIVER_MEMORY", "2g", "spark.driver.memory"),
        Variable("MQCAP_SPARK_PARTITIONS", None, "spark.sql.shuffle.partitions", kind="whole"),
        Variable("MQCAP_SPARK_EVENT_LOG", None, "a folder for Spark's event logs"),
        Variable("MQCAP_DBT_PARSE_CACHE", None, "a folder of dbt parses shared by warehouses"),
        Variable("MQCAP_DBT_WARM", "1", "0: start dbt afresh for each dbt command"),
        Variable("MQCAP_RENDER_KEEP", None, "keep the renderer's work folder"),
        Variable("MQCAP_NATIVE", "1", "0: parse every file in Python, no compiled parser"),
        Variable("MQCAP_NATIVE_LIB", None, "the compiled parsers' library to load"),
        # Set by mqcap for its own children.
        Variable("MQCAP_SPARK_LOG_DIR", None, "Spark's log folder", internal=True),
        Variable("MQCAP_SPARK_BUILD", None, "the dbt-spark process's build folder", internal=True),
        Variable(
            "MQCAP_SPARK_UNCHECKED", None, "views whose row checks are skipped", internal=True
        ),
        Variable("MQCAP_PARENT_PID", None, "the mqcap a child dies with", internal=True),
        Variable("MQCAP_DBT_WARM_FD", None, "the warm dbt process's socket", internal=True),
        Variable("MQCAP_VEGA_BUNDLE", None, "where the Vega JavaScript goes", internal=True),
    )
}


def text(name: str) -> str | None:
    """The variable's value, stripped; its default when unset or blank (None when it has none).

    Example:
        text("MQCAP_SPARK_DRIVER_MEMORY")   # '2g' unless set
    """
    variable = VARIABLES[name]  # a KeyError here is a name this module does not declare
    value = os.environ.get(name, "").strip()
    return value or variable.default


def is_set(name: str) -> bool:
    """True when the variable holds a value (not blank)."""
    return bool(os.environ.get(VARIABLES[name].name, "").strip())


def seconds(name: str) -> float:
    """A number of seconds, 0 or more (not infinite).

    Example:
        seconds("MQCAP_LOCK_WAIT_S")   # 15.0 unset; 2.5 for "2.5"; "soon": UsageError
            # "MQCAP_LOCK_WAIT_S must be a number of seconds (0 or more), not 'soon'"
    """
    raw = text(name)
    try:
        value = float(raw)
    except (TypeError, ValueError):
        value = -1.0
    if not value >= 0 or value == float("inf"):
        raise UsageError(f"{name} must be a number of seconds (0 or more), not {raw!r}")
    return value


def whole(name: str) -> int | None:
    """A whole number of 1 or more, or None when unset and without a default.

    Example:
        whole("MQCAP_SPARK_PARTITIONS")   # None unset; 8 for "8"; "0": UsageError
    """
    raw = text(name)
    if raw is None:
        return None
    if not raw.isdigit() or int(raw) < 1:
        raise UsageError(f"{name} must be a whole number of 1 or more, not {raw!r}")
    return int(raw)


def check() -> None:
    """Every variable with a kind read once, so that a value mqcap cannot use stops a command
    as it starts (``Settings.load``), not in the middle of its work or in a child process."""
    for variable in VARIABLES.values():
        if variable.kind == "seconds":
            seconds(variable.name)
        elif variable.kind == "whole":
            whole(variable.name)
