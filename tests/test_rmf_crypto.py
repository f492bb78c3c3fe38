"""RMF CRYPTO HARDWARE ACTIVITY report parser: the three real layouts, PDF and fixed columns."""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path

import polars as pl
import pytest

from mqcap.errors import InputError
from mqcap.parsers import driver_csv, rmf_crypto, rmf_workload

from helpers import FIXTURES, parse_file

RMF = FIXTURES / "rmf"
S35 = RMF / "CRYPTO_PP_V2R2_S35_2017-04-26.txt"
S21 = RMF / "CRYPTO_PP_V2R3_S21_2018-07-12_LPAR_CPC.txt"
CB89 = RMF / "CRYPTO_PP_V2R4_CB89_2019-08-11_CEX7.txt"
VALUE_COLS = [
    "system_id", "zos_level", "interval_s", "section", "card_type", "card_id", "function",
    "key_size_bits", "scope", "rate_per_s", "exec_time_ms", "util_pct", "keygen_rate_per_s",
]  # fmt: skip


def crypto(path: Path) -> pl.DataFrame:
    return parse_file(rmf_crypto.PARSER, path)["rmf_crypto"]


def one(df: pl.DataFrame, **where) -> dict:
    for col, value in where.items():
        df = df.filter(pl.col(col).is_null() if value is None else pl.col(col) == value)
    assert df.height == 1, f"{where}: {df.height} rows"
    return df.row(0, named=True)


def fixed_columns(text: str, *, second_time: str | None = None) -> str:
    """The report as RMF prints it to SYSOUT, rebuilt from the PDF text: carriage control in
    column 1, continuation rows re-indented under their columns, the page header repeated
    inside the first section and, optionally, the whole interval again at another TIME."""
    lines = [ln for ln in text.splitlines() if not ln.startswith("# ")]
    out: list[str] = []
    header: str | None = None
    page_header = lines[:3]
    for i, line in enumerate(lines):
        first = line.split()[0] if line.split() else ""
        if line.startswith("TYPE"):
            header = line
        if i < 3:
            out.append(("1" if i == 0 else " ") + line)
            continue
        if header and re.fullmatch(r"\d+", first) and " KEY " in header and int(first) >= 256:
            key_end = header.index(" KEY ") + 4
            line = " " * (key_end - len(first)) + line
        elif header and re.fullmatch(r"\d+", first):
            id_end = header.index("ID") + 2
            line = " " * (id_end - len(first)) + line
        elif header and first in ("ASYM", "SYMM", "RSA"):
            line = " " * header.index("FUNCTION") + line
        cc = "0" if line.startswith("-") else " "
        out.append(cc + line)
        if i == 8:  # a page break inside the CCA section: the header comes again
            out += ["1" + page_header[0] + "   PAGE    2"] + [" " + h for h in page_header[1:]]
    report = "\n".join(out) + "\n"
    if second_time:
        first_time = re.search(r"TIME (\d\d\.\d\d\.\d\d)", report).group(1)
        report += report.replace(f"TIME {first_time}", f"TIME {second_time}")
    return report


def test_v2r2_total_layout_values_and_row_count():
    df = crypto(S35)
    assert df.height == 24
    row = one(df, card_type="CEX5C", card_id=0, function=None)
    assert (row["rate_per_s"], row["exec_time_ms"], row["util_pct"]) == (1882.0, 0.206, 38.8)
    assert row["keygen_rate_per_s"] == 0.25
    assert row["scope"] == "TOTAL" and row["section"] == "CCA COPROCESSOR"
    assert row["system_id"] == "S35" and row["zos_level"] == "V2R2"
    assert row["interval_start"] == datetime(2017, 4, 26, 9, 0, 0)
    assert row["interval_s"] == pytest.approx(1799.848)
    # "1   1927 ..." lost its blanks in the PDF: it continues the CEX5C type.
    assert one(df, card_type="CEX5C", card_id=1)["rate_per_s"] == 1927.0
    assert one(df, card_type="CEX6C", card_id=7)["util_pct"] == 38.7
    fast = one(df, card_type="CEX5P", card_id=3, function="ASYM FAST")
    assert (fast["rate_per_s"], fast["exec_time_ms"], fast["util_pct"]) == (289.4, 0.575, 16.6)
    assert one(df, card_type="CEX6P", function="SYMM PARTIAL")["rate_per_s"] == 62.41
    assert one(df, card_type="CEX5P", card_id=3, function=None)["rate_per_s"] == 549.6
    crt = one(df, card_type="CEX6A", function="RSA CRT", key_size_bits=1024)
    assert (crt["rate_per_s"], crt["exec_time_ms"], crt["util_pct"]) == (1439.0, 0.034, 4.9)
    assert one(df, function="RSA ME", key_size_bits=4096)["util_pct"] == 25.2
    assert one(df, card_type="CEX6A", function=None)["rate_per_s"] == 13504.0
    counts = df.group_by("section").len().sort("section").rows()
    assert counts == [("ACCELERATOR", 7), ("CCA COPROCESSOR", 5), ("PKCS11 COPROCESSOR", 12)]


