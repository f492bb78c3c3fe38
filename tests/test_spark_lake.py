"""The Spark engine's lake (mqcap.spark.lake): the landing tables and the ledger as Parquet,
computed again from what exists each time. No Spark here: DuckDB reads the Parquet back."""

from __future__ import annotations

import json
import shutil

import duckdb
import pytest

from mqcap import warehouse
from mqcap.ingest import ingest
from mqcap.spark import lake

from helpers import FIXTURES, query


def _sync(settings):
    with warehouse.connect(settings.warehouse) as con:
        return lake.sync(con, settings.lake)


def _lake_rows(settings) -> dict[tuple[str, int], int]:
    """(table, file_id) -> rows, read from the Parquet files with DuckDB."""
    out = {}
    for path in sorted((settings.lake / "landing").rglob("g*-r*.parquet")):
        rows = duckdb.sql(f"select file_id, count(*) from read_parquet('{path}') group by 1")
        for file_id, n in rows.fetchall():
            out[(path.parent.name, file_id)] = n
    return out


def _landing_rows(settings) -> dict[tuple[str, int], int]:
    out = {}
    with warehouse.connect(settings.warehouse, read_only=True) as con:
        tables = con.execute(
            "select table_name from information_schema.tables where table_schema = 'landing'"
        ).fetchall()
        for (table,) in tables:
            for file_id, n in con.execute(
                f"select file_id, count(*) from landing.{table} group by 1"
            ).fetchall():
                out[(table, file_id)] = n
    return out


def test_the_lake_holds_each_loaded_version_once_and_follows_deletions(settings, sample_study):
    ingest(settings)
    first = _sync(settings)
    tables = {t for t, _ in _landing_rows(settings)}
    # One file per table with rows, whatever the number of raw files.
    assert first.written == len(tables) == 4 and first.removed == 0
    assert _lake_rows(settings) == _landing_rows(settings)
    # Every row's columns, in a table: the Parquet rows are the landing rows.
    with warehouse.connect(settings.warehouse, read_only=True) as con:
        landing = sorted(con.execute("select * from landing.driver_results").fetchall())
    folder = settings.lake / "landing" / "driver_results"
    in_lake = duckdb.sql(f"select * from read_parquet('{folder}/g*.parquet')").fetchall()
    assert sorted(in_lake) == landing
    # Nothing changed: nothing written, nothing removed.
    again = _sync(settings)
    assert (again.written, again.removed, again.kept) == (0, 0, first.written)
    # A run deleted from the raw folder leaves the warehouse, then the lake.
    gone = sorted(p for p in sample_study.iterdir() if p.is_dir())[0]
    shutil.rmtree(gone)
    ingest(settings)
    after = _sync(settings)
    # Each table's range lost a version: removed, and its other versions written again.
    assert (after.written, after.removed, after.kept) == (4, 4, 0)
    assert _lake_rows(settings) == _landing_rows(settings)
    # The run comes back (new versions): one more file per table it has rows in, others kept.
    shutil.copytree(FIXTURES / "mini_study" / "attls" / gone.name, gone)
    ingest(settings)
    more = _sync(settings)
    assert (more.written, more.removed, more.kept) == (4, 0, 4)
    assert _lake_rows(settings) == _landing_rows(settings)
    # The ledger is there whole, as the warehouse has it.
    ledger = duckdb.sql(
        f"select count(*) from read_parquet('{settings.lake}/meta/ingest_ledger/*.parquet')"
    ).fetchall()
    assert ledger == query(settings, "select count(*) from meta.ingest_ledger")


