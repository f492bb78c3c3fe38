"""The Spark engine's lake: the landing tables and the ledger as Parquet, the marts copied back.

Layout under ``settings.lake`` (``<stem>.mqcap/lake`` unless ``MQCAP_LAKE`` says otherwise)::

    landing/<table>/g<a>-<b>-r<rows>.parquet     the rows of the loaded file versions a..b
    landing/<table>/schema.parquet               no rows: the table's columns
    meta/ingest_ledger/ledger.parquet            the ledger, whole
    meta/build_scope/build_scope.parquet         the runs an incremental build recomputes, whole
    builds/<n>/<schema>.db/<model>/              what one dbt-spark build wrote (its tables)
    marts.json                                   the marts of the last complete build

The marts of the last complete build are copied into the warehouse as tables (``attach_marts``).

How exactly-once holds on this engine. Ingest is unchanged: a file's rows and its ledger row
commit in one DuckDB transaction, so the warehouse's ledger stays the one commit point. The lake
is a projection of it, computed again from what exists each time (``sync``). Each Parquet file
of a table holds the rows of the loaded versions with ids a..b (its name says a, b and the row
count); a sync writes one file per table for the versions no file covers (file ids only grow, so
a sync after an ingest adds one file per table it touched, whatever the number of raw files). A
file whose range no longer has its row count (a version deleted, replaced, set aside) is removed
and its range's remaining versions written again. Files are written to a hidden name and renamed
into place (a reader sees the whole file or none). A kill at any point leaves whole files only,
and the next sync finishes the job; ranges never overlap, so no version is in the lake twice.
"""

from __future__ import annotations

import os
import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field
from pathlib import Path

import duckdb

from mqcap import warehouse
from mqcap.ledger.files import copy_ledger
from mqcap.ledger.steps import scope_runs

# DuckDB types Spark cannot read from Parquet, and what they travel as.
_AS_TEXT = {"TIME"}
SCHEMA_FILE = "schema.parquet"
FILE_NAME = re.compile(r"^g(\d+)-(\d+)-r(\d+)\.parquet$")


@dataclass
class SyncReport:
    written: int = 0  # parquet files written (file versions x tables)
    removed: int = 0
    kept: int = 0
    tables: list[str] = field(default_factory=list)

    def summary(self) -> str:
        return (
            f"lake: {self.written} file(s) written, {self.removed} removed, {self.kept} "
            f"unchanged, over {len(self.tables)} landing table(s)"
        )


def landing_dir(lake: Path, table: str) -> Path:
    return lake / "landing" / table


def _select_list(con: duckdb.DuckDBPyConnection, schema: str, table: str) -> str:
    cols = con.execute(
        "select column_name, data_type from information_schema.columns "
        "where table_schema = ? and table_name = ? order by ordinal_position",
        [schema, table],
    ).fetchall()
    return ", ".join(
        f'cast("{c}" as varchar) as "{c}"' if t in _AS_TEXT else f'"{c}"' for c, t in cols
    )


def _quote(path: Path) -> str:
    return "'" + str(path).replace("'", "''") + "'"


def sync(con: duckdb.DuckDBPyConnection, lake: Path) -> SyncReport:
    """Make the lake's landing and ledger what the warehouse holds now (see the module doc).

    Example:
        with warehouse.connect(settings.warehouse, read_only=True) as con:
            print(sync(con, settings.lake).summary())
    """
    report = SyncReport()
    tables = [
        t
        for (t,) in con.execute(
            "select table_name from information_schema.tables "
            "where table_schema = ? order by table_name",
            [warehouse.LANDING],
        ).fetchall()
    ]
    report.tables = tables
    for table in tables:
        _sync_table(con, lake, table, report)
    ledger = lake / "meta" / "ingest_ledger"
    ledger.mkdir(parents=True, exist_ok=True)
    copy_ledger(con, lambda sql: _copy(con, sql, ledger / "ledger.parquet"))
    # The build scope (mqcap.ledger.scope): read by an incremental dbt-spark build (macros/run_scope.sql).
    scope = lake / "meta" / "build_scope"
    scope.mkdir(parents=True, exist_ok=True)
    _copy(con, scope_runs(con), scope / "build_scope.parquet")
    return report


def _sync_table(con, lake: Path, table: str, report: SyncReport) -> None:
    folder = landing_dir(lake, table)
    folder.mkdir(parents=True, exist_ok=True)
    # The rows each loaded version has in this table (a table's rows come only from loaded
    # versions: ingest removes the rows of a version it replaces or finds deleted).
    want = dict(
        con.execute(
            f"select file_id, count(*) from {warehouse.LANDING}.{table} group by 1"
        ).fetchall()
    )
    ids = sorted(want)
    kept: list[tuple[int, int]] = []
    for entry in os.scandir(folder):
        m = FILE_NAME.match(entry.name)
        if not m:
            if entry.name.startswith(".tmp-"):  # a write a kill interrupted
                os.unlink(entry.path)
            elif entry.name != SCHEMA_FILE and not entry.name.startswith((".", "_")):
                # Spark reads every file here: one not of this layout (another version's, a
                # copy) would count its rows again.
                os.unlink(entry.path)
                report.removed += 1
            continue
        low, high, rows = (int(g) for g in m.groups())
        have = sum(want[i] for i in ids[bisect_left(ids, low) : bisect_right(ids, high)])
        overlaps = any(low <= h and k <= high for k, h in kept)
        if have == rows and rows > 0 and not overlaps:
            kept.append((low, high))
        else:  # a version of the range is gone (deleted, replaced): written again below
            os.unlink(entry.path)
            report.removed += 1
    report.kept += len(kept)
    cols = _select_list(con, warehouse.LANDING, table)
    # No rows, its columns: a table never dropped still has a schema to read, and one that
    # gained a column has it here (the sources read the folder with mergeSchema).
    _copy(con, f"select {cols} from {warehouse.LANDING}.{table} limit 0", folder / SCHEMA_FILE)
    for low, high in _new_ranges(ids, sorted(kept)):
        rows = sum(want[i] for i in ids[bisect_left(ids, low) : bisect_right(ids, high)])
        _copy(
            con,
            f"select {cols} from {warehouse.LANDING}.{table} "
            f"where file_id between {int(low)} and {int(high)}",
            folder / f"g{low}-{high}-r{rows}.parquet",
        )
        report.written += 1


