"""Great Expectations suites at the boundaries, on a real warehouse (tests/validate_support.py):
every suite passes on good data; a broken copy fails each suite with a message naming the suite,
the expectation, the table, the run and the source file; landing validation looks only at what
was just landed; Data Docs and ``mqcap status`` show the results."""

from __future__ import annotations

import json
import re
import shutil

import duckdb
import pytest
from click.testing import CliRunner

from mqcap.cli import main
from mqcap.settings import Settings
from mqcap.validate import Failure, data_docs_index, load_suites, validate

from validate_support import build_warehouse

pytestmark = pytest.mark.slow(minutes=3)

PROJECT = __import__("conftest").PROJECT
SUITES = {s["name"]: s for s in load_suites(Settings.load(project_root=PROJECT))}
BETWEEN = "expect_column_values_to_be_between"
COUNT = "expect_table_row_count_to_equal"
# Suites whose break is chosen by hand: the checks the reports lean on most.
OVERRIDES = {
    "marts.fct_cpu_source_agreement": ("ratio_to_preferred", 1.25),  # cross-source tolerance
    "marts.fct_address_space_cost": ("cpu_us_per_txn", 20_000_000.0),  # above 10 s per txn
    "marts.fct_crypto": ("util_pct", 140.0),  # UTIL% above 100
    "marts.fct_channel_status": ("xqtime_short_max_us", -1),  # placeholder left in
    "landing.run_manifest": ("interval_start", "1970-01-01 00:00:00"),  # 1970 placeholder
    # A zeroed SMF header time: keeps a 'z/OS local time' break whatever the suites' order.
    "landing.smf_qcst": ("record_time_local", "1970-01-01 00:00:00"),
}
# Suites always broken by their row count (the message test reads it), whatever the order.
COUNT_ALWAYS = {"landing.driver_results"}


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Settings:
    root = tmp_path_factory.mktemp("validate")
    (root / "raw").mkdir()
    settings = Settings.load(
        warehouse=root / "good" / "warehouse.duckdb",
        raw=root / "raw",
        reports_out=root / "reports",
        project_root=PROJECT,
    )
    AGREE["run"] = build_warehouse(settings)
    return settings


@pytest.fixture(scope="module")
def good(built):
    return validate(built, "all")


def _copy(settings: Settings, name: str) -> Settings:
    dest = settings.warehouse.parent.parent / name / "warehouse.duckdb"
    dest.parent.mkdir(parents=True)
    shutil.copy(settings.warehouse, dest)
    return settings.with_(warehouse=dest, reports_out=dest.parent / "reports")


def _rows(con, table: str) -> int:
    return con.execute(f"select count(*) from {table}").fetchone()[0]


def _break_plans(suite: dict, index: int) -> list[tuple[str, str | None, object]]:
    """(expectation type, column, new value) candidates for one suite, in order: a row count
    the ledger does not match (every third landing suite), else a value outside one of the
    suite's ranges, taking turns by ``index`` so dates (1970), counts and durations (-1, a
    placeholder where the range starts at 0) and maxima all get broken somewhere."""
    name = suite["name"]
    if name in OVERRIDES:
        return [(BETWEEN, *OVERRIDES[name])]
    if name in COUNT_ALWAYS or (name.startswith("landing.") and index % 3 == 0):
        return [(COUNT, None, None)]
    ranges = []
    for e in suite["expectations"]:
        kw = e["kwargs"]
        if e["type"] != BETWEEN:
            continue
        lo, hi = kw.get("min_value"), kw.get("max_value")
        if isinstance(lo, str):
            ranges.append((BETWEEN, kw["column"], "1970-01-01 00:00:00"))
        elif lo is not None:
            ranges.append((BETWEEN, kw["column"], lo - 1))
        else:
            ranges.append((BETWEEN, kw["column"], hi * 2))
    turn = index % len(ranges) if ranges else 0
    # No range in the suite (or no data in any ranged column): its row count.
    return [*ranges[turn:], *ranges[:turn], (COUNT, None, None)]


AGREE: dict[str, str] = {}  # the run whose CPU two sources give (set by `built`)
PLANS = {n: _break_plans(s, i) for i, (n, s) in enumerate(sorted(SUITES.items()))}


