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


def _bigint(rel: duckdb.DuckDBPyRelation) -> pl.DataFrame:
    """The rows, with HUGEINT columns (DuckDB's type for sums of integers) as BIGINT when every
    value fits: JSON would otherwise give them as strings and Parquet as decimal(38,0).
    """
    frame = rel.pl()
    casts = []
    for name, dtype in zip(rel.columns, rel.types, strict=True):
        if str(dtype) in ("HUGEINT", "UHUGEINT"):
            col = frame[name].drop_nulls()
            if col.is_empty() or (col.min() >= -(2**63) and col.max() < 2**63):
                casts.append(pl.col(name).cast(pl.Int64))
    return frame.with_columns(casts) if casts else frame


def _failure(exc: duckdb.Error, number: int, count: int, warehouse_path) -> UsageError:
    where = f" (statement {number} of {count})" if count > 1 else ""
    message = str(exc).strip()
    refused = isinstance(exc, duckdb.PermissionException) or (
        "configuration has been locked" in message
        or "read-only mode" in message
        or "Loading external extensions is disabled" in message
    )
    if refused:
        return UsageError(
            f"refused{where}: {message}\n{SANDBOX_HELP.format(warehouse=warehouse_path)}"
        )
    # The whole message: DuckDB's hint line ("Did you mean ...") and its caret markers.
    return UsageError(f"query failed{where}: {message}")


def run_sql(con: duckdb.DuckDBPyConnection, text: str, warehouse_path) -> list[StatementResult]:
    """Every statement of ``text`` in order, each with its rows when it returns any.

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
        try:
            rel = con.sql(query)
            kind = statement.type.name
            frame = _bigint(rel) if rel is not None and kind in RESULT_TYPES else None
        except duckdb.Error as exc:
            raise _failure(exc, number, len(statements), warehouse_path) from None
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
