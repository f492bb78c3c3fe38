"""Do two warehouses hold the same marts? Columns and their types, then row for row, floats to
a relative tolerance.

``mqcap compare-warehouses A B``, the engine-parity test and the engines bench: the marts the
Spark engine wrote against the DuckDB engine's, from the same raw files, or one warehouse
against another after a change. Both engines give the marts' types (``warehouse.MART_TYPES``);
values: text, whole numbers and times exactly, floats to ``rel`` relative, or both within
``NOISE`` of zero.

Example:
    problems = mart_differences(Path("duck.duckdb"), Path("spark.duckdb"))
    assert not problems, problems[:5]
"""

from __future__ import annotations

import datetime as dt
import decimal
import math
from pathlib import Path

import duckdb

from mqcap import warehouse


def _marts(con: duckdb.DuckDBPyConnection) -> list[str]:
    return [
        name
        for (name,) in con.execute(
            "select table_name from information_schema.tables where table_schema = 'marts' "
            "order by table_name"
        ).fetchall()
    ]


def _columns(con, table: str) -> dict[str, str]:
    """Column -> type, in the table's order."""
    return dict(
        con.execute(
            "select column_name, data_type from information_schema.columns "
            "where table_schema = 'marts' and table_name = ? order by ordinal_position",
            [table],
        ).fetchall()
    )


# Below this, a float is rounding noise around zero: a difference of two equal sums added in
# another order (7.1e-15 on one engine, 0.0 on the other) has no relative precision to compare.
NOISE = 1e-12


def _normal(value):
    """One comparable form per value: numbers as float, timestamps as naive datetimes."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, int | float | decimal.Decimal):
        return float(value)
    if isinstance(value, dt.datetime):
        return value.replace(tzinfo=None)
    return value


def _sort_key(row: tuple) -> tuple:
    # None first, then by type name, then value: a total order over mixed rows.
    return tuple((0, "", "") if v is None else (1, type(v).__name__, v) for v in row)


def _same(a, b, rel: float) -> bool:
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, float) and isinstance(b, float):
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        return a == b or math.isclose(a, b, rel_tol=rel, abs_tol=NOISE)
    return a == b


def table_differences(con_a, con_b, table: str, rel: float = 1e-9, limit: int = 5) -> list[str]:
    """What differs in one mart: its columns or their types, its row count, else the first
    rows that differ."""
    types_a, types_b = _columns(con_a, table), _columns(con_b, table)
    cols_a, cols_b = list(types_a), list(types_b)
    if sorted(cols_a) != sorted(cols_b):
        return [
            f"{table}: columns differ: only in the first {sorted(set(cols_a) - set(cols_b))}, "
            f"only in the second {sorted(set(cols_b) - set(cols_a))}"
        ]
    typed = [f"{c} {types_a[c]} != {types_b[c]}" for c in cols_a if types_a[c] != types_b[c]]
    if typed:
        return [f"{table}: column types differ: {', '.join(typed)}"]
    select = ", ".join(f'"{c}"' for c in cols_a)
    rows = []
    for con in (con_a, con_b):
        got = con.execute(f"select {select} from marts.{table}").fetchall()
        rows.append(sorted((tuple(_normal(v) for v in r) for r in got), key=_sort_key))
    if len(rows[0]) != len(rows[1]):
        return [f"{table}: {len(rows[0])} rows against {len(rows[1])}"]
    out = []
    for n, (ra, rb) in enumerate(zip(*rows, strict=True)):
        bad = [c for c, a, b in zip(cols_a, ra, rb, strict=True) if not _same(a, b, rel)]
        if bad:
            shown = ", ".join(
                f"{c}: {ra[cols_a.index(c)]!r} != {rb[cols_a.index(c)]!r}" for c in bad
            )
            out.append(f"{table} row {n}: {shown}")
            if len(out) >= limit:
                break
    return out


# Marts the DuckDB engine builds and the Spark engine leaves out (models/marts/<name>.sql would
# say why): a warehouse of each engine is compared on the others. None now: fct_file_reconciliation
# was, while the Spark engine's intermediate models were views.
DUCKDB_ONLY: frozenset[str] = frozenset()


def mart_differences(a: Path, b: Path, rel: float = 1e-9) -> list[str]:
    """Every difference between the marts of two warehouses (empty: the same); marts only the
    DuckDB engine builds (``DUCKDB_ONLY``) are compared only when both have them."""
    with (
        warehouse.connect(a, read_only=True) as con_a,
        warehouse.connect(b, read_only=True) as con_b,
    ):
        names_a, names_b = _marts(con_a), _marts(con_b)
        if set(names_a) ^ set(names_b) <= DUCKDB_ONLY:
            names_a = [n for n in names_a if n in names_b]
            names_b = [n for n in names_b if n in names_a]
        out = []
        if names_a != names_b:
            out.append(
                f"marts differ: only in {a.name} {sorted(set(names_a) - set(names_b))}, "
                f"only in {b.name} {sorted(set(names_b) - set(names_a))}"
            )
        for table in sorted(set(names_a) & set(names_b)):
            out += table_differences(con_a, con_b, table, rel)
        return out


def mart_counts(path: Path) -> tuple[int, int]:
    """(marts, rows over all of them) of a warehouse: what ``compare-warehouses`` says was
    compared."""
    with warehouse.connect(path, read_only=True) as con:
        names = _marts(con)
        rows = sum(con.execute(f'select count(*) from marts."{n}"').fetchone()[0] for n in names)
    return len(names), rows
