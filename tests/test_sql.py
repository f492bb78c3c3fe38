"""`mqcap sql`: the read-only sandbox, the engine's full errors, every statement's result, and
integers as BIGINT in the marts, in sql output and in exports."""

from __future__ import annotations

import json

import polars as pl
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from mqcap.cli import main
from mqcap.export import export_marts
from mqcap.settings import Settings
from mqcap.warehouse import MART_TYPES

from helpers import PROJECT, copy_run, layout_settings


@pytest.fixture(scope="module")
def built(tmp_path_factory, mini_run) -> Settings:
    """The ten-run mini study landed, built and checked (no reports): a copy of the session's
    run (tests/conftest.py), once for this module."""
    return layout_settings(copy_run(mini_run, tmp_path_factory.mktemp("sql")))


def _sql(s: Settings, *args: str):
    return CliRunner().invoke(
        main,
        ["-q", "sql", *args, "--warehouse", str(s.warehouse), "--raw", str(s.raw_root)],
        catch_exceptions=False,
    )


@pytest.mark.parametrize(
    ("statement", "makes"),
    [
        ("copy marts.dim_run to '{out}/dim_run.csv'", "dim_run.csv"),
        ("copy (select 1) to '{raw}/attls/x.csv'", "attls/x.csv"),
        ("export database '{out}/db'", "db"),
        ("attach '{out}/other.duckdb' as other", "other.duckdb"),
        ("select * from read_csv('/etc/passwd')", None),
        ("select * from read_text('{project}/pyproject.toml')", None),
        ("select * from glob('/etc/*')", None),
        ("select * from read_csv('{raw}/attls/ssl-chacha-2k/results.csv')", None),
        ("explain analyze copy (select 1) to '{raw}/attls/y.csv'", "attls/y.csv"),
        ("prepare p as copy (select 1) to '{raw}/z.csv'; execute p", "z.csv"),
        ("install httpfs", None),
        ("load httpfs", None),
        ("set enable_external_access = true", None),
        ("set allowed_directories = ['/']", None),
        ("reset lock_configuration", None),
        ("delete from landing.driver_results", None),
        ("create table marts.mine as select 1 as x", None),
    ],
)
def test_sandbox_refuses_writes_attaches_outside_reads_extensions_and_settings(
    built, tmp_path, statement, makes
):
    text = statement.format(out=tmp_path, raw=built.raw_root, project=PROJECT)
    result = _sql(built, f"select 1 as ok; {text}")
    assert result.exit_code == 2, result.output
    assert "mqcap: error: refused (statement " in result.output
    assert f"mqcap sql is read-only: it reads the warehouse {built.warehouse} only" in (
        result.output
    )
    if makes:
        assert not (tmp_path / makes).exists() and not (built.raw_root / makes).exists()
    # The sandbox did not leak into the warehouse: the same query still answers.
    again = _sql(built, "select count(*) as n from marts.dim_run", "--format", "csv")
    assert again.output == "n\n10\n"


def test_raw_files_stay_as_they_were_and_their_rows_are_in_landing(built):
    before = sorted(p.relative_to(built.raw_root) for p in built.raw_root.rglob("*"))
    assert len(before) == 31  # 1 study + 10 run folders + 20 files
    rows = _sql(
        built,
        "select count(distinct source_file) as files from landing.driver_results",
        "--format",
        "csv",
    )
    assert rows.output == "files\n10\n"
    assert sorted(p.relative_to(built.raw_root) for p in built.raw_root.rglob("*")) == before


def test_help_says_what_sql_allows():
    text = CliRunner().invoke(main, ["sql", "--help"]).output
    assert "Refused: writing files (COPY TO, EXPORT DATABASE), ATTACH, INSTALL / LOAD" in text
    assert "reading any file but the warehouse" in text


def test_errors_keep_the_engines_hint_line(built):
    result = _sql(built, "select * from marts.dim_runs")
    assert result.exit_code == 2
    assert "mqcap: error: query failed: Catalog Error: Table with name dim_runs" in result.output
    assert 'Did you mean "marts.dim_run"' in result.output or (
        'Did you mean "dim_run"' in result.output
    )
    second = _sql(built, "select 1; select nope from marts.dim_run")
    assert "query failed (statement 2 of 2): Binder Error" in second.output
    assert 'Referenced column "nope" not found' in second.output


