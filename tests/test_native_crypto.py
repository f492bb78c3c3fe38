"""The compiled RMF CRYPTO HARDWARE ACTIVITY parser (``native/src/rmf_crypto.rs``) against the
line-by-line parse it ports (``rmf_crypto.parse_by_line``): the same rows (values, order,
lineage), counters and errors.

- Every rmf_crypto input of the parser corpus (``tests/parser_corpus.py``: the fixtures and their
  variants, the bench generator, the generated studies) reads the same both ways; the corpus
  test (``test_parser_outputs.py``) holds the parse to the committed fingerprints too.
- Mutated plain reports (the crypto fuzz cases of ``test_textparser_fuzz_reports.py``, with
  plain-text noise: form feeds and the other ASCII blanks, quotes, page and section lines, bad
  headers), read in small chunks with small batches, give the same rows, counters and error.
- The bench's report (the three layouts, carriage control, a page per interval), LF and CRLF.
- A file that is not plain for this parser (latin-1 beyond ASCII, a control character) and
  ``MQCAP_NATIVE=0`` are read in Python.

The batches may be cut elsewhere than ``parse_by_line`` cuts them (after a chunk, not after
``BATCH_ROWS`` rows): the rows are compared concatenated. ``parse_by_line`` caches column
headers per process (``_SLOT_CACHE``) and the compiled parser per report; both keep only what
a header itself sets, so a cached read gives what a fresh one gives and Python's cache is left
warm from test to test here (until 2026-11-30 an entry also kept what an earlier section had
when the header lacked a label: a later report could read another's columns).
"""

from __future__ import annotations

import os
from pathlib import Path

import polars as pl
import pytest
import test_textparser_fuzz_reports as fuzz
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal as _assert_frame_equal

from mqcap.errors import InputError
from mqcap.parsers import _native, rmf_crypto
from mqcap.parsers.base import ParseContext

from helpers import FIXTURES

LIB = rmf_crypto.native_library()
S35 = FIXTURES / "rmf" / "CRYPTO_PP_V2R2_S35_2017-04-26.txt"


def assert_frame_equal(got: pl.DataFrame, want: pl.DataFrame) -> None:
    """Equal frames, floats exactly so."""
    _assert_frame_equal(got, want, check_exact=True)


def ctx_of(path: Path) -> ParseContext:
    return ParseContext(path=path, source_file=path.name, size=path.stat().st_size)


def outcome(parse, path: Path) -> tuple:
    """(rows or None, error as (message, file, line) or None, unknown-line counts, skipped
    counts) of a parse; the rows of every batch, concatenated. (Python's column-header cache
    is left warm from the tests before: a cached read gives what a fresh one gives.)"""
    ctx = ctx_of(path)
    frames, error = [], None
    try:
        for table, rows in parse(ctx):
            assert table == rmf_crypto.TABLE.name and len(rows)
            frames.append(rmf_crypto.TABLE.frame(rows))
    except InputError as exc:
        error = (str(exc), exc.file, exc.line)
    rows = pl.concat(frames) if frames else None
    return rows, error, dict(ctx.unknown_lines), dict(ctx.skipped)


def native(ctx: ParseContext):
    return rmf_crypto.parse_native(ctx, LIB)


def assert_same(path: Path) -> tuple:
    """The line-by-line and the compiled parse of ``path`` agree; (their outcome)."""
    want = outcome(rmf_crypto.parse_by_line, path)
    got = outcome(native, path)
    assert got[1:] == want[1:]
    if want[1] is None:  # rows before an error: batches are cut elsewhere
        assert (got[0] is None) == (want[0] is None)
        if want[0] is not None:
            assert_frame_equal(got[0], want[0])
    return got


def is_plain(path: Path) -> bool:
    return _native.file_is_plain(_native.PlainTest(LIB, "rc"), ctx_of(path))


def test_the_library_has_the_crypto_parser():
    assert LIB is not None, "make builds native/ with native/src/rmf_crypto.rs"


def test_plain_text_for_this_parser():
    ok = b"1C R Y P T O\r\n\t\x0b\x0c\x1c\x1d\x1e\x1f ~}|{\n"
    assert LIB.mqn_rc_plain(ok, len(ok)) == 1
    for odd in (b"caf\xc3\xa9", b"a\x00b", b"\x01", b"\x1b", b"\x7f", b"\x85", b"\xa0"):
        assert LIB.mqn_rc_plain(odd, len(odd)) == 0, odd
    # CHSTATUS's test is unchanged: a form feed is not plain for it
    assert _native.library().mqn_plain(b"\x0c", 1) == 0