def _pick_row(con, table: str, column: str | None) -> tuple[int, dict]:
    """A row to break (prefer one of a file in a run folder) and what its failure must name."""
    schema = table.split(".")[0]
    cols = {r[0] for r in con.execute(f"describe {table}").fetchall()}
    pos = (
        "'line ' || t.source_line"
        if "source_line" in cols
        else ("'byte ' || t.source_offset" if "source_offset" in cols else "null")
    )
    where = f"where t.{column} is not null" if column else ""
    if schema == "landing":
        sql = f"""select t.rowid, l.path, l.study || '/' || l.run_id, {pos}
                  from {table} t join meta.ingest_ledger l using (file_id) {where}
                  order by l.run_id is null, l.path, t.rowid limit 1"""
    else:
        run = "t.run_key" if "run_key" in cols else "t.study"
        file = "t.source_file" if "source_file" in cols else "null"
        sql = f"""select t.rowid, {file}, {run}, {pos} from {table} t {where}
                  order by {run} is null, t.rowid limit 1"""
    rowid, file, run, position = con.execute(sql).fetchone()
    return rowid, {"file": file, "run": run, "position": position}


def _has_values(con, table: str, column: str) -> bool:
    return bool(con.execute(f"select count({column}) from {table}").fetchone()[0])


def _insert_behind_ledger(con, table: str) -> dict:
    """An empty landing table gets one row the ledger does not know, on the TESTCHL file."""
    path, run, file_id = con.execute(
        """select path, study || '/' || run_id, file_id from meta.ingest_ledger
           where path like '%TESTCHL.dat'"""
    ).fetchone()
    con.execute(
        f"""insert into {table} (file_id, source_file, source_offset, smf_type, record_time_local)
            values (?, ?, 0, 115, timestamp '2016-02-27 18:05:00')""",
        [file_id, path],
    )
    return {"file": path, "run": run, "position": None, "count": "1 row(s), ledger 0"}


@pytest.fixture(scope="module")
def broken(built, good):
    """One copy with every suite's table broken its own way, validated once; the expected
    names per suite."""
    settings = _copy(built, "broken")
    expected = {}
    with duckdb.connect(str(settings.warehouse)) as con:
        for name, plans in PLANS.items():
            if not _rows(con, name):
                expected[name] = (COUNT, None, _insert_behind_ledger(con, name))
                continue
            kind, column, value = next(
                p for p in plans if p[1] is None or _has_values(con, name, p[1])
            )
            rowid, where = _pick_row(con, name, column)
            if kind == COUNT:
                landed = con.execute(
                    f"""select count(*) from {name} t join meta.ingest_ledger l using (file_id)
                        where l.path = ?""",
                    [where["file"]],
                ).fetchone()[0]
                where["count"] = f"{landed - 1} row(s), ledger {landed}"
                con.execute(f"delete from {name} where rowid = ?", [rowid])
            else:
                con.execute(f"update {name} set {column} = ? where rowid = ?", [value, rowid])
                where["value"] = value
            expected[name] = (kind, column, where)
    return validate(settings, "all", docs=False), expected


def test_every_suite_passes_on_good_data(good, built):
    assert [f.message() for f in good.failures] == []
    assert sorted(r.suite for r in good.results) == sorted(SUITES)
    with duckdb.connect(str(built.warehouse), read_only=True) as con:
        for r in good.results:
            assert r.rows == _rows(con, r.table), r.suite
    assert good.checks == sum(len(s["expectations"]) for s in SUITES.values())
    # Every mart a report reads has rows here, so its checks ran on data, not on nothing.
    empty = [r.suite for r in good.results if r.rows == 0]
    assert all(s.startswith("landing.smf_") for s in empty), empty


@pytest.mark.parametrize("suite", sorted(SUITES))
def test_broken_copy_fails_naming_expectation_table_run_and_file(broken, suite):
    report, expected = broken
    kind, column, where = expected[suite]
    result = next(r for r in report.results if r.suite == suite)
    assert not result.success
    mine = [f for f in result.failures if f.expectation == kind and f.column == column]
    assert len(mine) == 1, [f.message() for f in result.failures]
    f = mine[0]
    assert f.table == suite and f.suite == suite
    col = f" on column {column}" if column else ""
    head = f"suite {suite}: {kind}{col} failed in table {suite} for "
    msg = f.message()
    assert msg.startswith(head), msg
    pos = f" {where['position']}" if where["position"] and kind != COUNT else ""
    named = msg.split(" row(s): ", 1)[1]
    assert "?" not in named, msg  # never "run ?" or "file ?"
    if where["file"]:
        run = f"run {where['run']}, " if where["run"] else ""
        assert f"{run}file {where['file']}{pos}" in msg, msg
    else:
        # A mart row without a source file names its run's raw files (a fit: its runs').
        assert named.startswith(f"run {where['run']}") and ", file " in named, msg
    if kind == COUNT:
        # Named per file: the one file whose rows differ from the ledger's count.
        assert [e["value"] for e in f.examples] == [where["count"]]
    else:
        assert f.unexpected == 1
        if where["run"]:
            assert f.examples[0]["run"].startswith(where["run"])
        else:  # a row of no run (a study file's) names no run
            assert f.examples[0]["run"] is None, f.examples[0]
        got = f.examples[0]["value"]
        assert got == where["value"] and msg.endswith(f"(value {got!r})"), msg
        assert f.studies() == ({where["run"].split("/")[0]} if where["run"] else set())


