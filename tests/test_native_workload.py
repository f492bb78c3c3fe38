"""The compiled RMF WORKLOAD ACTIVITY parser (``native/src/rmf_workload.rs``) against the Python
parse it ports (``rmf_workload.parse_python``): the same rows (values, order, lineage), counters,
``nothing_to_land`` and errors.

- Every rmf_workload input of the parser corpus (``tests/parser_corpus.py``: the fixtures and
  their variants, the bench generator, the generated studies) that is plain text reads the same
  both ways; the corpus test (``test_parser_outputs.py``) holds the parse to the committed
  fingerprints too.
- Mutated plain reports (the workload fuzz cases of ``test_textparser_fuzz_reports.py``, with
  plain-text noise: form feeds and the other ASCII blanks, quotes, class, block, page and header
  lines), read in small chunks with small batches and small Python frames, give the same rows,
  counters and error.
- The bench's report (both block layouts, carriage control, a page per interval), LF and CRLF.
- A file that is not plain for this parser (latin-1 beyond ASCII, a control character) and
  ``MQCAP_NATIVE=0`` are read in Python.

The batches may be cut elsewhere than ``parse_python`` cuts them (after a chunk, not after a
frame): the rows are compared concatenated. ``parse_python`` reads frames of
``_rmf.FRAME_BYTES`` (``ReportFrames``' default) and raises the first error when the frame that
holds it ends, having counted what that frame holds; the compiled parser is told the frame size
and counts the same (the tests shrink the frames to reach their ends).
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
from mqcap.parsers import _native, _rmf, rmf_workload
from mqcap.parsers.base import (
    BINARY_LINEAGE,
    TEXT_LINEAGE,
    ChangedWhileRead,
    ParseContext,
    _arrow_of_typed_frame,
)

from helpers import FIXTURES

LIB = _native.library()
RMF = FIXTURES / "rmf"
V2R2 = RMF / "WLMGL_PP_V2R2_UTCPLXCB_2015-04-21.txt"
STCLOW = RMF / "WLMGL_PP_V2R3_UTCPLXCB_2016-12-19_STCLOW.txt"
POLICY = RMF / "WLMGL_PP_V2R3_SYSDPLEX_2017-09-28_policy_page.txt"
GEN = RMF / "WLMGL_generated_two_intervals.txt"  # carriage control, report classes
CPU = RMF / "CPU_PP_V2R2_CB88_2015-04-21.txt"
_BINARY_LINEAGE = set(BINARY_LINEAGE) - set(TEXT_LINEAGE)


def assert_frame_equal(got: pl.DataFrame, want: pl.DataFrame) -> None:
    """Equal frames, floats exactly so."""
    _assert_frame_equal(got, want, check_exact=True)


def ctx_of(path: Path) -> ParseContext:
    return ParseContext(path=path, source_file=path.name, size=path.stat().st_size)


def outcome(parse, path: Path) -> tuple:
    """(rows or None, error as (message, file, line) or None, unknown-line counts, skipped
    counts, nothing_to_land) of a parse; the rows of every batch, concatenated."""
    ctx = ctx_of(path)
    frames, error = [], None
    try:
        for table, rows in parse(ctx):
            assert table == rmf_workload.TABLE.name and len(rows)
            frames.append(rmf_workload.TABLE.frame(rows))
    except InputError as exc:
        error = (str(exc), exc.file, exc.line)
    rows = pl.concat(frames) if frames else None
    return rows, error, dict(ctx.unknown_lines), dict(ctx.skipped), ctx.nothing_to_land


def native(ctx: ParseContext):
    return rmf_workload.parse_native(ctx, LIB)


def assert_same(path: Path) -> tuple:
    """The Python and the compiled parse of ``path`` agree; (their outcome)."""
    want = outcome(rmf_workload.parse_python, path)
    got = outcome(native, path)
    assert got[1:] == want[1:]
    if want[1] is None:  # rows before an error: batches are cut elsewhere
        assert (got[0] is None) == (want[0] is None)
        if want[0] is not None:
            assert_frame_equal(got[0], want[0])
    return got


def is_plain(path: Path) -> bool:
    return _native.file_is_plain(_native.PlainTest(LIB, "rw"), ctx_of(path))


@pytest.fixture
def frames(monkeypatch):
    """Sets the size of parse_python's frames (``ReportFrames``' default)."""

    def set_to(n: int) -> None:
        monkeypatch.setattr(_rmf.ReportFrames.__init__, "__defaults__", (n,))

    return set_to


def test_the_library_has_the_workload_parser():
    assert LIB is not None and hasattr(LIB, "mqn_rw_new"), "make builds native/"


def test_plain_text_for_this_parser():
    """Latin-1 text whose blanks are Python's ASCII ones (the bench report copies a PDF's
    bullets and copyright signs as UTF-8 bytes, read as latin-1 characters)."""
    ok = b"1W O R K L O A D\r\n\t\x0b\x0c\x1c\x1d\x1e\x1f ~}|{\x7f\x80\xad\xff caf\xc3\xa9\n"
    assert LIB.mqn_rw_plain(ok, len(ok)) == 1
    for odd in (b"a\x00b", b"\x01", b"\x08", b"\x0e", b"\x1b", b"\x85", b"\xa0"):
        assert LIB.mqn_rw_plain(odd, len(odd)) == 0, odd


def test_a_chunk_that_is_not_plain_is_refused_not_misread(tmp_path):
    h = LIB.mqn_rw_new(4 << 20, 0)
    try:
        data = "W O R K L O A D   A C T I V I T Y\n caf\u00e9\xa0\n".encode("latin-1")
        assert LIB.mqn_rw_feed(h, data, len(data), 1) == 3
    finally:
        LIB.mqn_rw_free(h)
    # a file that changed after its plain-text test: retried, not misread
    f = tmp_path / "w.txt"
    f.write_bytes(data)
    with pytest.raises(ChangedWhileRead):
        list(native(ctx_of(f)))


def test_files_that_are_not_plain_and_the_switch_go_to_python(tmp_path, monkeypatch):
    calls = []
    real = rmf_workload.parse_native
    monkeypatch.setattr(
        rmf_workload, "parse_native", lambda c, lib: calls.append(1) or real(c, lib)
    )
    f = tmp_path / "w.txt"
    report = V2R2.read_bytes().replace(b"\n", b"\n\x0c", 1)  # a form feed: still plain here
    f.write_bytes(report)
    want = outcome(rmf_workload.parse_python, f)
    assert want[0].height == 2
    got = outcome(rmf_workload.parse, f)
    assert calls == [1]
    assert_frame_equal(got[0], want[0])
    assert got[1:] == want[1:]
    f.write_bytes(report + " caf\u00e9\x85\n".encode("latin-1"))
    assert not is_plain(f)
    assert_frame_equal(outcome(rmf_workload.parse, f)[0], want[0])
    assert calls == [1]
    monkeypatch.setenv("MQCAP_NATIVE", "0")
    f.write_bytes(report)
    assert_frame_equal(outcome(rmf_workload.parse, f)[0], want[0])
    assert calls == [1]


def test_a_batch_has_the_table_columns():
    """The compiled parser's frame has the table's columns (but the binary lineage) and
    types, and stays valid once the library's batch is gone but for it."""
    import gc

    got = [rows for _, rows in native(ctx_of(GEN))]
    gc.collect()
    assert len(got) == 1 and got[0].num_rows == 6
    table = rmf_workload.TABLE.columns
    assert set(got[0].column_names) == set(table) - set(_BINARY_LINEAGE)
    # (an Arrow table of the landing types, or of types cast to them exactly: landed as it is)
    assert _arrow_of_typed_frame(rmf_workload.TABLE, got[0]) is not None
    assert_frame_equal(
        rmf_workload.TABLE.frame(got[0]),
        rmf_workload.TABLE.frame([r for _, b in rmf_workload.parse_python(ctx_of(GEN)) for r in b]),
    )


