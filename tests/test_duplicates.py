"""Exactly once by content: the same records dropped twice count once, and the copy is reported.

Two warehouses are built from the same run folder: `single` (every file dropped once) and
`double` (then every identity-bearing file dropped again at the raw root, TESTCHL.dat also in a
second run folder, and half of TESTCHL.dat's records as another file). The marts of both must
be equal, every copy listed in marts.fct_duplicate_records with its first copy, and nothing
lost from landing.
"""

from __future__ import annotations

import shutil
from datetime import datetime
from pathlib import Path

import duckdb
import pytest

from mqcap.build import build
from mqcap.ingest import ingest
from mqcap.parsers.smf.binary import PARSER as SMF_PARSER
from mqcap.progress import Progress
from mqcap.settings import Settings
from mqcap.synth.smf_mq import write_dump
from mqcap.synth.smf_zos import record_30, record_70_2, record_72_3

from helpers import FIXTURES, PROJECT, parse_file

# Two dbt builds (single and double drop) shared by every test of the module.
pytestmark = [pytest.mark.e2e, pytest.mark.slow]

SAMPLE = PROJECT / "data" / "sample"
RUN_FILES = {  # name in the run folder -> origin
    "mqsmf.bin": SAMPLE / "attls" / "attls-chacha-16k" / "mqsmf.bin",
    "chstatus.txt": SAMPLE / "attls" / "attls-chacha-16k" / "chstatus.txt",
    "netstat.txt": SAMPLE / "attls" / "attls-chacha-16k" / "netstat.txt",
    "rmf_workload.txt": SAMPLE / "attls" / "attls-chacha-16k" / "rmf_workload.txt",
    "rmf_crypto.txt": SAMPLE / "keysize" / "rkey0-2048-32k" / "rmf_crypto.txt",
    "ascpu.csv": FIXTURES / "ascpu" / "ascpu_intervals.csv",
    "TESTCHL.dat": FIXTURES / "smf" / "TESTCHL.dat",
    "SMF-QMST.csv": FIXTURES / "golden" / "mq-smf-csv" / "TEST115" / "csv" / "SMF-QMST.csv",
}
UNTIMED = FIXTURES / "chstatus" / "runmqsc_dis_chstatus_short.txt"
TWICE = (
    "interval_start,interval_end,system,jobname,cpu_seconds\n"
    "2024-03-01 11:00:00,2024-03-01 11:15:00,MV41,BATCH1,1.5\n"
    "2024-03-01 11:00:00,2024-03-01 11:15:00,MV41,BATCH1,1.5\n"
)
MANIFEST = """\
study: dup
run: {run}
configuration: MQ + AT-TLS
interval: {{start: {start}, end: {end}}}
system: MPX1
qmgr: QML1
workload: {{type: request_reply, message_bytes: 16384, persistence: nonpersistent, threads: 1}}
transactions: 23400
jobs: {{QML1MSTR: MSTR, QML1CHIN: CHIN, TCPIP: TCPIP}}
"""
MARTS = [
    "fct_address_space_cost",
    "fct_cpu_source_agreement",
    "fct_chinit_tasks",
    "fct_channel_accounting",
    "fct_channel_status",
    "fct_netstat_summary",
    "fct_crypto",
]
IDENTITY_FILES = [*RUN_FILES, "zos.smf", "ascpu_twice.csv"]
WHEN, START = datetime(2021, 6, 1, 10, 45), datetime(2021, 6, 1, 10, 30)


class Recorder(Progress):
    def __init__(self) -> None:
        self.lines: list[str] = []

    def log(self, message: str) -> None:
        self.lines.append(message)


def _zos_dump(path: Path) -> Path:
    """SMF 30, 70-2 and 72-3 records of the run's interval (the other identity-bearing types)."""
    return write_dump(
        path,
        [
            record_30(WHEN, "MPX1", "QML1CHIN", START, tcb_s=3.5, srb_s=0.25),
            record_72_3(
                WHEN,
                "MPX1",
                START,
                900.0,
                policy="P",
                workload="W",
                class_name="RMQ",
                report_class=True,
                periods=[{"cpu_s": 2.0}],
            ),
            record_70_2(
                WHEN,
                "MPX1",
                START,
                900.0,
                cca=[{"card_type": "CEX7C", "card_id": 1, "seconds": 1.0, "operations": 10}],
            ),
        ],
    )