def test_breaks_cover_dates_counts_durations_and_maxima(broken):
    _, expected = broken
    units = {}
    for name, (kind, column, _) in expected.items():
        for e in SUITES[name]["expectations"]:
            if e["type"] == kind and e["kwargs"].get("column") == column and column:
                units[name] = (e.get("meta") or {}).get("unit")
    got = set(units.values())
    assert {"count", "microseconds", "UTC", "z/OS local time", "percent"} <= got, got
    counts = [n for n, (k, _, _) in expected.items() if k == COUNT]
    assert len(counts) >= 12 and all(n.startswith("landing.") for n in counts)


def test_row_count_names_the_file_and_both_counts(broken):
    report, expected = broken
    deleted = sorted(n for n, (k, _, w) in expected.items() if k == COUNT and w["position"])
    assert "landing.driver_results" in deleted and len(deleted) >= 3
    f = next(
        f for f in report.failures if f.suite == "landing.driver_results" and f.expectation == COUNT
    )
    run, file = (
        expected["landing.driver_results"][2]["run"],
        expected["landing.driver_results"][2]["file"],
    )
    assert f.message() == (
        f"suite landing.driver_results: {COUNT} failed in table landing.driver_results "
        f"for 1 row(s): run {run}, file {file} (value '0 row(s), ledger 1')"
    )


def test_failure_message_is_exact():
    f = Failure(
        suite="marts.fct_crypto",
        expectation=BETWEEN,
        column="util_pct",
        table="marts.fct_crypto",
        unexpected=2,
        examples=[
            {"file": "k/r1/rmf.txt", "run": "k/r1", "position": "line 40", "value": 140.0},
            {"file": "k/r2/rmf.txt", "run": "k/r2", "position": None, "value": -1.0},
        ],
    )
    assert f.message() == (
        "suite marts.fct_crypto: expect_column_values_to_be_between on column util_pct failed "
        "in table marts.fct_crypto for 2 row(s): run k/r1, file k/r1/rmf.txt line 40 "
        "(value 140.0); run k/r2, file k/r2/rmf.txt (value -1.0)"
    )
    assert f.runs() == ["k/r1", "k/r2"] and f.studies() == {"k"}


def test_cross_source_tolerance_is_ten_percent(good, built):
    spec = next(
        e
        for e in SUITES["marts.fct_cpu_source_agreement"]["expectations"]
        if e["kwargs"].get("column") == "ratio_to_preferred"
    )
    assert (spec["kwargs"]["min_value"], spec["kwargs"]["max_value"]) == (0.9, 1.1)
    with duckdb.connect(str(built.warehouse), read_only=True) as con:
        ratios = con.execute(
            "select run_key, ratio_to_preferred from marts.fct_cpu_source_agreement"
        ).fetchall()
    assert {r for r, _ in ratios} == {AGREE["run"]}
    assert all(0.99 < x < 1.01 for _, x in ratios), ratios


def test_landing_validation_reads_only_tables_of_just_landed_files(built):
    with duckdb.connect(str(built.warehouse), read_only=True) as con:
        ids = [
            r[0]
            for r in con.execute(
                "select file_id from meta.ingest_ledger where path like 'attls/%results.csv'"
            ).fetchall()
        ]
        landed = con.execute(
            "select count(*) from landing.driver_results where file_id in ?", [ids]
        ).fetchone()[0]
    report = validate(built, "landing", ids, docs=False)
    assert len(ids) >= 10 and landed == len(ids)
    assert [(r.suite, r.rows) for r in report.results] == [("landing.driver_results", landed)]
    assert report.ok and report.checks == len(SUITES["landing.driver_results"]["expectations"])


