"""Each model's row checks run in its own node (macros/row_checks.sql), on a small dbt project
of their own with mqcap's macros and real dbt-duckdb: the query of the model's `primary_key`
test (key, `required`, `references`, `referenced_by`, `accepted`) runs as a post-hook of the
model and of a seed; no test node runs; a model whose rows fail keeps the rows it had, its
children are skipped, and the error names the model, how many failures there are and the
first five.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import duckdb
import pytest

from helpers import DBT_PROFILE, PROJECT, dbt_in, duckdb_rows

PROJECT_YML = """\
name: m
version: '1.0.0'
config-version: 2
profile: m
flags:
  send_anonymous_usage_stats: false
  use_colors: false
models:
  m:
    +materialized: table
    +post-hook: "{{ mqcap_row_checks() }}"
seeds:
  m:
    +post-hook: "{{ mqcap_row_checks() }}"
"""

MODELS = {
    # The runs, over main.src_runs.
    "runs.sql": "select run_key, kind from main.src_runs\n",
    # Values per run; the rows the test writes into main.src_values decide what fails.
    # Its checks read runs and kinds: built after them.
    "v.sql": "-- depends_on: {{ ref('runs') }} {{ ref('kinds') }}\n"
    "select value_key, run_key, kind, n from main.src_values\n",
    # Reads v: skipped when v fails.
    "v_total.sql": "select sum(n) as total from {{ ref('v') }}\n",
    # The runs again, built after v: checked against v from here (referenced_by).
    "run_list.sql": "-- depends_on: {{ ref('v') }}\nselect run_key, kind from main.src_runs\n",
    # A view whose key check reads it whole.
    "w.sql": "{{ config(materialized='view') }}\nselect run_key as w_key from {{ ref('runs') }}\n",
}

SCHEMA = """\
version: 2
seeds:
  - name: kinds
    columns:
      - name: kind
        data_tests: [primary_key]
models:
  - name: runs
    columns:
      - name: run_key
        data_tests: [primary_key]
  - name: v
    columns:
      - name: value_key
        data_tests:
          - primary_key:
              arguments:
                required: [n]
                references:
                  - {column: run_key, to: ref('runs'), field: run_key}
                  - {column: kind, to: ref('kinds'), field: kind}
  - name: v_total
    columns:
      - name: total
        data_tests: [primary_key]
  - name: run_list
    columns:
      - name: run_key
        data_tests:
          - primary_key:
              arguments:
                accepted:
                  kind: [a, b]
                referenced_by:
                  - {model: ref('v'), column: run_key, field: run_key}
  - name: w
    columns:
      - name: w_key
        data_tests: [primary_key]
