"""The compiled NETSTAT parser (``native/src/netstat.rs``) against the Python parser it ports
(``netstat.parse_python``): the same rows, lineage, counters, errors and batches.

- Every NETSTAT input of the parser corpus (``tests/parser_corpus.py``: fixtures, variants, the
  bench generator, generated studies) read by both gives the same fingerprint; the corpus test
  (``test_parser_outputs.py``) holds both to the committed fingerprints too.
- Mutated plain-text captures (lines inserted from a pool of every line kind the state machine
  tells apart, alone and in runs, lines swapped, dropped, cut, bytes changed within printable
  ASCII, tabs, CRLF), read in small chunks with small batches, give the same batches up to the
  same error. A chunk with a tab or a carriage return is not plain for the Python parser (its
  socket lines go through the state machine): both kinds of chunk are drawn. Each line of the
  pool is also read once inside a block and once between blocks.
- A file that is not plain text is read by Python, and ``MQCAP_NATIVE=0`` reads everything in
  Python.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mqcap.errors import InputError
from mqcap.parsers import _native, netstat
from mqcap.parsers.base import ParseContext

from helpers import FIXTURES

LIB = _native.library()
SAMPLES = {p.name: p.read_bytes() for p in sorted((FIXTURES / "netstat").glob("netstat_*.txt"))}
SERIES = "netstat_all_v2r4_poll_series.txt"
# What the fixtures have little of: blocks opened by a line the pair splitter would take
# (``Client :``), whose lines the state machine passes on, blanks and other lines breaking the
# runs of pair lines in a block, nesting across them, a clock going back, sockets split in two.
SAMPLES["odd_layouts"] = b"""\
Sat Nov 21 23:59:58 UTC 2026
MVS TCP/IP NETSTAT CS V2R4       TCPIP Name: TCPIP           23:59:58
Client : ODD1
  Local Socket: 10.1.1.1..1414
  Foreign Socket: 10.1.1.2..1046
    BytesIn:             00000000000000123456
      Nested:            2
    Round-trip information:
      Smooth trip time: 1.000                 SmoothTripVariance:  1.500

      After blank:       3
  mVS note: x
        Deeper:          4
  Back:                  5
Client Name: CSQ1CHIN                 Client Id: 000000B2
  Local Socket: ::ffff:10.1.1.1..1414 Foreign Socket: ::ffff:10.1.1.2..1046
    TTLSPolicy:          Yes
      TTLSRule:          MQ_CHANNELS
READY
        TTLSGrpAction:   grp_mq
      TTLSEnvAction:     env_mq_server
Client : ODD2   Client Id: 000000B5
    SendDataQueued:      0000004096
      OldestDate:        11/21/2026           OldestTime:          23:59:57

    SendStalled:         No
  Local Socket: 10.1.1.1..1415
 MVS TCP/IP NETSTAT CS V2R4       TCPIP Name: TCPIP           00:00:03
Client Name: CSQ1CHIN                 Client Id: 000000B2
  Foreign Socket: 10.1.1.2..1046
    BytesIn:             00000000000000124000