def _settings(root: Path) -> Settings:
    (root / "raw").mkdir(parents=True)
    return Settings.load(
        warehouse=root / "wh" / "warehouse.duckdb",
        raw=root / "raw",
        reports_out=root / "reports",
        project_root=PROJECT,
    )


def _runs(s: Settings) -> Path:
    r1, r2 = s.raw_root / "dup" / "r1", s.raw_root / "dup" / "r2"
    for run, folder, start, end in (
        ("r1", r1, "2021-06-01T10:30:00", "2021-06-01T10:45:00"),
        ("r2", r2, "2030-01-01T00:00:00", "2030-01-01T00:15:00"),
    ):
        folder.mkdir(parents=True)
        (folder / "run.yaml").write_text(MANIFEST.format(run=run, start=start, end=end))
    for name, origin in RUN_FILES.items():
        shutil.copy(origin, r1 / name)
    _zos_dump(r1 / "zos.smf")
    # Within one file identical rows are what the file says: both count.
    (r1 / "ascpu_twice.csv").write_text(TWICE)
    # No identity (a results CSV without a run column, a capture without times): the same file
    # in two run folders describes two runs and counts in both.
    for run in (r1, r2):
        shutil.copy(UNTIMED, run / "untimed.txt")
        (run / "results.csv").write_text("rate_per_s,round_trip_us\n100,10000\n")
    return r1


def _half_of_testchl(path: Path) -> tuple[int, int]:
    """The first half of TESTCHL.dat's MQ records (cut at a record boundary): (records, offset
    of the first; the dump starts with a record that is not MQ's)."""
    data = RUN_FILES["TESTCHL.dat"].read_bytes()
    parsed = parse_file(SMF_PARSER, RUN_FILES["TESTCHL.dat"])
    offsets = sorted({o for f in parsed.tables.values() for o in f["source_offset"].to_list()})
    keep = len(offsets) // 2
    path.write_bytes(data[: offsets[keep]])
    return keep, offsets[0]


@pytest.fixture(scope="module")
def worlds(tmp_path_factory):
    single = _settings(tmp_path_factory.mktemp("single"))
    _runs(single)
    assert ingest(single).set_aside == []

    double = _settings(tmp_path_factory.mktemp("double"))
    r1 = _runs(double)
    shutil.copy(r1 / "TESTCHL.dat", double.raw_root / "dup" / "r2" / "TESTCHL.dat")
    first = Recorder()
    assert ingest(double, progress=first).set_aside == []
    # Then the same files again at the raw root (a day's drop), and half of TESTCHL.dat.
    day = double.raw_root / "day"
    day.mkdir()
    for name in IDENTITY_FILES:
        shutil.copy(r1 / name, day / name)
    half, first_byte = _half_of_testchl(double.raw_root / "half.dat")
    second = Recorder()
    assert ingest(double, progress=second).set_aside == []

    for s in (single, double):
        assert build(s).ok
    return {
        "single": single,
        "double": double,
        "logs": (first.lines, second.lines),
        "half": half,
        "first_byte": first_byte,
    }


def _expected_pairs() -> set[tuple[str, str]]:
    """(copy file, first copy file): every identity file again at the root, r2, half.dat."""
    expected = {(f"day/{n}", f"dup/r1/{n}") for n in IDENTITY_FILES}
    return expected | {
        ("dup/r2/TESTCHL.dat", "dup/r1/TESTCHL.dat"),
        ("half.dat", "dup/r1/TESTCHL.dat"),
    }


def _query(s: Settings, sql: str) -> list[tuple]:
    con = duckdb.connect(str(s.warehouse), read_only=True)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