def test_data_docs_and_status_show_the_last_result_per_suite(built, good):
    index = data_docs_index(built)
    assert index == built.reports_out / "data-docs" / "index.html"
    html = index.read_text()
    assert "marts.fct_cpu_source_agreement" in html and "landing.smf_wtas" in html
    pages = list((index.parent / "validations").rglob("*.html"))
    assert len(pages) >= len(SUITES)
    bad = _copy(built, "status")
    with duckdb.connect(str(bad.warehouse)) as con:
        con.execute("update marts.fct_crypto set util_pct = 101")
        crypto_rows = _rows(con, "marts.fct_crypto")
    assert crypto_rows >= 4
    env = {"MQCAP_REPORTS_OUT": str(bad.reports_out)}
    args = ["--warehouse", str(bad.warehouse), "--quiet"]
    checked = CliRunner(env=env).invoke(main, [*args, "validate", "--scope", "mart"])
    assert checked.exit_code == 1, checked.output
    failed = [ln for ln in checked.output.splitlines() if ln.startswith("  FAILED ")]
    assert len(failed) == 1 and failed[0].startswith(
        "  FAILED suite marts.fct_crypto: expect_column_values_to_be_between on column util_pct "
        f"failed in table marts.fct_crypto for {crypto_rows} row(s): run "
    )
    assert failed[0].endswith(".txt (value 101.0)")
    assert f"Data Docs: {data_docs_index(bad)}" in checked.output
    assert "fct_crypto" in data_docs_index(bad).read_text()
    out = CliRunner().invoke(main, [*args, "status"], catch_exceptions=False).output
    n = len(SUITES["marts.fct_crypto"]["expectations"])
    lines = [ln.split() for ln in out.splitlines() if "marts.fct_" in ln]
    assert ["FAILED", "marts.fct_crypto", f"{n - 1}/{n}", "on", str(crypto_rows), "rows"] == lines[
        [x[1] for x in lines].index("marts.fct_crypto")
    ][:6]
    assert ["ok", "marts.fct_crypto"] not in [x[:2] for x in lines]
    assert f"last checks: {len(SUITES)} suite(s)" in out
    with duckdb.connect(str(bad.warehouse), read_only=True) as con:
        details = con.execute(
            """select details from meta.validation_result where suite = 'marts.fct_crypto'
               order by validated_at desc limit 1"""
        ).fetchone()[0]
    assert (
        f"util_pct failed in table marts.fct_crypto for {crypto_rows} row(s)"
        in (json.loads(details)[0])
    )


def test_every_landing_table_and_report_mart_has_a_suite():
    from mqcap.parsers import all_tables

    landing = {f"landing.{t.name}" for t in all_tables()}
    read = set()
    sections = sorted((PROJECT / "pipelines/mqcap/sections").glob("*.py"))
    assert len(sections) >= 5  # the report's reads are found where they are
    for path in [*(PROJECT / "reports").glob("*.qmd"), *sections]:
        read |= {f"marts.{t}" for t in re.findall(r"\b((?:dim|fct)_[a-z_]+)", path.read_text())}
    assert len(landing) >= 38 and {"marts.dim_run", "marts.fct_fit"} <= read
    # The report reads the issue-15 contract marts where they are built and says "not
    # measured" where not: a mart needs its suite as soon as models/marts builds it.
    built = {
        f"marts.{p.stem}"
        for p in (PROJECT / "models" / "marts").iterdir()
        if p.suffix in (".sql", ".py")
    }
    asked = {f"marts.{t}" for t in ("fct_cpu_source_agreement", "fct_netstat_summary")}
    assert sorted((landing | (read & built) | asked) - set(SUITES)) == []


def test_a_suite_made_once_validates_each_dataframe_it_is_given():
    """Suites, definitions and checkpoints are kept per process: each run must still check the
    DataFrame and parameters of that run (never a cached batch or metric of an earlier one)."""
    import pandas as pd

    from mqcap import validate as validate_mod

    gx, ctx, source = validate_mod._gx_context()
    checks = [
        {"type": BETWEEN, "kwargs": {"column": "a", "min_value": 0, "max_value": 10}},
        {"type": COUNT, "kwargs": {"value": {"$PARAMETER": "n"}}},
    ]
    seen = []
    for values, n in [([1, 2, 3], 3), ([1, 20], 2), ([5], 1), ([50] * 4, 3)]:
        df = pd.DataFrame({"a": values})
        result = validate_mod._gx_run(
            gx, ctx, source, "test.reuse", checks, df, {"n": n}, "BOOLEAN_ONLY"
        )
        by_type = {r.expectation_config.type: r.success for r in result.results}
        seen.append((by_type[BETWEEN], by_type[COUNT]))
    assert seen == [(True, True), (False, True), (True, True), (False, False)]
    # The same name with other expectations is a new suite, not the kept one.
    result = validate_mod._gx_run(
        gx, ctx, source, "test.reuse", checks[:1], pd.DataFrame({"a": [99]}), {}, "BOOLEAN_ONLY"
    )
    assert [r.success for r in result.results] == [False] and len(result.results) == 1