def test_a_chunk_that_is_not_plain_is_refused_not_misread():
    h = LIB.mqn_rc_new()
    try:
        data = "C R Y P T O  H A R D W A R E  A C T I V I T Y\n caf\u00e9\n".encode()
        assert LIB.mqn_rc_feed(h, data, len(data), 1) == 3
    finally:
        LIB.mqn_rc_free(h)


def test_files_that_are_not_plain_and_the_switch_go_to_python(tmp_path, monkeypatch):
    calls = []
    real = rmf_crypto.parse_native
    monkeypatch.setattr(rmf_crypto, "parse_native", lambda c, lib: calls.append(1) or real(c, lib))
    f = tmp_path / "c.txt"
    report = S35.read_bytes().replace(b"\n", b"\n\x0c", 1)  # a form feed: still plain here
    f.write_bytes(report)
    want = outcome(rmf_crypto.parse_by_line, f)
    assert want[0].height == 24
    got = outcome(rmf_crypto.parse, f)  # a small report: compiled too
    assert calls == [1]
    assert_frame_equal(got[0], want[0])
    f.write_bytes(report + " caf\u00e9\n".encode("latin-1"))
    assert not is_plain(f)
    assert_frame_equal(outcome(rmf_crypto.parse, f)[0], want[0])
    assert calls == [1]
    monkeypatch.setenv("MQCAP_NATIVE", "0")
    f.write_bytes(report)
    assert_frame_equal(outcome(rmf_crypto.parse, f)[0], want[0])
    assert calls == [1]


def test_a_batch_is_the_frame_parse_by_line_makes(tmp_path):
    """Column names of the batches themselves, the landing table they make (the compiled
    parser's Arrow table taken as it is, of the landing types or cast to them exactly), and
    they stay valid once the library's batch is gone but for them."""
    import gc

    from mqcap.parsers.base import _arrow_of_typed_frame

    want = [rows for _, rows in rmf_crypto.parse_by_line(ctx_of(S35))]
    got = [rows for _, rows in native(ctx_of(S35))]
    gc.collect()
    assert len(got) == len(want) == 1
    assert set(got[0].column_names) == set(want[0].columns)
    assert _arrow_of_typed_frame(rmf_crypto.TABLE, got[0]) is not None
    landed, wanted = rmf_crypto.TABLE.arrow(got[0]), rmf_crypto.TABLE.arrow(want[0])
    assert landed.schema == wanted.schema and landed.equals(wanted)


def test_long_strings_over_several_data_buffers(tmp_path):
    """Strings longer than 12 bytes live in data buffers; a buffer is full at the view limit."""
    f = tmp_path / "c.txt"
    f.write_bytes(fuzz.CRYPTO_BASES[1].replace(b"S35", b"SYSTEM-OF-MANY-CHARACTERS"))
    LIB.mqn_set_view_limit(40)
    try:
        got = assert_same(f)
    finally:
        LIB.mqn_set_view_limit(2**31 - 1)
    assert got[0]["system_id"].unique().to_list() == ["SYSTEM-OF-MANY-CHARACTERS"]
    assert "SYMM COMPLETE" in got[0]["function"].to_list()


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    from parser_corpus import cases

    work = tmp_path_factory.mktemp("corpus")
    return [(name, path) for name, kind, path in cases(work) if kind == "rmf_crypto"]


def test_every_corpus_report_reads_the_same_both_ways(corpus):
    plain = [(n, p) for n, p in corpus if is_plain(p)]
    # every crypto input of the corpus is plain (fixtures, variants, generated studies)
    assert len(plain) >= 50, len(plain)
    results = {}
    for name, path in plain:
        try:
            results[name] = assert_same(path)
        except AssertionError as exc:
            raise AssertionError(f"{name}: {exc}") from exc
    # errors, counters and rows are all compared: the corpus has each
    assert sum(r[1] is not None for r in results.values()) >= 1
    assert sum(bool(r[2]) for r in results.values()) >= 10
    assert sum(r[0] is not None for r in results.values()) >= 40


