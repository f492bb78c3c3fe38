"""Deletions, renames and run-id edits reach the marts on the next `mqcap run` (real dbt)."""

from __future__ import annotations

import duckdb
import pytest

from mqcap.pipeline import run

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


def _rows(settings, sql: str):
    con = duckdb.connect(str(settings.warehouse), read_only=True)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def test_deletion_rename_and_run_id_edit_follow_the_raw_folder_into_the_marts(mini_settings):
    # The mini study's 20 files landed, built and checked (tests/conftest.py mini_run).
    settings = mini_settings
    sample_study = settings.raw_root / "attls"
    assert run(settings, reports=False).nothing_new
    assert _rows(settings, "select count(*), sum(round_trip_us) from marts.fct_driver_results") == [
        (10, 1823793.0)
    ]
    # A deleted results file: its row leaves landing and the marts; not "nothing new".
    (sample_study / "ssl-chacha-1m" / "results.csv").unlink()
    second = run(settings, reports=False)
    assert not second.nothing_new and second.build is not None
    assert [o.path for o in second.ingest.deleted] == ["attls/ssl-chacha-1m/results.csv"]
    assert _rows(settings, "select count(*), sum(round_trip_us) from marts.fct_driver_results") == [
        (9, 1823793.0 - 693844)
    ]
    assert _rows(
        settings, "select count(*) from marts.fct_run_files where run_key = 'attls/ssl-chacha-1m'"
    ) == [(1,)]
    # A renamed run folder and a run-id edit in another: no conflict, every file follows.
    (sample_study / "attls-chacha-16k").rename(sample_study / "attls-chacha-16k-moved")
    manifest = sample_study / "attls-chacha-2k" / "run.yaml"
    manifest.write_text(manifest.read_text().replace("run: attls-chacha-2k", "run: attls-2k-b"))
    # And a results file in a folder without run.yaml: it lands, reaches no mart, and says so.
    orphan = sample_study / "no-manifest-here"
    orphan.mkdir()
    (orphan / "results.csv").write_text("rate_per_s,round_trip_us\n12.5,999\n")
    third = run(settings, reports=False)
    assert third.ingest.set_aside == [] and third.marts.ok
    assert third.data_problems  # exit code 1
    assert third.ingest.problem_lines() == [
        "unattributed: attls/no-manifest-here/results.csv: unattributed: no run.yaml in its "
        "folder or above, and 1 results row(s) without study and run_id columns: its rows reach "
        "no mart (put it in a run folder with a run.yaml)"
    ]
    assert _rows(
        settings,
        "select count(*) from landing.driver_results where source_file like '%no-manifest-here%'",
    ) == [(1,)]
    assert _rows(
        settings, "select count(*) from marts.fct_driver_results where round_trip_us = 999"
    ) == [(0,)]
    assert _rows(
        settings,
        """select run_key, source_file from marts.fct_run_files
           where run_key in ('attls/attls-chacha-16k', 'attls/attls-2k-b') order by 1, 2""",
    ) == [
        ("attls/attls-2k-b", "attls/attls-chacha-2k/results.csv"),
        ("attls/attls-2k-b", "attls/attls-chacha-2k/run.yaml"),
        ("attls/attls-chacha-16k", "attls/attls-chacha-16k-moved/results.csv"),
        ("attls/attls-chacha-16k", "attls/attls-chacha-16k-moved/run.yaml"),
    ]
    assert _rows(
        settings,
        "select run_key, round_trip_us from marts.fct_driver_results "
        "where run_key in ('attls/attls-chacha-16k', 'attls/attls-2k-b', 'attls/attls-chacha-2k')"
        " order by 1",
    ) == [("attls/attls-2k-b", 2199.0), ("attls/attls-chacha-16k", 12840.0)]
    assert _rows(settings, "select count(*) from marts.dim_run") == [(10,)]
    # Then nothing new, truly (the unattributed file is still reported).
    fourth = run(settings, reports=False)
    assert fourth.nothing_new and len(fourth.ingest.unattributed) == 1
