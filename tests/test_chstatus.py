"""DISPLAY CHSTATUS captures: every real sample, z/OS prefixes, timestamps, snapshots, errors."""

from __future__ import annotations

from datetime import date, datetime, time
from pathlib import Path

import polars as pl
import pytest

from mqcap.errors import InputError
from mqcap.parsers import _kv, chstatus, detect

from helpers import FIXTURES, parse_file

DIR = FIXTURES / "chstatus"
SPLUNK = DIR / "runmqsc_sdr_monitoring_splunk-ta.txt"
TLS = DIR / "runmqsc_dis_chs_all_tls_mq800.txt"
SVRCONN = DIR / "runmqsc_dis_chstatus_all_mq942_svrconn.txt"
SHORT = DIR / "runmqsc_dis_chstatus_short.txt"
TABBED = DIR / "runmqsc_display_chstatus_tabbed.txt"
ZOS = DIR / "zos_csqm201i_display_chstatus.txt"


def attrs(path: Path) -> pl.DataFrame:
    return parse_file(chstatus.PARSER, path)["chstatus_attr"].sort("source_line", "pair_no")


def value(df: pl.DataFrame, block: int, key: str) -> str | None:
    hit = df.filter((pl.col("block_no") == block) & (pl.col("key") == key))
    assert hit.height == 1, (block, key, hit)
    return hit["value"][0]


def per_block(df: pl.DataFrame) -> list[int]:
    return df.group_by("block_no").len().sort("block_no")["len"].to_list()


def write(tmp_path: Path, name: str, text: str) -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


# -- the real samples ---------------------------------------------------------------------------


def test_splunk_capture_monitoring_pairs_and_pcf_tail_counted():
    parsed = parse_file(chstatus.PARSER, SPLUNK)
    df = parsed["chstatus_attr"]
    assert df.height == 94
    assert per_block(df) == [47, 47]
    assert value(df, 1, "NETTIME") == "25,0"
    assert value(df, 1, "XQTIME") == "3151,1099"
    assert value(df, 1, "XBATCHSZ") == "2,2"
    assert value(df, 1, "CONNAME") == "127.0.0.1(1415)"
    assert value(df, 1, "LOCLADDR") == "127.0.0.1(33842)"
    assert value(df, 1, "SSLCERTI") == " "  # KEY( ) kept as printed
    assert value(df, 1, "CURRENT") is None  # stand-alone key
    assert value(df, 2, "MCASTAT") == "NOT RUNNING"
    assert value(df, 2, "COMPTIME") == "156,156"
    assert value(df, 2, "SUBSTATE") == " "
    assert set(df["channel"].to_list()) == {"LDB0.TO.LDB1"}
    # the raw PCF dump after the MQSC blocks: counted, skipped, nothing landed from it
    assert parsed.ctx.unknown_lines["PCF dump line"] == 47
    assert parsed.ctx.unknown_lines["chstatus: text outside a block"] == 1
    assert df["source_line"].max() == 50  # XQTIME(0,0) of block 2; the dump starts at 52
    snap = parsed["chstatus_snapshot"]
    assert snap.select("snapshot_no", "channel_count", "form").rows() == [(1, 2, "runmqsc")]
    assert snap["snapshot_time"][0] is None


def test_tls_capture_long_values_break_the_columns():
    parsed = parse_file(chstatus.PARSER, TLS)
    df = parsed["chstatus_attr"]
    assert df.height == 146
    assert per_block(df) == [50, 46, 50]
    # SECPROT alone on its line, the long SSLCERTI and SSLPEER values each on their own line
    secprot = df.filter((pl.col("block_no") == 2) & (pl.col("key") == "SECPROT"))
    assert secprot.select("source_line", "pair_no", "value").rows() == [(49, 1, "TLSV12")]
    assert value(df, 2, "SSLCERTI") == (
        "CN=COMODO RSA Domain Validation Secure Server CA,O=COMODO CA Limited,"
        "L=Salford,ST=Greater Manchester,C=GB"
    )
    assert value(df, 3, "SSLPEER").startswith("SERIALNUMBER=00:98:7E:0C:BD:64:65:42")
    assert value(df, 3, "SSLPEER").endswith("UNSTRUCTUREDNAME=mqfelloweast.host")
    assert value(df, 2, "LOCLADDR") == "::ffff:172.17.1.212(1414)"
    assert value(df, 1, "LOCLADDR") == " "
    assert value(df, 1, "LONGRTS") == "999999999"
    assert value(df, 2, "RPRODUCT") == "MQMM"
    snap = parsed["chstatus_snapshot"].sort("snapshot_no")
    assert snap.select("snapshot_no", "source_line", "channel_count").rows() == [
        (1, 5, 2),
        (2, 62, 1),
    ]
    assert df.group_by("snapshot_no").len().sort("snapshot_no")["len"].to_list() == [96, 50]
    assert parsed.ctx.skipped["command echo"] == 4
    assert parsed.ctx.unknown_lines["chstatus: text outside a block"] == 2  # EAST, WEST