def test_v2r3_lpar_and_cpc_groups():
    df = crypto(S21)
    assert df.height == 38
    assert set(df["scope"]) == {"LPAR", "CPC"}
    lpar = one(df, card_type="CEX5C", card_id=1, scope="LPAR", function=None)
    cpc = one(df, card_type="CEX5C", card_id=1, scope="CPC", function=None)
    assert (lpar["rate_per_s"], lpar["exec_time_ms"], lpar["util_pct"]) == (2185.0, 0.201, 43.9)
    assert (cpc["rate_per_s"], cpc["exec_time_ms"], cpc["util_pct"]) == (4987.0, 0.200, 99.8)
    assert lpar["keygen_rate_per_s"] == 0.83 and cpc["keygen_rate_per_s"] == 0.83
    gen = one(df, card_type="CEX5P", function="ASYM GEN", scope="CPC")
    assert (gen["rate_per_s"], gen["exec_time_ms"], gen["util_pct"]) == (0.40, 2.113, 0.1)
    me = one(df, function="RSA ME", key_size_bits=2048, scope="CPC")
    assert (me["rate_per_s"], me["util_pct"]) == (1624.0, 5.9)
    crt = one(df, function="RSA CRT", key_size_bits=4096, scope="LPAR")
    assert (crt["rate_per_s"], crt["exec_time_ms"], crt["util_pct"]) == (593.3, 1.075, 63.8)
    assert one(df, card_type="CEX6C", card_id=8, scope="CPC", function=None)["rate_per_s"] == 9290


def test_v2r4_cex7_blank_lpar_group_lands_cpc_only():
    df = crypto(CB89)
    assert df.height == 23
    accel = df.filter(pl.col("card_type") == "CEX7A")
    assert accel.height == 7 and set(accel["scope"]) == {"CPC"}
    total = one(accel, function=None)
    assert (total["rate_per_s"], total["exec_time_ms"], total["util_pct"]) == (15043, 0.066, 99.7)
    crt = one(accel, function="RSA CRT", key_size_bits=2048)
    assert (crt["rate_per_s"], crt["exec_time_ms"], crt["util_pct"]) == (246.2, 0.207, 5.1)
    slow = one(df, card_type="CEX7P", function="ASYM SLOW", scope="LPAR")
    assert (slow["rate_per_s"], slow["util_pct"]) == (186.5, 20.2)
    assert one(df, card_type="CEX7C", card_id=1, scope="CPC", function=None)["rate_per_s"] == 4873
    assert df["interval_start"][0] == datetime(2019, 8, 11, 22, 45, 0)
    assert df["interval_s"][0] == pytest.approx(900.001)


@pytest.mark.parametrize("path", [S35, S21, CB89], ids=lambda p: p.name[10:14])
def test_every_row_keeps_its_source_line_and_comments_are_counted(path):
    parsed = parse_file(rmf_crypto.PARSER, path)
    df = parsed["rmf_crypto"]
    lines = path.read_text().splitlines()
    cols = ["source_line", "card_type", "card_id", "function", "key_size_bits"]
    for row in df.select(cols).iter_rows(named=True):
        first = lines[row["source_line"] - 1].split()[0]
        fn = (row["function"] or "").split(" ")[0]
        assert first in (row["card_type"], str(row["card_id"]), fn, str(row["key_size_bits"]))
    assert parsed.ctx.unknown_lines["comment line"] == 3
    assert df["source_file"].unique().to_list() == [path.name]


@pytest.mark.parametrize("path", [S35, S21, CB89], ids=lambda p: p.name[10:14])
def test_fixed_column_report_with_carriage_control_gives_the_same_rows(path, tmp_path):
    variant = tmp_path / "fixed.txt"
    variant.write_text(fixed_columns(path.read_text(), second_time="23.30.00"))
    original = crypto(path).select(VALUE_COLS)
    fixed = crypto(variant)
    assert fixed.height == 2 * original.height
    starts = sorted(fixed["interval_start"].unique())
    assert len(starts) == 2 and starts[1].strftime("%H.%M.%S") == "23.30.00"
    for start in starts:
        got = fixed.filter(pl.col("interval_start") == start).select(VALUE_COLS)
        assert got.to_dicts() == original.to_dicts()