# Plain noise: the bytes the regular expressions, the number reader and the messages (repr)
# tell apart, Python's ASCII blanks among them.
NOISE = st.sampled_from(
    [b"0", b"9", b".", b"-", b"  ", b"N/A", b"*****", b"12K", b"-5", b"-.5", b"5.", b"1.5M",
     b"300", b"2048", b"99999999999999999999", b"0.1234567890123456789", b"ASYM", b"RSA ME",
     b"SYMM COMPLETE", b"LPAR", b"TOTAL", b"CPC", b"---", b"TYPE", b"ID", b"KEY", b"KEY-GEN RATE",
     b"EXEC TIME", b"UTIL%", b"FUNCTION", b"RATE", b"CEX9Z", b"\t", b"\r", b"\x0b", b"\x0c",
     b"\x1c", b"\x1f", b"'", b'"', b"\\", b"#", b"+", b"1", b"/", b"z/OS", b"PAGE 3",
     b"CRYPTOGRAPHIC", b"A C T I V I T Y", b"ICSF", b"E", b" "]
)  # fmt: skip
LINES = st.one_of(
    fuzz.CRYPTO_LINES,
    st.sampled_from(
        [
            b"-------- ICSF SERVICES --------",
            b" --- ICSF/X 2 ---   ",
            b"--- LPAR TOTALS ---",
            b"-- CRYPTOGRAPHIC  ----",
            b"--CRYPTOGRAPHIC\tCCA --",
            b"-------- CRYPTOGRAPHIC ACCELERATOR ---- LPAR",
            b"-------- CRYPTOGRAPHIC PKCS11 COPROCESSOR",
            b"C P U  A C T I V I T Y",
            b"READY   C R Y P T O  H A R D W A R E  A C T I V I T Y  PAGE 1",
            b"1C R Y P T O  H A R D W A R E  A C T I V I T Y",
            b"  C R Y P T O  H A R D W A R E  A C T I V I T Y     PAGE   2",
            b"  PAGE   3",
            b"# a comment",
            b"#X not a comment",
            b"#",
            b"+ overprinted",
            b"0-------- TOTAL --------",
            b"z/OS V2R2   SYSPLEX PLX1   DATE 02/30/2017   INTERVAL 15.00.000",
            b"z/OS V2R2   SYSTEM ID S35   DATE 04/26/2017   INTERVAL 29.61.848",
            b"z/OS V2R4   SYSTEM ID ABCDEFGHIJKLMNOP   DATE 04/26/2017   INTERVAL 0.00.001",
            b"z/OS V2R2 SYSTEM",
            b"RPT VERSION V2R2 RMF   TIME 09.00.00",
            b"RPT VERSION V2R2 RMF   TIME 24.00.00",
            b"RPT VERSION V2R2 RMF   CYCLE-TIME 09.00.00.5",
            b"TYPE   ID   RATE",
            b"TYPE   ID   RATE  EXEC TIME  UTIL%   RATE  EXEC TIME  UTIL%  KEY-GEN RATE   KEY-GEN"
            b" RATE",
            b"CEX5P   3  549.6    0.611    33.6     ASYM FAST  289.4  0.575  16.6  SYMM GEN 1",
            b"RSA CRT   4096   1   2   3",
            b"CEX6A   4  13504  0.029  38.7   1024  4361  N/A  *****  ----  12K  4.9",
            b"CEX7A   2   RSA ME   xx",
            b"SYMM PARTIAL   N/A   N/A   N/A",
            b"\x0c",
            b" 1   1927  \t  0.201\x0c38.8  0.24",
        ]
    ),
)


@st.composite
def mutated_report(draw):
    lines = draw(st.sampled_from(fuzz.CRYPTO_BASES)).split(b"\n")
    ops = ["drop", "dup", "swap", "cut", "byte", "insert", "strip"]
    data = fuzz.mutate(draw, lines, ops, NOISE, LINES, st.integers(0, 8), 3)
    if draw(st.booleans()):
        data = data.replace(b"\n", b"\r\n")
    if draw(st.integers(0, 9)) == 0:
        data = b"\xef\xbb\xbf" + data
    return data


@settings(
    max_examples=int(os.environ.get("MQCAP_FUZZ_EXAMPLES", 300)),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    data=mutated_report(),
    chunk=st.sampled_from([64, 300, 4096, 4 << 20]),
    batch=st.sampled_from([1, 7, 100]),
    view_limit=st.sampled_from([16, 2**31 - 1]),
)
@example(data=fuzz.NO_VALUES, chunk=4 << 20, batch=1, view_limit=2**31 - 1)
def test_mutated_reports_read_the_same_both_ways(
    tmp_path_factory, monkeypatch, data, chunk, batch, view_limit
):
    path = tmp_path_factory.mktemp("m") / "crypto.txt"
    path.write_bytes(data)
    assert is_plain(path)
    monkeypatch.setattr(rmf_crypto, "NATIVE_CHUNK_BYTES", chunk)
    monkeypatch.setattr(rmf_crypto, "NATIVE_BATCH_ROWS", batch)
    LIB.mqn_set_view_limit(view_limit)
    try:
        assert_same(path)
    finally:
        LIB.mqn_set_view_limit(2**31 - 1)


