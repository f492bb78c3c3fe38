"""z/OS NETSTAT ALL poll series: both layouts, nesting, poll headers, hundreds of polls, errors."""

from __future__ import annotations

from datetime import datetime, time, timedelta
from pathlib import Path

import polars as pl
import pytest

from mqcap.errors import InputError
from mqcap.parsers import _kv, detect, netstat

from helpers import FIXTURES, parse_file

DIR = FIXTURES / "netstat"
OLD = DIR / "netstat_all_mvs_tcpip_v2r2.1_excerpt.txt"
DOC = DIR / "netstat_all_v2r4_formats_md.txt"
SERIES = DIR / "netstat_all_v2r4_poll_series.txt"
MONPORT = DIR / "Port.md_L19-25_MONPORT_INFO_per_connection.txt"


def pairs(parsed) -> pl.DataFrame:
    return parsed["netstat_pair"].sort("source_line", "pair_no")


def get(df: pl.DataFrame, conn: int, name: str, parent: str | None = "any") -> str:
    hit = df.filter((pl.col("conn_no") == conn) & (pl.col("name") == name))
    if parent != "any":
        hit = hit.filter(pl.col("parent").eq_missing(parent))
    assert hit.height == 1, (conn, name, hit)
    return hit["value"][0]


def write(tmp_path: Path, name: str, text: str) -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


# -- the fixtures ---------------------------------------------------------------------------------


def test_old_layout_real_excerpt():
    parsed = parse_file(netstat.PARSER, OLD)
    conn = parsed["netstat_conn"]
    assert conn.select(
        "poll_no", "poll_time", "netstat_release", "client_name", "local_socket", "foreign_socket"
    ).rows() == [(1, None, "V2R2.1", "FTPSRVCE", "*..FTP-C", "*..*")]
    df = pairs(parsed)
    assert df.height == 21
    # one blank between two pairs: the first word is the value
    assert df.filter(pl.col("source_line") == 3).select("name", "value").rows() == [
        ("Client", "FTPSRVCE"),
        ("Last Touched", "1:52:31"),
    ]
    assert get(df, 1, "Smooth trip time") == "0.000"
    assert get(df, 1, "Smooth trip variance") == "1.500"
    assert get(df, 1, "Sender frustration level") == "Contented"
    assert get(df, 1, "Initial send sequence number") == "526598376"
    assert get(df, 1, "Round-trip information") == ""
    assert get(df, 1, "SlowStartThreshold") == "65535"
    assert parsed.ctx.skipped["command echo"] == 1
    assert sum(parsed.ctx.unknown_lines.values()) == 0


def test_formats_md_layout_one_and_two_pairs_per_line():
    parsed = parse_file(netstat.PARSER, DOC)
    conn = parsed["netstat_conn"]
    assert conn.select(
        "poll_time", "stack_name", "netstat_release", "client_name", "client_id",
        "local_socket", "foreign_socket",
    ).rows() == [
        (time(17, 4, 33), "TCPIP", "CS V2R4", "CSQ1CHIN", "000000B2",
         "10.1.1.1..1414", "10.1.1.2..1046"),
    ]  # fmt: skip
    df = pairs(parsed)
    assert df.height == 27
    assert df.filter(pl.col("pair_no") == 2).height == 9
    assert get(df, 1, "BytesIn") == "00000000000123456789"
    assert get(df, 1, "State") == "Establsh"
    assert get(df, 1, "Last Touched") == "17:04:33"
    assert get(df, 1, "CongestionWindow") == "0000131072"
    assert get(df, 1, "SlowStartThreshold") == "0000065535"
    rtt = df.filter(pl.col("parent") == "Round-trip information")
    assert rtt.select("name", "value").rows() == [
        ("Smooth trip time", "2.000"),
        ("SmoothTripVariance", "1.500"),
    ]
    assert get(df, 1, "TTLSRule", parent="TTLSPolicy") == "MQ_CHANNELS"
    assert get(df, 1, "ReXmtCount", parent=None) == "0000000000"
    assert sum(parsed.ctx.unknown_lines.values()) == 0


