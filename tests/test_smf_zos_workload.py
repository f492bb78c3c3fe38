"""SMF 72-3 records built from the WORKLOAD ACTIVITY reports' figures land the same service times
as the text parser reads from those reports; SMF 30 interval records for an address space add up
to its report class's time."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from mqcap.errors import InputError
from mqcap.parsers import rmf_workload
from mqcap.parsers.smf.binary import PARSER
from mqcap.parsers.smf.zos_common import hfp_to_float
from mqcap.parsers.smf.zos_smf72 import SCS
from mqcap.synth.smf_mq import write_dump
from mqcap.synth.smf_zos import record_30, record_72_3

from helpers import FIXTURES, parse_file

RMF = FIXTURES / "rmf"
TIMES = ("cpu_s", "srb_s", "rct_s", "iit_s", "hst_s", "aap_s", "iip_s")


def _records_like(text_rows: list[dict], system: str) -> list[bytes]:
    recs = []
    for t in text_rows:
        start, seconds = t["interval_start"], t["interval_s"]
        period = {k: t[k] or 0.0 for k in TIMES}
        period.update(period=t["period"] or 1, importance=int(t["importance"] or 0))
        recs.append(
            record_72_3(
                start + timedelta(seconds=seconds),
                system,
                start,
                seconds,
                policy=t["policy"],
                workload=t["workload"],
                class_name=t["class_name"],
                report_class=t["class_kind"] == "report",
                periods=[period],
                sysplex=t["sysplex"],
                mvs="SP7." + t["zos_level"][1] + "." + t["zos_level"][3],
            )
        )
    return recs


@pytest.mark.parametrize(
    "report",
    ["WLMGL_PP_V2R2_UTCPLXCB_2015-04-21.txt", "WLMGL_PP_V2R3_UTCPLXCB_2016-12-19_STCLOW.txt"],
)
def test_72_3_rows_equal_the_text_parsers_rows(tmp_path, report):
    text = list(parse_file(rmf_workload.PARSER, RMF / report)["rmf_workload"].iter_rows(named=True))
    path = write_dump(tmp_path / "wlm.smf", _records_like(text, "CB88"))
    smf = list(parse_file(PARSER, path)["rmf_workload"].iter_rows(named=True))
    assert len(smf) == len(text) >= 1
    for s, t in zip(smf, text, strict=True):
        for col in (
            "sysplex",
            "zos_level",
            "interval_start",
            "interval_s",
            "policy",
            "workload",
            "class_kind",
            "class_name",
        ):
            assert s[col] == t[col], col
        for col in TIMES:
            assert round(s[col], 3) == (t[col] or 0.0), col
        # APPL % is derived from the times, as RMF prints it (2 decimals).
        assert round(s["appl_cp_pct"], 2) == t["appl_cp_pct"]
        assert round(s["appl_iip_pct"], 2) == t["appl_iip_pct"]


def test_service_units_have_the_reports_magnitude(tmp_path):
    # SYSSTC, V2R2 report: CPU 6153.266 s is "CPU 356803K" service units. With R723MADJ 276
    # (sixteenths of a microsecond per SU) and a CPU coefficient of 1, the record must hold
    # 6153.266 x 1600 x 10000 / 276 = 356.7M SU.
    rec = record_72_3(
        datetime(2015, 4, 21, 1, 30),
        "CB88",
        datetime(2015, 4, 21, 1, 15),
        900.013,
        policy="BASEPOL",
        workload="SYSTEM",
        class_name="SYSSTC",
        report_class=False,
        periods=[{"cpu_s": 6153.266}],
    )
    at = int.from_bytes(rec[56:60], "big") - 4 + SCS["ccpu"].offset  # SMF72SCS + R723CCPU
    su = hfp_to_float(rec[at : at + 8])
    assert su == pytest.approx(356_803_000, rel=0.001)


def test_smf30_interval_records_add_up_to_the_report_class(tmp_path):
    """A report class holding one address space: RMF CPU (TCB incl. zIIP) + SRB equals the SMF 30
    total; SRB and zIIP match field for field."""
    start, end = datetime(2024, 3, 1, 10, 0), datetime(2024, 3, 1, 10, 15)
    chin = {"tcb_s": 38.40, "srb_s": 1.28, "ziip_s": 2.25, "ziip_on_cp_s": 0.31}
    recs = [
        record_30(end, "MV41", "CSQ1CHIN", start, **chin),
        record_72_3(
            end,
            "MV41",
            start,
            900.0,
            policy="BASEPOL",
            workload="MQ",
            class_name="RCHIN",
            report_class=True,
            periods=[
                {
                    "cpu_s": chin["tcb_s"] + chin["ziip_s"],
                    "srb_s": chin["srb_s"],
                    "iip_s": chin["ziip_s"],
                    "iipcp_s": chin["ziip_on_cp_s"],
                }
            ],
        ),
    ]
    parsed = parse_file(PARSER, write_dump(tmp_path / "mix.smf", recs))
    (a,) = parsed["ascpu_interval"].iter_rows(named=True)
    (w,) = parsed["rmf_workload"].iter_rows(named=True)
    assert a["cpu_s"] == pytest.approx(41.93) and a["cpu_source"] == "smf30"
    assert a["cpu_s"] == pytest.approx(w["cpu_s"] + w["srb_s"] + w["rct_s"] + w["iit_s"])
    assert a["srb_s"] == pytest.approx(w["srb_s"]) and a["ziip_s"] == pytest.approx(w["iip_s"])
    assert (w["class_kind"], w["class_name"], w["importance"]) == ("report", "RCHIN", None)
    assert w["appl_iipcp_pct"] == pytest.approx(0.31 / 900 * 100)
    assert (a["interval_start"], a["interval_end"], a["jobname"]) == (start, end, "CSQ1CHIN")


@pytest.mark.parametrize(
    ("at", "value", "message"),
    [
        (60, 100, "truncated service/report class period section at offset"),  # SMF72SCL
        (56, 60_000, "service/report class period triplet (offset 60000"),  # SMF72SCS
        (24, 9_999_999, "RMF product triplet (offset 9999999"),  # SMF72PRS
    ],
)
def test_corrupt_72_3_records_are_errors_naming_the_byte_offset(tmp_path, at, value, message):
    ok = record_72_3(
        datetime(2024, 3, 1, 10, 15),
        "MV41",
        datetime(2024, 3, 1, 10),
        900.0,
        policy="P",
        workload="W",
        class_name="RCHIN",
        report_class=True,
        periods=[{"cpu_s": 1.0}],
    )
    bad = bytearray(ok)
    size = 2 if at == 60 else 4  # data offsets: SMF72SCL is at record offset 64
    bad[at : at + size] = value.to_bytes(size, "big")
    with pytest.raises(InputError) as exc:
        parse_file(PARSER, write_dump(tmp_path / "bad.smf", [ok, bytes(bad)]))
    assert message in str(exc.value) and "SMF 72.3 record 2" in str(exc.value)
    assert exc.value.offset == len(ok) + 4