@pytest.mark.parametrize("mart", MARTS)
def test_a_second_copy_anywhere_leaves_the_marts_equal_to_a_single_drop(worlds, mart):
    sql = f"select * from marts.{mart} order by all"
    single, double = _query(worlds["single"], sql), _query(worlds["double"], sql)
    assert single, f"{mart} is empty: the study does not exercise it"
    assert double == single


def test_the_counted_figures_are_the_single_drop_figures(worlds):
    """Exact values (not only equality): the doubled drops would double each of these."""
    for s in (worlds["single"], worlds["double"]):
        chin = _query(
            s,
            """select sum(requests) from marts.fct_chinit_tasks
               where run_id = 'r1' and task_type = 'adapter'""",
        )[0][0]
        msgs = _query(
            s, "select sum(messages) from marts.fct_channel_accounting where run_id = 'r1'"
        )[0][0]
        figures = (chin, msgs)
        assert chin > 0 and msgs > 0
        if s is worlds["single"]:
            single_figures = figures
        else:
            assert figures == single_figures
        assert _query(
            s, "select count(*) from marts.fct_channel_accounting where run_id = 'r2'"
        ) == [(0,)]


def test_every_identity_staging_model_counts_the_single_drop_rows(worlds):
    models = [
        "stg_smf__qcst",
        "stg_smf__qctadp",
        "stg_smf__qctdsp",
        "stg_rmf__crypto_card_intervals",
        "stg_rmf__workload_class_intervals",
        "stg_ascpu__intervals",
        "stg_chstatus__channel_attrs",
        "stg_chstatus__snapshots",
        "stg_netstat__connections",
        "stg_netstat__pairs",
    ]
    for m in models:
        sql = f"select count(*) from staging.{m}"
        single = _query(worlds["single"], sql)[0][0]
        assert single > 0, m
        assert _query(worlds["double"], sql)[0][0] == single, m


def test_identical_rows_of_one_file_and_files_without_identity_all_count(worlds):
    for s in (worlds["single"], worlds["double"]):
        assert _query(
            s, "select count(*) from staging.stg_ascpu__intervals where jobname = 'BATCH1'"
        ) == [(2,)]
        assert _query(
            s,
            """select source_file, count(*) from staging.stg_chstatus__snapshots
               where source_file like '%untimed.txt' group by 1 order by 1""",
        ) == [("dup/r1/untimed.txt", 2), ("dup/r2/untimed.txt", 2)]
        assert _query(s, "select run_id, rate_per_s from marts.fct_driver_results order by 1") == [
            ("r1", 100.0),
            ("r2", 100.0),
        ]


def test_landing_keeps_every_copy_with_its_lineage(worlds):
    """Nothing lost: landing rows = the ledger's rows_landed, and the copies are there too."""
    d = worlds["double"]
    ledger = _query(d, "select sum(rows_landed) from meta.ingest_ledger where status = 'loaded'")
    tables = [
        t
        for (t,) in _query(
            d, "select table_name from duckdb_tables() where schema_name = 'landing'"
        )
    ]
    landed = sum(_query(d, f'select count(*) from landing."{t}"')[0][0] for t in tables)
    assert ledger == [(landed,)]
    per_file = dict(_query(d, "select source_file, count(*) from landing.smf_qcst group by 1"))
    assert (
        per_file["day/TESTCHL.dat"]
        == per_file["dup/r1/TESTCHL.dat"]
        == per_file["dup/r2/TESTCHL.dat"]
    )


def test_each_copy_is_reported_with_its_first_copy(worlds):
    rows = _query(
        worlds["double"],
        """select source_file, first_source_file, count(distinct position),
                  bool_and(position = first_position)
           from marts.fct_duplicate_records group by 1, 2 order by 1, 2""",
    )
    expected = _expected_pairs()
    assert {(a, b) for a, b, _, _ in rows} == expected
    # Copies of TESTCHL.dat (whole or half) sit at the same byte offsets as their first copy.
    assert all(same for a, b, _, same in rows if b == "dup/r1/TESTCHL.dat")
    # Both equal rows of day/ascpu_twice.csv repeat line 3 of the first file, which counts twice.
    assert _query(
        worlds["double"],
        """select position, first_position from marts.fct_duplicate_records
           where source_file = 'day/ascpu_twice.csv' order by 1""",
    ) == [("line 2", "line 2"), ("line 3", "line 2")]
    by_file = {a: n for a, _, n, _ in rows}
    assert by_file["half.dat"] == worlds["half"]
    assert by_file["day/TESTCHL.dat"] == by_file["dup/r2/TESTCHL.dat"] > worlds["half"]
    # The single drop has no copies at all.
    assert _query(worlds["single"], "select count(*) from marts.fct_duplicate_records") == [(0,)]