def _new_ranges(ids: list[int], kept: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The loaded ids no kept file covers, as ranges that cross no kept range (a range's file
    then holds exactly those versions).

    Example:
        >>> _new_ranges([1, 2, 3, 5, 8, 9], [(3, 4)])
        [(1, 2), (5, 9)]
    """
    out: list[tuple[int, int]] = []
    bounds = [low for low, _ in kept]
    for i in ids:
        if any(low <= i <= high for low, high in kept):
            continue
        if out:
            low, high = out[-1]
            # Extend the open range unless a kept range starts between its end and i.
            if not any(high < b < i for b in bounds):
                out[-1] = (low, i)
                continue
        out.append((i, i))
    return out


def _copy(con, query: str, target: Path) -> None:
    """``COPY (query) TO target`` through a hidden name and a rename (whole file or none)."""
    tmp = target.parent / f".tmp-{target.name}"
    con.execute(f"copy ({query}) to {_quote(tmp)} (format parquet)")
    os.replace(tmp, target)


def attach_marts(con: duckdb.DuckDBPyConnection, lake: Path) -> list[str]:
    """Copy each mart Spark wrote (the Parquet folders ``mqcap.spark.dbt`` wrote to
    ``<lake>/marts.json``) into the warehouse as a table of its own, in one transaction, with
    the marts' column types (``warehouse.mart_type``: Spark's int and decimal become BIGINT and
    DOUBLE, as the DuckDB engine's marts have them). The DuckDB file then holds everything a
    reader needs: the checks, the reports, ``mqcap sql``/``shell``/``compare``/``export`` read
    it in their sandbox (no file access) as they read a DuckDB-built warehouse. Marts no longer
    listed are dropped (and a view a release before this one made over the lake).
    """
    import json

    locations = json.loads((lake / "marts.json").read_text())
    con.execute("begin")
    try:
        con.execute("create schema if not exists marts")
        existing = con.execute(
            "select table_name, table_type from information_schema.tables "
            "where table_schema = 'marts'"
        ).fetchall()
        for name, kind in sorted(existing):
            if name not in locations or kind == "VIEW":
                con.execute(f'drop {"view" if kind == "VIEW" else "table"} marts."{name}"')
        for name, folder in sorted(locations.items()):
            source = f"read_parquet({_quote(Path(folder) / '*.parquet')})"
            columns = con.execute(f"describe select * from {source}").fetchall()
            select = ", ".join(_as_mart_type(column, typ) for column, typ, *_ in columns)
            con.execute(f'create or replace table marts."{name}" as select {select} from {source}')
        con.execute("commit")
    except BaseException:
        con.execute("rollback")
        raise
    return sorted(locations)


def _as_mart_type(column: str, typ: str) -> str:
    """``column`` as the marts' type for ``typ`` (an instant in UTC as a plain timestamp, as
    the Spark session writes them: UTC, TIMESTAMP_NTZ).

    Example:
        >>> _as_mart_type("n_points", "INTEGER")
        'cast("n_points" as BIGINT) as "n_points"'
        >>> _as_mart_type("study", "VARCHAR")
        '"study"'
    """
    quoted = '"' + column.replace('"', '""') + '"'
    wanted = warehouse.mart_type(typ)
    if wanted == typ:
        return quoted
    if typ == "TIMESTAMP WITH TIME ZONE":
        return f"timezone('UTC', {quoted}) as {quoted}"
    return f"cast({quoted} as {wanted}) as {quoted}"


def new_build_dir(lake: Path) -> Path:
    """A folder of its own for one build's tables (``builds/b<time ns>``)."""
    import time

    return lake / "builds" / f"b{time.time_ns()}"


def prune_builds(lake: Path) -> list[Path]:
    """Remove every build folder but those ``marts.json`` and ``build.json`` read (failed
    builds, older ones; a table an incremental build carried stays in the folder of the build
    that made it: ``mqcap.spark.carry``)."""
    import json
    import shutil

    from mqcap.spark.carry import referenced_folders

    try:
        current = {
            Path(p).resolve() for p in json.loads((lake / "marts.json").read_text()).values()
        }
    except FileNotFoundError:
        current = set()
    current |= {p.resolve() for p in referenced_folders(lake)}
    removed = []
    builds = lake / "builds"
    for folder in sorted(builds.iterdir()) if builds.is_dir() else []:
        if not any(folder.resolve() in p.parents for p in current):
            shutil.rmtree(folder, ignore_errors=True)
            removed.append(folder)
    return removed