def test_svrconn_capture_with_runmqsc_banner_and_trailer():
    parsed = parse_file(chstatus.PARSER, SVRCONN)
    df = parsed["chstatus_attr"]
    assert df.height == 39
    assert value(df, 1, "CHANNEL") == "SYSTEM.ADMIN.SVRCONN"
    assert value(df, 1, "BYTSSENT") == "27846476"
    assert value(df, 1, "MSGS") == "19218"
    assert value(df, 1, "RAPPLTAG") == "org.apache.karaf.main.Main"
    assert value(df, 1, "SSLCIPH") == " "
    assert value(df, 1, "RPRODUCT") == "MQJB"
    snap = parsed["chstatus_snapshot"]
    assert snap.select("qmgr", "channel_count", "source_line").rows() == [("QM1", 1, 7)]
    assert parsed.ctx.skipped["runmqsc trailer"] == 3
    assert parsed.ctx.skipped["runmqsc banner"] == 2


def test_short_capture_two_snapshots_and_text_between_them():
    parsed = parse_file(chstatus.PARSER, SHORT)
    df = parsed["chstatus_attr"]
    assert df.height == 30
    assert per_block(df) == [8, 7, 7, 8]
    assert value(df, 4, "XMITQ") == "QM01"
    assert value(df, 2, "SUBSTATE") == "RECEIVE"
    snap = parsed["chstatus_snapshot"].sort("snapshot_no")
    assert snap["channel_count"].to_list() == [2, 2]
    # the URL, cipher name, ALTER/REFRESH commands and 'on QMR01' are not attributes
    assert parsed.ctx.unknown_lines["chstatus: text outside a block"] == 6
    assert df.filter(pl.col("key") == "SSLCIPH").height == 0


def test_tab_indented_capture():
    parsed = parse_file(chstatus.PARSER, TABBED)
    df = parsed["chstatus_attr"]
    assert df.height == 8
    assert value(df, 1, "CONNAME") == "192.168.1.110(1416)"
    assert value(df, 1, "XMITQ") == "CRC01CMM"
    assert parsed["chstatus_snapshot"]["qmgr"].to_list() == ["CRC01CRD"]


def test_zos_capture_one_attribute_per_line():
    parsed = parse_file(chstatus.PARSER, ZOS)
    df = attrs(ZOS)
    assert df.height == 11
    assert df["key"].to_list() == [
        "CHSTATUS", "CHLDISP", "CONNAME", "CURRENT", "CHLTYPE", "STATUS", "SUBSTATE",
        "STOPREQ", "RAPPLTAG", "SSLCERTU", "MCAUSER",
    ]  # fmt: skip
    assert value(df, 1, "SUBSTATE") == ""  # KEY() kept as printed
    assert value(df, 1, "RAPPLTAG") == "MQ Explorer 9.4.1"
    assert value(df, 1, "CURRENT") is None
    assert df["channel"].unique().to_list() == ["USER1.SSL.SVRCONN"]
    snap = parsed["chstatus_snapshot"]
    assert snap.select("qmgr", "form", "channel_count").rows() == [("ZQS1", "zos", 1)]
    assert sum(parsed.ctx.unknown_lines.values()) == 0


def test_every_row_keeps_its_source_line():
    for path in (SPLUNK, TLS, SVRCONN, SHORT, TABBED, ZOS):
        parsed = parse_file(chstatus.PARSER, path)
        lines = path.read_text().splitlines()
        df = parsed["chstatus_attr"]
        assert df["source_file"].unique().to_list() == [path.name]
        for line_no, key in df.select("source_line", "key").iter_rows():
            assert key in lines[line_no - 1], (path.name, line_no, key)


