"""``mqcap sql``: run a user's SQL on the warehouse in a read-only sandbox.

The sandbox is DuckDB's own: the warehouse is opened read-only, external access is switched off
(no file is read or written, no database attached), extensions are neither installed nor
loaded, and the configuration is then locked so no statement can undo it. What remains:
queries on every schema, temporary tables (in memory), ``describe``/``summarize``/``explain``.
Raw files are not readable either: DuckDB's ``allowed_directories`` would let COPY write into
the raw root too (through ``explain analyze`` or ``prepare``, past any statement check), and
raw files are never modified; their rows are in ``landing.*`` with file and line. Writing
results to a file is mqcap's job (``--format parquet -o FILE``, ``mqcap export``).

Several statements run in order; every statement that returns rows has its result shown
(``--format table``); csv/json/parquet write one table, so there exactly one statement may
return rows.
"""

from __future__ import annotations

import re
import threading
import time
from dataclasses import dataclass

import duckdb
import polars as pl

from mqcap.errors import UsageError

# Statement types whose rows are the answer; others (SET, CREATE TEMP ...) run for their effect.
RESULT_TYPES = {"SELECT", "PRAGMA", "EXPLAIN", "CALL", "ANALYZE"}

SANDBOX_HELP = (
    "mqcap sql is read-only: it reads the warehouse {warehouse} only (raw files' rows are in "
    "landing.*), and never reads or writes another file, attaches a database, installs or loads "
    "an extension, or changes a setting. Write results with `--format csv|json|parquet -o FILE` "
    "or `mqcap export`."
)


@dataclass
class StatementResult:
    """One statement's text and its rows (None when the statement returns no rows)."""

    number: int
    text: str
    frame: pl.DataFrame | None


def sandbox(con: duckdb.DuckDBPyConnection) -> None:
    """Lock ``con`` down: no file access beyond the open warehouse, no extensions, settings frozen.

    Example:
        with warehouse.connect(s.warehouse, read_only=True) as con:
            sandbox(con)
            con.sql("copy marts.dim_run to '/tmp/x.csv'")  # PermissionException
    """
    con.execute("set autoinstall_known_extensions = false")
    con.execute("set autoload_known_extensions = false")
    con.execute("set allow_community_extensions = false")
    con.execute("set enable_external_access = false")
    # Last, so that no statement after it can switch anything back.
    con.execute("set lock_configuration = true")


# Column types polars cannot hold exactly (INTERVAL, UNION; 128-bit integers, which it would
# wrap: a UHUGEINT max came out as -1): DuckDB's own text for them. Nested types holding one, and
# every nested type in CSV (which has no nesting), become JSON text; BLOB in CSV and JSON, text.
_AS_TEXT = {"interval", "union", "hugeint", "uhugeint", "time_tz", "bignum", "varint", "bit"}
_NESTED = {"list", "struct", "map", "array"}
_AS_TEXT_IN_NESTED = re.compile(
    r"\b(INTERVAL|UNION|HUGEINT|UHUGEINT|TIME WITH TIME ZONE|BIGNUM|VARINT|DATE|TIMESTAMP\w*)\b"
)
_BINARY = {"blob"}  # as bytes in tables and Parquet
_WIDE_INTEGERS = {"hugeint", "uhugeint"}
# The dates and times Python (and so polars' conversions) can hold; DuckDB also has 'infinity'
# and years far beyond 9999.
_DAY_RANGE = (-719_162 + 1, 2_932_896 - 1)  # 0001-01-02 .. 9999-12-30
_US_RANGE = (_DAY_RANGE[0] * 86_400_000_000, _DAY_RANGE[1] * 86_400_000_000)
_PER_US = {"ns": 1000, "us": 1, "ms": 0.001}


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _expression(position: int, name: str, kind: str, dtype, fmt: str, as_text: bool) -> str | None:
    """The SQL giving column ``position`` in a form every output format holds; None: as it is."""
    column = f"#{position}"
    if kind in _NESTED and (fmt == "csv" or _AS_TEXT_IN_NESTED.search(str(dtype))):
        return f"cast(to_json({column}) as varchar) as {_quote(name)}"
    if kind in _AS_TEXT or as_text or (fmt in ("csv", "json") and kind in _BINARY):
        return f"cast({column} as varchar) as {_quote(name)}"
    return None


def _project(rel: duckdb.DuckDBPyRelation, fmt: str, as_text: set[int]) -> duckdb.DuckDBPyRelation:
    parts, changed = [], False
    for i, (name, dtype) in enumerate(zip(rel.columns, rel.types, strict=True), 1):
        expr = _expression(i, name, dtype.id, dtype, fmt, i in as_text)
        changed = changed or expr is not None
        parts.append(expr or f"#{i} as {_quote(name)}")
    return rel.project(", ".join(parts)) if changed else rel


def _out_of_range(frame: pl.DataFrame) -> set[int]:
    """Positions (from 1) of date and time columns with values Python cannot hold."""
    found = set()
    for i, dtype in enumerate(frame.dtypes, 1):
        if dtype == pl.Date:
            low, high = _DAY_RANGE
        elif isinstance(dtype, pl.Datetime):
            scale = _PER_US[dtype.time_unit]
            low, high = _US_RANGE[0] * scale, _US_RANGE[1] * scale
        else:
            continue
        values = frame[:, i - 1].to_physical().drop_nulls()
        if not values.is_empty() and (values.min() < low or values.max() > high):
            found.add(i)
    return found