def test_the_bench_report_reads_the_same_lf_and_crlf(tmp_path, monkeypatch):
    from bench import bench_reports

    path, intervals = bench_reports.make_report(tmp_path, "c.txt", bench_reports.CRYPTO, 2)
    monkeypatch.setattr(rmf_crypto, "NATIVE_CHUNK_BYTES", 50_000)
    monkeypatch.setattr(rmf_crypto, "NATIVE_BATCH_ROWS", 700)
    got = assert_same(path)
    assert intervals > 700 and got[0].height > 20_000
    assert got[1:] == (None, {}, {})
    crlf = path.with_name("crlf.txt")
    crlf.write_bytes(path.read_bytes().replace(b"\n", b"\r\n"))
    got_crlf = assert_same(crlf)
    assert_frame_equal(got_crlf[0].drop("source_file"), got[0].drop("source_file"))
    # what the parser registry's parse gives: the compiled parse
    monkeypatch.setattr(rmf_crypto, "parse_by_line", None)
    monkeypatch.setattr(rmf_crypto, "parse_bulk", None)
    assert_frame_equal(outcome(rmf_crypto.parse, path)[0], got[0])


S21 = FIXTURES / "rmf" / "CRYPTO_PP_V2R3_S21_2018-07-12_LPAR_CPC.txt"
CB89 = FIXTURES / "rmf" / "CRYPTO_PP_V2R4_CB89_2019-08-11_CEX7.txt"
PKCS11_ROW = b"ASYM GEN          0.10      1.730       0.0"
# (fixture, [(old, new), ...], what the outcome must show: an error's words or a counter)
# S35 as SYSOUT prints it: carriage control in column 1 (continuation rows indented)
S35_CC = fuzz.CRYPTO_BASES[1]
EDGES = {
    # carriage control "-" (triple space) is a blank like " " and "0"
    "dash carriage control": (S35_CC, [(b"\n         6   3235", b"\n-        6   3235")], None),
    "overprint": (S35_CC, [(b"\n         6   3235", b"\n+ x\n         6   3235")], "overprint line"),
    "bad interval": (S35, [(b"29.59.848", b"29.61.848")], "bad INTERVAL 29.61.848"),
    "bad date": (S35, [(b"04/26/2017", b"02/30/2017")], "bad DATE/TIME 02/30/2017 09.00.00"),
    "no time": (S35, [(b"TIME 09.00.00", b"TIME 9.00.00")], "without DATE and TIME"),
    "seconds 60": (S35, [(b"29.59.848", b"29.60.848")], "bad INTERVAL 29.60.848"),
    "a short header": (S35, [(b"RPT VERSION V2R2 RMF ", b"z/OS V2R9 SYSTEM\nRPT VERSION V2R2 RMF ")], None),
    "time with tenths": (S35, [(b"TIME 09.00.00", b"TIME 09.00.00.5")], "without DATE and TIME"),
    "date after a slash": (S35, [(b"DATE 04/26/2017", b"X/DATE 04/26/2017")], "before the page header"),
    "date after a word": (S35, [(b"DATE 04/26/2017", b"UPDATE 04/26/2017")], "before the page header"),
    "long interval": (S35, [(b"29.59.848", b"1234567890123456789012345.59.848")], None),
    "longer interval": (S35, [(b"29.59.848", b"9" * 40 + b".59.999")], None),
    "quotes": (S35, [(b"0.206", b"'0\"206")], "'\\'0\"206'"),
    "quote": (S35, [(b"0.206", b"0'206")], "\"0'206\""),
    "backslash": (S35, [(b"0.206", b"0\\206")], "'0\\\\206'"),
    "numbers": (
        S35,
        [(b"0.206", b"12K"), (b"38.8 ", b"-.5 "), (b"0.25", b"-0"), (b"0.111", b"12T"),
         (b"38.6", b"1.5G"), (b"0.46", b"007"), (b"3235", b"3."), (b"0.120", b".5")],
        None,
    ),
    "dot without digits": (S35, [(b"0.206", b"-5.")], "'-5.' is not a number"),
    "a lone dot": (S35, [(b"0.206", b".")], "'.' is not a number"),
    "a scale alone": (S35, [(b"0.206", b"-K")], "'-K' is not a number"),
    "pkcs1": (S35, [(b"CRYPTOGRAPHIC PKCS11", b"CRYPTOGRAPHIC PKCS1")], None),
    "tab in a section name": (
        S35, [(b"CRYPTOGRAPHIC CCA COPROCESSOR", b"CRYPTOGRAPHIC CCA\tCOPROCESSOR")],
        "crypto line outside a section",
    ),
    "slash in another section": (
        S35, [(b"CEX6C   5", b"--- ICSF/X 2 ---\nCEX6C   5")], "ICSF/X 2 line"
    ),
    "another crypto title": (
        S35, [(b"H A R D W A R E  A C T", b"A C T")], "found: CRYPTO ACTIVITY"
    ),
    "five blanks in a title": (S35, [(b"O  H A R", b"O     H A R")], "no CRYPTO HARDWARE"),
    "a short spaced line": (S35, [(b"C R Y P", b"A B  C D\njunk\nC R Y P")], "line before the report"),
    "two repeats": (S35, [(b"C R Y P", b"A    B  C\njunk\nC R Y P")], "line before the report"),
    "a report title decides carriage control": (
        S35, [(b"C R Y P", b"1READY   S U M M A R Y  R E P O R T\nC R Y P")], None
    ),
    "a function in a key row": (S35, [(b"2048     1633", b"2048  RSA  1633")], None),
    "key size 256": (S35, [(b"2048     1633", b"256     1633")], None),
    "six digits": (S35, [(b"CEX5C   0", b"CEX5C   123456")], "crypto line in a section"),
    "nine characters": (S35, [(b"CEX5C   0", b"CEX5CABCD   0")], "crypto line in a section"),
    "TYPE without RATE": (S35, [(b"CEX6C   5", b"TYPE   ID\nCEX6C   5")], "crypto line in a section"),
    "PAGE and more": (S35, [(b"\n6   3235", b"\nPAGE 3 X\n6   3235")], None),
    "carriage control, then none": (S35_CC + S35.read_bytes(), [], None),
    "not a comment": (S35, [(b"CEX6C   5", b"#X x\nCEX6C   5")], "crypto line in a section"),
    "two dashes": (S35, [(b"CEX6C   5", b"-- ICSF SERVICES ---\nCEX6C   5")], "crypto line in a section"),
    "a group in a word": (S35, [(b"CEX6C   5", b"--- XTOTAL Y ---\nCEX6C   5")], "XTOTAL Y line"),
    "no values": (S35, [(PKCS11_ROW, b"ASYM GEN  N/A  *****  ---")], "crypto scope with no values"),
    "blanks": (S35, [(b"ASYM GEN  ", b"ASYM\x0cGEN\x1c "), (b"   0.206", b"\x0b\t 0.206\r")], None),
    "form feeds": (S35, [(b"\n", b"\n\x0c")], None),
    "prefixed title": (
        S35, [(b"C R Y P T O", b"READY   C R Y P T O"), (b"A C T I V I T Y", b"A C T I V I T Y  PAGE 1")],
        None,
    ),
    # the section's name is a blank (the lazy group after \s+ gave back): a CCA section
    # one blank after the prefix is no prefix: the title found is the one after "O  "
    "one blank after a prefix": (
        S35, [(b"C R Y P T O", b"READY C R Y P T O")], "found: HARDWARE ACTIVITY"
    ),
    "blank section name": (
        S35, [(b"-------- CRYPTOGRAPHIC ACCELERATOR", b"-- CRYPTOGRAPHIC  ")],
        "function values but no function name",
    ),
    "other section": (
        S35, [(b"-------- CRYPTOGRAPHIC ACCELERATOR -", b"-------- ICSF SERVICES -")],
        "ICSF SERVICES line",
    ),
    "other report": (
        S35, [(b"C R Y P T O  H A R D W A R E", b"C P U  H A R D W A R E")],
        "found: CPU HARDWARE ACTIVITY",
    ),
    "second header without FUNCTION": (
        S35,
        [(PKCS11_ROW, PKCS11_ROW + b"\nTYPE   ID   RATE  EXEC TIME  UTIL%\n" + PKCS11_ROW)],
        "3 values where the column header has 0",
    ),
    "accelerator key missing": (CB89, [(b"RSA ME   2048", b"RSA ME   x2048")], "key size missing"),
    "unexpected text": (CB89, [(b"ASYM GEN ", b"ASYM GEN 1 X-Y ")], "unexpected text 'X-Y'"),
    "more values": (S21, [(b"0.00           0.00", b"0.00  1  0.00")], "values where the column"),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(EDGES))
