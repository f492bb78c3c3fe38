"""Every read behind a report gives its rows in one order, whatever order the marts' rows are
stored in: the same frames from the sample warehouse with each mart's rows rewritten in key
order, in reverse key order and in a hashed order. Two engines (or two builds) store rows in
different orders; a report table whose sort ties (two fits with the same sort columns) would
swap rows between them. Each read's ORDER BY ends on something unique (the mart's key, its
first column: tests/test_sql.py)."""

from __future__ import annotations

import inspect
from dataclasses import fields, is_dataclass

import duckdb
import pandas as pd
import pytest

from mqcap.sections import changes, distributed
from mqcap.sections import queries as q

from helpers import PROJECT, copy_warehouse

pytestmark = pytest.mark.e2e

STUDIES = tuple(sorted(p.name for p in (PROJECT / "data" / "sample").iterdir() if p.is_dir()))
ORDERS = {"key": "1", "reverse": "1 desc", "hashed": "hash(1 || 'mqcap')"}


def _study_reads() -> dict[str, object]:
    """Every public read of a study's rows: one argument, ``study``."""
    reads = {}
    for module in (q, changes, distributed):
        for name, fn in inspect.getmembers(module, inspect.isfunction):
            if name.startswith("_") or fn.__module__ != module.__name__:
                continue
            if list(inspect.signature(fn).parameters) == ["study"]:
                reads[f"{module.__name__.rsplit('.', 1)[1]}.{name}"] = fn
    return reads


READS = _study_reads()


@pytest.fixture(scope="module")
def stored(sample_warehouse, tmp_path_factory):
    """The sample warehouse three times, each mart's rows stored in another order."""
    tmp = tmp_path_factory.mktemp("order")
    paths = {}
    for label, order in ORDERS.items():
        path = copy_warehouse(sample_warehouse, tmp / f"{label}.duckdb")
        with duckdb.connect(str(path)) as con:
            marts = con.execute(
                "select table_name from information_schema.tables "
                "where table_schema = 'marts' and table_type = 'BASE TABLE'"
            ).fetchall()
            for (name,) in marts:
                con.execute(
                    f"create or replace table marts.{name} as "
                    f"select * from marts.{name} order by {order.replace('1', _first(con, name))}"
                )
        paths[label] = path
    return paths


def _first(con, table: str) -> str:
    return con.execute(
        "select column_name from information_schema.columns "
        "where table_schema = 'marts' and table_name = ? and ordinal_position = 1",
        [table],
    ).fetchone()[0]


def _frames(value) -> dict[str, pd.DataFrame | object]:
    if is_dataclass(value):
        return {f.name: getattr(value, f.name) for f in fields(value)}
    return {"": value}


def _read_all(path, monkeypatch) -> dict:
    monkeypatch.setenv("MQCAP_WAREHOUSE", str(path))
    q.close()
    try:
        return {
            (name, study): _frames(fn(study)) for name, fn in READS.items() for study in STUDIES
        }
    finally:
        q.close()


def test_the_reads_cover_the_report():
    assert {
        "queries.fits",
        "queries.address_space_costs",
        "queries.series_costs",
        "changes.load",
        "distributed.series",
    } <= set(READS), sorted(READS)
    assert len(READS) >= 25


def test_every_read_gives_one_order_whatever_the_stored_order(stored, monkeypatch):
    reads = {label: _read_all(path, monkeypatch) for label, path in stored.items()}
    differ = []
    rows = 0
    for key, parts in reads["key"].items():
        for part, value in parts.items():
            for label in ("reverse", "hashed"):
                other = reads[label][key][part]
                if isinstance(value, pd.DataFrame):
                    rows += len(value) if label == "reverse" else 0
                    try:
                        pd.testing.assert_frame_equal(
                            value.reset_index(drop=True), other.reset_index(drop=True)
                        )
                    except AssertionError as exc:
                        differ.append(f"{key} {part} ({label}): {str(exc).splitlines()[:3]}")
                elif value != other:
                    differ.append(f"{key} {part} ({label}): {value!r} != {other!r}")
    assert differ == [], "\n".join(sorted(set(d.split(" (")[0] for d in differ)))
    assert rows > 1000  # the reads did read rows