def test_long_strings_over_several_data_buffers(tmp_path):
    """Strings longer than 12 bytes live in data buffers; a buffer is full at the view limit."""
    f = tmp_path / "w.txt"
    f.write_bytes(V2R2.read_bytes().replace(b"UTCPLXCB", b"SYSPLEX-OF-MANY-CHARACTERS"))
    LIB.mqn_set_view_limit(40)
    try:
        got = assert_same(f)
    finally:
        LIB.mqn_set_view_limit(2**31 - 1)
    assert got[0]["sysplex"].unique().to_list() == ["SYSPLEX-OF-MANY-CHARACTERS"]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    from parser_corpus import cases

    work = tmp_path_factory.mktemp("corpus")
    return [(name, path) for name, kind, path in cases(work) if kind == "rmf_workload"]


def test_every_corpus_report_reads_the_same_both_ways(corpus):
    plain_ones = [(n, p) for n, p in corpus if is_plain(p)]
    # every workload input of the corpus is plain (the fixtures copied from PDFs hold a few
    # bytes beyond ASCII, latin-1 characters here), but a variant with NEL or a no-break space
    assert len(plain_ones) >= 30 and len(plain_ones) >= len(corpus) - 2, len(plain_ones)
    results = {}
    for name, path in plain_ones:
        try:
            results[name] = assert_same(path)
        except AssertionError as exc:
            raise AssertionError(f"{name}: {exc}") from exc
    # errors, counters and rows are all compared: the corpus has each
    assert sum(r[1] is not None for r in results.values()) >= 1
    assert sum(bool(r[2]) or bool(r[3]) for r in results.values()) >= 5
    assert sum(r[0] is not None for r in results.values()) >= 10