def test_a_killed_sync_is_finished_by_the_next_one(settings, sample_study):
    ingest(settings)
    _sync(settings)
    folder = settings.lake / "landing" / "driver_results"
    other = settings.lake / "landing" / "run_manifest"
    (file,) = folder.glob("g*-r*.parquet")
    (lost,) = other.glob("g*-r*.parquet")
    # What a kill can leave: a half-written hidden file, a file missing, and (a version whose
    # rows changed since) a file with another row count in its name.
    (folder / f".tmp-{file.name}").write_bytes(b"PAR1 half")
    shutil.copy(file, folder / "f1-r3.parquet")  # not of this layout: Spark would read it
    lost.unlink()
    stale = file.with_name(file.name.replace("-r", "-r9"))
    file.rename(stale)
    report = _sync(settings)
    assert (report.written, report.removed) == (2, 2)
    assert not list(folder.glob(".tmp-*")) and not stale.exists()
    assert sorted(p.name for p in folder.iterdir()) == sorted([lake.SCHEMA_FILE, file.name])
    assert _lake_rows(settings) == _landing_rows(settings)


def test_tables_without_rows_still_have_their_columns(settings, sample_study):
    ingest(settings)
    _sync(settings)
    # No NETSTAT was dropped: its folder has the empty schema file, with the table's columns.
    schema = settings.lake / "landing" / "netstat_conn" / lake.SCHEMA_FILE
    cols = [r[0] for r in duckdb.sql(f"describe select * from read_parquet('{schema}')").fetchall()]
    with warehouse.connect(settings.warehouse, read_only=True) as con:
        want = [
            r[0]
            for r in con.execute(
                "select column_name from information_schema.columns where table_schema = "
                "'landing' and table_name = 'netstat_conn' order by ordinal_position"
            ).fetchall()
        ]
    assert cols == want and duckdb.sql(f"select count(*) from '{schema}'").fetchall() == [(0,)]
    # TIME travels as text (Spark has no TIME type).
    kinds = {
        r[0]: r[1]
        for r in duckdb.sql(f"describe select * from read_parquet('{schema}')").fetchall()
    }
    assert kinds["poll_time"] == "VARCHAR"


def test_the_build_scope_goes_to_the_lake_whole_each_sync(settings, sample_study):
    """meta/build_scope: what an incremental Spark build recomputes (macros/run_scope.sql), as
    the warehouse has it at the sync, rows or none, always with its column."""
    from mqcap.ledger import scope

    scope_file = settings.lake / "meta" / "build_scope" / "build_scope.parquet"
    ingest(settings)
    _sync(settings)  # no meta.build_scope yet: an empty file, with the column
    assert duckdb.sql(f"describe select * from '{scope_file}'").fetchall()[0][:2] == (
        "run_key",
        "VARCHAR",
    )
    assert duckdb.sql(f"select count(*) from '{scope_file}'").fetchall() == [(0,)]
    with warehouse.connect(settings.warehouse) as con:
        scope.begin(con, scope.Scope(False, {"s/r2", "s/r1"}))
    _sync(settings)
    assert duckdb.sql(f"select run_key from '{scope_file}' order by 1").fetchall() == [
        ("s/r1",),
        ("s/r2",),
    ]
    with warehouse.connect(settings.warehouse) as con:
        con.execute("delete from meta.build_scope")
    _sync(settings)
    assert duckdb.sql(f"select count(*) from '{scope_file}'").fetchall() == [(0,)]
    assert not list(scope_file.parent.glob(".tmp-*"))


def test_marts_json_decides_which_build_folder_stays(tmp_path):
    root = tmp_path / "lake"
    keep, old, failed = (root / "builds" / n for n in ("b3", "b1", "b2"))
    for b in (keep, old, failed):
        (b / "marts.db" / "dim_run").mkdir(parents=True)
    (root / "marts.json").write_text(json.dumps({"dim_run": str(keep / "marts.db" / "dim_run")}))
    removed = lake.prune_builds(root)
    assert sorted(p.name for p in removed) == ["b1", "b2"]
    assert [p.name for p in (root / "builds").iterdir()] == ["b3"]


