"""SMF 30 interval records in the binary SMF parser: decoded CPU, dispatch among MQ records, and
corrupt records rejected with the byte offset (nothing of the file lands)."""

from __future__ import annotations

import json
import re
from datetime import datetime

import duckdb
import pytest

from mqcap.errors import InputError
from mqcap.ingest import ingest
from mqcap.parsers.smf.binary import PARSER
from mqcap.synth.smf_mq import with_rdw, write_dump
from mqcap.synth.smf_zos import record_30, record_70_2, record_72_3

from helpers import FIXTURES, parse_file
from smf_support import SMF, decoded

PRINTOUT = FIXTURES / "smf30" / "SUM30.txt"
WHEN = datetime(2024, 3, 1, 10, 15)
START = datetime(2024, 3, 1, 10, 0)
_JOB = re.compile(r"== (\w+) Job:(\S+) Step:\s*(\S+) PROGRAM:(\S+) .*SMF Time:([\d:.]+)")
_IV = re.compile(r"Interval Start:(\S+ \S+) Interval end:(\S+ \S+)")
_CPU = re.compile(r"Total CPU: ([\d.]+)\s+TCB on CP\s+: ([\d.]+) SRB on CP\s+: ([\d.]+)")


def _printout() -> list[dict]:
    """The real SMF 30 records of SUM30.txt (a formatter's printout): job, times, CPU."""
    jobs, text = [], PRINTOUT.read_text()
    for job, iv, cpu in zip(
        _JOB.finditer(text), _IV.finditer(text), _CPU.finditer(text), strict=True
    ):
        start, end = (datetime.strptime(v[:22], "%Y/%m/%d %H:%M:%S.%f") for v in iv.groups())
        jobs.append(
            {
                "work_type": job[1],
                "jobname": job[2],
                "step": job[3],
                "program": job[4],
                "start": start,
                "end": end,
                "total": float(cpu[1]),
                "tcb": float(cpu[2]),
                "srb": float(cpu[3]),
            }
        )
    return jobs


