"""The build scope (mqcap.ledger.scope): which runs an incremental build recomputes, from the ledger,
the runs and the file -> run attribution now against the snapshot of the last complete build.

The intermediate and staging relations the scope reads are plain tables here (in a warehouse
they are dbt's views over landing), so each case is set up row by row.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import duckdb
import pytest

from mqcap.ledger import schema, scope
from mqcap.ledger.steps import PipelineState, StepRow, _hash
from mqcap.settings import Settings

from helpers import PROJECT

T = datetime(2026, 3, 1)


def _at(hh: int, mm: int) -> datetime:
    return T.replace(hour=hh, minute=mm)


RUNS = [  # run_key, study, baseline, start, end (local; UTC = local + 1 h)
    ("s/r1", "s", "s/r1", _at(9, 0), _at(9, 10)),
    ("s/r2", "s", "s/r1", _at(9, 20), _at(9, 30)),
    ("s/r3", "s", "s/r3", _at(10, 0), _at(10, 10)),
    ("t/q1", "t", "t/q1", _at(12, 0), _at(12, 10)),
]


@pytest.fixture
def con(tmp_path: Path) -> duckdb.DuckDBPyConnection:
    """Three runs of study s and one of t, a CPU file in each run folder, snapshot taken."""
    c = duckdb.connect(str(tmp_path / "w.duckdb"))
    schema.ensure_meta(c)
    c.execute(
        """create schema intermediate; create schema staging;
        create table intermediate.int_runs (run_key varchar, study varchar,
            baseline_run_key varchar, interval_start timestamp, interval_end timestamp,
            interval_start_utc timestamp, interval_end_utc timestamp, description varchar);
        create table intermediate.int_file_runs (file_id bigint, run_key varchar);
        create table intermediate.int_driver_results_candidates (file_id bigint, run_key varchar);
        create table staging.stg_ascpu__intervals (file_id bigint, interval_start timestamp,
            interval_end timestamp);
        create table staging.stg_amqsrua__elements (file_id bigint,
            interval_start_utc timestamp, interval_mid_utc timestamp, put_time_utc timestamp);"""
    )
    for i, (key, study, base, start, end) in enumerate(RUNS, start=1):
        c.execute(
            "insert into intermediate.int_runs values (?, ?, ?, ?, ?, "
            "? + interval 1 hour, ? + interval 1 hour, 'x')",
            [key, study, base, start, end, start, end],
        )
        run_id = key.split("/")[1]
        c.execute(
            "insert into meta.ingest_ledger (file_id, path, sha256, bytes, seen_at, study, run_id, "
            "attribution, status) values (?, ?, '-', 0, now(), ?, ?, 'run_folder', 'loaded')",
            [i, f"{key}/cpu.csv", study, run_id],
        )
        c.execute("insert into intermediate.int_file_runs values (?, ?)", [i, key])
        c.execute("insert into staging.stg_ascpu__intervals values (?, ?, ?)", [i, start, end])
    scope.complete(c, [1, 2, 3, 4], PROJECT)
    yield c
    c.close()


def _state(loaded: dict[int, str | None], covered=(1, 2, 3, 4), dbt: str = "fp") -> PipelineState:
    done = StepRow(
        1,
        "build",
        "*",
        "",
        "done",
        _hash("build", "fp", sorted(covered)),
        list(covered),
        None,
        None,
        None,
        None,
        T,
        T,
    )
    return PipelineState(
        Settings.load(), loaded, {("build", "*", ""): [done]}, ["s", "t"], True, _fp={"dbt": dbt}
    )


LOADED = {1: "s", 2: "s", 3: "s", 4: "t"}


def _land(con, file_id: int, study=None, run_id=None, attribution="by_time") -> None:
    con.execute(
        "insert into meta.ingest_ledger (file_id, path, sha256, bytes, seen_at, study, run_id, "
        "attribution, status) values (?, ?, '-', 0, now(), ?, ?, ?, 'loaded')",
        [file_id, f"f{file_id}", study, run_id, attribution],
    )


def test_nothing_changed_recomputes_no_run(con) -> None:
    got = scope.compute_scope(con, _state(LOADED))
    assert (got.full, got.runs, got.changed_files) == (False, set(), 0)


def test_a_loose_file_touches_the_runs_its_time_span_overlaps(con) -> None:
    _land(con, 5)
    con.execute(
        "insert into staging.stg_ascpu__intervals values (5, ?, ?)", [_at(9, 25), _at(9, 26)]
    )
    got = scope.compute_scope(con, _state({**LOADED, 5: None}))
    assert (got.full, got.runs) == (False, {"s/r2"})


def test_a_utc_stamped_file_is_matched_on_the_runs_utc_interval(con) -> None:
    _land(con, 5)
    # 10:05 UTC is 09:05 local: run r1 (the local interval 10:00-10:10 is r3's, not touched).
    con.execute(
        "insert into staging.stg_amqsrua__elements values (5, ?, ?, ?)",
        [_at(10, 4), _at(10, 5), _at(10, 6)],
    )
    got = scope.compute_scope(con, _state({**LOADED, 5: None}))
    assert got.runs == {"s/r1", "s/r2"}  # r2 names r1 as its baseline


def test_a_removed_file_touches_its_run_and_the_runs_compared_with_it(con) -> None:
    # File 1 deleted: its rows, its folder attribution and its ledger row's status are gone.
    con.execute("delete from staging.stg_ascpu__intervals where file_id = 1")
    con.execute("delete from intermediate.int_file_runs where file_id = 1")
    con.execute("update meta.ingest_ledger set status = 'replaced' where file_id = 1")
    got = scope.compute_scope(con, _state({2: "s", 3: "s", 4: "t"}))
    assert (got.full, got.runs) == (False, {"s/r1", "s/r2"})


def test_a_reattributed_file_touches_its_old_and_new_run(con) -> None:
    # No new file id: a run.yaml edit moved file 3 from r3's folder to r2 (ledger updated).
    con.execute("update intermediate.int_file_runs set run_key = 's/r2' where file_id = 3")
    got = scope.compute_scope(con, _state(LOADED))
    assert (got.runs, got.changed_files) == ({"s/r2", "s/r3"}, 1)


def test_a_changed_run_row_touches_that_run(con) -> None:
    con.execute("update intermediate.int_runs set description = 'edited' where run_key = 's/r3'")
    assert scope.compute_scope(con, _state(LOADED)).runs == {"s/r3"}


def test_a_run_gone_is_touched(con) -> None:
    con.execute("delete from intermediate.int_runs where run_key = 't/q1'")
    assert scope.compute_scope(con, _state(LOADED)).runs == {"t/q1"}


def test_a_study_file_touches_every_run_of_its_study(con) -> None:
    _land(con, 5, study="s", attribution="study_folder")
    got = scope.compute_scope(con, _state({**LOADED, 5: "s"}))
    assert got.runs == {"s/r1", "s/r2", "s/r3"}


def test_a_removed_file_without_a_recorded_span_means_a_full_build(con) -> None:
    con.execute("delete from meta.build_file_spans where file_id = 4")
    got = scope.compute_scope(con, _state({1: "s", 2: "s", 3: "s"}))
    assert got.full and "time span" in got.reason


def test_a_changed_dbt_project_means_a_full_build(con) -> None:
    got = scope.compute_scope(con, _state(LOADED, dbt="another project"))
    assert got.full and "no complete build" in got.reason


def test_scope_of_a_killed_build_stays_until_a_build_completes(con) -> None:
    assert scope.begin(con, scope.Scope(False, {"s/r2"})) == ["s/r2"]
    # Killed: the next build adds its own runs to those still pending.
    assert scope.begin(con, scope.Scope(False, {"t/q1"})) == ["s/r2", "t/q1"]
    scope.complete(con, [1, 2, 3, 4], PROJECT)
    assert con.execute("select count(*) from meta.build_scope").fetchall() == [(0,)]


def test_a_view_that_cannot_be_read_means_a_full_build(con) -> None:
    """A staging or intermediate view dropped by hand: the scope cannot be known from the views,
    so the build is a full one (which makes the views again), not a crash."""
    con.execute("drop table intermediate.int_driver_results_candidates")
    got = scope.compute_scope(con, _state(LOADED))
    assert got.full and "a view of the last build cannot be read" in got.reason
    assert "int_driver_results_candidates" in got.reason


def test_a_run_gone_or_moved_touches_the_runs_its_interval_overlaps(con) -> None:
    """Found with a copied run folder, then deleted: the other run's CPU rows still said
    "also counted in" the deleted run after the incremental build (a full build did not)."""
    # r4 overlapped r2 at the last complete build (09:25-09:35 against 09:20-09:30): now gone.
    con.execute(
        "insert into meta.build_runs select 's/r4', 's', 's/r4', ?, ?, "
        "? + interval 1 hour, ? + interval 1 hour, 'h'",
        [_at(9, 25), _at(9, 35), _at(9, 25), _at(9, 35)],
    )
    assert scope.compute_scope(con, _state(LOADED)).runs == {"s/r4", "s/r2"}
    con.execute("delete from meta.build_runs where run_key = 's/r4'")
    # r3 moved onto r1's time: r1, r2 (which names r1) and r3 itself.
    con.execute(
        "update intermediate.int_runs set interval_start = ?, interval_end = ?, "
        "interval_start_utc = ?, interval_end_utc = ? where run_key = 's/r3'",
        [_at(9, 5), _at(9, 8), _at(10, 5), _at(10, 8)],
    )
    assert scope.compute_scope(con, _state(LOADED)).runs == {"s/r1", "s/r2", "s/r3"}