def _spark_like_mart(folder, rows: str) -> None:
    """A mart as dbt-spark leaves it: Parquet part files with Spark's int and decimal types."""
    folder.mkdir(parents=True)
    for part, where in enumerate(("n % 2 = 0", "n % 2 = 1")):
        duckdb.sql(
            f"copy (select * from ({rows}) where {where}) "
            f"to '{folder / f'part-0000{part}.parquet'}' (format parquet)"
        )


def test_the_marts_are_copied_in_as_tables_with_the_marts_types_and_read_in_the_sandbox(
    tmp_path,
):
    """After a Spark build the warehouse holds the marts itself: `mqcap sql`, `compare-warehouses`
    and export read them with file access off, and Spark's INTEGER, DECIMAL, FLOAT and
    TIMESTAMP WITH TIME ZONE come in as the marts' types. Marts no longer listed are dropped,
    and so is a view the release before made over the lake."""
    from click.testing import CliRunner

    from mqcap.cli import main

    root = tmp_path / "lake"
    build = root / "builds" / "b1" / "marts.db"
    rows = (
        "select cast(n as integer) as n, cast(n * 1.5 as decimal(4, 1)) as share, "
        "cast(n / 4 as float) as quarter, 'run-' || n as run_id, "
        "timestamptz '2026-01-02 03:04:05+00' + n * interval 1 second as started "
        "from range(6) t(n)"
    )
    _spark_like_mart(build / "fct_one", rows)
    _spark_like_mart(build / "fct_two", "select cast(n as smallint) as n from range(3) t(n)")
    (root / "marts.json").write_text(
        json.dumps({name: str(build / name) for name in ("fct_one", "fct_two")})
    )
    wh = tmp_path / "warehouse.duckdb"
    with duckdb.connect(str(wh)) as con:
        con.execute("create schema marts")
        con.execute("create table marts.fct_gone as select 1 as n")
        con.execute("create view marts.fct_one as select 1 as n")  # the old way: a view
        assert lake.attach_marts(con, root) == ["fct_one", "fct_two"]
        tables = con.execute(
            "select table_name, table_type from information_schema.tables "
            "where table_schema = 'marts' order by 1"
        ).fetchall()
        types = dict(
            con.execute(
                "select column_name, data_type from information_schema.columns "
                "where table_schema = 'marts' and table_name = 'fct_one'"
            ).fetchall()
        )
        started = con.execute("select min(started) from marts.fct_one").fetchone()[0]
    assert tables == [("fct_one", "BASE TABLE"), ("fct_two", "BASE TABLE")]
    assert types == {
        "n": "BIGINT",
        "share": "DOUBLE",
        "quarter": "DOUBLE",
        "run_id": "VARCHAR",
        "started": "TIMESTAMP",
    }
    assert str(started) == "2026-01-02 03:04:05"
    # The lake can go away (or be unreadable): the warehouse answers alone, in the sandbox.
    shutil.rmtree(root)
    out = CliRunner().invoke(
        main,
        [
            "sql",
            "select sum(n), sum(share) from marts.fct_one",
            "--format",
            "csv",
            "--warehouse",
            str(wh),
        ],
    )
    assert out.exit_code == 0, out.output
    assert out.output.splitlines()[-1] == "15,22.5"
    same = CliRunner().invoke(main, ["compare-warehouses", str(wh), str(wh)])
    assert same.exit_code == 0 and "the same marts: 2 marts, 9 rows" in same.output, same.output