def _cs(t: datetime) -> datetime:
    """To the hundredth of a second, as SMF 30 keeps interval start and record times."""
    return t.replace(microsecond=t.microsecond // 10000 * 10000)


def test_records_built_from_the_real_printout_decode_to_its_figures(tmp_path):
    jobs = _printout()
    assert [j["jobname"] for j in jobs] == ["BLSJPRMI", "SMFCLEAR"]
    recs = [
        record_30(
            j["end"],
            "S0W1",
            j["jobname"],
            j["start"],
            subtype=3,
            work_type=j["work_type"],
            step=j["step"],
            program=j["program"],
            tcb_s=j["tcb"],
            srb_s=j["srb"],
        )
        for j in jobs
    ]
    rows = parse_file(PARSER, write_dump(tmp_path / "s30.smf", recs))["ascpu_interval"]
    for row, j in zip(rows.iter_rows(named=True), jobs, strict=True):
        assert (row["jobname"], row["system_id"], row["cpu_source"]) == (
            j["jobname"],
            "S0W1",
            "smf30",
        )
        assert row["cpu_s"] == pytest.approx(j["total"])  # 0.800 = 0.780 TCB + 0.020 SRB
        assert row["srb_s"] == pytest.approx(j["srb"]) and row["ziip_s"] == 0.0
        assert (row["interval_start"], row["interval_end"]) == (_cs(j["start"]), _cs(j["end"]))
        extra = json.loads(row["extra"])
        assert (extra["step"], extra["program"]) == (j["step"], j["program"])
        assert (extra["smf_subtype"], extra["work_type"]) == (3, "STC")
    # Binary lineage: each row names its record's byte offset (RDW) and number, no line.
    assert rows["source_offset"].to_list() == [0, 4 + len(recs[0])]
    assert rows["source_record"].to_list() == [1, 2] and rows["source_item"].to_list() == [1, 1]
    assert rows["source_line"].null_count() == 2


def test_cpu_is_tcb_srb_initiator_io_rct_hiperspace_and_ziip(tmp_path):
    rec = record_30(
        WHEN,
        "MV41",
        "CSQ1MSTR",
        START,
        tcb_s=12.34,
        srb_s=0.56,
        ziip_s=7.89,
        ziip_on_cp_s=1.11,
        initiator_tcb_s=0.01,
        initiator_srb_s=0.02,
        io_interrupt_s=0.03,
        rct_s=0.04,
        hiperspace_s=0.05,
    )
    (row,) = parse_file(PARSER, write_dump(tmp_path / "a.smf", [rec]))["ascpu_interval"].rows(
        named=True
    )
    assert row["cpu_s"] == pytest.approx(12.34 + 0.56 + 7.89 + 0.01 + 0.02 + 0.03 + 0.04 + 0.05)
    assert row["srb_s"] == pytest.approx(0.58) and row["ziip_s"] == pytest.approx(7.89)
    assert json.loads(row["extra"])["tcb_s"] == 12.34
    assert json.loads(row["extra"])["ziip_on_cp_s"] == 1.11


def test_mixed_dump_keeps_mq_decoding_unchanged_and_lands_the_zos_records(tmp_path, boundary):
    mq = (SMF / "TESTCHL.dat").read_bytes()
    zos = [
        record_30(WHEN, "MPX1", "QML1CHIN", START, tcb_s=1.0),
        record_30(WHEN, "MPX1", "QML1MSTR", START, subtype=4, tcb_s=1.0),  # step end: skipped
        record_72_3(
            WHEN,
            "MPX1",
            START,
            900.0,
            policy="P",
            workload="W",
            class_name="R",
            report_class=True,
            periods=[{"cpu_s": 1.0}],
        ),
        record_70_2(
            WHEN,
            "MPX1",
            START,
            900.0,
            cca=[{"card_type": "CEX7C", "card_id": 0, "seconds": 1.0, "operations": 10}],
        ),
    ]
    path = tmp_path / "mixed.dat"
    path.write_bytes(mq[:boundary] + b"".join(with_rdw(r) for r in zos) + mq[boundary:])
    alone = decoded("TESTCHL")
    mixed = parse_file(PARSER, path)
    for table, frame in alone.tables.items():
        assert (
            mixed[table]
            .drop("source_file", "source_offset", "source_record")
            .equals(frame.drop("source_file", "source_offset", "source_record"))
        ), table
    assert mixed["ascpu_interval"]["jobname"].to_list() == ["QML1CHIN"]
    assert mixed["rmf_workload"]["class_name"].to_list() == ["R"]
    assert mixed["rmf_crypto"].height == 1
    assert mixed.ctx.skipped["SMF 30 subtype 4 record (no decoder)"] == 1


@pytest.fixture(scope="module")
def boundary() -> int:
    """A record boundary in TESTCHL (where z/OS records can be spliced in)."""
    mq, at = (SMF / "TESTCHL.dat").read_bytes(), 0
    while at < 200_000:
        at += int.from_bytes(mq[at : at + 2], "big")
    return at


def _corrupt(kind: str) -> bytes:
    rec = bytearray(record_30(WHEN, "MV41", "CSQ1CHIN", START, tcb_s=1.0, ziip_on_cp_s=0.5))
    if kind == "truncated section":
        rec[56:58] = (40).to_bytes(2, "big")  # SMF30CLN: processor section cut to 40 bytes
    elif kind == "triplet past the end":
        rec[28:32] = (len(rec) + 100).to_bytes(4, "big")  # SMF30IOF beyond the record
    elif kind == "impossible count":
        rec[34:36] = (0).to_bytes(2, "big")  # SMF30ION: no identification section
    elif kind == "zIIP on CP above TCB":
        cof = int.from_bytes(rec[52:56], "big") - 4
        rec[cof + 128 : cof + 132] = (500).to_bytes(4, "big")
    return bytes(rec)


@pytest.mark.parametrize(
    ("kind", "message"),
    [
        ("truncated section", "truncated processor accounting section"),
        ("triplet past the end", "identification triplet (offset"),
        ("impossible count", "with 0 identification and 1 processor accounting section(s)"),
        ("zIIP on CP above TCB", "impossible SMF30_TIME_zIIP_ON_CP 500"),
    ],
)
def test_corrupt_records_are_errors_naming_the_byte_offset(tmp_path, boundary, kind, message):
    mq = (SMF / "TESTCHL.dat").read_bytes()
    path = tmp_path / "bad.dat"
    path.write_bytes(mq[:boundary] + with_rdw(_corrupt(kind)) + mq[boundary:])
    with pytest.raises(InputError) as exc:
        parse_file(PARSER, path)
    assert exc.value.offset == boundary
    assert message in str(exc.value) and "SMF 30.2 record" in str(exc.value)


def test_a_corrupt_record_sets_the_whole_dump_aside(settings, boundary):
    mq = (SMF / "TESTCHL.dat").read_bytes()
    run = settings.raw_root / "s1" / "r1"
    run.mkdir(parents=True)
    good = record_30(WHEN, "MV41", "CSQ1MSTR", START, tcb_s=2.0)
    (run / "dump.dat").write_bytes(
        with_rdw(good) + mq[:boundary] + with_rdw(_corrupt("triplet past the end"))
    )
    report = ingest(settings)
    [aside] = report.set_aside
    assert aside.position == f"byte {len(good) + 4 + boundary}"
    con = duckdb.connect(str(settings.warehouse), read_only=True)
    try:
        counts = [
            con.execute(f"select count(*) from landing.{t}").fetchone()[0]
            for t in ("ascpu_interval", "smf_qcst", "smf_qcct", "rmf_crypto")
        ]
    finally:
        con.close()
    assert counts == [0, 0, 0, 0]


def test_zos_tables_are_declared_once_with_the_text_parsers_columns():
    from mqcap.parsers import all_tables, ascpu_csv, rmf_crypto, rmf_workload

    names = {t.name: t for t in all_tables()}
    for mod in (ascpu_csv, rmf_crypto, rmf_workload):
        assert PARSER.table(mod.TABLE.name) is mod.TABLE
        assert names[mod.TABLE.name] == mod.TABLE


def test_the_real_tso_interval_record_of_the_printout_round_trips(tmp_path):
    text = (FIXTURES / "smf30" / "S306.txt").read_text()
    block = text[text.index("SMFSubtype          :2 Interval") - 200 :]
    fields = dict(
        re.findall(
            r"^(SMFTime|Job Name|PROGRAM|StepName|Start date time|"
            r"Interval in secs|All TCB on CP)\s*:(.*)$",
            block,
            re.M,
        )[:7]
    )
    start = datetime.strptime(fields["Start date time"].strip()[:22], "%Y/%m/%d %H:%M:%S.%f")
    written = datetime.combine(
        start.date(), datetime.strptime(fields["SMFTime"].strip(), "%H:%M:%S.%f").time()
    )
    rec = record_30(
        written,
        "S0W1",
        fields["Job Name"].strip(),
        start,
        work_type="TSO",
        program=fields["PROGRAM"].strip(),
        step=fields["StepName"].strip(),
        tcb_s=float(fields["All TCB on CP"]),
    )
    (row,) = parse_file(PARSER, write_dump(tmp_path / "tso.smf", [rec]))["ascpu_interval"].rows(
        named=True
    )
    assert (row["jobname"], row["cpu_s"]) == ("IBMUSER", 0.0)
    extra = json.loads(row["extra"])
    assert (extra["work_type"], extra["step"], extra["program"]) == ("TSO", "ISPFPROC", "IKJEFT01")
    # Interval in secs 1800.000000; SMF 30 keeps start and end to the hundredth of a second.
    seconds = (row["interval_end"] - row["interval_start"]).total_seconds()
    assert abs(seconds - float(fields["Interval in secs"])) <= 0.02