def test_poll_series_fixture_nesting_dates_and_unknown_names():
    parsed = parse_file(netstat.PARSER, SERIES)
    conn = parsed["netstat_conn"].sort("conn_no")
    assert conn.select("conn_no", "poll_no", "poll_ts", "client_id", "source_line").rows() == [
        (1, 1, datetime(2026, 11, 21, 23, 59, 58), "000000B2", 3),
        (2, 1, datetime(2026, 11, 21, 23, 59, 58), "000000B5", 42),
        # the clock went back: next day
        (3, 2, datetime(2026, 11, 22, 0, 0, 3), "000000B2", 58),
    ]
    df = pairs(parsed)
    assert df.height == 101
    assert df.group_by("conn_no").len().sort("conn_no")["len"].to_list() == [60, 20, 21]
    assert get(df, 1, "TTLSRule", parent="TTLSPolicy") == "MQ_CHANNELS"
    assert get(df, 1, "TTLSGrpAction", parent="TTLSRule") == "grp_mq"
    assert get(df, 1, "TTLSConnAction", parent="TTLSRule") == "conn_mq"
    assert get(df, 1, "OldestTime", parent="SendDataQueued") == "23:59:57"
    assert get(df, 1, "OldestDate", parent="ReceiveDataQueued") == "00/00/00"
    assert get(df, 1, "RoutingPolicy", parent=None) == "No"
    assert get(df, 1, "SendStalled") == "No"
    assert get(df, 1, "Ancillary Input Queue") == "N/A"
    assert get(df, 1, "rtt_seq") == "2419498575"
    assert get(df, 2, "Smooth trip time", parent="Round-trip information") == "12.500"
    assert get(df, 2, "ReceiveDataQueued") == "0000000128"
    assert get(df, 3, "CongestionWindow") == "0000262144"
    assert set(df["poll_no"].to_list()) == {1, 2}
    assert df.filter(pl.col("conn_no") == 3)["poll_no"].unique().to_list() == [2]
    assert parsed.ctx.skipped["command echo"] == 2  # READY
    assert sum(parsed.ctx.unknown_lines.values()) == 0


def test_every_pair_keeps_its_source_line():
    for path in (OLD, DOC, SERIES):
        lines = path.read_text().splitlines()
        df = pairs(parse_file(netstat.PARSER, path))
        assert df["source_file"].unique().to_list() == [path.name]
        for line_no, name, value in df.select("source_line", "name", "value").iter_rows():
            assert name in lines[line_no - 1] and value in lines[line_no - 1], (path, line_no)


def test_sniff():
    for path in (OLD, DOC, SERIES):
        assert netstat.sniff(path.read_bytes(), "x.txt"), path.name
    assert not netstat.sniff(MONPORT.read_bytes(), "x.txt")
    chs = (FIXTURES / "chstatus" / "runmqsc_sdr_monitoring_splunk-ta.txt").read_bytes()
    assert not netstat.sniff(chs, "x.txt")


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("Client: FTPSRVCE Last Touched: 1:52:31", [("Client", "FTPSRVCE"), ("Last Touched", "1:52:31")]),
        ("Local Socket: ::ffff:10.1.1.1..1414", [("Local Socket", "::ffff:10.1.1.1..1414")]),
        ("A:\t1\tB:\t2", [("A", "1"), ("B", "2")]),
        ("A: 1  B: 2  C: 3", [("A", "1"), ("B", "2"), ("C", "3")]),
        ("Round-trip information:", [("Round-trip information", "")]),
        ("no pair here", None),
        ("12:00: x", None),
    ],
)  # fmt: skip
def test_split_pairs(line, expected):
    assert netstat.split_pairs(line) == expected


def test_three_pairs_and_tabs_go_through_the_python_splitter(tmp_path):
    text = (
        "MVS TCP/IP NETSTAT CS V2R5       TCPIP Name: TCPIPB          09:00:00\n"
        "Client Name: CSQ2CHIN                 Client Id: 0000001F\n"
        "  Local Socket: 10.0.0.1..1414\n"
        "  Foreign Socket: 10.0.0.9..5000\n"
        "  NewCounterA:  1  NewCounterB:  2  NewCounterC:  3\n"
        "  Tabbed:\tyes\tOther:\tno\n"
        "  Value Caf\u00e9:     cr\u00e8me         Next:   x\n"
        "  just text\n"
    )
    parsed = parse_file(netstat.PARSER, write(tmp_path, "new.txt", text))
    df = pairs(parsed)
    assert df.filter(pl.col("source_line") >= 5).select("name", "value").rows() == [
        ("NewCounterA", "1"),
        ("NewCounterB", "2"),
        ("NewCounterC", "3"),
        ("Tabbed", "yes"),
        ("Other", "no"),
        ("Value Caf\u00e9", "cr\u00e8me"),
        ("Next", "x"),
    ]
    assert parsed["netstat_conn"].select("stack_name", "netstat_release").rows() == [
        ("TCPIPB", "CS V2R5")
    ]
    assert parsed.ctx.unknown_lines["netstat: line without a pair in a block"] == 1