def _bases() -> list[bytes]:
    from bench import bench_reports

    pages = [
        bench_reports._template(p).format(date="04/21/2015", time="01.15.00").encode()
        for p in bench_reports.WORKLOAD
    ]
    samples = [p.read_bytes() for p in (V2R2, STCLOW, POLICY, GEN, CPU)]
    return [*samples, pages[0] + pages[1], pages[1]]


BASES = _bases()
# Plain noise: the bytes the regular expressions, the number reader and the messages (repr)
# tell apart, Python's ASCII blanks and latin-1 letters, digits and unprintable characters among
# them.
NOISE = st.sampled_from(
    [b"0", b"9", b".", b"-", b"  ", b"N/A", b"*****", b"12K", b"-5", b"-.5", b"5.", b"1.5M",
     b"1.2.3", b"99999999999999999999", b"0.1234567890123456789", b"CPU", b"SRB", b"AAP",
     b"IIP", b"CP", b"IIPCP", b"AAPCP", b"RCT", b"APPL %", b"SERVICE TIME", b"CLASS=",
     b"POLICY=", b"WORKLOAD=", b"REPORT BY:", b"PERIOD=", b"PERIOD=12345", b"RESOURCE GROUP=",
     b"IMPORTANCE=", b"SERVICE POLICY PAGE", b"\t", b"\r", b"\x0b", b"\x0c", b"\x1c", b"\x1f",
     b"'", b'"', b"\\", b"#", b"+", b"1", b"/", b"_", b"=", b"z/OS", b"PAGE 3",
     b"A C T I V I T Y", b"E", b" ", b"\xe9", b"\xad", b"\x80", b"\x7f", b"\xaa", b"\xb2",
     b"\xd7", b"\xe2\x97\x8f"]
)  # fmt: skip
LINES = st.one_of(
    fuzz.LINE_NOISE.filter(lambda ln: ln.isascii()),
    st.sampled_from(
        [
            b"REPORT BY: POLICY=P WORKLOAD=W SERVICE CLASS=S",
            b"REPORT BY: POLICY=P REPORT CLASS=R PERIOD=12 IMPORTANCE=1 RESOURCE GROUP=G",
            b" POLICY=BASEPOL    WORKLOAD=STC_WLD    SERVICE CLASS=STCLOW   PERIOD=2",
            b"REPORT BY: POLICY=BASEPOL    WORKLOAD=SYSTEM",
            b"REPORT BY:POLICY=X",
            b"----SERVICE----   SERVICE TIME  ---APPL %---",
            b"-TRANSACTIONS-  ---SERVICE--- SERVICE TIME  ---APPL %---",
            b"IOC 23349   CPU    9.021  CP      1.06  BLK    0.000",
            b"CPU 566054   SRB    0.383  IIPCP   0.00",
            b"CPU 12  CPU 1.5 CP 3 CP 4",
            b"AAP 1 IIP 2 AAP 3",
            b"CP 1 CPU 2",
            b"X Y 1 CPU 2 CP x",
            b"CPU 'x CP 1",
            b"SRB N/A  AAP *** IIP -.5",
            b"TOT 6 /SEC 7 RCT 0.1 AAPCP 0.0",
            b"z/OS V2R2   SYSPLEX UTCPLXCB  DATE 04/22/2015  INTERVAL 15.00.013",
            b"z/OS V2R2   SYSTEM ID S35   DATE 02/30/2017   INTERVAL 29.61.848",
            b"RPT VERSION V2R2 RMF   TIME 01.30.00",
            b"RPT VERSION V2R2 RMF   TIME 01.15.00",
            b"W O R K L O A D   A C T I V I T Y",
            b"1W O R K L O A D   A C T I V I T Y",
            b"1C P U   A C T I V I T Y",
            b"READY   W O R K L O A D   A C T I V I T Y  PAGE 1",
            b"# a comment",
            b"#X not a comment",
            b"#\xe9 not a comment",
            b"#\xd7 a comment",
            b"#",
            b"REPORT BY: POLICY=P\xe9 REPORT CLASS=R\xb2 PERIOD=12\xba IMPORTANCE=\xff",
            b"+ overprinted",
            b"SERVICE POLICY PAGE",
            b"  PAGE   3",
            b"",
            b"   \x0c",
            b"0-------------",
            b"-",
        ]
    ),
)