def test_sniff_recognises_the_samples_and_not_others():
    for path in (SPLUNK, TLS, SVRCONN, SHORT, TABBED, ZOS):
        assert chstatus.sniff(path.read_bytes(), "x.txt"), path.name
    netstat = (FIXTURES / "netstat" / "netstat_all_v2r4_poll_series.txt").read_bytes()
    assert not chstatus.sniff(netstat, "x.txt")
    dis_channel = b"AMQ8414I: Display Channel details.\n   CHANNEL(A.B)   CHLTYPE(SDR)\n"
    assert not chstatus.sniff(dis_channel, "x.txt")
    assert not chstatus.sniff(b"DEFINE CHANNEL(A) CHLTYPE(SDR) STATUS(X)\n", "x.txt")


# -- z/OS forms ---------------------------------------------------------------------------------

ZOS_LINES = ZOS.read_text().splitlines()


def test_zos_job_log_prefixes_date_line_and_found_count(tmp_path):
    text = ["0 10.15.20 STC04567 ---- SATURDAY,  21 NOV 2026 ----"]
    for clock in ("10.15.22", "10.15.32"):
        text.append(f" {clock} STC04567  CSQM293I ZQS1 CSQMDRTC 1 CHSTATUS FOUND MATCHING REQUEST")
        text.append(f" {clock} STC04567 {ZOS_LINES[0]}")
        text += ["   610             " + ln for ln in ZOS_LINES[1:]]
        text.append(f" {clock} STC04567  CSQ9022I ZQS1 CSQXCRPS ' DISPLAY CHSTATUS' NORMAL")
    parsed = parse_file(chstatus.PARSER, write(tmp_path, "joblog.txt", "\n".join(text) + "\n"))
    snap = parsed["chstatus_snapshot"].sort("snapshot_no")
    assert snap.select("snapshot_time", "expected_count", "channel_count", "qmgr").rows() == [
        (datetime(2026, 11, 21, 10, 15, 22), 1, 1, "ZQS1"),
        (datetime(2026, 11, 21, 10, 15, 32), 1, 1, "ZQS1"),
    ]
    df = parsed["chstatus_attr"]
    assert df.height == 22
    assert value(df, 2, "RAPPLTAG") == "MQ Explorer 9.4.1"
    assert value(df, 1, "CURRENT") is None
    assert df.filter(pl.col("key") == "STC04567").height == 0
    assert sum(parsed.ctx.unknown_lines.values()) == 0


def test_zos_syslog_prefix_gives_date_and_time(tmp_path):
    text = ["N 0000000 SYSA     26325 10:15:22.12 STC04567 00000090  " + ZOS_LINES[0].strip()]
    text += ["D                                        610 00000090  " + ln.strip()
             for ln in ZOS_LINES[1:]]  # fmt: skip
    parsed = parse_file(chstatus.PARSER, write(tmp_path, "syslog.txt", "\n".join(text)))
    snap = parsed["chstatus_snapshot"]
    # 26325 is day 325 of 2026: 21 November
    assert snap["snapshot_time"].to_list() == [datetime(2026, 11, 21, 10, 15, 22, 120000)]
    assert parsed["chstatus_attr"].height == 11


def test_zos_clock_without_date_is_kept_as_clock(tmp_path):
    text = [" 10.15.22 STC04567 " + ZOS_LINES[0], *ZOS_LINES[1:]]
    parsed = parse_file(chstatus.PARSER, write(tmp_path, "clock.txt", "\n".join(text)))
    snap = parsed["chstatus_snapshot"]
    assert snap.select("snapshot_time", "snapshot_clock").rows() == [(None, time(10, 15, 22))]


def test_zos_no_channel_found_is_an_empty_snapshot(tmp_path):
    text = " CSQM297I ZQS1 CSQMDRTC NO CHSTATUS FOUND MATCHING REQUEST CRITERIA\n" + ZOS.read_text()
    parsed = parse_file(chstatus.PARSER, write(tmp_path, "none.txt", text))
    snap = parsed["chstatus_snapshot"].sort("snapshot_no")
    assert snap.select("channel_count", "expected_count").rows() == [(0, 0), (1, None)]


def test_zos_block_cut_at_end_of_file_is_an_error(tmp_path):
    cut = write(tmp_path, "cut.txt", "\n".join(ZOS_LINES[:-1]) + "\n")
    with pytest.raises(InputError) as err:
        parse_file(chstatus.PARSER, cut)
    assert err.value.line == 1
    assert "END CHSTATUS DETAILS" in str(err.value)
    assert "cut.txt" in str(err.value)