# -- hundreds of polls in one file ----------------------------------------------------------------

CONN_BLOCK = """\
Client Name: CSQ1CHIN                 Client Id: {cid}
  Local Socket: 10.1.1.1..{lport}
  Foreign Socket: 10.1.1.2..{fport}
    BytesIn:             {bin:020d}
    BytesOut:            {bout:020d}
    Last Touched:        {clock}             State:               Establsh
    CongestionWindow:    {cwnd:010d}           SlowStartThreshold:  {ssth:010d}
    Round-trip information:
      Smooth trip time: {srtt:.3f}                 SmoothTripVariance:  {svar:.3f}
    ReXmt:               {rexmt:010d}           ReXmtCount:          0000000000
    TTLSPolicy:          Yes
      TTLSRule:          MQ_CHANNELS
        TTLSGrpAction:   grp_mq
    ReceiveBufferSize:   0000065536           SendBufferSize:      0000065536
    ReceiveDataQueued:   {rq:010d}
    SendDataQueued:      {sq:010d}
"""
PAIRS_PER_BLOCK = 2 + 1 + 1 + 1 + 1 + 2 + 2 + 1 + 2 + 2 + 1 + 1 + 1 + 2 + 1 + 1


def series(polls: int, conns: int) -> str:
    """A deterministic poll series: one report every 5 s from 23:50:00, midnight crossed; a
    `date` line before every 50th report, the dates in between carried forward."""
    start = datetime(2026, 11, 21, 23, 50, 0)
    out = []
    for p in range(polls):
        at = start + timedelta(seconds=5 * p)
        clock = at.strftime("%H:%M:%S")
        if p % 50 == 0:  # a `date` line now and then, while the last block is still open
            out.append(at.strftime("%a %b %d %H:%M:%S UTC %Y\n"))
        out.append(f"MVS TCP/IP NETSTAT CS V2R4       TCPIP Name: TCPIP           {clock}\n")
        for c in range(conns):
            k = p * conns + c
            out.append(
                CONN_BLOCK.format(
                    cid=f"{0xB0 + c:08X}",
                    lport=1414,
                    fport=1046 + c,
                    bin=1000 * k,
                    bout=2000 * k,
                    clock=clock,
                    cwnd=65536 + (k * 4096) % 196608,
                    ssth=32768 + c,
                    srtt=1.5 + (k % 7) * 0.25,
                    svar=0.5 + (k % 3) * 0.5,
                    rexmt=k % 5,
                    rq=(k * 13) % 1024,
                    sq=(k * 17) % 8192,
                )
            )
        out.append("READY\n")
    return "".join(out)


def test_hundreds_of_polls_in_one_file(tmp_path):
    polls, conns = 400, 3
    parsed = parse_file(netstat.PARSER, write(tmp_path, "series.txt", series(polls, conns)))
    conn = parsed["netstat_conn"].sort("conn_no")
    assert conn.height == polls * conns
    assert conn["poll_no"].to_list() == [p + 1 for p in range(polls) for _ in range(conns)]
    ts = conn.unique("poll_no", keep="first").sort("poll_no")["poll_ts"].to_list()
    start = datetime(2026, 11, 21, 23, 50, 0)
    assert ts == [start + timedelta(seconds=5 * p) for p in range(polls)]
    assert ts[-1] == datetime(2026, 11, 22, 0, 23, 15)  # after midnight: date moved on
    df = parsed["netstat_pair"]
    assert df.height == polls * conns * PAIRS_PER_BLOCK
    # poll 250, connection 2 (k = 249 * 3 + 1 = 748)
    k = 748
    row = conn.filter((pl.col("poll_no") == 250) & (pl.col("client_id") == "000000B1"))
    assert row.select("conn_no", "foreign_socket", "poll_time").rows() == [
        (k + 1, "10.1.1.2..1047", time(0, 10, 45))
    ]
    p = pairs(parsed)
    assert get(p, k + 1, "CongestionWindow") == f"{65536 + (k * 4096) % 196608:010d}"
    assert get(p, k + 1, "Smooth trip time") == f"{1.5 + (k % 7) * 0.25:.3f}"
    assert get(p, k + 1, "SendDataQueued") == f"{(k * 17) % 8192:010d}"
    assert get(p, k + 1, "TTLSGrpAction", parent="TTLSRule") == "grp_mq"
    assert parsed.ctx.skipped["command echo"] == polls