def test_edge_cases_read_the_same_both_ways(tmp_path, name):
    src, subs, shows = EDGES[name]
    data = src.read_bytes() if isinstance(src, Path) else src
    for old, new in subs:
        assert old in data, old
        data = data.replace(old, new)
    path = tmp_path / "c.txt"
    path.write_bytes(data)
    assert is_plain(path)
    got = assert_same(path)
    if shows is not None:
        assert shows in (got[1] or ("",))[0] or shows in {**(got[2] or {}), **(got[3] or {})}
    else:
        assert got[1] is None and got[0].height > 10


def test_a_cached_column_header_reads_as_a_fresh_one(tmp_path):
    """A column header without FUNCTION keeps the FUNCTION column of the header before it in
    its section. The header cache (per process in Python, per parse in the port) keeps only
    what a header sets: a later section with the same header text reads it as a fresh section
    does, whatever was parsed before (its function row, with no FUNCTION column in that
    section, is an unknown line, not a data row of the earlier section's layout)."""
    short = b"TYPE   ID   RATE  EXEC TIME  UTIL%    RATE  EXEC TIME"
    lines = S35.read_bytes().split(b"\n")
    pkcs = next(i for i, ln in enumerate(lines) if b"CRYPTOGRAPHIC PKCS11" in ln)
    again = [*lines[pkcs : pkcs + 2], short, b"CEX5P   3  549.6    0.611    33.6", b"ASYM GEN"]
    data = b"\n".join([*lines[: pkcs + 13], short, b"ASYM GEN", *again, *lines[pkcs + 13 :]])
    path = tmp_path / "c.txt"
    path.write_bytes(data)
    got = assert_same(path)
    assert got[1] is None and got[2].get("crypto line in a section") == 1
    # the same report again in this process, Python's cache warm: the same outcome
    warm = outcome(rmf_crypto.parse_by_line, path)
    assert warm[1:] == got[1:]
    assert_frame_equal(warm[0], got[0])


