"""The compiled parsers (``native/``, loaded by ``mqcap.parsers._native``) against the Python
parsers they port: the same rows, lineage, counters, errors and batches.

- The library is built (``make`` builds it; the wheel carries it) and is the one of this ABI.
- Every CHSTATUS input of the parser corpus (``tests/parser_corpus.py``: fixtures, variants,
  the bench generator, generated studies) read by both gives the same fingerprint; the corpus
  test (``test_parser_outputs.py``) holds both to the committed fingerprints too.
- Mutated plain-text captures (lines inserted from a pool of every line kind the state machine
  knows, lines swapped, dropped, cut, bytes changed within printable ASCII), read in small
  chunks with small batches, give the same batches up to the same error.
- A file that is not plain text (a byte over 0x7E, a control character) is read by Python, and
  ``MQCAP_NATIVE=0`` reads everything in Python.
"""

from __future__ import annotations

import gzip
import hashlib
import os
import subprocess
from contextlib import contextmanager
from pathlib import Path

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mqcap.errors import InputError
from mqcap.parsers import _native, base, chstatus
from mqcap.parsers.base import ParseContext

from helpers import FIXTURES

LIB = _native.library()
SAMPLES = {p.name: p.read_bytes() for p in sorted((FIXTURES / "chstatus").glob("*.txt"))}


def run(fn, path: Path) -> dict:
    """Everything a parse gives: each batch (table, rows, checksum of its sorted rows), the
    counters, the error (message, file, line)."""
    ctx = ParseContext(path=path, source_file=path.name, size=path.stat().st_size)
    batches = []
    out: dict = {}
    try:
        for table, rows in fn(ctx):
            df = chstatus.PARSER.table(table).frame(rows)
            df = df.sort(df.columns, nulls_last=True)
            batches.append((table, df.height, hashlib.sha256(df.write_csv().encode()).hexdigest()))
    except InputError as exc:
        out["error"] = (str(exc), exc.file, exc.line)
    out["batches"] = batches
    out["unknown"] = dict(ctx.unknown_lines)
    out["skipped"] = dict(ctx.skipped)
    return out


def both(path: Path) -> tuple[dict, dict]:
    return run(chstatus.parse_python, path), run(lambda c: chstatus.parse_native(c, LIB), path)


def test_the_library_is_built_and_loaded():
    assert _native.lib_path().is_file(), "make builds native/ (cargo build --release --offline)"
    assert LIB is not None
    assert LIB.mqn_abi_version() == _native.ABI_VERSION


@contextmanager
def pins(mapping: dict):
    """Parses read ``mapping``'s bytes or descriptors for its paths, as under the ingest's pin."""
    token = base._PINNED.set(mapping)
    try:
        yield
    finally:
        base._PINNED.reset(token)


