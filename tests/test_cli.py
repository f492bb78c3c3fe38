"""The mqcap command through click's runner: help, exit codes, read-only SQL, status, locks."""

from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest
from click.testing import CliRunner

from mqcap.cli import main

COMMANDS = [
    "ingest",
    "build",
    "validate",
    "report",
    "run",
    "sql",
    "status",
    "demo",
    "export",
    "watch",
    "init",
    "shell",
    "open",
]


def _invoke(settings, *args: str):
    runner = CliRunner()
    return runner.invoke(
        main,
        ["--warehouse", str(settings.warehouse), "--raw", str(settings.raw_root), "-q", *args],
        catch_exceptions=False,
    )


def test_top_level_help_lists_every_command():
    result = CliRunner().invoke(main, ["--help"])
    assert result.exit_code == 0
    for command in COMMANDS:
        assert f"  {command} " in result.output
    assert "Example:" in result.output


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_has_help_with_an_example(command):
    result = CliRunner().invoke(main, [command, "--help"])
    assert result.exit_code == 0, result.output
    assert "Example:" in result.output
    assert f"mqcap {command}" in result.output


def test_usage_errors_exit_2(settings, sample_study):
    assert _invoke(settings, "sql").exit_code == 2
    assert _invoke(settings, "report", "--format", "docx").exit_code == 2
    assert _invoke(settings, "frobnicate").exit_code == 2


def test_ingest_exit_codes_and_status(settings, sample_study):
    ok = _invoke(settings, "ingest")
    assert ok.exit_code == 0
    assert ok.output.splitlines()[0] == "20 file(s) landed (80 rows), 0 unchanged, 0 set aside"
    (sample_study / "ssl-chacha-2k" / "broken.csv").write_text("rate_per_s,round_trip_us\nx,1\n")
    bad = _invoke(settings, "ingest")
    assert bad.exit_code == 1
    assert (
        "  set aside: attls/ssl-chacha-2k/broken.csv (line 2): "
        "column rate_per_s: expected a number, got 'x'" in bad.output
    )
    status = _invoke(settings, "status")
    assert status.exit_code == 0
    assert (
        "attls                             10 runs     20 files           80 rows" in status.output
    )
    assert "set aside: 1 file(s)" in status.output
    assert "attls/ssl-chacha-2k/broken.csv line 2: column rate_per_s" in status.output


def test_sql_is_read_only_and_formats(settings, sample_study):
    _invoke(settings, "ingest")
    q = "select run_id, round_trip_us from landing.run_manifest m join landing.driver_results d using (file_id)"
    csv = _invoke(
        settings,
        "sql",
        "select round_trip_us from landing.driver_results order by 1 limit 2",
        "--format",
        "csv",
    )
    assert csv.exit_code == 0 and csv.output == "round_trip_us\n2172.0\n2199.0\n"
    js = _invoke(
        settings, "sql", "select count(*) as n from landing.driver_results", "--format", "json"
    )
    assert json.loads(js.output) == [{"n": 10}]
    write = _invoke(settings, "sql", "delete from landing.driver_results")
    assert write.exit_code == 2
    assert "read-only" in write.output
    assert (
        _invoke(
            settings, "sql", "select count(*) from landing.driver_results", "--format", "csv"
        ).output
        == "count_star()\n10\n"
    )
    bad = _invoke(settings, "sql", q.replace("using (file_id)", "using (nope)"))
    assert bad.exit_code == 2 and "mqcap: error: query failed:" in bad.output


def test_commands_say_plainly_when_another_process_holds_the_warehouse(
    settings, sample_study, monkeypatch
):
    _invoke(settings, "ingest")
    monkeypatch.setenv("MQCAP_LOCK_WAIT_S", "0.5")
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import duckdb, sys, time; c = duckdb.connect(sys.argv[1]); print('ready', flush=True); time.sleep(60)",
            str(settings.warehouse),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "ready"
        for args in (("ingest",), ("sql", "--wait", "0.5", "select 1")):
            result = _invoke(settings, *args)
            assert result.exit_code == 1, result.output
            assert (
                f"the warehouse {settings.warehouse} is locked by another process (PID {holder.pid})"
                in result.output
            )
            assert "close the other session" in result.output
    finally:
        holder.kill()
        holder.wait()
    time.sleep(0.2)
    assert _invoke(settings, "sql", "select 1 as one", "--format", "csv").output == "one\n1\n"


def test_shell_completion_as_documented():
    script = CliRunner().invoke(main, [], prog_name="mqcap", env={"_MQCAP_COMPLETE": "bash_source"})
    assert "_mqcap_completion()" in script.output
    assert "complete -o nosort -F _mqcap_completion mqcap" in script.output
    words = CliRunner().invoke(
        main,
        [],
        prog_name="mqcap",
        env={"_MQCAP_COMPLETE": "bash_complete", "COMP_WORDS": "mqcap sh", "COMP_CWORD": "1"},
    )
    assert words.output.splitlines() == ["plain,shell"]
    options = CliRunner().invoke(
        main,
        [],
        prog_name="mqcap",
        env={
            "_MQCAP_COMPLETE": "bash_complete",
            "COMP_WORDS": "mqcap sql --ware",
            "COMP_CWORD": "2",
        },
    )
    assert "plain,--warehouse" in options.output.splitlines()