def test_values_placed_by_the_nearest_column_ties_included(tmp_path):
    """Rows with fewer values than columns: one value at every position, one to three bytes
    long, so that some sit exactly between two columns (the left one wins)."""
    lines = S35.read_bytes().split(b"\n")
    at = next(i for i, ln in enumerate(lines) if ln.startswith(b"CEX5C   0"))
    rows = [
        b"CEX5C   0" + b" " * k + b"7" * n + b" " * j + b"8"
        for k in range(1, 40)
        for n in (1, 2, 3)
        for j in (1, 6)
    ]
    path = tmp_path / "c.txt"
    path.write_bytes(b"\n".join([*lines[: at + 1], *rows, *lines[at + 1 :]]))
    got = assert_same(path)
    assert got[1] is None and got[0].height > len(rows)


def test_a_second_interval_at_the_same_time_of_another_day(tmp_path):
    """The interval key has the DATE: the same TIME on another day is another interval."""
    text = S35.read_bytes()
    path = tmp_path / "c.txt"
    path.write_bytes(text + text.replace(b"DATE 04/26/2017", b"DATE 04/27/2017"))
    got = assert_same(path)
    assert got[0]["interval_start"].dt.day().unique().sort().to_list() == [26, 27]


def test_interval_seconds_of_every_thousandth(tmp_path):
    """``int(mm) * 60 + int(ss) + int(ttt) / 1000``, every ttt (one page each)."""
    page = b"\n".join(S35.read_bytes().split(b"\n")[3:14]) + b"\n"
    pages = [
        page.replace(
            b"29.59.848", b"%d.%02d.%03d" % (k % 97 * (k % 2), k % 60 * (k % 2), k)
        ).replace(b"TIME 09.00.00", b"TIME 09.%02d.%02d" % (k // 60 % 60, k % 60))
        for k in range(1000)
    ]
    path = tmp_path / "c.txt"
    path.write_bytes(b"".join(pages))
    got = assert_same(path)
    assert got[0]["interval_s"].n_unique() == 1000