def test_errors_span_lines_as_the_engine_wrote_them_and_stay_safe(built):
    """The hint and the sandbox's help are lines of their own, not a literal ``\\n`` (issue 35);
    a control character the query put in the message is still escaped."""
    result = _sql(built, "select * from marts.dim_runs")
    lines = result.output.splitlines()
    assert "\\n" not in result.output
    assert lines[0].startswith("mqcap: error: query failed: Catalog Error: Table with name")
    assert any(line.startswith("Did you mean") for line in lines[1:])
    refused = _sql(built, "select * from read_csv('/etc/passwd')")
    assert "\\n" not in refused.output
    assert any(line.startswith("mqcap sql is read-only") for line in refused.output.splitlines())
    hostile = _sql(built, 'select * from marts."dim\x1b[2J"')
    assert "\x1b" not in hostile.output and "\\x1b[2J" in hostile.output


def test_every_statement_that_returns_rows_is_shown_in_order(built):
    result = _sql(
        built,
        "create temp table t as select 7 as seven; select seven from t; "
        "select count(*) as runs from marts.dim_run",
    )
    assert result.exit_code == 0, result.output
    out = result.output
    assert "-- statement 2: select seven from t;" in out
    assert "-- statement 3: select count(*) as runs from marts.dim_run" in out
    assert out.index("seven") < out.index("runs")
    assert "│ 7     │" in out and "│ 10   │" in out


def test_machine_formats_take_exactly_one_result(built):
    both = _sql(built, "select 1 as a; select 2 as b", "--format", "csv")
    assert both.exit_code == 2
    assert "--format csv writes one table, but statements 1, 2 return rows" in both.output
    prepared = _sql(
        built, "create temp table t as select 3 as c; select c from t", "--format", "json"
    )
    assert json.loads(prepared.output) == [{"c": 3}]


def test_mart_columns_have_the_marts_types_and_integers_stay_bigint_in_sql_and_exports(
    built, tmp_path
):
    # Every mart column is one of warehouse.MART_TYPES (the Spark engine's copy gives the same:
    # tests/test_spark_engine.py): no 32-bit FLOAT rounding a byte count, no DECIMAL, no INTEGER.
    typed = _sql(
        built,
        "select data_type, count(*) as n from information_schema.columns "
        "where table_schema = 'marts' group by 1 order by 1",
        "--format",
        "json",
    )
    types = {r["data_type"]: r["n"] for r in json.loads(typed.output)}
    assert set(types) <= set(MART_TYPES), types
    assert types["BIGINT"] >= 100 and types["DOUBLE"] >= 100
    js = _sql(
        built,
        "select transactions, sum(transactions) over () as total from marts.fct_driver_results "
        "where transactions is not null order by run_id limit 1",
        "--format",
        "json",
    )
    row = json.loads(js.output)[0]
    assert isinstance(row["transactions"], int) and isinstance(row["total"], int)
    out = tmp_path / "q.parquet"
    _sql(
        built,
        "select transactions, sum(transactions) over () as total from marts.fct_driver_results",
        "--format",
        "parquet",
        "-o",
        str(out),
    )
    schema = pq.read_schema(out)
    assert str(schema.field("transactions").type) == "int64"
    assert str(schema.field("total").type) == "int64"
    written = export_marts(built, tmp_path / "export", ["fct_driver_results"])
    frame = pl.read_parquet(written["fct_driver_results"] / "**" / "*.parquet")
    assert frame.schema["transactions"] == pl.Int64


def test_every_mart_column_is_described_in_the_model_yaml(built):
    import yaml

    doc = yaml.safe_load((PROJECT / "models" / "marts" / "_marts__models.yml").read_text())
    described = {
        (m["name"], c["name"])
        for m in doc["models"]
        for c in m.get("columns", [])
        if (c.get("description") or "").strip()
    }
    listed = _sql(
        built,
        "select table_name, column_name from information_schema.columns "
        "where table_schema = 'marts' order by all",
        "--format",
        "json",
    )
    columns = [(r["table_name"], r["column_name"]) for r in json.loads(listed.output)]
    assert len(columns) >= 298
    assert [c for c in columns if c not in described] == []


def test_every_marts_first_column_is_its_key(built):
    """The report's reads sort by the mart's first column last (mqcap.sections.queries._mart),
    so that column must be the key the mart's primary_key check holds unique."""
    import yaml

    doc = yaml.safe_load((PROJECT / "models" / "marts" / "_marts__models.yml").read_text())

    def is_key(column: dict) -> bool:
        tests = column.get("data_tests") or []
        return any(
            t == "primary_key" or (isinstance(t, dict) and "primary_key" in t) for t in tests
        )

    keys = {
        m["name"]: [c["name"] for c in m.get("columns", []) if is_key(c)] for m in doc["models"]
    }
    listed = _sql(
        built,
        "select table_name, column_name from information_schema.columns "
        "where table_schema = 'marts' and ordinal_position = 1 order by all",
        "--format",
        "json",
    )
    first = {r["table_name"]: [r["column_name"]] for r in json.loads(listed.output)}
    assert len(first) >= 30
    assert first == {name: keys.get(name) for name in first}
