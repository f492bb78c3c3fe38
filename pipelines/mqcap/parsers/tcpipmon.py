"""TCPIPMonitor print-outs (github colinpaicemq/TCPIPMonitor): z/OS TCP/IP per-connection and
per-interface statistics read through the network management interface.

Not the NETSTAT layout, but the same quantities (congestion window, round-trip time and
variance, retransmits, bytes and segments), so sites that poll with this tool lose nothing.
Four print-outs are recognised; every value lands as one row of ``tcpipmon_value``:

- MONPORT connection detail: ``<socket> JOBNAME <job> Interface <if>`` then lines
  ``<socket> Name: value Name: value ...``;
- MONPORT change lines: ``hh:mm:ss <socket> NWMConn<Name> n:<new> - o:<old> = <delta>``;
- MONPORT SYSPRINT CSV: ``HH:MM:SS,remote,BytesI,BytesO,,...`` then one row per sample;
- IFST interface CSV: ``Interface,HH:MM:SS,IBytes,OBytes,...`` then one row per sample.

Times are the time of day as printed (the print-outs carry no date).

Example::

    17:09:50 2001:7::3:43736  NWMConnCongestionWnd n:64260 - o:48552 = 15708
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from mqcap.parsers.base import TEXT_LINEAGE, Batch, ParseContext, Parser, Table, read_text_lines

TABLE = Table(
    "tcpipmon_value",
    {
        **TEXT_LINEAGE,
        "printout": "VARCHAR",  # connection | change | port_csv | interface_csv
        "time_of_day": "VARCHAR",  # hh:mm:ss as printed, NULL in the connection detail
        "subject": "VARCHAR",  # the socket (ip:port) or the interface name
        "name": "VARCHAR",
        "value": "VARCHAR",  # as printed
        "value_number": "DOUBLE",  # the value when it is a number
        "previous_number": "DOUBLE",  # change lines: the old value
    },
    "One row per value of a TCPIPMonitor print-out.",
)

_SOCKET = r"[0-9A-Fa-f:.]+:\d+"
_DETAIL_HEAD = re.compile(
    rf"^\s*(?P<sock>{_SOCKET})\s+JOBNAME\s+(?P<job>\S+)\s+Interface\s+(?P<ifc>\S+)"
)
_DETAIL = re.compile(rf"^\s*(?P<sock>{_SOCKET})\s+(?P<rest>\S.*:.*)$")
_PAIR = re.compile(r"(?P<name>[A-Za-z][A-Za-z0-9]*):\s*(?P<value>\S+)")
_CHANGE = re.compile(
    rf"^(?P<t>\d\d:\d\d:\d\d)\s+(?P<sock>{_SOCKET})\s+NWMConn(?P<name>\w+)\s+"
    r"n:(?P<new>-?\d+)\s+-\s+o:(?P<old>-?\d+)\s+=\s+(?P<delta>-?\d+)\s*$"
)
_TIME = re.compile(r"^\d\d:\d\d:\d\d$")


def _number(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def sniff(head: bytes, name: str) -> bool:
    text = head.decode("latin-1")
    lines = [ln for ln in text.splitlines() if ln.strip()][:20]
    if not lines:
        return False
    first = lines[0]
    if re.match(r"^\s*Interface\s*,\s*HH:MM:SS\s*,", first):
        return True
    if any(re.match(r"^HH:MM:SS\s*,\s*remote\s*,", ln) for ln in lines):
        return True
    if _CHANGE.match(first.rstrip()):
        return True
    return bool(_DETAIL_HEAD.match(first))


def _csv_header(line: str) -> list[str]:
    return [c.strip() for c in line.split(",")]


def parse(ctx: ParseContext) -> Iterator[Batch]:
    rows: list[dict] = []
    header: list[str] | None = None
    printout: str | None = None

    def add(lineno, kind, t, subject, name, value, previous=None):
        rows.append(
            {
                "source_file": ctx.source_file,
                "source_line": lineno,
                "printout": kind,
                "time_of_day": t,
                "subject": subject,
                "name": name,
                "value": value,
                "value_number": _number(value),
                "previous_number": previous,
            }
        )

    for lineno, line in read_text_lines(ctx, encoding="latin-1"):
        text = line.rstrip()
        if not text.strip():
            continue
        if re.match(r"^\s*Interface\s*,\s*HH:MM:SS\s*,", text):
            header, printout = _csv_header(text), "interface_csv"
            continue
        if re.match(r"^HH:MM:SS\s*,\s*remote\s*,", text):
            header, printout = _csv_header(text), "port_csv"
            continue
        if printout in ("interface_csv", "port_csv") and header is not None and "," in text:
            cells = _csv_header(text)
            subject_col, time_col = (0, 1) if printout == "interface_csv" else (1, 0)
            if len(cells) < len(header) or not _TIME.match(cells[time_col]):
                raise ctx.error(
                    f"expected a {printout.replace('_', ' ')} row of {len(header)} fields",
                    line=lineno,
                )
            for i, (name, value) in enumerate(zip(header, cells, strict=False)):
                if i in (subject_col, time_col) or not name:
                    continue
                add(lineno, printout, cells[time_col], cells[subject_col], name, value)
            continue
        if m := _CHANGE.match(text):
            add(lineno, "change", m["t"], m["sock"], m["name"], m["new"], float(m["old"]))
            continue
        if m := _DETAIL_HEAD.match(text):
            add(lineno, "connection", None, m["sock"], "JOBNAME", m["job"])
            add(lineno, "connection", None, m["sock"], "Interface", m["ifc"])
            continue
        if m := _DETAIL.match(text):
            pairs = _PAIR.findall(m["rest"])
            if not pairs:
                ctx.unknown("line")
                continue
            for name, value in pairs:
                add(lineno, "connection", None, m["sock"], name, value)
            continue
        ctx.unknown("line")
    if not rows:
        raise ctx.error("no TCPIPMonitor values found", line=1)
    yield TABLE.name, rows


PARSER = Parser(
    kind="tcpipmon",
    description="TCPIPMonitor print-outs (per connection / per interface TCP statistics)",
    tables=(TABLE,),
    sniff=sniff,
    parse=parse,
    priority=45,
)