"""


def _project(root: Path) -> Path:
    project = root / "project"
    for folder in ("models", "macros", "seeds"):
        (project / folder).mkdir(parents=True)
    for name in ("materializations.sql", "run_scope.sql", "primary_key.sql", "row_checks.sql"):
        shutil.copy(PROJECT / "macros" / name, project / "macros" / name)
    shutil.copy(PROJECT / "macros" / "engine.sql", project / "macros" / "engine.sql")
    for name, text in MODELS.items():
        (project / "models" / name).write_text(text)
    (project / "models" / "schema.yml").write_text(SCHEMA)
    (project / "seeds" / "kinds.csv").write_text("kind\na\nb\n")
    (project / "dbt_project.yml").write_text(PROJECT_YML)
    (project / "profiles.yml").write_text(DBT_PROFILE.format(path=root / "w.duckdb"))
    with duckdb.connect(str(root / "w.duckdb")) as con:
        con.execute(
            "create table main.src_runs as select * from (values ('r1', 'a'), ('r2', 'b')) s(run_key, kind)"
        )
        con.execute(
            "create table main.src_values as select * from "
            "(values ('x1', 'r1', 'a', 1), ('x2', 'r2', 'b', 2)) s(value_key, run_key, kind, n)"
        )
    return project


def _build(project: Path) -> subprocess.CompletedProcess:
    return dbt_in(project, "build", "--exclude-resource-type", "test")


def _rows(root: Path, sql: str) -> list[tuple]:
    return duckdb_rows(root / "w.duckdb", sql)


def _values(root: Path, rows: str) -> None:
    with duckdb.connect(str(root / "w.duckdb")) as con:
        con.execute("delete from main.src_values")
        con.execute(f"insert into main.src_values values {rows}")


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("row-checks")
    project = _project(root)
    proc = _build(project)
    assert proc.returncode == 0 and "PASS=6 WARN=0 ERROR=0" in proc.stdout, proc.stdout[-3000:]
    return root, project


def test_every_model_and_seed_checks_its_rows_in_its_own_node(built):
    root, project = built
    log = (project / "logs" / "dbt.log").read_text()
    names = ("kinds", "runs", "v", "v_total", "run_list", "w")
    for relation in (f'"main"."{name}"' for name in names):
        assert f'row checks of "w".{relation} failed' in log, relation
    # No test node ran: the checks are statements of the models' nodes.
    assert "test.m." not in (project / "target" / "run_results.json").read_text()
    assert _rows(root, "select total from v_total") == [(3,)]


def test_failing_rows_keep_the_models_table_skip_its_children_and_say_what_failed(built):
    root, project = built
    # A repeated key, a null required value, a run and a kind that are nowhere.
    _values(root, "('x1', 'r1', 'a', 1), ('x1', 'r2', 'b', 2), ('x3', 'r9', 'c', null)")
    proc = _build(project)
    assert proc.returncode == 1, proc.stdout[-3000:]
    assert "ERROR=1" in proc.stdout and "SKIP=2" in proc.stdout, proc.stdout[-3000:]
    assert (
        'row checks of "w"."main"."v" failed: 4 failure(s): no kinds row for kind c (1 rows); '
        "no runs row for run_key r9 (1 rows); null n (1 rows); repeated key x1 (2 rows)"
    ) in proc.stdout
    # v kept the rows it had; v_total, its child, was skipped and kept its own.
    assert _rows(root, "select value_key, n from v order by 1") == [("x1", 1), ("x2", 2)]
    assert _rows(root, "select total from v_total") == [(3,)]


def test_a_long_list_of_failures_gives_its_count_and_the_first_five(built):
    root, project = built
    _values(
        root, ", ".join(f"('k{i}', 'r1', 'a', {i}), ('k{i}', 'r1', 'a', {i})" for i in range(7))
    )
    proc = _build(project)
    assert proc.returncode == 1
    assert (
        'row checks of "w"."main"."v" failed: 7 failure(s): repeated key k0 (2 rows); '
        "repeated key k1 (2 rows); repeated key k2 (2 rows); repeated key k3 (2 rows); "
        "repeated key k4 (2 rows)\n"
    ) in proc.stdout


def test_a_check_from_the_model_pointed_to_and_of_accepted_values(built):
    root, project = built
    _values(root, "('x1', 'r1', 'a', 1), ('x2', 'r2', 'b', 2)")
    with duckdb.connect(str(root / "w.duckdb")) as con:
        con.execute("insert into main.src_runs values ('r3', 'z')")
    proc = _build(project)
    assert proc.returncode == 1
    assert (
        'row checks of "w"."main"."run_list" failed: 1 failure(s): unexpected kind z (1 rows)'
        in proc.stdout
    )
    # run_list is checked against v (referenced_by): built alone after r2 is gone from the
    # runs, v (as last built) still names r2.
    with duckdb.connect(str(root / "w.duckdb")) as con:
        con.execute("delete from main.src_runs where run_key in ('r2', 'r3')")
    proc = dbt_in(project, "build", "--exclude-resource-type", "test", "--select", "run_list")
    assert proc.returncode == 1
    assert (
        'row checks of "w"."main"."run_list" failed: 1 failure(s): no row for v.run_key r2 '
        "(1 rows)" in proc.stdout
    )
    assert _rows(root, "select run_key from run_list order by 1") == [("r1",), ("r2",)]
