"""RMF WORKLOAD ACTIVITY report parser: SERVICE TIME and APPL % per service/report class."""

from __future__ import annotations

import random
from datetime import datetime

import polars as pl
import pytest

from mqcap.errors import InputError
from mqcap.parsers import driver_csv, rmf_crypto, rmf_workload
from mqcap.parsers.base import ParseContext

from helpers import FIXTURES, parse_file

RMF = FIXTURES / "rmf"
V2R2 = RMF / "WLMGL_PP_V2R2_UTCPLXCB_2015-04-21.txt"
POLICY_PAGE = RMF / "WLMGL_PP_V2R3_SYSDPLEX_2017-09-28_policy_page.txt"
STCLOW = RMF / "WLMGL_PP_V2R3_UTCPLXCB_2016-12-19_STCLOW.txt"
CPU = RMF / "CPU_PP_V2R2_CB88_2015-04-21.txt"
TIME_COLS = ["cpu_s", "srb_s", "rct_s", "iit_s", "hst_s", "aap_s", "iip_s"]
APPL_COLS = ["appl_cp_pct", "appl_aapcp_pct", "appl_iipcp_pct", "appl_aap_pct", "appl_iip_pct"]


def workload(path) -> pl.DataFrame:
    parsed = parse_file(rmf_workload.PARSER, path)
    return parsed.tables.get(
        "rmf_workload", pl.DataFrame(schema=rmf_workload.TABLE.polars_schema())
    )


def test_v2r2_service_classes_sysstc_and_system():
    df = workload(V2R2)
    assert df.height == 2
    sysstc = df.row(0, named=True)
    assert (sysstc["class_name"], sysstc["class_kind"]) == ("SYSSTC", "service")
    assert (sysstc["policy"], sysstc["workload"], sysstc["resource_group"]) == (
        "BASEPOL", "SYSTEM", "*NONE",
    )  # fmt: skip
    assert [sysstc[c] for c in TIME_COLS] == [6153.266, 70.355, 0.325, 11.223, 0.0, 0.0, 180.186]
    assert [sysstc[c] for c in APPL_COLS] == [672.77, 0.0, 0.01, 0.0, 20.02]
    assert sysstc["sysplex"] == "UTCPLXCB" and sysstc["zos_level"] == "V2R2"
    assert sysstc["interval_start"] == datetime(2015, 4, 21, 1, 15, 0)
    assert sysstc["interval_s"] == pytest.approx(900.013)
    assert sysstc["period"] is None and sysstc["source_line"] == 10
    system = df.row(1, named=True)
    assert system["class_name"] == "SYSTEM"
    # "CPU 92376K" (service units) and "SRB 136665K" share rows with the seconds.
    assert (system["cpu_s"], system["srb_s"], system["iit_s"]) == (1645.944, 2367.668, 22.044)
    assert system["appl_cp_pct"] == 448.40 and system["source_line"] == 25


def test_v2r3_period_section_with_na_values():
    parsed = parse_file(rmf_workload.PARSER, STCLOW)
    df = parsed["rmf_workload"]
    assert df.height == 1
    row = df.row(0, named=True)
    assert (row["class_name"], row["workload"], row["period"], row["importance"]) == (
        "STCLOW", "STC_WLD", 1, "3",
    )  # fmt: skip
    assert [row[c] for c in TIME_COLS] == [9.021, 0.383, 0.107, 0.012, 0.0, None, 0.0]
    assert [row[c] for c in APPL_COLS] == [1.06, 0.0, 0.0, None, 0.0]  # AAP N/A -> NULL
    assert row["interval_start"] == datetime(2016, 12, 19, 2, 45, 0)
    assert row["interval_s"] == pytest.approx(900.003)
    assert parsed.ctx.unknown_lines["comment line"] == 3


def test_policy_page_lands_nothing_and_counts_its_lines():
    parsed = parse_file(rmf_workload.PARSER, POLICY_PAGE)
    assert parsed.tables == {}
    assert parsed.ctx.unknown_lines["workload line outside a class section"] == 35
    assert parsed.ctx.unknown_lines["comment line"] == 3  # "#CPS" is a report row


