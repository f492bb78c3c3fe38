"""mqcap's DuckDB materializations (macros/materializations.sql) on a small dbt project of their
own, with real dbt-duckdb: a table, a view, a Python model and a run-keyed incremental model
are each replaced in one statement; a model whose query fails leaves its relation as it was; a
relation of the other type in the way is replaced; the incremental build deletes and inserts
the runs of meta.build_scope only; what the materializations do not support is refused by name.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import duckdb
import pytest

from helpers import DBT_PROFILE, PROJECT, dbt_in, duckdb_rows

MODELS = {
    # A table whose query fails when asked: error() raises while the table is created.
    # Its post-hook records the rows it sees, after the table is made, in the same transaction.
    "t.sql": "{{ config(materialized='table', post_hook='create or replace table main.t_hook"
    " as select count(*) as n from {{ this }}') }}\n"
    "select {{ var('n', 1) }} as n"
    "{% if var('fail', false) %}, error('this model fails') as boom{% endif %}\n",
    # A relation whose type the build chooses.
    "switch.sql": "{{ config(materialized=var('switch', 'view')) }}\nselect 7 as seven\n",
    "p.py": "import pandas as pd\n\n\ndef model(dbt, session):\n"
    "    dbt.config(materialized='table')\n"
    "    return pd.DataFrame({'n': [dbt.config.get('n', 1), 2]})\n",
    # Run-keyed: the runs' values, times the var k.
    "inc.sql": "{{ run_keyed_incremental() }}\n"
    "select run_key, v * {{ var('k', 1) }} as v from main.src where {{ in_build_scope() }}\n",
    "refused.sql": "{{ config(materialized='table', grants={'select': ['someone']}) }}\n"
    "select 1 as one\n",
}


def _project(root: Path) -> Path:
    project = root / "project"
    (project / "models").mkdir(parents=True)
    (project / "macros").mkdir()
    for name in ("materializations.sql", "run_scope.sql"):
        shutil.copy(PROJECT / "macros" / name, project / "macros" / name)
    for name, text in MODELS.items():
        (project / "models" / name).write_text(text)
    (project / "dbt_project.yml").write_text(
        "name: m\nversion: '1.0.0'\nconfig-version: 2\nprofile: m\n"
        "flags:\n  send_anonymous_usage_stats: false\n"
    )
    (project / "profiles.yml").write_text(DBT_PROFILE.format(path=root / "w.duckdb"))
    with duckdb.connect(str(root / "w.duckdb")) as con:
        con.execute(
            "create table main.src as select * from (values ('a', 1), ('b', 2), ('d', 4)) s(run_key, v)"
        )
        con.execute("create schema meta")
        con.execute("create table meta.build_scope (run_key varchar)")
    return project


def _rows(root: Path, sql: str) -> list[tuple]:
    return duckdb_rows(root / "w.duckdb", sql)


def _objects(root: Path) -> dict[str, str]:
    sql = (
        "select table_name, table_type from information_schema.tables "
        "where table_schema = 'main' order by 1"
    )
    return dict(_rows(root, sql))


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, str]:
    root = tmp_path_factory.mktemp("materializations")
    project = _project(root)
    proc = dbt_in(project, "run")
    # refused fails alone (nothing depends on it); every other model is built.
    assert proc.returncode == 1 and "PASS=4 WARN=0 ERROR=1" in proc.stdout, proc.stdout[-3000:]
    return root, project, proc.stdout


def test_each_model_is_built_in_one_statement_with_no_relation_left_aside(built):
    root, project, _ = built
    assert _objects(root) == {
        "inc": "BASE TABLE",
        "p": "BASE TABLE",
        "src": "BASE TABLE",
        "switch": "VIEW",
        "t": "BASE TABLE",
        "t_hook": "BASE TABLE",
    }
    assert _rows(root, "select n from t_hook") == [(1,)]
    assert _rows(root, "select n from t") == [(1,)]
    assert _rows(root, "select n from p order by n") == [(1,), (2,)]
    assert _rows(root, "select run_key, v from inc order by 1") == [("a", 1), ("b", 2), ("d", 4)]
    log = (project / "logs" / "dbt.log").read_text()
    # dbt-duckdb's swap (build aside, rename, drop the backup) is not used.
    assert "__dbt_tmp" not in log and "__dbt_backup" not in log and " rename to " not in log
    # t and inc, and t's post-hook (the Python model's statement runs inside its job, which
    # dbt does not log).
    assert log.count("create or replace table") == 3 and log.count("create or replace view") == 1


def test_a_failing_model_leaves_its_table_as_it_was(built):
    root, project, _ = built
    proc = dbt_in(project, "run", "--select", "t", "--vars", "{n: 5, fail: true}")
    assert proc.returncode == 1 and "this model fails" in proc.stdout, proc.stdout[-3000:]
    assert _rows(root, "select n from t") == [(1,)]
    assert set(_objects(root)) == {"inc", "p", "src", "switch", "t", "t_hook"}


def test_a_relation_of_the_other_type_and_the_runs_in_scope_are_replaced(built):
    """One build: switch goes from a view to a table, t is built again (after the failure
    above), inc replaces the rows of the runs in meta.build_scope; the next makes switch a view
    again and inc whole (two dbt runs where five would say the same)."""
    root, project, _ = built
    with duckdb.connect(str(root / "w.duckdb")) as con:
        con.execute("insert into meta.build_scope values ('b'), ('c'), ('d')")
        con.execute("insert into main.src values ('c', 3)")
        con.execute("delete from main.src where run_key = 'd'")
    assert _rows(root, "select run_key, v from inc order by 1") == [("a", 1), ("b", 2), ("d", 4)]
    scoped = "{n: 5, switch: table, mqcap_incremental: true, k: 10}"
    proc = dbt_in(project, "run", "--select", "t", "switch", "inc", "--vars", scoped)
    assert proc.returncode == 0, proc.stdout[-3000:]
    assert _objects(root)["switch"] == "BASE TABLE"
    assert _rows(root, "select seven from switch") == [(7,)]
    assert _rows(root, "select n from t") == [(5,)]
    # a: outside the scope, kept as built; b: rebuilt; c: new; d: in scope, no rows now.
    assert _rows(root, "select run_key, v from inc order by 1") == [("a", 1), ("b", 20), ("c", 30)]

    # Without the var, inc whole again; switch a view again.
    proc = dbt_in(project, "run", "--select", "switch", "inc", "--vars", "{switch: view, k: 100}")
    assert proc.returncode == 0, proc.stdout[-3000:]
    assert _objects(root)["switch"] == "VIEW"
    assert _rows(root, "select seven from switch") == [(7,)]
    assert _rows(root, "select run_key, v from inc order by 1") == [
        ("a", 100),
        ("b", 200),
        ("c", 300),
    ]


def test_what_is_not_supported_is_refused_by_name(built):
    root, _, out = built
    assert "do not support 'grants'" in out, out[-3000:]
    assert "refused" not in _objects(root)