def test_fixed_column_rows_really_are_indented(tmp_path):
    text = fixed_columns(S35.read_text())
    assert "\n         1   1927" in text  # cc blank + ID right-aligned under "ID"
    assert text.startswith("1C R Y P T O")


def test_section_header_followed_by_eof_is_an_error(tmp_path):
    lines = S35.read_text().splitlines()
    cut = tmp_path / "cut.txt"
    header = next(i for i, x in enumerate(lines) if "CRYPTOGRAPHIC ACCELERATOR" in x)
    cut.write_text("\n".join(lines[: header + 1]) + "\n")
    with pytest.raises(InputError) as err:
        parse_file(rmf_crypto.PARSER, cut)
    assert err.value.line == 28 and "ACCELERATOR" in str(err.value) and "cut.txt" in str(err.value)


def test_binary_file_is_an_error(tmp_path):
    binary = tmp_path / "crypto.bin"
    binary.write_bytes(S35.read_bytes()[:400] + b"\x00\x01\x02\xff" * 10)
    with pytest.raises(InputError, match="binary"):
        parse_file(rmf_crypto.PARSER, binary)


def test_more_values_than_columns_is_an_error(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text(S35.read_text().replace("0.206    38.8     0.25", "0.206 38.8 0.25 7 7"))
    with pytest.raises(InputError) as err:
        parse_file(rmf_crypto.PARSER, bad)
    assert err.value.line == 10


def test_cpu_activity_report_is_named_in_the_error():
    with pytest.raises(InputError, match="CPU ACTIVITY"):
        parse_file(rmf_crypto.PARSER, RMF / "CPU_PP_V2R2_CB88_2015-04-21.txt")


def test_sniff_claims_crypto_reports_only():
    for path in sorted(RMF.glob("*.txt")):
        head = path.read_bytes()[:65536]
        assert rmf_crypto.PARSER.sniff(head, path.name) == path.name.startswith("CRYPTO")
        assert not driver_csv.PARSER.sniff(head, path.name)
        if path.name.startswith("CRYPTO"):
            assert not rmf_workload.PARSER.sniff(head, path.name)
    assert rmf_crypto.PARSER.priority < 80


def test_non_card_section_after_the_cards_is_skipped_not_parsed(tmp_path):
    # The report ends with an ICSF SERVICES section (service rates, no cards); its layout here is
    # made up: what matters is that its rows are not read as rows of the accelerator above.
    icsf = [
        "-------- ICSF SERVICES --------------------------------------------------",
        "         ------ ENCRYPTION ------  ------ DECRYPTION ------",
        "         SDES     TDES     AES     SDES     TDES     AES",
        "RATE     0.00     12.5     310     0.00     12.4     305",
        "1024     1.00     2.00     3.00",
    ]
    report = tmp_path / "icsf.txt"
    report.write_text(S35.read_text() + "\n".join(icsf) + "\n")
    parsed = parse_file(rmf_crypto.PARSER, report)
    assert (
        parsed["rmf_crypto"].to_dicts()
        == crypto(S35).with_columns(pl.lit("icsf.txt").alias("source_file")).to_dicts()
    )
    assert parsed.ctx.skipped["ICSF SERVICES section"] == 1
    assert parsed.ctx.skipped["ICSF SERVICES line"] == 4


def test_a_cached_column_header_carries_nothing_from_an_earlier_report():
    # The column-header cache is per process: a header read in one report's section must give
    # a later report's section what reading it afresh gives, not the earlier section's ID,
    # FUNCTION or KEY columns (set by an earlier header of that section, not by this one).
    from mqcap.parsers.rmf_crypto import _SLOT_CACHE, SECTIONS, Section, _read_slots, _slots

    with_id = "TYPE     ID   RATE  EXEC TIME  UTIL%    FUNCTION          RATE    EXEC TIME   UTIL%"
    without = "        RATE  EXEC TIME  UTIL%"
    name = SECTIONS["PKCS11"]
    _SLOT_CACHE.clear()
    earlier = Section(name=name, line=1, interval_key=())
    _slots(earlier, with_id)
    _slots(earlier, without)  # keeps the earlier header's ID end and FUNCTION start
    assert earlier.id_end != 9 and earlier.func_start is not None
    later = Section(name=name, line=1, interval_key=(), layout=None)
    later.layout = earlier.layout
    _slots(later, without)
    fresh = Section(name=name, line=1, interval_key=(), layout=earlier.layout)
    _read_slots(fresh, without)
    got = (later.layout, later.slots, later.id_end, later.func_start, later.key_end)
    want = (fresh.layout, fresh.slots, fresh.id_end, fresh.func_start, fresh.key_end)
    assert got == want
