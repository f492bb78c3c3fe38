"""The DuckDB warehouse file: connections, schemas, landing tables, the ingest ledger.

DuckDB allows one writing process at a time. A second writer (a duckdb CLI, DBeaver, another
mqcap) gets :class:`WarehouseBusyError` with what to do, instead of a raw IO error.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

import duckdb

from mqcap import environment, faults
from mqcap.errors import UsageError, WarehouseBusyError, WarehouseDamagedError
from mqcap.parsers import all_tables
from mqcap.parsers.base import Table

LANDING = "landing"
META = "meta"

# The column types of every mart, on both engines (tests/test_sql.py, the engine-parity test):
# whole numbers 64-bit, other numbers double, text, truth values, plain (local or UTC) times.
MART_TYPES = ("VARCHAR", "BIGINT", "DOUBLE", "BOOLEAN", "TIMESTAMP", "DATE")
_WHOLE = {"TINYINT", "SMALLINT", "INTEGER", "BIGINT", "UTINYINT", "USMALLINT", "UINTEGER"}


def mart_type(typ: str) -> str:
    """The marts' type for a DuckDB type: one of ``MART_TYPES``, else ``typ`` unchanged.

    Example:
        >>> [mart_type(t) for t in ("INTEGER", "DECIMAL(3,1)", "FLOAT", "TIMESTAMP_NS", "VARCHAR")]
        ['BIGINT', 'DOUBLE', 'DOUBLE', 'TIMESTAMP', 'VARCHAR']
    """
    if typ in _WHOLE:
        return "BIGINT"
    if typ.startswith("DECIMAL") or typ in ("FLOAT", "REAL", "DOUBLE"):
        return "DOUBLE"
    if typ.startswith("TIMESTAMP"):
        return "TIMESTAMP"
    return typ


BUSY_HELP = (
    "the warehouse {path} is locked by another process{holder}. DuckDB allows one writer at a "
    "time: close the other session (duckdb CLI, DBeaver, another mqcap), or query a copy with "
    "`mqcap sql --warehouse <copy>`, then try again."
)

DAMAGED_HELP = (
    "the warehouse {path} cannot be read: it is damaged or not a DuckDB file ({why}). The raw "
    "files are untouched: move it aside (mv {path} {path}.damaged, and its .wal file if any) "
    "and run `mqcap run` to rebuild it from the raw root."
)
_DAMAGED = faults.DAMAGED_TEXTS  # (DuckDB's words for a file it cannot read)


def damaged(exc: BaseException) -> bool:
    """True when a DuckDB error says the file itself is unreadable (not a query error)."""
    return isinstance(exc, duckdb.Error) and damaged_text(str(exc))


def damaged_text(text: str) -> bool:
    """True when an error text (DuckDB's, or dbt's account of one) says the warehouse file is
    unreadable.

    Example:
        >>> damaged_text('IO Error: Could not read enough bytes from file "w.duckdb"')
        True
    """
    return any(w in text.lower() for w in _DAMAGED)


# DuckDB's file: three 4 KiB headers, then whole blocks (block_size each, 256 KiB by default).
_HEADERS_BYTES = 3 * 4096


# Files found whole although shorter than their header counts: (path, size, block size, blocks).
_COMPLETE: set[tuple[str, int, int, int]] = set()


class _Truncated(duckdb.IOException):
    """The file ends before a block the database uses (raised only inside this module)."""


def check_complete(con: duckdb.DuckDBPyConnection, path: Path) -> None:
    """Raise :class:`WarehouseDamagedError` when the file at ``path`` ends before a block the
    database uses: a truncated file opens, and its missing blocks fail only when a query
    reaches them (or never, if no command reads that table), so it is looked for at open.

    Cheap for a whole file: its size covers every block the header counts. Only a file shorter
    than that (DuckDB itself cuts free blocks off the end) has its tables' blocks looked up
    (``pragma_storage_info``). Bytes past the last block (a write cut by a kill) are harmless.
    """
    try:
        size = path.stat().st_size
    except OSError:
        return
    row = one(
        con,
        """select block_size, total_blocks from pragma_database_size()
           where database_name = current_database()""",
    )
    if row is None or not row[0]:
        return
    block_size, total = int(row[0]), int(row[1])
    if size >= _HEADERS_BYTES + total * block_size:
        return
    seen = (str(path), size, block_size, total)
    if seen in _COMPLETE:  # (looked up already in this process, the file unchanged since)
        return
    names = [
        '"' + schema.replace('"', '""') + '"."' + table.replace('"', '""') + '"'
        for schema, table in con.execute(
            """select schema_name, table_name from duckdb_tables()
               where database_name = current_database()"""
        ).fetchall()
    ]
    used = -1
    # One query for every table (a query per table took 0.2 s of a no-change run at 134 tables).
    for start in range(0, len(names), 200):
        part = names[start : start + 200]
        top = one(
            con,
            "select max(b) from ("
            + " union all ".join(
                "select max(block_id) as b from pragma_storage_info(?) where persistent"
                for _ in part
            )
            + ")",
            part,
        )
        if top and top[0] is not None:
            used = max(used, int(top[0]))
    needed = _HEADERS_BYTES + (used + 1) * block_size
    if size >= needed:
        _COMPLETE.add(seen)
    else:
        raise damaged_error(
            path,
            _Truncated(
                f"the file ends at byte {size:,}, before the end of block {used} "
                f"(byte {needed:,}): truncated"
            ),
        )


def damaged_error(path: Path, exc: BaseException) -> WarehouseDamagedError:
    why = str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__
    return WarehouseDamagedError(DAMAGED_HELP.format(path=path, why=why))


def one(con: duckdb.DuckDBPyConnection, sql: str, params: list | None = None) -> tuple | None:
    """First row of a query or None; the result is read to the end so the connection is free."""
    rows = con.execute(sql, params or []).fetchall()
    return rows[0] if rows else None


def _busy_holder(message: str) -> str:
    match = re.search(r"\(PID (\d+)\)", message)
    return f" (PID {match.group(1)})" if match else ""


@contextmanager
def connect(
    path: Path,
    *,
    read_only: bool = False,
    wait_s: float | None = None,
    on_wait: Callable[[str], None] | None = None,
) -> Iterator[duckdb.DuckDBPyConnection]:
    """A connection to the warehouse, closed on exit; lock conflicts become WarehouseBusyError.

    ``wait_s``: keep trying that long while another process holds the file (the pipeline holds
    it only for short steps, and a report kernel may take a moment to exit); default
    ``MQCAP_LOCK_WAIT_S`` or 15 seconds.

    Example:
        with connect(settings.warehouse, read_only=True, wait_s=30) as con:
            con.sql("select count(*) from landing.driver_results").fetchone()
    """
    if read_only and not path.exists():
        raise UsageError(f"no warehouse at {path}: run `mqcap ingest` or `mqcap run` first")
    path.parent.mkdir(parents=True, exist_ok=True)
    if wait_s is None:
        wait_s = environment.seconds("MQCAP_LOCK_WAIT_S")
    deadline = time.monotonic() + wait_s
    told = False
    while True:
        try:
            con = duckdb.connect(str(path), read_only=read_only)
            break
        except duckdb.Error as exc:
            text = str(exc)
            if damaged(exc):
                raise damaged_error(path, exc) from None
            if not isinstance(exc, duckdb.IOException) or "lock" not in text.lower():
                raise
            if time.monotonic() >= deadline:
                raise WarehouseBusyError(
                    BUSY_HELP.format(path=path, holder=_busy_holder(text))
                ) from None
            if on_wait is not None and not told:
                on_wait(f"waiting for the warehouse, held by another process{_busy_holder(text)}")
                told = True
            time.sleep(0.25)
    try:
        check_complete(con, path)
    except BaseException:
        con.close()
        raise
    try:
        yield con
    except duckdb.Error as exc:
        # Damage found only when a block is read (a truncated file opens, its tables do not).
        if damaged(exc):
            raise damaged_error(path, exc) from None
        raise
    finally:
        con.close()


def table_ddl(table: Table) -> str:
    cols = ",\n    ".join(f'"{c}" {t}' for c, t in table.columns.items())
    return f'create table if not exists {LANDING}."{table.name}" (\n    file_id bigint not null,\n    {cols}\n)'


def ensure_landing(con: duckdb.DuckDBPyConnection) -> None:
    """Create every parser's landing table; add the columns new parser versions declare. (The
    ``meta`` tables are mqcap.ledger.schema's.)

    Every landing table exists even before a file of its kind arrives, so dbt sources always resolve.
    """
    con.execute(f"create schema if not exists {LANDING}")
    # (one transaction: 44 tables created one commit each cost a new warehouse 20 ms more)
    con.begin()
    try:
        _ensure_landing_tables(con)
        con.commit()
    except BaseException:
        with suppress(duckdb.TransactionException):
            con.rollback()
        raise


def _ensure_landing_tables(con: duckdb.DuckDBPyConnection) -> None:
    existing: dict[str, set[str]] = {}
    for name, col in con.execute(
        "select table_name, column_name from information_schema.columns where table_schema = ?",
        [LANDING],
    ).fetchall():
        existing.setdefault(name, set()).add(col)
    for table in all_tables():
        if table.name not in existing:
            con.execute(table_ddl(table))
            continue
        for col, typ in table.columns.items():
            if col not in existing[table.name]:
                con.execute(f'alter table {LANDING}."{table.name}" add column "{col}" {typ}')
