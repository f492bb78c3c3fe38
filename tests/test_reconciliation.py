"""No silent drop: every loaded file's records reach the marts, or `mqcap run` and `mqcap status`
say which did not and why (exit 1 on run); ids a file carries never beat its run folder; a file
that parses to no row is set aside; markers are found after the prompts and prefixes real
tools print before them. Each case as a user meets it: real files in a raw root, real ingest and
dbt build (`mqcap run`), then `mqcap status` through the CLI.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import duckdb
import pytest
from click.testing import CliRunner

from mqcap.cli import main as cli
from mqcap.parsers import chstatus, netstat, rmf_crypto, rmf_workload
from mqcap.pipeline import run

from helpers import FIXTURES, PROJECT, parse_file

pytestmark = [pytest.mark.e2e, pytest.mark.slow(minutes=5)]

MINI = FIXTURES / "mini_study" / "attls"
SAMPLE_RUN = PROJECT / "data" / "sample" / "attls" / "attls-chacha-2k"


def _rows(settings, sql: str, params: list | None = None) -> list[tuple]:
    con = duckdb.connect(str(settings.warehouse), read_only=True)
    try:
        return con.execute(sql, params or []).fetchall()
    finally:
        con.close()


def _status(settings) -> str:
    result = CliRunner().invoke(
        cli, ["--warehouse", str(settings.warehouse), "--raw", str(settings.raw_root), "status"]
    )
    assert result.exit_code == 0, result.output
    return result.output


def _cli_run(settings) -> tuple[int, str]:
    result = CliRunner().invoke(
        cli,
        [
            "--warehouse",
            str(settings.warehouse),
            "--raw",
            str(settings.raw_root),
            "--quiet",
            "run",
            "--no-reports",
        ],
    )
    return result.exit_code, result.output


def _manifest(folder: Path, study: str, run_id: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    text = (MINI / "ssl-chacha-2k" / "run.yaml").read_text()
    text = text.replace("study: attls", f"study: {study}").replace(
        "run: ssl-chacha-2k", f"run: {run_id}"
    )
    (folder / "run.yaml").write_text(text.replace("baseline: ssl-chacha-2k", f"baseline: {run_id}"))


def test_results_files_never_drop_in_silence(settings, sample_study):
    raw = settings.raw_root
    # (1) Results copied from study attls into another study's run folder: the columns name
    # attls/ssl-chacha-2k, the folder says newstudy/n1. The folder wins, with a note.
    _manifest(raw / "newstudy" / "n1", "newstudy", "n1")
    (raw / "newstudy" / "n1" / "results.csv").write_text(
        "study,run_id,rate_per_s,round_trip_us,threads,message_bytes\n"
        "attls,ssl-chacha-2k,460.405,2172,1,2048\n"
    )
    # (2) A results CSV in a fixed-block layout: 80-byte records, no line ends.
    _manifest(raw / "newstudy" / "n2", "newstudy", "n2")
    records = ["rate_per_s,round_trip_us,threads,message_bytes,", "512.5,1951,1,2048,"]
    (raw / "newstudy" / "n2" / "results.csv").write_text("".join(r.ljust(80) for r in records))
    # (4) Invented: results outside run folders naming a run no run.yaml declares (a typo).
    _manifest(raw / "newstudy" / "n3", "newstudy", "n3")
    (raw / "loose").mkdir()
    (raw / "loose" / "results.csv").write_text(
        "study,run_id,rate_per_s,round_trip_us\nnewstudy,n33,470.5,2125\n"
    )
    # (5) Invented: an address-space CPU CSV exported with its header and no interval.
    (raw / "newstudy" / "n1" / "cpu.csv").write_text(
        "interval_start,interval_end,system,jobname,cpu_seconds\n"
    )

    # (6) Invented: an SMF dump in a run folder whose run.yaml names another system (a dump
    # of the wrong LPAR, or a typo in the manifest). The folder wins, with a note naming both.
    _manifest(raw / "newstudy" / "n4", "newstudy", "n4")
    manifest = raw / "newstudy" / "n4" / "run.yaml"
    manifest.write_text(manifest.read_text().replace("system: MPX1", "system: MV99"))
    shutil.copy(FIXTURES / "smf" / "TESTCHL.dat", raw / "newstudy" / "n4" / "TESTCHL.dat")

    # (7) Invented: a day's results file outside run folders naming a run that has a results
    # file of its own (attls/ssl-chacha-2k, with another figure) and one that has none. The
    # run's own folder counts; the day file's row for it is reported, naming that folder's file.
    _manifest(raw / "newstudy" / "n5", "newstudy", "n5")
    (raw / "daylog").mkdir()
    day_rows = "study,run_id,rate_per_s,round_trip_us\n{}newstudy,n5,222.0,4504\n"
    (raw / "daylog" / "results.csv").write_text(day_rows.format("attls,ssl-chacha-2k,111.0,9009\n"))

    # (8) Invented (seen as a user): another run's results copied into a run folder beside its
    # own: two results at the same precedence for attls/ssl-chacha-16k. Neither counts, both
    # files are named; the build passes.
    shutil.copy(
        raw / "attls" / "ssl-chacha-2k" / "results.csv",
        raw / "attls" / "ssl-chacha-16k" / "copy-results.csv",
    )
    # (9) Invented: two day files outside run folders each naming newstudy/n6, which has no
    # results of its own.
    _manifest(raw / "newstudy" / "n6", "newstudy", "n6")
    for day, (rate, rt) in {"monday": (300.0, 3333), "tuesday": (301.0, 3322)}.items():
        (raw / day).mkdir()
        (raw / day / "results.csv").write_text(
            f"study,run_id,rate_per_s,round_trip_us\nnewstudy,n6,{rate},{rt}\n"
        )

    first = run(settings, reports=False)

    assert first.data_problems  # exit 1
    aside = {o.path: (o.position, o.reason) for o in first.ingest.set_aside}
    assert aside == {
        "newstudy/n2/results.csv": (
            "line 1",
            "no results rows: the file is one line of 160 characters with runs of blanks "
            "inside (fixed-length records without line ends?); save it with one line per record",
        ),
        "newstudy/n1/cpu.csv": (
            "line 1",
            "no rows: read as Address-space CPU per interval as CSV (interval, system, jobname, "
            "CPU seconds), but nothing in it landed",
        ),
    }
    smf_note = (
        "newstudy/n4/TESTCHL.dat: its records are of system MPX1 (run.yaml: MV99); taken as "
        "run newstudy/n4 (a file in a run folder belongs to that run)"
    )
    assert first.notes == [
        "newstudy/n1/results.csv: 1 row(s) name run attls/ssl-chacha-2k; taken as run "
        "newstudy/n1 (a file in a run folder belongs to that run)",
        smf_note,
    ]
    # Its records reach the folder's run, every one.
    assert _rows(
        settings,
        "select count(*), count(*) filter (where records_reaching = records) "
        "from marts.fct_file_reconciliation where source_file = 'newstudy/n4/TESTCHL.dat'",
    ) == [(3, 3)]
    finding = (
        "rows reach no run: loose/results.csv: 1 of 1 results row record(s) "
        "(landing.driver_results) reach no run: its rows name run(s) newstudy/n33 which "
        "no run.yaml declares (put it in the folder of its run, or fix its study and run_id columns)"
    )
    outranked = (
        "rows reach no run: daylog/results.csv: 1 of 2 results row record(s) "
        "(landing.driver_results) reach no run: its rows name run(s) attls/ssl-chacha-2k "
        "(counted from attls/ssl-chacha-2k/results.csv) whose own folder has results: a file in "
        "a run folder counts for its run and these rows do not (delete them here, or that file)"
    )

    def ambiguous(path: str, run_key: str, sources: str) -> str:
        return (
            f"rows reach no run: {path}: 1 of 1 results row record(s) (landing.driver_results) "
            "reach no run: two or more load-driver results at the same precedence give run(s) "
            f"{run_key} (2 results: {sources}): none counts, as which one measured the run "
            "cannot be told (keep one: delete or move the others)"
        )

    copies = "attls/ssl-chacha-16k/copy-results.csv line 2, attls/ssl-chacha-16k/results.csv line 2"
    days = "monday/results.csv line 2, tuesday/results.csv line 2"
    assert first.problems == [
        ambiguous("attls/ssl-chacha-16k/copy-results.csv", "attls/ssl-chacha-16k", copies),
        ambiguous("attls/ssl-chacha-16k/results.csv", "attls/ssl-chacha-16k", copies),
        outranked,
        finding,
        ambiguous("monday/results.csv", "newstudy/n6", days),
        ambiguous("tuesday/results.csv", "newstudy/n6", days),
    ]
    # Neither run has results; the build passed.
    assert first.build is not None and first.build.ok
    assert _rows(
        settings,
        "select count(*) from marts.fct_driver_results "
        "where run_key in ('attls/ssl-chacha-16k', 'newstudy/n6')",
    ) == [(0,)]
    # The day file's other row feeds its run; the outranked one feeds nothing.
    assert _rows(
        settings,
        "select run_key, round_trip_us, source_file from marts.fct_driver_results "
        "where round_trip_us in (9009, 4504) order by 1",
    ) == [("newstudy/n5", 4504.0, "daylog/results.csv")]
    # The copied results reach their folder's run, once; attls keeps its own row.
    assert _rows(
        settings,
        "select run_key, round_trip_us, source_file from marts.fct_driver_results "
        "where round_trip_us in (2172, 2125) order by 1",
    ) == [
        ("attls/ssl-chacha-2k", 2172.0, "attls/ssl-chacha-2k/results.csv"),
        ("newstudy/n1", 2172.0, "newstudy/n1/results.csv"),
    ]
    assert _rows(
        settings,
        "select source_file, records, records_reaching, expectation, is_dropped "
        "from marts.fct_file_reconciliation where source_table = 'driver_results' "
        "and (source_file like 'newstudy/%' or source_file like 'loose/%' "
        "or source_file like 'daylog/%') order by 1",
    ) == [
        ("daylog/results.csv", 2, 1, "every", True),
        ("loose/results.csv", 1, 0, "every", True),
        ("newstudy/n1/results.csv", 1, 1, "every", False),
    ]
    status = _status(settings)
    assert (
        "  note: newstudy/n1/results.csv: 1 row(s) name run attls/ssl-chacha-2k; taken as run "
        "newstudy/n1 (a file in a run folder belongs to that run)" in status
    )
    assert f"  {finding}" in status and "NOT OK" in status
    assert f"  note: {smf_note}" in status
    assert "  newstudy/n2/results.csv line 1: no results rows: the file is one line" in status

    # Fixed: the typo corrected, the fixed-block file saved with line ends, the empty export gone.
    (raw / "loose" / "results.csv").write_text(
        "study,run_id,rate_per_s,round_trip_us\nnewstudy,n3,470.5,2125\n"
    )
    (raw / "newstudy" / "n2" / "results.csv").write_text(
        "\n".join(r.rstrip(",") for r in records) + "\n"
    )
    (raw / "newstudy" / "n1" / "cpu.csv").unlink()
    (raw / "daylog" / "results.csv").write_text(day_rows.format(""))
    (raw / "attls" / "ssl-chacha-16k" / "copy-results.csv").unlink()
    (raw / "tuesday" / "results.csv").unlink()
    code, out = _cli_run(settings)
    assert code == 0, out
    assert "rows reach no run" not in out
    assert "  note: newstudy/n1/results.csv: 1 row(s) name run attls/ssl-chacha-2k" in out
    assert _rows(
        settings,
        "select count(*), count(*) filter (where is_dropped) from marts.fct_file_reconciliation",
    ) == [(18, 0)]
    # The runs with one results source left count it again (the incremental build knew which
    # runs the removed files fed: int_driver_results_candidates).
    assert _rows(
        settings,
        "select run_key, round_trip_us from marts.fct_driver_results "
        "where run_key like 'newstudy/%' or round_trip_us in (2125, 11946) order by 1, 2",
    ) == [
        ("attls/ssl-chacha-16k", 11946.0),
        ("newstudy/n1", 2172.0),
        ("newstudy/n2", 1951.0),
        ("newstudy/n3", 2125.0),
        ("newstudy/n5", 4504.0),
        ("newstudy/n6", 3333.0),
    ]
    status = _status(settings)
    assert "rows reach no run" not in status and "set aside: 0 file(s)" in status
    assert "  note: newstudy/n1/results.csv: 1 row(s) name run attls/ssl-chacha-2k" in status


def _interactive_chstatus() -> str:
    """The sample capture as saved from an interactive runmqsc session (MQPROMPT='MQ1A> '): no
    date lines or banner; the first snapshot's header on the prompt's line (the command was
    given on the command line), each later command typed after the prompt."""
    out = []
    for line in (SAMPLE_RUN / "chstatus.txt").read_text().splitlines():
        if re.match(r"(Tue|5724-H72|Starting MQSC|One MQSC|No commands|All valid)", line):
            continue
        if "DIS CHSTATUS" in line:
            if out:
                out.append("MQ1A> DIS CHSTATUS(*) ALL")
        elif line.startswith("AMQ8417I") and not out:
            out.append("MQ1A> " + line)
        elif out or line.strip():
            out.append(line)
    return "\n".join(out) + "\n"


def test_captures_keep_blocks_after_prompts_and_prefixes(settings, tmp_path):
    raw = settings.raw_root
    folder = raw / "attls" / "attls-chacha-2k"
    folder.mkdir(parents=True)
    manifest = (SAMPLE_RUN / "run.yaml").read_text()
    (folder / "run.yaml").write_text(
        manifest.replace("baseline: ssl-chacha-2k", "baseline: attls-chacha-2k")
    )
    (folder / "results.csv").write_text((SAMPLE_RUN / "results.csv").read_text())
    # (3) CHSTATUS with the session's prompt before the command and the first header.
    (folder / "chstatus.txt").write_text(_interactive_chstatus())
    # NETSTAT as the console prints it: EZZ2350I before each report header.
    (folder / "netstat.txt").write_text(
        (SAMPLE_RUN / "netstat.txt").read_text().replace(" MVS TCP/IP", "EZZ2350I MVS TCP/IP")
    )
    # RMF WORKLOAD ACTIVITY with a TSO prompt before the first page title.
    (folder / "rmf_workload.txt").write_text(
        "READY  " + (SAMPLE_RUN / "rmf_workload.txt").read_text()
    )
    # (6) Invented: a NETSTAT poll series of another day dropped at the raw root: no run's
    # interval holds it, so none of its polls reaches a run.
    (raw / "day").mkdir()
    (raw / "day" / "netstat.txt").write_text(
        (SAMPLE_RUN / "netstat.txt").read_text().replace("Jun  1", "Jun  3")
    )
    # The oracles: the same captures without prompts and prefixes.
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "chstatus.txt").write_text(_interactive_chstatus().replace("MQ1A> ", ""))
    oracle = parse_file(chstatus.PARSER, plain / "chstatus.txt")
    polls = parse_file(netstat.PARSER, SAMPLE_RUN / "netstat.txt")["netstat_conn"]
    workload = parse_file(rmf_workload.PARSER, SAMPLE_RUN / "rmf_workload.txt")["rmf_workload"]
    assert (oracle["chstatus_snapshot"].height, oracle["chstatus_attr"]["block_no"].n_unique()) == (
        4,
        8,
    )
    assert (polls.height, polls["poll_ts"].n_unique(), workload.height) == (28, 14, 9)

    code, out = _cli_run(settings)

    assert code == 1, out  # the file no run's interval holds is a finding
    assert "set aside" not in out.replace("0 set aside", "")
    # Every snapshot and block, at the lines of the capture (lineage exact).
    assert _rows(
        settings,
        "select count(distinct snapshot_no), count(*) from intermediate.int_channel_status_snapshots",
    ) == [(4, 8)]
    assert _rows(
        settings, "select snapshot_no, source_line from landing.chstatus_snapshot order by 1"
    ) == list(oracle["chstatus_snapshot"].select("snapshot_no", "source_line").iter_rows())
    cols = ("block_no", "source_line", "pair_no", "key", "value")
    assert _rows(
        settings, f"select {', '.join(cols)} from landing.chstatus_attr order by 1, 2, 3"
    ) == sorted(oracle["chstatus_attr"].select(cols).iter_rows(), key=lambda r: r[:3])
    # Each NETSTAT poll keeps its own time (the header after EZZ2350I opens it).
    assert _rows(
        settings,
        "select count(*), count(distinct poll_ts), count(distinct poll_no) from "
        "landing.netstat_conn where source_file = 'attls/attls-chacha-2k/netstat.txt'",
    ) == [(28, 14, 14)]
    assert _rows(
        settings,
        "select count(*), min(source_line) from landing.rmf_workload",
    ) == [(9, workload["source_line"].min())]
    assert _rows(
        settings,
        "select source_file, records, records_reaching, is_dropped "
        "from marts.fct_file_reconciliation order by 1, source_table",
    ) == [
        ("attls/attls-chacha-2k/chstatus.txt", 8, 8, False),
        ("attls/attls-chacha-2k/netstat.txt", 28, 28, False),
        ("attls/attls-chacha-2k/results.csv", 1, 1, False),
        ("attls/attls-chacha-2k/rmf_workload.txt", 9, 9, False),
        ("day/netstat.txt", 28, 0, True),
    ]
    finding = (
        "rows reach no run: day/netstat.txt: 28 of 28 NETSTAT poll x connection record(s) "
        "(landing.netstat_conn) reach no run: none of its records falls in the interval of a run "
        "(times 2021-06-03 10:31:08 to 2021-06-03 10:35:28) on its system and queue manager: "
        "check the run.yaml intervals, system and qmgr"
    )
    assert f"  {finding}\n" in out
    assert f"  {finding}\n" in _status(settings)


def test_bundled_sample_study_has_no_finding(settings):
    shutil.copytree(PROJECT / "data" / "sample" / "streaming", settings.raw_root / "streaming")
    result = run(settings, reports=False)
    assert result.ingest.set_aside == [] and result.problems == [] and result.notes == []
    tables = _rows(
        settings,
        "select source_table, count(*), sum(records), sum(records_reaching), "
        "count(*) filter (where is_dropped) from marts.fct_file_reconciliation "
        "group by 1 order by 1",
    )
    assert [t[0] for t in tables] == [
        "chstatus_attr",
        "driver_results",
        "rmf_workload",
        "smf_qcst",
        "smf_qctadp",
        "smf_qctdsp",
        "smf_qctssl",
    ]
    assert all(n == reached and dropped == 0 for _, _, n, reached, dropped in tables), tables


def test_rmf_crypto_title_after_a_prompt_keeps_the_report(tmp_path):
    source = FIXTURES / "rmf" / "CRYPTO_PP_V2R2_S35_2017-04-26.txt"
    prompted = tmp_path / "crypto.txt"
    prompted.write_text(source.read_text().replace("C R Y P T O", "READY   C R Y P T O", 1))
    want = parse_file(rmf_crypto.PARSER, source)["rmf_crypto"]
    got = parse_file(rmf_crypto.PARSER, prompted)["rmf_crypto"]
    assert got.height == want.height == 24
    assert got.drop("source_file").equals(want.drop("source_file"))