def test_the_spark_engine_says_what_is_missing_before_it_starts(
    settings, sample_study, monkeypatch
):
    """Before any work, exit 3 (an environment problem): no file landed, no lake, no build."""
    from click.testing import CliRunner

    import mqcap.spark as engine
    from mqcap.build import build
    from mqcap.cli import main
    from mqcap.errors import EnvironmentProblem

    monkeypatch.setattr(engine, "_importable", lambda m: m != "dbt.adapters.spark")
    with pytest.raises(EnvironmentProblem, match=r"needs the spark extra \(`make spark`"):
        build(settings.with_(engine="spark"))
    monkeypatch.setattr(engine, "_importable", lambda m: True)
    monkeypatch.setattr(engine.shutil, "which", lambda name: None)
    monkeypatch.delenv("JAVA_HOME", raising=False)
    with pytest.raises(EnvironmentProblem, match="needs Java 17"):
        build(settings.with_(engine="spark"))
    engine.check_ready("sc://head:15002")  # Spark Connect: the server runs Java
    args = ["--warehouse", str(settings.warehouse), "--raw", str(settings.raw_root)]
    for command in (["run"], ["ingest"]):
        out = CliRunner().invoke(main, [*args, "--engine", "spark", *command])
        assert out.exit_code == 3, out.output
        assert "mqcap: error: the Spark engine needs Java 17" in out.output
        assert "ingest" not in out.output.split("mqcap: error:")[0]  # no step had started
    # Nothing was written: no warehouse, no lake, no build recorded.
    assert not settings.warehouse.exists()
    assert not settings.lake.exists()


def test_source_fingerprints_follow_what_the_lake_holds(settings, sample_study):
    """A landing table's fingerprint changes when its files do (a version added, deleted,
    replaced) and only then; the ledger's when its rows do, whatever order they were written in
    (mqcap.spark.carry: an incremental Spark build carries what reads only unchanged ones)."""
    from mqcap.spark import carry

    ingest(settings)
    _sync(settings)
    first = carry.source_fingerprints(settings.lake)
    assert {"landing.driver_results", "landing.run_manifest", "meta.ingest_ledger"} <= set(first)
    assert "landing.netstat_conn" in first  # no rows, its columns: a fingerprint all the same
    _sync(settings)
    assert carry.source_fingerprints(settings.lake) == first
    # The ledger written again in another row order: the same rows, the same fingerprint.
    ledger = settings.lake / "meta" / "ingest_ledger" / "ledger.parquet"
    duckdb.sql(
        f"copy (select * from read_parquet('{ledger}') order by file_id desc) "
        f"to '{ledger}.x' (format parquet)"
    )
    shutil.move(f"{ledger}.x", ledger)
    assert carry.source_fingerprints(settings.lake) == first
    # One run's results file edited: that table and the ledger change, nothing else.
    results = sorted(sample_study.glob("*/results.csv"))[0]
    results.write_text(results.read_text().replace("1", "2", 1))
    ingest(settings)
    _sync(settings)
    now = carry.source_fingerprints(settings.lake)
    changed = sorted(k for k in first if first[k] != now[k])
    assert changed == ["landing.driver_results", "meta.ingest_ledger"], changed


def test_the_build_record_keeps_the_folders_of_carried_tables(tmp_path):
    """A table carried by an incremental build stays where the build that made it wrote it:
    pruning keeps every folder build.json names, besides the marts'."""
    from mqcap.spark import carry

    root = tmp_path / "lake"
    first, second, failed = (root / "builds" / n for n in ("b1", "b2", "b3"))
    for b in (first, second, failed):
        (b / "marts.db" / "dim_run").mkdir(parents=True)
    (first / "intermediate.db" / "int_cpu_intervals").mkdir(parents=True)
    (root / "marts.json").write_text(json.dumps({"dim_run": str(second / "marts.db" / "dim_run")}))
    carried = str(first / "intermediate.db" / "int_cpu_intervals")
    carry.record(root, {"landing.ascpu_interval": "x"}, {"intermediate.int_cpu_intervals": carried})
    assert carry.read_record(root) == {
        "sources": {"landing.ascpu_interval": "x"},
        "tables": {"intermediate.int_cpu_intervals": carried},
    }
    removed = lake.prune_builds(root)
    assert [p.name for p in removed] == ["b3"]
    assert sorted(p.name for p in (root / "builds").iterdir()) == ["b1", "b2"]
    (root / carry.RECORD).write_text("{not json")
    assert carry.read_record(root) is None  # nothing is carried from a record it cannot read