def test_small_chunks_and_batches_give_the_same_rows(tmp_path, monkeypatch):
    path = write(tmp_path, "series.txt", series(30, 2) + SERIES.read_text())
    whole = parse_file(netstat.PARSER, path)
    monkeypatch.setattr(_kv, "CHUNK_BYTES", 111)
    monkeypatch.setattr(netstat, "_BATCH_PAIRS", 7)
    pieces = parse_file(netstat.PARSER, path)
    keys = {"netstat_conn": ["conn_no"], "netstat_pair": ["source_line", "pair_no"]}
    for table, key in keys.items():
        assert whole[table].sort(key).equals(pieces[table].sort(key)), table
    assert whole["netstat_conn"].height == 60 + 3


# -- clearly wrong input --------------------------------------------------------------------------


def test_block_cut_before_any_pair_at_end_is_an_error(tmp_path):
    text = DOC.read_text() + "Client Name: CSQ1CHIN                 Client Id: 000000C0\n"
    with pytest.raises(InputError) as err:
        parse_file(netstat.PARSER, write(tmp_path, "cut.txt", text))
    assert err.value.line == 20
    assert "cut before any pair" in str(err.value)


def test_block_cut_before_the_next_report_is_an_error(tmp_path):
    lines = SERIES.read_text().splitlines()
    text = "\n".join([*lines[:2], lines[2], *lines[56:]])
    with pytest.raises(InputError) as err:
        parse_file(netstat.PARSER, write(tmp_path, "cut2.txt", text))
    assert err.value.line == 3


def test_binary_data_is_an_error_naming_the_line(tmp_path):
    p = tmp_path / "bin.txt"
    p.write_bytes(DOC.read_bytes().replace(b"0000131072", b"00\x00\xff131072", 1))
    with pytest.raises(InputError) as err:
        parse_file(netstat.PARSER, p)
    assert err.value.line == 8


def test_report_without_connection_is_an_error(tmp_path):
    text = "MVS TCP/IP NETSTAT CS V2R4       TCPIP Name: TCPIP           17:04:33\n"
    with pytest.raises(InputError, match="no NETSTAT ALL connection block"):
        parse_file(netstat.PARSER, write(tmp_path, "none.txt", text))


def test_the_registry_sends_the_reports_to_this_parser():
    for path in (OLD, DOC, SERIES):
        assert detect(path).kind == "netstat", path.name
    found = detect(MONPORT)
    assert found is None or found.kind != "netstat"


def test_fast_paths_give_what_the_general_ones_give(tmp_path, monkeypatch):
    # One-socket lines of plain chunks are split vectorised, and nesting is found without
    # grouping when a frame's blocks are adjacent: with both off (every chunk taken as not
    # plain, grouping always), every frame (row order too) is the same.
    from mqcap.parsers import _lines

    monkeypatch.setenv("MQCAP_NATIVE", "0")  # the Python parser's paths, on both sides
    paths = sorted(DIR.glob("netstat_*.txt"))
    text = SERIES.read_text()
    paths.append(write(tmp_path, "odd.txt", text.replace("Local Socket: ", "Local Socket:\t", 3)))
    fast = [parse_file(netstat.PARSER, p) for p in paths]
    plain = _lines.line_series
    monkeypatch.setattr(netstat, "line_series", lambda *a: ((f, b, False) for f, b, _ in plain(*a)))
    monkeypatch.setattr(netstat, "_adjacent", lambda df: False)
    for p, got in zip(paths, fast, strict=True):
        want = parse_file(netstat.PARSER, p)
        assert sorted(got.tables) == sorted(want.tables), p.name
        for table in want.tables:
            assert got[table].equals(want[table], null_equal=True), (p.name, table)