@st.composite
def mutated_report(draw):
    lines = draw(st.sampled_from(BASES)).split(b"\n")
    ops = ["drop", "dup", "swap", "cut", "byte", "insert", "strip"]
    data = fuzz.mutate(draw, lines, ops, NOISE, LINES, st.integers(0, 8), 5)
    if draw(st.booleans()):
        data = data.replace(b"\n", b"\r\n")
    if draw(st.integers(0, 9)) == 0:
        data = b"\xef\xbb\xbf" + data
    return data


@settings(
    max_examples=int(os.environ.get("MQCAP_FUZZ_EXAMPLES", 250)),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    data=mutated_report(),
    chunk=st.sampled_from([64, 300, 4096, 4 << 20]),
    batch=st.sampled_from([1, 7, 100]),
    view_limit=st.sampled_from([16, 2**31 - 1]),
    frame=st.sampled_from([4 << 20, 4 << 20, 700, 2000]),
)
@example(data=b"junk\n# c\n" + GEN.read_bytes(), chunk=64, batch=1, view_limit=16, frame=4 << 20)
def test_mutated_reports_read_the_same_both_ways(
    tmp_path_factory, monkeypatch, frames, data, chunk, batch, view_limit, frame
):
    path = tmp_path_factory.mktemp("m") / "wlm.txt"
    path.write_bytes(data)
    assert is_plain(path)
    monkeypatch.setattr(rmf_workload, "NATIVE_CHUNK_BYTES", chunk)
    monkeypatch.setattr(rmf_workload, "NATIVE_BATCH_ROWS", batch)
    frames(frame)
    LIB.mqn_set_view_limit(view_limit)
    try:
        assert_same(path)
    finally:
        LIB.mqn_set_view_limit(2**31 - 1)


def test_the_bench_report_reads_the_same_lf_and_crlf(tmp_path, monkeypatch):
    from bench import bench_reports

    path, intervals = bench_reports.make_report(tmp_path, "w.txt", bench_reports.WORKLOAD, 2)
    monkeypatch.setattr(rmf_workload, "NATIVE_CHUNK_BYTES", 50_000)
    monkeypatch.setattr(rmf_workload, "NATIVE_BATCH_ROWS", 70)
    got = assert_same(path)
    assert intervals > 400 and got[0].height > 700
    # (the policy lines between the page header and the first section are outside a section)
    assert got[1] is None and set(got[2]) == {"workload line outside a class section"}
    crlf = path.with_name("crlf.txt")
    crlf.write_bytes(path.read_bytes().replace(b"\n", b"\r\n"))
    got_crlf = assert_same(crlf)
    assert_frame_equal(got_crlf[0].drop("source_file"), got[0].drop("source_file"))
    # what the parser registry's parse gives: the compiled parse
    monkeypatch.setattr(rmf_workload, "parse_python", None)
    assert_frame_equal(outcome(rmf_workload.parse, path)[0], got[0])