def _fixed_column_variant() -> str:
    """V2R2 sample as printed to SYSOUT: carriage control, PAGE 2 header in the middle of the
    SYSTEM section, a workload total section, then a second interval holding a report class."""
    lines = [ln for ln in V2R2.read_text().splitlines() if not ln.startswith("# ")]
    header = lines[:5]
    out = []
    for i, line in enumerate(lines):
        out.append(("1" if i == 0 else "-" if line.startswith("REPORT BY") else " ") + line)
        if i == 0:
            out.append("+" + line)  # overprinted title (bold on a line printer)
        if line.startswith("DESCRIPTION  =HIGH PRIORITY"):
            out += ["1" + header[0], " " + header[1].replace("1", "2")] + [
                " " + h for h in header[2:]
            ]
    second = [ln.replace("TIME 01.15.00", "TIME 01.30.00") for ln in out[:5]]
    section = [" " + ln for ln in lines[21:34]]
    section[0] = "-REPORT BY: POLICY=BASEPOL    REPORT CLASS=RMQCHIN   PERIOD=1"
    section = [ln.replace("CPU 1645.944", "CPU  812.500") for ln in section]
    total = ["-REPORT BY: POLICY=BASEPOL    WORKLOAD=SYSTEM", " " + lines[13]]
    return "\n".join(out + total + second + section) + "\n"


def test_fixed_column_variant_with_page_headers_and_second_interval(tmp_path):
    variant = tmp_path / "wlmgl.txt"
    variant.write_text(_fixed_column_variant())
    parsed = parse_file(rmf_workload.PARSER, variant)
    df = parsed["rmf_workload"]
    assert df.height == 3
    cols = ["class_name", "class_kind", "interval_start", "cpu_s", *TIME_COLS[1:], *APPL_COLS]
    original = workload(V2R2).select(cols)
    assert df.head(2).select(cols).to_dicts() == original.to_dicts()
    rep = df.row(2, named=True)
    assert (rep["class_kind"], rep["class_name"], rep["period"], rep["workload"]) == (
        "report", "RMQCHIN", 1, None,
    )  # fmt: skip
    assert rep["cpu_s"] == 812.5 and rep["srb_s"] == 2367.668
    assert rep["interval_start"] == datetime(2015, 4, 21, 1, 30, 0)
    assert parsed.ctx.skipped["workload or policy total section"] == 1
    assert parsed.ctx.skipped["overprint line"] == 2  # one per interval's first page


def test_class_section_without_service_time_block_is_an_error(tmp_path):
    text = V2R2.read_text().splitlines()
    # Drop the SYSTEM section's block header and rows: its SERVICE TIME values are gone.
    cut = tmp_path / "noblock.txt"
    cut.write_text("\n".join(text[:27]) + "\n")
    with pytest.raises(InputError) as err:
        parse_file(rmf_workload.PARSER, cut)
    assert err.value.line == 25 and "SYSTEM" in err.value.reason
    assert "SERVICE TIME" in err.value.reason


def test_duplicate_value_in_block_is_an_error(tmp_path):
    bad = tmp_path / "dup.txt"
    bad.write_text(V2R2.read_text().replace("RCT    0.325", "CPU    0.325", 1))
    with pytest.raises(InputError) as err:
        parse_file(rmf_workload.PARSER, bad)
    assert err.value.line == 16


def test_cpu_activity_report_is_recognised_but_unsupported():
    head = CPU.read_bytes()
    assert rmf_workload.PARSER.sniff(head, CPU.name)
    with pytest.raises(InputError) as err:
        parse_file(rmf_workload.PARSER, CPU)
    assert "CPU ACTIVITY" in err.value.reason and "not supported" in err.value.reason


def test_other_report_pages_in_the_same_file_are_skipped_and_counted(tmp_path):
    mixed = tmp_path / "mixed.txt"
    mixed.write_text(CPU.read_text() + V2R2.read_text())
    parsed = parse_file(rmf_workload.PARSER, mixed)
    assert parsed["rmf_workload"].height == 2
    assert parsed.ctx.skipped["line of another RMF report"] == 28


