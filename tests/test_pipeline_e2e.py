"""The whole path on the real parts: a DuckDB file, `dbt build`, GX validation, and reports
executed by a Jupyter kernel and written as HTML and PDF."""

from __future__ import annotations

import json
import re

import duckdb
import pytest
import yaml
from click.testing import CliRunner
from pypdf import PdfReader

from mqcap.cli import main
from mqcap.pipeline import run

from helpers import PROJECT, query

pytestmark = pytest.mark.e2e


def test_sample_study_runs_end_to_end_and_incrementally(settings, sample_study):
    result = run(settings)
    assert result.ingest.summary() == "20 file(s) landed (80 rows), 0 unchanged, 0 set aside"
    assert result.build is not None and result.build.ok
    assert result.build.counts.get("error", 0) == 0 and result.build.counts.get("fail", 0) == 0
    assert result.landing is not None and result.landing.ok
    assert result.marts is not None and result.marts.ok
    # Landing suites ran for exactly the tables that received rows, every expectation of them.
    landed_tables = {"driver_results", "run_manifest", "run_label", "run_job_role"}
    suites = {p.stem: json.loads(p.read_text()) for p in settings.expectations_dir.glob("*.json")}
    expected = {f"landing.{t}" for t in landed_tables} & set(suites)
    assert {r.table for r in result.landing.results} == expected
    assert result.landing.checks == sum(len(suites[s]["expectations"]) for s in expected)
    assert "marts.fct_driver_results" in {r.table for r in result.marts.results}
    # Published figure (seed 000): MQ + AT-TLS 1 MB round trip 956,592 us vs 693,844 us.
    rows = query(
        settings,
        """select run_id, round_trip_us, transactions, interval_s from marts.fct_driver_results
           where message_bytes = 1048576 order by run_id""",
    )
    assert rows == [
        ("attls-chacha-1m", 956592.0, 314, 300),
        ("ssl-chacha-1m", 693844.0, 432, 300),
    ]
    paths = result.reports.outputs["attls"]
    html = paths["html"].read_text()
    assert "956,592" in html  # the table, formatted with units
    assert '<script src="http' not in html
    assert len(PdfReader(paths["pdf"]).pages) >= 2
    # The overview row of the study, as dim_study gives it: 10 runs of 2 configurations,
    # request/reply from 2 KB to 1 MB, from 10:00 to 11:35 local time.
    overview = re.sub(r"<[^>]+>", "|", (settings.reports_out / "index.html").read_text())
    cells = [c.strip() for c in overview.split("|") if c.strip()]
    at = cells.index("attls", cells.index("Last run ends (local time)"))
    assert cells[at : at + 7] == [
        "attls",
        "10",
        "2",
        "request_reply",
        "2 KB – 1 MB",
        "2021-06-01 10:00",
        "2021-06-01 11:35",
    ]

    # Nothing new: no build, no render, and it says so.
    again = run(settings)
    assert again.nothing_new and again.build is None and again.reports is None

    # The models' dbt unit tests (the SQL's arithmetic on made-up rows) are a developer's check:
    # the pipeline's build left them out; `mqcap build --unit-tests` runs every one, and each
    # passes.
    def unit_results() -> dict[str, str]:
        results = json.loads((settings.dbt_target / "run_results.json").read_text())["results"]
        return {
            r["unique_id"].rsplit(".", 1)[-1]: r["status"]
            for r in results
            if r["unique_id"].startswith("unit_test.")
        }

    defined = [
        t["name"]
        for f in (PROJECT / "models").rglob("*.yml")
        for t in (yaml.safe_load(f.read_text()) or {}).get("unit_tests", [])
    ]
    assert len(defined) >= 20
    assert unit_results() == {}
    cli = [
        "--warehouse", str(settings.warehouse), "--raw", str(settings.raw_root), "-q",
        "build", "--unit-tests",
    ]  # fmt: skip
    out = CliRunner().invoke(main, cli)
    assert out.exit_code == 0, out.output
    assert unit_results() == dict.fromkeys(defined, "pass")

    # A changed results file is re-landed and flows to the mart.
    f = sample_study / "attls-chacha-1m" / "results.csv"
    f.write_text("rate_per_s,round_trip_us,threads,message_bytes\n1.1,900000,1,1048576\n")
    changed = run(settings, reports=False)
    assert [o.status for o in changed.ingest.landed] == ["replaced"]
    assert query(
        settings,
        "select round_trip_us from marts.fct_driver_results where run_id = 'attls-chacha-1m'",
    ) == [(900000.0,)]

    # A key repeated and a key missing fail the build, through the staging model's row checks
    # (its primary_key test's query, unique and not null in one, run in the model's own node:
    # macros/row_checks.sql): one row of the results landed again under the same position,
    # one with no position (rows no ingest writes).
    con = duckdb.connect(str(settings.warehouse))
    con.execute(
        """insert into landing.driver_results
           (select * from landing.driver_results where source_line = 2 limit 1)
           union all
           (select * replace (null as source_line) from landing.driver_results
            where source_line = 2 limit 1)"""
    )
    con.close()
    out = CliRunner().invoke(main, cli[:-1])
    assert out.exit_code != 0
    failed = json.loads((settings.dbt_target / "run_results.json").read_text())["results"]
    # One node, the model's, says all three: the repeated key (2 rows), the null key and the
    # null position (the model's required columns are checked with its key); no test node ran.
    errors = [(r["unique_id"], r["message"]) for r in failed if r["status"] == "error"]
    assert [uid for uid, _ in errors] == ["model.mqcap.stg_driver__results"]
    assert not [r for r in failed if r["unique_id"].startswith("test.")]
    assert (
        'row checks of "warehouse"."staging"."stg_driver__results" failed: 3 failure(s): '
        "null key (1 rows); null source_line (1 rows); repeated key "
    ) in errors[0][1]
    assert "mqcap: error: dbt build failed: model.mqcap.stg_driver__results:" in out.output