@pytest.mark.parametrize("target", ["demo", "test", "venv"])
def test_make_builds_the_library_for_both_commands(target):
    # (a prerequisite named by a variable defined below its rule is read as empty)
    root = Path(__file__).resolve().parents[1]
    dry = subprocess.run(
        ["make", "-n", "-W", "native/Cargo.toml", target],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "cargo build --quiet --release --offline" in dry.replace("  ", " ")


def test_a_panic_in_the_library_is_a_status_not_a_crash():
    # every entry point catches a panic the same way; Python raises NativeBug on status 2
    assert LIB.mqn_test_panic() == 2
    assert LIB.mqn_abi_version() == _native.ABI_VERSION  # the process goes on


def test_plain_text_is_what_the_library_reads(tmp_path):
    plain = b"AMQ8417I: x\r\n\tCHANNEL(A)  STATUS(RUNNING)\n ~}|{\n"
    assert LIB.mqn_plain(plain, len(plain)) == 1
    for odd in (b"caf\xc3\xa9", b"a\x00b", b"\x0b", b"\x1c", b"\x7f", b"\x0c"):
        assert LIB.mqn_plain(odd, len(odd)) == 0, odd
    f = tmp_path / "bom.txt"

    def plain_file(data: bytes | None) -> bool:
        if data is not None:
            f.write_bytes(data)
        return _native.file_is_plain(LIB, ParseContext(path=f, source_file=f.name, size=0))

    assert plain_file(b"\xef\xbb\xbf" + plain)
    assert not plain_file(plain + "caf\u00e9\n".encode())
    assert not plain_file(gzip.compress(plain))  # read by Python, which expands it
    f.unlink()
    assert not plain_file(None)  # missing: Python reads it and says so
    # what the parse reads is what is checked: the ingest's pinned bytes, not the file now
    f.write_bytes(plain)
    with pins({str(f): plain + b"\x80\n"}):
        assert not plain_file(None)
    with pins({str(f): b"\xef\xbb\xbf" + plain}):
        assert plain_file(None)
    fd = os.open(f, os.O_RDONLY)
    try:
        f.write_bytes(b"\x80")  # the pinned descriptor's file is checked, by pread
        with pins({str(f): fd}):
            assert not plain_file(None)
    finally:
        os.close(fd)


def test_a_chunk_that_is_not_plain_is_refused_not_misread():
    # The file is checked first; a chunk that changed since is refused (status 3), not parsed.
    h = LIB.mqn_chs_new()
    try:
        data = "AMQ8417I: x\n   CHANNEL(\u00e9)\n".encode()
        assert LIB.mqn_chs_feed(h, data, len(data), 1) == 3
    finally:
        LIB.mqn_chs_free(h)


def test_files_that_are_not_plain_and_the_switch_go_to_python(tmp_path, monkeypatch):
    calls = []
    real = chstatus.parse_python
    monkeypatch.setattr(chstatus, "parse_python", lambda ctx: calls.append(1) or real(ctx))
    f = tmp_path / "c.txt"
    f.write_bytes(SAMPLES["runmqsc_dis_chstatus_short.txt"])
    list(chstatus.parse(ParseContext(path=f, source_file="c.txt", size=f.stat().st_size)))
    assert calls == []
    f.write_bytes(SAMPLES["runmqsc_dis_chstatus_short.txt"] + "   DESCR(caf\u00e9)\n".encode())
    list(chstatus.parse(ParseContext(path=f, source_file="c.txt", size=f.stat().st_size)))
    assert calls == [1]
    monkeypatch.setenv("MQCAP_NATIVE", "0")
    f.write_bytes(SAMPLES["runmqsc_dis_chstatus_short.txt"])
    list(chstatus.parse(ParseContext(path=f, source_file="c.txt", size=f.stat().st_size)))
    assert calls == [1, 1]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    from parser_corpus import cases

    work = tmp_path_factory.mktemp("corpus")
    return [(name, path) for name, kind, path in cases(work) if kind == "chstatus"]


def test_every_corpus_capture_reads_the_same_both_ways(corpus):
    plain = [
        (n, p)
        for n, p in corpus
        if _native.file_is_plain(LIB, ParseContext(path=p, source_file=p.name, size=0))
    ]
    # The corpus's variants and generated captures are plain but for a few fixtures' own bytes.
    assert len(plain) >= 40, len(plain)
    results = {n: both(p) for n, p in plain}
    differ = [n for n, (py, rs) in results.items() if py != rs]
    assert not differ, differ[:10]
    # errors and counters are compared too: the corpus has both (the mutated captures below
    # have many more errors)
    assert sum("error" in rs for _, rs in results.values()) >= 1
    assert sum(bool(rs["unknown"]) for _, rs in results.values()) >= 10


# Every kind of line the state machine tells apart, some of them broken.
LINES = [
    b"AMQ8417I: Display Channel Status details.",
    b"AMQ8417: Display Channel Status details.",
    b"AMQ8420I: Channel Status not found.",
    b"   CHANNEL(X)   CHLTYPE(SDR)",
    b"   CHANNEL(Y)",
    b"CHANNEL()  CHLTYPE(RCVR)",
    b"CHSTATUS(Z)",
    b"   CONNAME(127.0.0.1(1415))        CURRENT",
    b"   CURMSGS(0)   INDOUBT",
    b"   MSGS(12)",
    b"   XQTIME(3151,1099)  NETTIME(25,0)",
    b"   SSLPEER(CN=a b c,O=x)  KEY()",
    b"   STATUS(RUNNING) lower(1)",
    b"   A(1)B(2)",
    b"   NETTIME((((  XQTIME())))",
    b"   STOPPED",
    b"   RUNNING",
    b"   TOOLONGSTANDALONE",
    b" CSQM201I ZQS1 CSQMDRTC  DISPLAY CHSTATUS DETAILS",
    b" CSQM201I !ZQS1 CSQMDRTC DISPLAY CHSTATUS DETAILS 1 2 3 610",
    b"  END CHSTATUS DETAILS",
    b" CSQM293I ZQS1 CSQMDRTC 3 CHSTATUS FOUND MATCHING REQUEST CRITERIA",
    b" CSQM293I ZQS1 CSQMDRTC 99999999999999999999 CHSTATUS FOUND",
    b" CSQM297I ZQS1 CSQMDRTC NO CHSTATUS FOUND",
    b" CSQ9022I ZQS1 CSQMDRTC ' DISPLAY CHSTATUS' NORMAL COMPLETION",
    b" 25.61.99 STC04567  CSQM201I -ZQS1 CSQMDRTC DISPLAY CHSTATUS DETAILS",
    b" 10.15.22 STC04567  CSQM201I -ZQS1 CSQMDRTC DISPLAY CHSTATUS DETAILS 610",
    b"N 0000000 SYSA 26330 10:15:22.12 STC04567 00000090  CSQM201I X",
    b"N 0000000 SYSA 26366 10:15:22.12 STC04567 00000090  CSQM293I ZQS1 1 CHSTATUS",
    b" 10.15.23 STC04567  CHANNEL(TO.ZQS2)     CHLTYPE(SDR)",
    b" 10.15.23 STC04567  CURRENT",
    b" 10.15.23 STC04567  STC04567",
    b" 10.15.23 STC04567  610",
    b" 10.15.23 STC04567  stray words",
    b"0 10.15.20 STC04567 ---- SATURDAY,  21 NOV 2026 ----",
    b"---- MONDAY, 31 FEB 2026 ----",
    b"Sat Nov 21 05:52:09 UTC 2026",
    b"Sat Nov 31 05:52:09 UTC 2026",
    b"Sat 21 Nov 05:52:09 UTC 2026",
    b"Sat 21 Nov 2026 05:52:09 GMT",
    b"Saturday, 21 Nov 2026 05:52:09 +0100",
    b"2026-11-21T05:52:09Z",
    b"=== 2026-11-21 05:52:09.123456789 +01:00 ===",
    b"2026-02-30T25:61:00",
    b"2026-11-21 05:52:09.1234567890",
    b"5724-H72 (C) Copyright IBM Corp. 1994, 2025.",
    b"Starting MQSC for queue manager QM1.",
    b"Starting MQSC for queue manager ...",
    b"     1 : DIS CHS(*) ALL",
    b"DISPLAY CHSTATUS(*) ALL",
    b"MQ1A> DIS CHSTATUS(*)",
    b"MQ1A> AMQ8417I: Display Channel Status details.",
    b"+CSQ1 DIS CHS(*)",
    b"One MQSC command read.",
    b"No commands have a syntax error.",
    b"MQIACH_BYTES_SENT:236",
    b"MQCACH_CHANNEL_NAME:X",
    b"\t\t\t",
    b"",
    b"",
    b"READY",
    b"  zz? 12 (unclosed  -- stray",
]
PRINTABLE = st.integers(0x20, 0x7E)


@st.composite
def mutated_capture(draw):
    data = SAMPLES[draw(st.sampled_from(sorted(SAMPLES)))]
    lines = [
        ln for ln in data.split(b"\n") if not ln.translate(None, bytes(range(0x20, 0x7F)) + b"\t\r")
    ]
    for _ in range(draw(st.integers(1, 12))):
        op = draw(
            st.sampled_from(["insert", "insert", "insert", "dup", "drop", "swap", "cut", "byte"])
        )
        i = draw(st.integers(0, max(0, len(lines) - 1)))
        if op == "insert" or not lines:
            lines.insert(i, draw(st.sampled_from(LINES)))
        elif op == "dup":
            lines[i:i] = lines[i : i + draw(st.integers(1, 20))]
        elif op == "drop":
            del lines[i : i + draw(st.integers(1, 8))]
        elif op == "swap":
            j = draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
        elif op == "cut":
            lines = lines[: i + 1]
            lines[-1] = lines[-1][: draw(st.integers(0, len(lines[-1])))]
        else:
            line = bytearray(lines[i])
            k = draw(st.integers(0, len(line)))
            line[k:k] = bytes([draw(PRINTABLE)])
            lines[i] = bytes(line)
    eol = draw(st.sampled_from([b"\n", b"\r\n"]))
    return eol.join(lines) + draw(st.sampled_from([b"", eol]))


@settings(
    max_examples=int(os.environ.get("MQCAP_FUZZ_EXAMPLES", 250)),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(data=mutated_capture(), chunk=st.sampled_from([64, 300, 4096]), batch=st.integers(1, 40))
def test_mutated_captures_read_the_same_both_ways(tmp_path_factory, data, chunk, batch):
    path = tmp_path_factory.mktemp("m") / "capture.txt"
    path.write_bytes(data)
    assert _native.file_is_plain(LIB, ParseContext(path=path, source_file=path.name, size=0))
    saved = chstatus.CHUNK_BYTES, chstatus._BATCH_LINES, chstatus._BATCH_SNAPSHOTS
    try:
        chstatus.CHUNK_BYTES, chstatus._BATCH_LINES, chstatus._BATCH_SNAPSHOTS = chunk, batch, 3
        py, rs = both(path)
    finally:
        chstatus.CHUNK_BYTES, chstatus._BATCH_LINES, chstatus._BATCH_SNAPSHOTS = saved
    assert rs == py


def test_the_bench_capture_reads_the_same_in_small_batches(tmp_path, monkeypatch):
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from bench import bench_captures

    path, _ = bench_captures.make_chstatus(tmp_path, 0.5)
    monkeypatch.setattr(chstatus, "CHUNK_BYTES", 50_000)
    monkeypatch.setattr(chstatus, "_BATCH_LINES", 700)
    py, rs = both(path)
    assert rs == py
    assert len(rs["batches"]) > 20


def test_long_strings_over_many_data_buffers_read_the_same(tmp_path):
    # a string view's data buffer is cut before 2 GiB (an i32 offset); here before 64 bytes
    f = tmp_path / "c.txt"
    f.write_bytes(SAMPLES["runmqsc_dis_chs_all_tls_mq800.txt"])
    LIB.mqn_set_view_limit(64)
    try:
        py, rs = both(f)
    finally:
        LIB.mqn_set_view_limit(2**31 - 1)
    assert rs == py and rs["batches"]


def test_a_batch_stays_alive_while_its_frame_does(tmp_path):
    f = tmp_path / "c.txt"
    f.write_bytes(SAMPLES["runmqsc_dis_chstatus_short.txt"])
    ctx = ParseContext(path=f, source_file="c.txt", size=f.stat().st_size)
    frames = [rows for table, rows in chstatus.parse_native(ctx, LIB) if table == "chstatus_attr"]
    import gc

    gc.collect()
    # the frames point into the library's memory: it is freed only with them
    df = pl.concat(pl.from_arrow(f) for f in frames)  # (Arrow tables, read after the gc)
    want = pl.concat(rows for table, rows in chstatus.parse_python(ctx) if table == "chstatus_attr")
    cols = ["source_line", "pair_no", "key", "value", "channel"]
    assert df.height > 10
    assert df.select(cols).sort(cols).equals(want.select(cols).sort(cols))


def test_a_status_becomes_what_python_raises(tmp_path):
    # 3: the file is no longer the plain text it was checked to be (skipped, retried next
    # ingest); 2 or anything else: a bug, not bad input; 0: nothing
    f = tmp_path / "c.txt"
    f.write_bytes(b"x\n")
    ctx = ParseContext(path=f, source_file="c.txt", size=2)
    _native.raise_for(ctx, LIB, "chs", 0, 0, "CHSTATUS")
    with pytest.raises(base.ChangedWhileRead):
        _native.raise_for(ctx, LIB, "chs", 0, 3, "CHSTATUS")
    with pytest.raises(_native.NativeBug, match=r"c\.txt: the compiled CHSTATUS parser failed"):
        _native.raise_for(ctx, LIB, "chs", 0, 2, "CHSTATUS")