def test_zos_block_without_end_before_next_block_is_an_error(tmp_path):
    text = ZOS_LINES[:-1] + ZOS_LINES
    with pytest.raises(InputError) as err:
        parse_file(chstatus.PARSER, write(tmp_path, "twice.txt", "\n".join(text)))
    assert err.value.line == 13


RUNMQSC_TWO = """AMQ8417I: Display Channel Status details.
   CHANNEL(QM01.QMR01)                     CHLTYPE(SDR)
   STATUS(RUNNING)
AMQ8417I: Display Channel Status details.
   CHLTYPE(RCVR)                           CONNAME(52.42.174.228)
   STATUS(RUNNING)                         SUBSTATE(RECEIVE)
AMQ8417I: Display Channel Status details.
   CHANNEL(QMR01.QM01)                     CHLTYPE(RCVR)
"""


@pytest.mark.parametrize(
    ("name", "text", "line"),
    [
        # the second block's CHANNEL( ) is gone: its attributes belong to no channel
        ("runmqsc", RUNMQSC_TWO, 4),
        ("blank name", RUNMQSC_TWO.replace("   CHLTYPE(RCVR)  ", "   CHANNEL( ) CHLTYPE(RCVR)"), 4),
        ("empty name", RUNMQSC_TWO.replace("   CHLTYPE(RCVR)  ", "   CHANNEL() CHLTYPE(RCVR)"), 4),
        # z/OS: the CHSTATUS( ) line of the block is gone
        ("zos", "\n".join(ln for ln in ZOS_LINES if "CHSTATUS(" not in ln) + "\n", 1),
    ],
)
def test_a_block_of_attributes_that_names_no_channel_is_an_error(tmp_path, name, text, line):
    # Landed, its rows would have no channel: the channel-status marts are keyed by channel,
    # and one such row failed every dbt build after it (int_channel_status's "null key").
    with pytest.raises(InputError) as err:
        parse_file(chstatus.PARSER, write(tmp_path, "unnamed.txt", text))
    assert err.value.line == line
    assert f"channel-status block of line {line} names no channel" in str(err.value)
    assert "unnamed.txt" in str(err.value)


def test_a_block_named_after_its_first_attribute_line_is_not_an_error(tmp_path, monkeypatch):
    # The name comes on the block's second line, after the last line of a chunk and a batch:
    # the open block's attributes wait for it.
    text = RUNMQSC_TWO.replace(
        "   STATUS(RUNNING)                         SUBSTATE(RECEIVE)",
        "   CHANNEL(LATE.NAME)                      SUBSTATE(RECEIVE)",
    )
    monkeypatch.setattr(chstatus, "CHUNK_BYTES", 64)
    monkeypatch.setattr(chstatus, "_BATCH_LINES", 1)
    df = parse_file(chstatus.PARSER, write(tmp_path, "late.txt", text))["chstatus_attr"]
    assert df.filter(pl.col("block_no") == 2)["channel"].unique().to_list() == ["LATE.NAME"]
    assert df["channel"].null_count() == 0


def test_a_block_header_with_no_attributes_is_not_an_error(tmp_path):
    # A capture cut just after a block's header line: no rows without a channel, nothing refused.
    text = RUNMQSC_TWO + "AMQ8417I: Display Channel Status details.\n"
    text = text.replace("   CHLTYPE(RCVR)  ", "   CHANNEL(B) CHLTYPE(RCVR)")
    parsed = parse_file(chstatus.PARSER, write(tmp_path, "cut.txt", text))
    assert parsed["chstatus_snapshot"]["channel_count"].to_list() == [4]
    assert parsed["chstatus_attr"]["channel"].null_count() == 0


# -- snapshots and their timestamps -------------------------------------------------------------

STAMPS = [
    ("Sat Nov 21 05:52:09 UTC 2026", datetime(2026, 11, 21, 5, 52, 9)),
    ("Sat Nov  1 05:52:09 2026", datetime(2026, 11, 1, 5, 52, 9)),
    ("Sat 21 Nov 05:52:09 GMT 2026", datetime(2026, 11, 21, 5, 52, 9)),
    ("Sat 21 Nov 2026 05:52:09 UTC", datetime(2026, 11, 21, 5, 52, 9)),
    ("2026-11-21T05:52:09", datetime(2026, 11, 21, 5, 52, 9)),
    ("2026-11-21 05:52:09.250+01:00", datetime(2026, 11, 21, 5, 52, 9, 250000)),
    ("=== 2026-11-21T05:52:09Z ===", datetime(2026, 11, 21, 5, 52, 9)),
]


