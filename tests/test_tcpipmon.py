"""TCPIPMonitor print-outs (the real samples in tests/fixtures/tcpipmon): every value lands."""

from __future__ import annotations

import pytest

from mqcap.errors import InputError
from mqcap.parsers import detect
from mqcap.parsers import tcpipmon as mod

from helpers import FIXTURES, parse_file

DIR = FIXTURES / "tcpipmon"
INFO = DIR / "Port.md_L19-25_MONPORT_INFO_per_connection.txt"
CHANGE = DIR / "Port.md_L88-91_MONPORT_CHANGE.txt"
SYSPRINT = DIR / "Port.md_L9-14_MONPORT_SYSPRINT.csvish.txt"
IFST = DIR / "Interface.md_L9-19_IFST_output.csvish.txt"
SOCKET = "2001:7::3:43736"


def _values(path):
    parsed = parse_file(mod.PARSER, path)
    return parsed, parsed["tcpipmon_value"]


@pytest.mark.parametrize("path", [INFO, CHANGE, SYSPRINT, IFST], ids=lambda p: p.name[:24])
def test_each_print_out_is_recognised_from_its_content(path):
    assert detect(path, "capture.txt").kind == "tcpipmon"


def test_connection_detail_keeps_every_pair():
    parsed, df = _values(INFO)
    assert df.height == 20 and set(df["subject"]) == {SOCKET}
    got = {n: v for n, v in zip(df["name"], df["value"], strict=True)}
    assert got["JOBNAME"] == "SSHD4" and got["Interface"] == "JFPORTCP6"
    assert got["CongestionWnd"] == "48552" and got["SSThresh"] == "65535"
    assert got["RoundTripTime"] == "2" and got["RoundTripVar"] == "4"
    assert got["RcvWnd"] == "131020" and got["Rmt0WindowCount"] == "0"
    assert df.filter(df["name"] == "SndBufSize")["source_line"].to_list() == [5]
    assert parsed.ctx.unknown_lines["line"] == 1  # the socket-only closing line


def test_change_lines_keep_new_and_old_values():
    _, df = _values(CHANGE)
    rows = list(
        zip(df["time_of_day"], df["name"], df["value_number"], df["previous_number"], strict=True)
    )
    assert rows == [
        ("17:09:50", "CongestionWnd", 64260.0, 48552.0),
        ("17:09:50", "RoundTripVar", 2.0, 4.0),
        ("17:10:00", "CongestionWnd", 65688.0, 64260.0),
        ("17:10:10", "RoundTripVar", 1.0, 2.0),
    ]


def test_port_csv_one_value_per_sample_and_column():
    parsed, df = _values(SYSPRINT)
    assert df.height == 21 and parsed.ctx.unknown_lines["line"] == 2  # the two banner lines
    second = df.filter(df["time_of_day"] == "17:10:00")
    got = {n: v for n, v in zip(second["name"], second["value_number"], strict=True)}
    assert got == {
        "BytesI": 624.0, "BytesO": 3020.0, "SegsI": 35.0, "SegsO": 23.0,
        "BI/Sec": 62.0, "BO/Sec": 302.0, "ReXmtC": 0.0,
    }  # fmt: skip
    assert set(second["subject"]) == {SOCKET}


def test_interface_csv_keeps_blank_rates_as_not_numbers():
    _, df = _values(IFST)
    assert df.height == 10 * 14 and set(df["subject"]) == {"TAP0"}
    active = df.filter(df["time_of_day"] == "09:11:42")
    got = {n: v for n, v in zip(active["name"], active["value_number"], strict=True)}
    assert (got["IBytes"], got["OBytes"], got["IB/sec"], got["IUP"]) == (348.0, 348.0, 34.0, 3.0)
    first = df.filter((df["time_of_day"] == "09:11:12") & (df["name"] == "IB/sec"))
    assert first["value"].to_list() == [""] and first["value_number"].to_list() == [None]


def test_a_cut_csv_row_names_its_line(tmp_path):
    lines = IFST.read_text().splitlines()
    cut = tmp_path / "ifst.txt"
    cut.write_text("\n".join([*lines[:3], lines[3][:30]]) + "\n")
    with pytest.raises(InputError) as info:
        parse_file(mod.PARSER, cut)
    assert info.value.line == 4