G = GEN.read_bytes()
V = V2R2.read_bytes()
CPU_ROW = b"CPU 6153.266  CP    672.77"
# (report, [(old, new), ...], what the outcome must show: an error's words, a counter or the
# nothing_to_land note)
EDGES = {
    # (until 2026-11-30 ReportFrames left the carriage control on the title when a comment
    # line came between the frame's first line and the title: the report was not found)
    "a comment before a carriage-control title": (b"junk\n# c\n" + G, [], "comment line"),
    "a comment first": (b"# c\n" + G, [], "comment line"),
    "overprint": (G, [(b"\n0REPORT BY", b"\n+ x\n0REPORT BY")], "overprint line"),
    "bad interval": (V, [(b"15.00.013", b"15.61.013")], "bad INTERVAL 15.61.013"),
    "bad date": (V, [(b"04/21/2015", b"02/30/2015")], "bad DATE/TIME 02/30/2015 01.15.00"),
    "no time": (V, [(b"TIME 01.15.00", b"TIME 1.15.00")], "before the page header"),
    "no header": (V, [(b"z/OS V2R2 ", b"z/OS V2 ")], "before the page header"),
    "second block": (V, [(b"IMSLOW", b"SERVICE TIME  APPL %")], "second SERVICE TIME block"),
    "no block": (V, [(b"---APPL %---", b"---APPL ---")], "no SERVICE TIME block before the next"),
    "cut": (V[: V.index(b"-TRANSACTIONS-", V.index(b"SERVICE CLASS=SYSTEM"))], [], "end of file"),
    "no CPU": (V, [(CPU_ROW, b"CPX 6153.266  CP    672.77")], "block without CPU"),
    "CPU twice": (V, [(b"AAP    0.000  IIP", b"CPU    0.000  IIP")], "CPU appears twice"),
    "not a number": (V, [(CPU_ROW, b"CPU 6153.266  CP    -5.")], "CP '-5.' is not a number"),
    "a bad number, then a bad header": (
        V,
        [(CPU_ROW, b"CPU 1.2.3  CP    672.77"),
         (b"SERVICE CLASS=SYSTEM", b"SERVICE CLASS=SYSTEM\nRPT VERSION V2R2 RMF  TIME 99.15.00")],
        "'1.2.3' is not a number",
    ),
    "totals only": (
        V, [(b"SERVICE CLASS=SYSSTC", b""), (b"SERVICE CLASS=SYSTEM", b"")], "totals only"
    ),
    "a policy page": (POLICY.read_bytes(), [], "service policy page"),
    "another report": (CPU.read_bytes(), [], "CPU ACTIVITY: recognised but not supported"),
    "blanks": (V, [(b"CPU 6153.266  CP", b"CPU\x0c6153.266\x1fCP"), (b"\n", b"\r\n")], None),
    "form feeds": (G, [(b"\n", b"\n\x0c")], None),
    "N/A and stars": (V, [(b"SRB   70.355", b"SRB   N/A"), (b"IIP  180.186", b"IIP  *****")], None),
    "a period and importance": (
        V, [(b"RESOURCE GROUP=*NONE", b"RESOURCE GROUP=*NONE  PERIOD=3 IMPORTANCE=2")], None
    ),
    "another interval": (G + G.replace(b"TIME 11.07.30", b"TIME 11.22.30"), [], None),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(EDGES))
def test_edge_cases_read_the_same_both_ways(tmp_path, name):
    data, subs, shows = EDGES[name]
    for old, new in subs:
        assert old in data, old
        data = data.replace(old, new)
    path = tmp_path / "w.txt"
    path.write_bytes(data)
    assert is_plain(path)
    got = assert_same(path)
    if shows is not None:
        found = [(got[1] or ("",))[0], *got[2], *got[3], got[4] or ""]
        assert any(shows in f for f in found), found
    else:
        assert got[1] is None and got[0].height >= 2


@pytest.mark.parametrize("frame", [1000, 4500, 6000])
def test_an_error_counts_to_the_end_of_its_frame(tmp_path, frames, frame):
    """A block error is raised when its frame ends: what the frame holds after it is counted
    (comments, lines outside a section, total sections), what comes after is not."""
    bad = V.replace(b"CPU 1645.944", b"CPU 1.2.3")  # the last section's block (byte 2919)
    tail = b"\n".join([b"# note", b"stray line", b"REPORT BY: POLICY=P"] * 60) + b"\n"
    path = tmp_path / "w.txt"
    path.write_bytes(bad + tail + G + tail)
    frames(frame)
    got = assert_same(path)
    assert "CPU '1.2.3' is not a number" in got[1][0]
    # the report's 3 comments, and those of the tail in the error's frame (it ends at 4500, 6000)
    counted = got[2].get("comment line", 0)
    assert counted == {1000: 3, 4500: 3 + 13, 6000: 3 + 53}[frame], counted