def _wide_integers(frame: pl.DataFrame, rel: duckdb.DuckDBPyRelation) -> pl.DataFrame:
    """128-bit integer columns (given as text) as BIGINT when every value fits, else exact text.

    DuckDB gives sums of integers as HUGEINT: JSON would have them as strings and Parquet as
    decimal(38,0) without this.
    """
    casts = []
    for i, dtype in enumerate(rel.types):
        if dtype.id not in _WIDE_INTEGERS:
            continue
        name = frame.columns[i]
        values = [int(v) for v in frame[:, i].drop_nulls()]
        if all(-(2**63) <= v < 2**63 for v in values):
            casts.append(pl.col(name).cast(pl.Int64))
    return frame.with_columns(casts) if casts else frame


def result_frame(rel: duckdb.DuckDBPyRelation, fmt: str = "table") -> pl.DataFrame:
    """The rows of ``rel`` as a frame every output format ``fmt`` writes exactly.

    Example:
        >>> import duckdb
        >>> con = duckdb.connect()
        >>> rel = con.sql("select 340282366920938463463374607431768211455::uhugeint as u")
        >>> result_frame(rel).item()
        '340282366920938463463374607431768211455'
    """
    projected = _project(rel, fmt, set())
    frame = projected.pl()
    wide = _out_of_range(frame)
    if wide:  # 'infinity' or year 300000: DuckDB's text for them (runs the query again)
        frame = _project(rel, fmt, wide).pl()
    return _wide_integers(frame, rel)


def _failure(exc: duckdb.Error, number: int, count: int, warehouse_path) -> UsageError:
    where = f" (statement {number} of {count})" if count > 1 else ""
    message = str(exc).strip()
    refused = isinstance(exc, duckdb.PermissionException) or (
        "configuration has been locked" in message
        or "read-only mode" in message
        or "Loading external extensions is disabled" in message
    )
    if refused:
        error = UsageError(
            f"refused{where}: {message}\n{SANDBOX_HELP.format(warehouse=warehouse_path)}"
        )
    else:
        # The whole message: DuckDB's hint line ("Did you mean ...") and its caret markers.
        error = UsageError(f"query failed{where}: {message}")
    error.multiline = True
    return error


class QueryCancelled(KeyboardInterrupt):
    """Ctrl-C stopped a statement (DuckDB was told to stop it; nothing was changed)."""


def _settled(con: duckdb.DuckDBPyConnection, wait_s: float = 10.0) -> None:
    """Wait until an interrupted connection takes calls again (DuckDB finishes its own threads
    after the statement has raised; closing it before then fails)."""
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline:
        try:
            con.execute("select 1").fetchall()
            return
        except duckdb.Error:
            time.sleep(0.05)


def _interruptible(con: duckdb.DuckDBPyConnection, work):
    """``work()`` in a thread while this one waits for Ctrl-C: DuckDB runs a query without
    looking at signals, so Ctrl-C is turned into ``con.interrupt()`` here."""
    box: dict = {}

    def target() -> None:
        try:
            box["value"] = work()
        except BaseException as exc:  # handed to the waiting thread
            box["error"] = exc

    thread = threading.Thread(target=target, name="mqcap-sql", daemon=True)
    thread.start()
    try:
        while thread.is_alive():
            thread.join(0.05)
    except KeyboardInterrupt:
        con.interrupt()
        thread.join()
        _settled(con)
        raise QueryCancelled() from None
    if "error" in box:
        if isinstance(box["error"], duckdb.InterruptException):
            _settled(con)
            raise QueryCancelled() from None
        raise box["error"]
    return box["value"]


def run_sql(
    con: duckdb.DuckDBPyConnection, text: str, warehouse_path, fmt: str = "table"
) -> list[StatementResult]:
    """Every statement of ``text`` in order, each with its rows when it returns any (in a form
    output format ``fmt`` writes exactly). Ctrl-C stops the statement: ``QueryCancelled``.

    Example:
        results = run_sql(con, "select 1 as a; select 2 as b", s.warehouse)
        [r.frame.to_dicts() for r in results]  # [[{'a': 1}], [{'b': 2}]]
    """
    try:
        statements = con.extract_statements(text)
    except duckdb.Error as exc:
        raise _failure(exc, 1, 1, warehouse_path) from None
    if not statements:
        raise UsageError("the query has no SQL statement")
    results = []
    for number, statement in enumerate(statements, 1):
        query = statement.query.strip()
        kind = statement.type.name

        def work(query=query, kind=kind):
            rel = con.sql(query)
            return result_frame(rel, fmt) if rel is not None and kind in RESULT_TYPES else None

        try:
            frame = _interruptible(con, work)
        except duckdb.Error as exc:
            raise _failure(exc, number, len(statements), warehouse_path) from None
        except pl.exceptions.PolarsError as exc:
            raise UsageError(
                f"statement {number}: its result cannot be shown ({exc}); "
                "cast the column to varchar"
            ) from None
        results.append(StatementResult(number, query, frame))
    return results


def format_table(frame: pl.DataFrame, max_rows: int = 100) -> str:
    """A result as a boxed text table, at most ``max_rows`` rows (and says how many there are).

    Example:
        print(format_table(pl.DataFrame({"a": [1, 2]})))
    """
    with pl.Config(
        tbl_rows=max_rows,
        tbl_cols=-1,
        fmt_str_lengths=60,
        tbl_width_chars=240,
        tbl_hide_column_data_types=True,
        tbl_hide_dataframe_shape=True,
    ):
        text = str(frame.head(max_rows))
    if frame.height > max_rows:
        text += f"\n({frame.height} rows, {max_rows} shown; --max-rows to see more)"
    return text