def test_ingest_says_how_many_records_were_already_loaded_and_from_where(worlds):
    first, second = worlds["logs"]
    mart = dict(
        (f, n)
        for f, n in _query(
            worlds["double"],
            "select source_file, count(distinct position) from marts.fct_duplicate_records "
            "group by 1",
        )
    )
    said = [line for line in first + second if "already loaded from" in line]
    assert f"dup/r2/TESTCHL.dat: {mart['dup/r2/TESTCHL.dat']:,} of " in "\n".join(first)
    half, byte = worlds["half"], worlds["first_byte"]
    assert (
        f"half.dat: {half:,} of {half:,} records already loaded from dup/r1/TESTCHL.dat "
        f"(first at byte {byte}); they count once"
    ) in second
    assert len(said) == len(mart)
    for line in said:
        path, rest = line.split(": ", 1)
        assert rest.startswith(f"{mart[path]:,} of "), line


def test_deleting_the_first_copy_makes_the_next_copy_count(worlds, tmp_path):
    """Rows of a replaced or deleted file leave landing (as ingest does): the copy that was
    second now counts, with no rebuild of the staging views needed. int_record_copies, a table
    as of the last build, names it too when its query runs on the landing left (its SQL as the
    build compiled it: the next build's rows)."""
    d = worlds["double"]
    path = tmp_path / "warehouse.duckdb"
    shutil.copy(d.warehouse, path)
    copies = (
        d.dbt_target / "compiled" / "mqcap" / "models" / "intermediate" / "int_record_copies.sql"
    ).read_text()
    con = duckdb.connect(str(path))
    try:
        (fid,) = con.execute(
            "select file_id from meta.ingest_ledger where path = 'dup/r1/TESTCHL.dat' "
            "and status = 'loaded'"
        ).fetchone()
        tables = [
            t
            for (t,) in con.execute(
                "select table_name from duckdb_tables() where schema_name = 'landing'"
            ).fetchall()
        ]
        before = con.execute("select count(*) from staging.stg_smf__qcst").fetchone()
        for t in tables:
            con.execute(f'delete from landing."{t}" where file_id = ?', [fid])
        con.execute("update meta.ingest_ledger set status = 'replaced' where file_id = ?", [fid])
        after = con.execute("select count(*) from staging.stg_smf__qcst").fetchone()
        counted = con.execute(
            "select distinct source_file from staging.stg_smf__qcst "
            "where source_file like '%TESTCHL.dat' order by 1"
        ).fetchall()
        still = con.execute(
            f"select distinct first_source_file from ({copies}) as copies "
            "where source_table like 'smf_w%'"
        ).fetchall()
    finally:
        con.close()
    assert after == before
    assert counted == [("dup/r2/TESTCHL.dat",)]  # r2's copy loaded next, before day/ and half
    assert still == [("dup/r2/TESTCHL.dat",)]


def test_status_lists_the_files_whose_records_count_once(worlds):
    from click.testing import CliRunner

    from mqcap.cli import main

    d = worlds["double"]
    result = CliRunner().invoke(
        main, ["--warehouse", str(d.warehouse), "--raw", str(d.raw_root), "status"]
    )
    assert result.exit_code == 0, result.output
    n = len(_expected_pairs())
    assert f"records loaded twice (counted once): {n} file(s)" in result.output
    half, byte = worlds["half"], worlds["first_byte"]
    line = f"  half.dat: {half:,} record(s) from byte {byte} repeat dup/r1/TESTCHL.dat (byte {byte} on)"
    assert line in result.output