"""


def run(fn, path: Path) -> dict:
    """Everything a parse gives: each batch (table, rows, checksum of its sorted rows), the
    counters, the error (message, file, line)."""
    ctx = ParseContext(path=path, source_file=path.name, size=path.stat().st_size)
    batches = []
    out: dict = {}
    try:
        for table, rows in fn(ctx):
            df = netstat.PARSER.table(table).frame(rows)
            df = df.sort(df.columns, nulls_last=True)
            batches.append((table, df.height, hashlib.sha256(df.write_csv().encode()).hexdigest()))
    except InputError as exc:
        out["error"] = (str(exc), exc.file, exc.line)
    out["batches"] = batches
    out["unknown"] = dict(ctx.unknown_lines)
    out["skipped"] = dict(ctx.skipped)
    return out


def is_plain(path: Path) -> bool:
    return _native.file_is_plain(LIB, ParseContext(path=path, source_file=path.name, size=0))


def both(path: Path) -> tuple[dict, dict]:
    return run(netstat.parse_python, path), run(lambda c: netstat.parse_native(c, LIB), path)


def test_the_library_has_the_netstat_parser():
    assert LIB is not None, "make builds native/ (cargo build --release --offline)"
    assert LIB.mqn_abi_version() == _native.ABI_VERSION
    h = LIB.mqn_ns_new()
    LIB.mqn_ns_free(h)


def test_a_chunk_that_is_not_plain_is_refused_not_misread():
    h = LIB.mqn_ns_new()
    try:
        data = "Client Name: CAF\u00c9   Client Id: 1\n".encode()
        assert LIB.mqn_ns_feed(h, data, len(data), 1) == 3
    finally:
        LIB.mqn_ns_free(h)


def test_files_that_are_not_plain_and_the_switch_go_to_python(tmp_path, monkeypatch):
    calls = []
    real = netstat.parse_python
    monkeypatch.setattr(netstat, "parse_python", lambda ctx: calls.append(1) or real(ctx))
    f = tmp_path / "n.txt"

    def parse() -> None:
        list(netstat.parse(ParseContext(path=f, source_file="n.txt", size=f.stat().st_size)))

    f.write_bytes(SAMPLES[SERIES])
    parse()
    assert calls == []
    f.write_bytes(SAMPLES[SERIES] + "     Caf\u00e9:   cr\u00e8me\n".encode())
    parse()
    assert calls == [1]
    monkeypatch.setenv("MQCAP_NATIVE", "0")
    f.write_bytes(SAMPLES[SERIES])
    parse()
    assert calls == [1, 1]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    from parser_corpus import cases

    work = tmp_path_factory.mktemp("corpus")
    return [(name, path) for name, kind, path in cases(work) if kind == "netstat"]


def test_every_corpus_capture_reads_the_same_both_ways(corpus):
    plain = [(n, p) for n, p in corpus if is_plain(p)]
    # every fixture's variants, the bench generator and the generated studies are plain (43)
    assert len(plain) >= 40, len(plain)
    results = {n: both(p) for n, p in plain}
    differ = [n for n, (py, rs) in results.items() if py != rs]
    assert not differ, differ[:10]
    # errors and counters are compared too: the corpus has both (the mutated captures below
    # have many more errors)
    assert sum("error" in rs for _, rs in results.values()) >= 5
    assert sum(bool(rs["unknown"]) for _, rs in results.values()) >= 10


# Every kind of line the state machine and the splitters tell apart, some of them broken.
LINES = [
    # report headers: at the start, after a prefix, other cases, no time, bad time
    b"MVS TCP/IP NETSTAT CS V2R4       TCPIP Name: TCPIP           17:04:33",
    b" MVS TCP/IP NETSTAT CS V2R4       TCPIP Name: TCPIPB          23:59:58",
    b"MVS TCP/IP NETSTAT CS V2R4       TCPIP Name: TCPIP           00:00:03",
    b"EZZ2350I MVS TCP/IP NETSTAT CS V2R5 TCPIP NAME: TCPIPC 9:15:00",
    b"READY MVS TCP/IP NETSTAT CS V2R4       TCPIP Name: TCPIP           00:00:03",
    b"  x: y MVS TCP/IP NETSTAT CS V2R4 TCPIP Name:",
    b"MVS TCP/IP Netstat V2R2.1",
    b"mvs tcp/ip netstat cs v2r4 tcpip name: tcpip 12.00.01",
    b"MVS TCP/IP NETSTAT",
    b"MVS TCP/IP NETSTAT CS V2R4 TCPIP Name: TCPIP 25:61:00",
    b"+MVS TCP/IP NETSTAT CS V2R4 TCPIP Name: TCPIP 23:00:00",
    b"Mvs TCP/IP NETSTAT CS: V2R4",
    b"MVS something: else",
    b"  mVS a: b",
    # block openers
    b"Client Name: CSQ1CHIN                 Client Id: 000000B2",
    b" Client Name: CSQ1CHIN                 Client Id: 000000B5",
    b"Client: FTPSRVCE Last Touched: 1:52:31",
    b"Client : X",
    b"Client Name:X",
    b"Client Name: ",
    b"Client:",
    b"Client Name: A  Client Name: B  Client Id: ",
    b"Client Name:   Client Id: 7",
    b"Client Name: A  Local Socket: 1.2.3.4..5  Foreign Socket: 9..9",
    b"Client: 12: x",
    # sockets
    b"  Local Socket: 10.1.1.1..1414",
    b"  Foreign Socket: 10.1.1.2..1046",
    b"   Local Socket: ::ffff:10.1.1.1..1414",
    b"   Foreign Socket: ::ffff:10.1.1.2..1046",
    b"Local Socket: *..FTP-C Foreign Socket: *..*",
    b"  Local Socket:",
    b"  Local Socket: a: b",
    b"  Foreign Socket: x:",
    b"  Foreign Socket: 1..2 MVS TCP/IP NETSTAT",
    b"  Local Socket:\t10.0.0.1..1",
    b"  Local Socket: 1  Client Id: 5",
    # pair lines: one and two pairs, nesting, odd ones
    b"  BytesIn:             00000000000123456789",
    b"     Last Touched:        23:59:58             State:               Establsh",
    b"     Round-trip information:",
    b"       Smooth trip time: 2.000                 SmoothTripVariance:  1.500",
    b"     TTLSPolicy:          Yes",
    b"       TTLSRule:          MQ_CHANNELS",
    b"         TTLSGrpAction:   grp_mq",
    b"       OldestDate:        11/21/2026           OldestTime:          23:59:57",
    b"     Ancillary Input Queue: N/A",
    b"Smooth trip time: 0.000",
    b"  NewCounterA:  1  NewCounterB:  2  NewCounterC:  3",
    b"  Tabbed:\tyes\tOther:\tno",
    b"\tIndented: by a tab",
    b"  Mid\rline: cr",
    b"  12:00: x",
    b"  a: b:c",
    b"  A: 1  2: 3",
    b"  A: 1  B:",
    b"  A: 1  B: x y:",
    b"  A: a  b  C: d  E: f",
    b"      A: 1\tB: 2  C: 3",
    b"  A: 1  B  C",
    b"  Name : value  Other : v",
    b"  : empty",
    b"  x:",
    b"  x::  y: z",
    b"  A: b c: d",
    b"  A:  B: c",
    b"  A: x   y: z  q",
    # timestamps and what only looks like one
    b"Sat Nov 21 23:59:58 UTC 2026",
    b"Sun Nov 22 00:00:01 UTC 2026",
    b"2026-11-21T05:52:09Z",
    b"=== 2026-11-21 05:52:09 ===",
    b"# Sun Nov 22 00:00:01 UTC 2026",
    b"2026-02-30T25:61:00",
    b"Monday, x: y",
    b"mon 1: 2",
    b"2026-11-21 0: x",
    b"  Saturday,x: y",
    # command echoes, stray text, blanks
    b"READY",
    b"netstat all",
    b"NETSTAT: x",
    b"ready: y",
    b"just text",
    b"  zz? 12 (unclosed  -- stray",
    b":",
    b"",
    b"",
    b"   ",
    b"\t",
]
PRINTABLE = st.integers(0x20, 0x7E)


@st.composite
def mutated_capture(draw):
    data = SAMPLES[draw(st.sampled_from(sorted(SAMPLES)))]
    lines = data.split(b"\n")
    for _ in range(draw(st.integers(1, 16))):
        op = draw(
            st.sampled_from(
                ["insert", "insert", "insert", "run", "dup", "drop", "swap", "cut", "byte"]
            )
        )
        i = draw(st.integers(0, max(0, len(lines) - 1)))
        if op == "insert" or not lines:
            lines.insert(i, draw(st.sampled_from(LINES)))
        elif op == "run":
            lines[i:i] = draw(st.lists(st.sampled_from(LINES), min_size=2, max_size=8))
        elif op == "dup":
            lines[i:i] = lines[i : i + draw(st.integers(1, 30))]
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
            line[k:k] = bytes([draw(st.one_of(PRINTABLE, st.just(9)))])
            lines[i] = bytes(line)
    eol = draw(st.sampled_from([b"\n", b"\n", b"\r\n"]))
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
    assert is_plain(path)
    saved = netstat.CHUNK_BYTES, netstat._BATCH_PAIRS
    try:
        netstat.CHUNK_BYTES, netstat._BATCH_PAIRS = chunk, batch
        py, rs = both(path)
    finally:
        netstat.CHUNK_BYTES, netstat._BATCH_PAIRS = saved
    assert rs == py


def test_every_pool_line_in_and_out_of_a_block_reads_the_same(tmp_path, monkeypatch):
    # each kind of line once where the random captures may rarely put it: under a pair line of
    # an open block, with a nested line after it, and between two blocks
    monkeypatch.setattr(netstat, "_BATCH_PAIRS", 3)
    head = SAMPLES["netstat_all_v2r4_formats_md.txt"].split(b"\n")[:6]
    for k, line in enumerate(LINES):
        for where, text in (
            ("in", [*head, line, b"      Nested: 1", b"  Back: 2"]),
            ("out", [*head, b"READY", line, *head[1:4]]),
        ):
            for eol in (b"\n", b"\r\n"):
                path = tmp_path / f"{k}-{where}-{len(eol)}.txt"
                path.write_bytes(eol.join(text) + eol)
                py, rs = both(path)
                assert rs == py, (line, where, eol)


def test_the_bench_capture_reads_the_same_in_small_batches(tmp_path, monkeypatch):
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from bench import bench_captures

    path, _ = bench_captures.make_netstat(tmp_path, 0.5)
    monkeypatch.setattr(netstat, "CHUNK_BYTES", 50_000)
    monkeypatch.setattr(netstat, "_BATCH_PAIRS", 700)
    py, rs = both(path)
    assert rs == py
    assert len(rs["batches"]) > 20


def test_string_columns_cut_in_several_data_buffers_read_the_same(tmp_path):
    # a string view's data buffer is cut before 2 GiB (an i32 offset); here before 64 bytes
    f = tmp_path / "n.txt"
    f.write_bytes(SAMPLES[SERIES] + SAMPLES["odd_layouts"])
    LIB.mqn_set_view_limit(64)
    try:
        py, rs = both(f)
    finally:
        LIB.mqn_set_view_limit(2**31 - 1)
    assert rs == py and rs["batches"]


def test_a_batch_stays_alive_while_its_frame_does(tmp_path):
    f = tmp_path / "n.txt"
    f.write_bytes(SAMPLES[SERIES])
    ctx = ParseContext(path=f, source_file="n.txt", size=f.stat().st_size)
    frames = [rows for table, rows in netstat.parse_native(ctx, LIB) if table == "netstat_pair"]
    import gc

    gc.collect()
    # the frames point into the library's memory: it is freed only with them
    df = pl.concat(pl.from_arrow(f) for f in frames)  # (Arrow tables, read after the gc)
    assert df.height == 101 and df["name"].null_count() == 0


def test_a_batch_of_pair_lines_without_a_pair_is_an_empty_frame_both_ways(tmp_path, monkeypatch):
    # The held lines of a block are taken when a timestamp line ends it: none of them has a pair,
    # and no other row is pending; Python yields an empty netstat_pair frame then.
    path = tmp_path / "empty.txt"
    path.write_bytes(
        b"MVS TCP/IP NETSTAT CS V2R4       TCPIP Name: TCPIP           17:04:33\n"
        b"Client Name: A                 Client Id: 1\n"
        b"  12:00: x\n"
        b"  12:01: y\n"
        b"Sat Nov 21 23:59:58 UTC 2026\n"
        b"Client Name: B                 Client Id: 2\n"
        b"  BytesIn:             1\n"
    )
    monkeypatch.setattr(netstat, "CHUNK_BYTES", 16)
    monkeypatch.setattr(netstat, "_BATCH_PAIRS", 1)
    py, rs = both(path)
    assert rs == py
    assert ("netstat_pair", 0) in [b[:2] for b in rs["batches"]]
    assert rs["unknown"] == {"netstat: line without a pair in a block": 2}