@pytest.mark.parametrize(("line", "expected"), STAMPS)
def test_timestamp_line_forms(line, expected):
    assert _kv.parse_stamp_line(line) == expected


def test_text_that_only_looks_like_a_time_is_not_a_timestamp():
    assert _kv.parse_stamp_line("Sat Foo 21 05:52:09 UTC 2026") is None
    assert _kv.parse_stamp_line("2026-13-45T05:52:09") is None
    assert _kv.parse_stamp_line("CHSTADA(2016-01-17)  CHSTATI(01.04.25)") is None
    assert _kv.parse_jes_date("---- SATURDAY,  21 NOV 2026 ----") == date(2026, 11, 21)


def test_polled_capture_each_snapshot_gets_its_timestamp(tmp_path):
    body = SVRCONN.read_text()
    text = (
        "".join(f"Sat Nov 21 05:{m:02d}:09 UTC 2026\n{body}" for m in range(3))
        + "2026-11-21T05:03:09\n"
        + SHORT.read_text()
    )
    parsed = parse_file(chstatus.PARSER, write(tmp_path, "polled.txt", text))
    snap = parsed["chstatus_snapshot"].sort("snapshot_no")
    assert snap["snapshot_time"].to_list() == [
        datetime(2026, 11, 21, 5, 0, 9),
        datetime(2026, 11, 21, 5, 1, 9),
        datetime(2026, 11, 21, 5, 2, 9),
        datetime(2026, 11, 21, 5, 3, 9),
        None,  # the second DIS CHSTATUS of the short capture has no time line before it
    ]
    assert snap["time_line"].to_list()[:4] == [1, 32, 63, 94]  # 30-line capture + date line
    df = parsed["chstatus_attr"]
    assert df.height == 3 * 39 + 30
    times = df.group_by("snapshot_no").agg(pl.col("snapshot_time").first()).sort("snapshot_no")
    assert times["snapshot_time"].to_list() == snap["snapshot_time"].to_list()


def test_channel_status_not_found_is_a_snapshot_without_channels(tmp_path):
    text = "2026-11-21T05:00:00\nAMQ8420I: Channel Status not found.\n" + SVRCONN.read_text()
    parsed = parse_file(chstatus.PARSER, write(tmp_path, "none.txt", text))
    snap = parsed["chstatus_snapshot"].sort("snapshot_no")
    assert snap.select("snapshot_time", "channel_count").rows() == [
        (datetime(2026, 11, 21, 5, 0), 0),
        (None, 1),
    ]


def test_odd_attribute_lines_fall_back_to_the_exact_scanner(tmp_path):
    text = (
        "AMQ8417I: Display Channel Status details.\n"
        "   CHANNEL(A.B)                     CHLTYPE(SDR)\n"
        "   CURRENT                          STATUS(RUNNING)\n"
        "   SSLPEER(CN=x(y(z)))              XQTIME(,)\n"
        "   RAPPLTAG(a(b)c)MSGS(7)\n"
        "   BROKEN(no close\n"
    )
    parsed = parse_file(chstatus.PARSER, write(tmp_path, "odd.txt", text))
    df = parsed["chstatus_attr"].sort("source_line", "pair_no")
    assert df.select("key", "value").rows() == [
        ("CHANNEL", "A.B"),
        ("CHLTYPE", "SDR"),
        ("CURRENT", None),
        ("STATUS", "RUNNING"),
        ("SSLPEER", "CN=x(y(z))"),
        ("XQTIME", ","),
        ("RAPPLTAG", "a(b)c"),
        ("MSGS", "7"),
    ]
    assert df.filter(pl.col("key") == "CURRENT")["pair_no"].to_list() == [1]
    assert parsed.ctx.unknown_lines["chstatus: unparsable attribute line"] == 1


