"""`mqcap compare-warehouses A B` (mqcap.parity): the same marts (names, column types, every
row in any order, floats to a relative tolerance) give exit 0 and what was compared; any
difference is printed and gives exit 1. The Spark engine's parity test uses the same check
(tests/test_spark_engine.py)."""

from __future__ import annotations

import duckdb
import pytest
from click.testing import CliRunner

from mqcap.cli import main

from helpers import copy_warehouse, layout_settings


@pytest.fixture(scope="module")
def mini_warehouse(mini_run):
    return layout_settings(mini_run).warehouse


def _compare(a, b, *extra):
    return CliRunner().invoke(main, ["compare-warehouses", str(a), str(b), *extra])


def _copy(src, tmp_path, name, *statements):
    dest = copy_warehouse(src, tmp_path / name / "warehouse.duckdb")
    with duckdb.connect(str(dest)) as con:
        for sql in statements:
            con.execute(sql)
    return dest


def test_a_copy_holds_the_same_marts(mini_warehouse, tmp_path):
    with duckdb.connect(str(mini_warehouse), read_only=True) as con:
        marts = con.execute(
            "select count(*) from information_schema.tables where table_schema = 'marts'"
        ).fetchone()[0]
        rows = con.execute("select count(*) from marts.fct_driver_results").fetchone()[0]
    copy = _copy(mini_warehouse, tmp_path, "copy")
    out = _compare(mini_warehouse, copy)
    assert out.exit_code == 0, out.output
    assert out.output.startswith(f"the same marts: {marts} marts, ")
    assert marts >= 30 and rows == 10


def test_a_changed_value_a_changed_type_and_a_missing_mart_are_each_named(mini_warehouse, tmp_path):
    value = _copy(
        mini_warehouse,
        tmp_path,
        "value",
        "update marts.fct_driver_results set transactions = transactions + 1 "
        "where run_id = (select min(run_id) from marts.fct_driver_results)",
    )
    out = _compare(mini_warehouse, value)
    assert out.exit_code == 1
    assert out.output.startswith("fct_driver_results row ") and "transactions: " in out.output
    assert "differ: 1 difference(s) above" in out.output

    typed = _copy(
        mini_warehouse,
        tmp_path,
        "typed",
        "alter table marts.fct_driver_results alter column transactions type double",
    )
    out = _compare(mini_warehouse, typed)
    assert out.exit_code == 1
    assert "fct_driver_results: column types differ: transactions BIGINT != DOUBLE" in out.output

    gone = _copy(mini_warehouse, tmp_path, "gone", "drop table marts.fct_crypto")
    out = _compare(mini_warehouse, gone)
    assert out.exit_code == 1
    assert "marts differ: only in warehouse.duckdb ['fct_crypto']" in out.output


def test_floats_agree_to_the_tolerance_asked_for(mini_warehouse, tmp_path):
    nudged = _copy(
        mini_warehouse,
        tmp_path,
        "nudged",
        "update marts.fct_driver_results set rate_per_s = rate_per_s * "
        "(1 + 1e-7) where rate_per_s > 0",
    )
    assert _compare(mini_warehouse, nudged).exit_code == 1
    assert _compare(mini_warehouse, nudged, "--rel", "1e-6").exit_code == 0


def test_a_missing_warehouse_is_a_usage_error(mini_warehouse, tmp_path):
    out = _compare(mini_warehouse, tmp_path / "none.duckdb")
    assert out.exit_code == 2 and "no warehouse at" in out.output
