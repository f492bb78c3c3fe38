"""The state a no-change run reads, read cheaply: the same answers as before.

``schema.table_exists`` answers a plain yes by binding the name (the catalog functions cost
about 5 ms a question) and anything else from the catalog; the answers are the catalog's,
views that no longer bind and names that need quoting included.
"""

from __future__ import annotations

import duckdb
import pytest

from mqcap.ledger.schema import table_exists


def _catalog_says(con: duckdb.DuckDBPyConnection, schema: str, name: str) -> bool:
    return bool(
        con.execute(
            """select 1 from duckdb_tables() where schema_name = ? and table_name = ?
               union all
               select 1 from duckdb_views() where schema_name = ? and view_name = ?""",
            [schema, name, schema, name],
        ).fetchall()
    )


@pytest.fixture
def con():
    con = duckdb.connect()
    con.execute("create schema meta")
    con.execute("create schema marts")
    con.execute("create table meta.ingest_ledger (file_id bigint)")
    con.execute('create table meta."odd ""name" (x int)')
    con.execute("create table marts.base (x int)")
    con.execute("create view marts.dim_run as select x from marts.base")
    con.execute("create view marts.broken as select x from marts.base")
    con.execute("create table main.dim_run (y int)")  # (the same name in another schema)
    con.execute("drop table marts.base")  # both views no longer bind
    yield con
    con.close()


@pytest.mark.parametrize(
    ("schema", "name", "exists"),
    [
        ("meta", "ingest_ledger", True),
        ("meta", 'odd "name', True),
        ("marts", "dim_run", True),  # a view that no longer binds still exists
        ("marts", "broken", True),
        ("marts", "base", False),  # dropped
        ("meta", "dim_run", False),  # only in main
        ("meta", "pipeline_step", False),
        ("nope", "ingest_ledger", False),  # no such schema
    ],
)
def test_table_exists_answers_as_the_catalog(con, schema, name, exists):
    assert table_exists(con, schema, name) is exists
    assert _catalog_says(con, schema, name) is exists


def _identity_warehouse() -> duckdb.DuckDBPyConnection:
    """A ledger of one run folder (run.yaml: system MV42) with two CPU-interval files."""
    con = duckdb.connect()
    con.execute("create schema meta")
    con.execute("create schema landing")
    con.execute(
        "create table meta.ingest_ledger (file_id bigint, path varchar, status varchar, "
        "study varchar, run_id varchar)"
    )
    con.execute(
        "insert into meta.ingest_ledger values (1, 's/r1/run.yaml', 'loaded', 's', 'r1'), "
        "(2, 's/r1/a.csv', 'loaded', 's', 'r1'), (3, 's/r1/b.csv', 'loaded', 's', 'r1'), "
        "(4, 's/r1/old.csv', 'replaced', 's', 'r1')"
    )
    con.execute(
        "create table landing.run_manifest (file_id bigint, study varchar, run_id varchar, "
        "system_id varchar, qmgr varchar)"
    )
    con.execute("insert into landing.run_manifest values (1, 's', 'r1', 'mv42', null)")
    con.execute("create table landing.ascpu_interval (file_id bigint, system_id varchar)")
    con.execute(
        "insert into landing.ascpu_interval values (2, 'MV42'), (2, 'MV42'), (3, 'MV42'), "
        "(4, 'MPX9')"  # (a replaced file's records are not the run's)
    )
    return con


def test_identity_notes_without_and_with_a_file_of_another_system():
    from mqcap.ledger.attribution import identity_notes

    con = _identity_warehouse()
    assert identity_notes(con) == []
    con.execute("insert into landing.ascpu_interval values (3, 'mpx1'), (3, 'MPX2')")
    expected = [
        "s/r1/b.csv: its records are of system MPX1, MPX2 (run.yaml: MV42); taken as run s/r1 "
        "(a file in a run folder belongs to that run)"
    ]
    assert identity_notes(con) == expected
    assert identity_notes(con, [3]) == expected and identity_notes(con, [2]) == []
    con.close()