def test_small_chunks_and_batches_give_the_same_rows(tmp_path, monkeypatch):
    body = "".join(f"2026-11-21T05:{m:02d}:00\n{TLS.read_text()}" for m in range(40))
    path = write(tmp_path, "many.txt", body + ZOS.read_text())
    whole = parse_file(chstatus.PARSER, path)
    monkeypatch.setattr(_kv, "CHUNK_BYTES", 97)
    monkeypatch.setattr(chstatus, "_BATCH_LINES", 5)
    pieces = parse_file(chstatus.PARSER, path)
    for table in ("chstatus_attr", "chstatus_snapshot"):
        a = whole[table].sort("source_line", *(["pair_no"] if table == "chstatus_attr" else []))
        b = pieces[table].sort("source_line", *(["pair_no"] if table == "chstatus_attr" else []))
        assert a.equals(b), table
    assert whole["chstatus_attr"].height == 40 * 146 + 11
    assert whole["chstatus_snapshot"].height == 80 + 1


# -- clearly wrong input ------------------------------------------------------------------------


def test_binary_data_is_an_error_naming_the_line(tmp_path):
    data = SPLUNK.read_bytes().replace(b"BATCHES(457)", b"BATCHES(\x00\x01)", 1)
    p = tmp_path / "bin.txt"
    p.write_bytes(data)
    with pytest.raises(InputError) as err:
        parse_file(chstatus.PARSER, p)
    assert err.value.line == 3
    assert "NUL" in str(err.value)


def test_bad_utf8_is_an_error_naming_the_line(tmp_path):
    p = tmp_path / "latin.txt"
    p.write_bytes(TLS.read_bytes().replace(b"RPRODUCT(MQMM)", b"RPRODUCT(\xe9)", 1))
    with pytest.raises(InputError) as err:
        parse_file(chstatus.PARSER, p)
    assert err.value.line == 56


def test_file_without_any_block_is_an_error(tmp_path):
    with pytest.raises(InputError, match="no DISPLAY CHSTATUS block"):
        parse_file(chstatus.PARSER, write(tmp_path, "empty.txt", "hello\nworld\n"))


def test_monitoring_off_blanks_and_zos_capped_counters_are_kept_as_printed(tmp_path):
    text = SPLUNK.read_text().replace("NETTIME(25,0)", "NETTIME( , )", 1)
    text = text.replace("XQTIME(3151,1099)", "XQTIME(,)", 1)
    df = parse_file(chstatus.PARSER, write(tmp_path, "off.txt", text))["chstatus_attr"]
    assert value(df, 1, "NETTIME") == " , "
    assert value(df, 1, "XQTIME") == ","
    zos = ZOS.read_text().replace(" STOPREQ(NO)", " BYTSSENT(999999999)", 1)
    df = parse_file(chstatus.PARSER, write(tmp_path, "cap.txt", zos))["chstatus_attr"]
    assert value(df, 1, "BYTSSENT") == "999999999"


def test_the_registry_sends_the_samples_to_this_parser():
    for path in (SPLUNK, TLS, SVRCONN, SHORT, TABBED, ZOS):
        assert detect(path).kind == "chstatus", path.name


def test_crlf_capture_parses_like_lf(tmp_path):
    p = tmp_path / "crlf.txt"
    p.write_bytes(TLS.read_bytes().replace(b"\n", b"\r\n"))
    crlf = parse_file(chstatus.PARSER, p, name=TLS.name)["chstatus_attr"]
    assert crlf.sort("source_line", "pair_no").equals(attrs(TLS))


def test_chunk_and_batch_sizes_do_not_change_the_frames(tmp_path, monkeypatch):
    # Lines are read in chunks and handed to blocks run by run; rows leave in batches: with
    # chunks of a few lines and batches of a few rows, every frame (row order too) is the same.
    import functools

    from mqcap.parsers import _lines

    texts = {p.name: p.read_text() for p in sorted(DIR.glob("*.txt"))}
    texts["tabbed_twice"] = texts[TABBED.name] * 2
    paths = [write(tmp_path, name, text) for name, text in texts.items()]
    want = [parse_file(chstatus.PARSER, p) for p in paths]
    small = functools.partial(_lines.line_series, chunk_bytes=200)
    monkeypatch.setattr(chstatus, "line_series", small)
    monkeypatch.setattr(chstatus, "_BATCH_LINES", 7)
    for p, whole in zip(paths, want, strict=True):
        got = parse_file(chstatus.PARSER, p)
        assert sorted(got.tables) == sorted(whole.tables), p.name
        for table in whole.tables:
            got_t, want_t = got[table], whole[table]
            if table == chstatus.ATTR.name:  # batches change the order rows leave in
                got_t, want_t = (t.sort("source_line", "pair_no") for t in (got_t, want_t))
            assert got_t.equals(want_t, null_equal=True), (p.name, table)
