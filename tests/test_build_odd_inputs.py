"""Inputs that are odd but possible never stop every build after them (found 2026-11-30 by
mutating a sample study's files one way per run and building it for real).

Each of these used to fail `dbt build` at a model's cast or row checks, so every later build
failed too until someone found and removed the file:

- a baseline run whose run.yaml is set aside after the runs that name it were loaded (or
  deleted later): dim_run's "no dim_run row for baseline_run_key";
- a NETSTAT value that is not a number where one belongs (``Smooth trip time: n/a``): dbt's
  ``safe_cast`` is a plain cast on DuckDB (and on Spark in ANSI mode);
- a connection listed twice in one NETSTAT poll (a spliced capture): int_netstat_series'
  "repeated key".

Now the build completes; what cannot be decided is said (the runs without their baseline are
compared with nothing, ``mqcap run`` exits 1 naming them, ``status`` names them), and nothing is guessed
(no run stands in as its own baseline, a value that is not a number is NULL with its text kept in
landing, both copies of the connection are kept).
"""

from __future__ import annotations

import re
from html import unescape

import pytest
from click.testing import CliRunner

from mqcap.cli import main
from mqcap.pipeline import run
from mqcap.render import render_report
from mqcap.settings import find_project_root

from helpers import FIXTURES, query

NETSTAT = FIXTURES / "netstat" / "netstat_all_v2r4_poll_series.txt"


@pytest.mark.e2e
def test_odd_inputs_leave_the_build_whole_and_say_what_cannot_be_decided(settings, sample_study):
    # attls-chacha-2k names ssl-chacha-2k as its baseline; ssl-chacha-2k's run.yaml now names a
    # run that does not exist, so it is set aside after attls-chacha-2k's loaded.
    base = sample_study / "ssl-chacha-2k" / "run.yaml"
    base.write_text(base.read_text().replace("baseline: ssl-chacha-2k", "baseline: no-such-run"))
    assert "baseline: ssl-chacha-2k" in (sample_study / "attls-chacha-2k" / "run.yaml").read_text()
    # A NETSTAT capture with a smooth trip time that is no number, and its first connection
    # listed twice in the first poll.
    text = NETSTAT.read_text()
    first = text.index(" Client Name:")
    second = text.index(" Client Name:", first + 1)
    text = text[:second] + text[first:second] + text[second:]
    assert text.count("Smooth trip time: 2.000") >= 2
    text = text.replace("Smooth trip time: 2.000", "Smooth trip time: n/a", 1)
    (sample_study / "attls-chacha-1m" / "netstat.txt").write_text(text)

    result = run(settings, reports=False)
    assert [o.path for o in result.ingest.set_aside] == [
        "attls/ssl-chacha-2k/run.yaml",
        "attls/ssl-chacha-2k/results.csv",  # (its run folder's manifest is set aside)
    ]
    assert result.build is not None and result.build.ok, result.build
    assert result.marts is not None and result.marts.ok

    # The run whose baseline is not loaded: no baseline (not itself), and said.
    assert query(
        settings,
        """select baseline_run_key, is_baseline, missing_baseline_run_id from marts.dim_run
           where run_id = 'attls-chacha-2k'""",
    ) == [(None, False, "ssl-chacha-2k")]
    assert query(
        settings, "select count(*) from marts.dim_run where missing_baseline_run_id is not null"
    ) == [(1,)]
    [(problem,)] = query(settings, "select baseline_problem from marts.dim_study")
    assert "attls-chacha-2k (names ssl-chacha-2k)" in problem
    assert query(
        settings,
        "select count(*) from marts.fct_comparison where run_key = 'attls/attls-chacha-2k'",
    ) == [(0,)]
    # The other pairs are compared as declared.
    assert query(
        settings,
        """select count(distinct run_key) from marts.fct_comparison
           where run_key like 'attls/attls-chacha-%'""",
    ) == [(4,)]

    # NETSTAT: the value that is no number is NULL (its text stays in landing), the connection
    # listed twice is two rows of its poll.
    rows = query(
        settings,
        """select poll_no, connection_id, count(*), count(smooth_trip_time_ms)
           from marts.fct_netstat_series group by all having count(*) > 1""",
    )
    assert len(rows) == 1 and rows[0][2] == 2 and rows[0][3] == 1, rows
    assert query(
        settings,
        "select count(*) from landing.netstat_pair where value = 'n/a'",
    ) == [(1,)]

    # `mqcap run` (nothing new to do) exits 1 and says why; so does `mqcap status`.
    cli = ["--warehouse", str(settings.warehouse), "--raw", str(settings.raw_root)]
    again = CliRunner().invoke(main, [*cli, "run", "--no-reports"])
    assert again.exit_code == 1
    assert "attls-chacha-2k (names ssl-chacha-2k)" in again.output
    status = CliRunner().invoke(main, [*cli, "status"])
    assert "name a baseline run that is not loaded" in status.output

    # The study's report says it first, in the mart's words (a kernel and pandoc for real).
    html = render_report(
        find_project_root() / "reports" / "study.qmd",
        settings.reports_out,
        params={"study": "attls", "failed_checks": "[]"},
        formats=("html",),
        output_stem="attls-odd",
        env={"MQCAP_WAREHOUSE": str(settings.warehouse)},
    )["html"].read_text(encoding="utf-8")
    findings = html.index('id="sec-findings"')
    box = html.index("Baseline problem.")
    # (first thing in the Findings section, before the next section)
    assert findings < box < html.index('id="sec-', findings + 1)
    text = " ".join(unescape(re.sub(r"<[^>]+>", " ", html[box:])).split())
    assert "attls-chacha-2k (names ssl-chacha-2k)" in text[:600]
    assert "Baseline undecided" not in html