def test_sniff_claims_workload_reports():
    for path in (V2R2, POLICY_PAGE, STCLOW):
        head = path.read_bytes()
        assert rmf_workload.PARSER.sniff(head, path.name)
        assert not rmf_crypto.PARSER.sniff(head, path.name)
        assert not driver_csv.PARSER.sniff(head, path.name)
    assert not rmf_workload.PARSER.sniff(b"rate_per_s,round_trip_us\n1,2\n", "x.csv")
    assert rmf_workload.PARSER.priority < 80


def test_binary_data_is_an_error_naming_the_line(tmp_path):
    lines = V2R2.read_bytes().split(b"\n")
    binary = tmp_path / "wlmgl.bin"
    binary.write_bytes(b"\n".join([*lines[:20], b"\x00\x01\xff" * 30, *lines[20:]]))
    with pytest.raises(InputError) as err:
        parse_file(rmf_workload.PARSER, binary)
    assert err.value.line == 21 and "binary" in err.value.reason


def _cells_row_by_row(texts: list[str]) -> list:
    """What _block_row (the row-by-row reading) makes of each row: its values or its error."""
    ctx = ParseContext(path=V2R2, source_file="x")
    out = []
    for r, text in enumerate(texts):
        section = rmf_workload.Section(1, (), {})
        try:
            rmf_workload._block_row(ctx, section, r, text)
            out.append(section.values)
        except InputError as exc:
            out.append(exc.reason)
    return out


def _cells_at_once(texts: list[str]) -> list:
    """The same from block_cells (all rows at once), one section per row."""
    cells = rmf_workload.block_cells(pl.DataFrame({"r": range(len(texts)), "text": texts}))
    out: list = [{} for _ in texts]
    for r, key, col, value, num, bad in cells.iter_rows():
        if isinstance(out[r], str):
            continue
        if col in out[r]:
            out[r] = f"WORKLOAD ACTIVITY block: {key} appears twice"
        elif bad:
            out[r] = f"WORKLOAD ACTIVITY block: {key} {value!r} is not a number"
        else:
            out[r][col] = num
    return out


def test_block_cells_read_rows_as_the_row_by_row_reading_does():
    rng = random.Random(33)
    words = ["CPU", "SRB", "RCT", "IIT", "HST", "AAP", "IIP", "CP", "AAPCP", "IIPCP", "IOC",
             "R/S", "AFFIN", "1.5", "12K", "356803K", "N/A", "***", "5.", "-.5", "1.2.3", "0",
             "-3", ".5K", "1e3", "12M", "X"]  # fmt: skip
    texts = [ln for p in sorted(RMF.glob("WLMGL*.txt")) for ln in p.read_text().splitlines()]
    texts += [" ".join(rng.choices(words, k=rng.randint(0, 12))) for _ in range(3000)]
    assert _cells_at_once(texts) == _cells_row_by_row(texts)


@pytest.mark.parametrize("native", ["1", "0"])
def test_comment_lines_before_a_carriage_control_title_leave_the_report_readable(
    tmp_path, monkeypatch, native
):
    # Until 2026-11-30 ReportFrames took the title's place among a frame's lines from its line
    # number, counting the comment lines it had already left out: the title kept its carriage
    # control ("1"), was not read, and the whole report was counted as lines before a report.
    monkeypatch.setenv("MQCAP_NATIVE", native)
    gen = RMF / "WLMGL_generated_two_intervals.txt"
    want = workload(gen).drop("source_line", "source_file")
    path = tmp_path / "w.txt"
    path.write_bytes(b"junk\n# a comment\n# another\n" + gen.read_bytes())
    parsed = parse_file(rmf_workload.PARSER, path)
    got = parsed.tables["rmf_workload"]
    assert got.drop("source_line", "source_file").equals(want) and want.height == 6
    assert got["source_line"].to_list() == [n + 3 for n in workload(gen)["source_line"]]
    alone = parse_file(rmf_workload.PARSER, gen).ctx
    assert dict(parsed.ctx.unknown_lines) == {**alone.unknown_lines, "comment line": 2}
    # the junk line is the one line before the report
    assert dict(parsed.ctx.skipped) == {**alone.skipped, "line before the report": 1}
