"""Every model gives the same rows however many threads DuckDB runs it on, every time.

Regression (README "Engines", bench/RESULTS.md): DuckDB 2.0's parallel window partitioned by
text that an aggregate of the same query produced lost rows at random. `first_copy` of the
DISPLAY CHSTATUS blocks was such a window, so the DuckDB engine counted fewer CHSTATUS blocks and
snapshots than there were (stg_chstatus__channel_attrs: 274,970 or 276,396 rows on one
warehouse; 7 of 20 evaluations wrong at 2 threads, 17 of 20 at 4). The copy macros now find the
first copy by group-by and join.

A generated attls study at scale 30 (1,212 files, 4,458 CHSTATUS snapshots) is large enough for
DuckDB to run these queries in parallel. It has no copies, so every CHSTATUS attribute landed
must count: an expected figure that does not come from the models.
"""

from __future__ import annotations

import json

import duckdb
import pytest

from mqcap.generate import generate
from mqcap.pipeline import run
from mqcap.settings import Settings

from helpers import PROJECT

# A soak (CI=true runs it, `make test` elsewhere does not): 125 evaluations of two views at
# four thread counts and every model twice at 8 threads hunt for a race that shows at random.
pytestmark = [pytest.mark.e2e, pytest.mark.slow, pytest.mark.soak]

REPEATS = 5


@pytest.fixture(scope="module")
def big_study(tmp_path_factory) -> Settings:
    base = tmp_path_factory.mktemp("parallel")
    generate(PROJECT / "data" / "scenarios" / "attls.yaml", base / "raw", scale=30)
    settings = Settings.load(
        warehouse=base / "warehouse.duckdb",
        raw=base / "raw",
        reports_out=base / "reports",
        project_root=PROJECT,
    )
    result = run(settings, reports=False)
    assert result.build.ok
    return settings


def _count(con: duckdb.DuckDBPyConnection, sql: str) -> int:
    return con.execute(f"select count(*) from ({sql}) as model_rows").fetchall()[0][0]


def test_every_chstatus_attribute_counts_at_any_thread_count(big_study):
    with duckdb.connect(str(big_study.warehouse), read_only=True) as con:
        landed = _count(con, "select * from landing.chstatus_attr")
        blocks = _count(con, "select distinct file_id, block_no from landing.chstatus_attr")
        assert landed > 250_000 and blocks > 8_000
        assert _count(con, "select * from intermediate.int_record_copies") == 0
        for threads in (1, 2, 4, 8):
            con.execute(f"set threads = {threads}")
            counts = {
                _count(con, "select * from staging.stg_chstatus__channel_attrs")
                for _ in range(4 * REPEATS)
            }
            assert counts == {landed}, threads
            statuses = {
                _count(con, "select * from intermediate.int_chstatus_channel_statuses")
                for _ in range(REPEATS)
            }
            assert statuses == {blocks}, threads


def test_every_model_counts_the_same_at_eight_threads_as_at_one(big_study):
    compiled = big_study.dbt_target / "compiled" / "mqcap" / "models"
    models = sorted(
        path for path in compiled.rglob("*.sql") if "select" in path.read_text().lower()
    )
    # Every SQL model, as dbt's manifest lists them (81 when written; the models' row checks
    # are statements of their own nodes, macros/row_checks.sql, and compile to no file).
    nodes = json.loads((big_study.dbt_target / "manifest.json").read_text())["nodes"].values()
    listed = [
        n
        for n in nodes
        if n["original_file_path"].startswith("models/")
        and n["resource_type"] == "model"
        and n.get("language") == "sql"
    ]
    assert len(models) == len(listed) > 75
    unstable = {}
    with duckdb.connect(str(big_study.warehouse), read_only=True) as con:
        for path in models:
            sql = path.read_text()
            con.execute("set threads = 1")
            expected = _count(con, sql)
            con.execute("set threads = 8")
            counts = {_count(con, sql) for _ in range(REPEATS)}
            if counts != {expected}:
                unstable[str(path.relative_to(compiled))] = (expected, sorted(counts))
    assert unstable == {}
