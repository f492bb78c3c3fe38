"""Landing checks read only the columns their suite checks (a wide SMF table does not travel
whole into pandas), and that changes nothing: the same GX results, passes and failures (with
their values, files and positions) as reading every column."""

from __future__ import annotations

import shutil

import duckdb

from mqcap import validate as validate_mod
from mqcap.ingest import ingest
from mqcap.validate import checked_columns, load_suites, validate

from helpers import PROJECT

FIXTURES = PROJECT / "tests" / "fixtures"


def _results(report) -> list:
    return [
        (r.suite, r.success, r.evaluated, r.rows, [f.message() for f in r.failures])
        for r in report.results
    ]


def test_reading_only_checked_columns_gives_the_same_results(settings, sample_study, monkeypatch):
    shutil.copy(FIXTURES / "smf" / "TESTCHL.dat", settings.raw_root / "TESTCHL.dat")
    crypto = sorted((FIXTURES / "rmf").glob("CRYPTO_*.txt"))[0]
    shutil.copy(crypto, settings.raw_root / crypto.name)  # its suite has a row_condition
    report = ingest(settings)
    ids = report.new_file_ids
    con = duckdb.connect(str(settings.warehouse))
    try:  # two bad values: a failure must name them the same way both times
        con.execute("update landing.driver_results set round_trip_us = -5 where source_line = 2")
        con.execute("update landing.rmf_crypto set util_pct = 140 where source_line is not null")
    finally:
        con.close()
    narrow = validate(settings, "landing", file_ids=ids, docs=False)
    monkeypatch.setattr(validate_mod, "checked_columns", lambda spec: None)
    wide = validate(settings, "landing", file_ids=ids, docs=False)
    assert _results(narrow) == _results(wide)
    failed = {r[0] for r in _results(narrow) if not r[1]}
    assert failed == {"landing.driver_results", "landing.rmf_crypto"}
    assert len(narrow.results) >= 5  # driver results, manifests, SMF tables, RMF


def test_checked_columns_of_every_suite_are_columns_of_its_table(settings):
    from mqcap.parsers import all_tables

    tables = {f"landing.{t.name}": set(t.columns) for t in all_tables()}
    narrowed = 0
    for spec in load_suites(settings):
        table = spec["meta"]["mqcap"]["table"]
        cols = checked_columns(spec)
        if table not in tables or cols is None:
            continue
        assert set(cols) <= tables[table], (table, set(cols) - tables[table])
        narrowed += 1
    assert narrowed >= 30  # most landing suites read a few columns
    conditional = [
        s["name"]
        for s in load_suites(settings)
        if any("row_condition" in e["kwargs"] for e in s["expectations"])
    ]
    assert conditional and all(
        checked_columns(s) is None for s in load_suites(settings) if s["name"] in conditional
    )
