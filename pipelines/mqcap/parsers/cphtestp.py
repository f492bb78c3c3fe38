"""cphtestp results CSV (docs/formats.md section 7).

IBM's cphtestp container (github ibm-messaging/cphtestp, cphTest.sh and README) runs mq-cph
requester/responder tests at several thread counts and message sizes and, with
``MQ_RESULTS_CSV``, writes one CSV line per test after two ``#`` lines::

    # Tue Oct 16 15:47:52 UTC 2018
    # Persistence, Msg Size, Threads, Rate (RT/s), Client CPU, IO Read (MB/s), IO Write (MB/s), Net Recv (Gb/s), Net Send (Gb/s), QM CPU
    1,2048,1,1150.56,1.35,0.00,0.00,0.06,0.05,2.70

Columns are matched by header name (units in parentheses are dropped), so the older form
without ``Persistence`` also reads. ``Rate`` is round trips per second; Client CPU is the
client host's busy % (mpstat), QM CPU the queue manager's CPU % (its SystemSummary topic); IO in
MB/s, network in Gb/s. The script prints ``-1`` where a monitor gave no sample: kept as printed
here, made NULL in staging. The ``# <date>`` line (time zone dropped, time as printed) dates the
rows after it; a file may hold several runs, each with its own two ``#`` lines. Lines that are
not CSV data (docker log noise around the CSV) are counted as unknown.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import datetime

from mqcap.parsers.base import (
    TEXT_LINEAGE,
    Batch,
    ParseContext,
    Parser,
    Table,
    extra_json,
    read_text_lines,
)

TABLE = Table(
    "driver_cphtestp",
    {
        **TEXT_LINEAGE,
        "run_started": "TIMESTAMP",
        "persistence": "VARCHAR",
        "message_bytes": "BIGINT",
        "threads": "BIGINT",
        "rate_per_s": "DOUBLE",
        "client_cpu_pct": "DOUBLE",
        "io_read_mb_per_s": "DOUBLE",
        "io_write_mb_per_s": "DOUBLE",
        "net_recv_gbit_per_s": "DOUBLE",
        "net_send_gbit_per_s": "DOUBLE",
        "qm_cpu_pct": "DOUBLE",
        "extra": "VARCHAR",
    },
    "One row per cphtestp test (message size x threads) in a results CSV.",
)

COLUMNS = {
    "persistence": "persistence",
    "msg size": "message_bytes",
    "threads": "threads",
    "rate": "rate_per_s",
    "client cpu": "client_cpu_pct",
    "io read": "io_read_mb_per_s",
    "io write": "io_write_mb_per_s",
    "net recv": "net_recv_gbit_per_s",
    "net send": "net_send_gbit_per_s",
    "qm cpu": "qm_cpu_pct",
}
INTS = ("message_bytes", "threads")
_HEADER = re.compile(r"^#\s*(?:Persistence\s*,\s*)?Msg Size\s*,\s*Threads\s*,\s*Rate", re.I)
_DATE = re.compile(
    r"^#\s*[A-Z][a-z]{2}\s+([A-Z][a-z]{2})\s+(\d{1,2})\s+(\d\d:\d\d:\d\d)\s+"
    r"(?:[A-Z]{2,5}\s+)?(\d{4})\s*$"
)
_NUM = re.compile(r"-?\d+(?:\.\d+)?")


def sniff(head: bytes, name: str) -> bool:
    text = head.decode("utf-8", errors="replace")
    return any(_HEADER.match(line.strip()) for line in text.splitlines()[:200])


def _header(line: str) -> list[str]:
    names = []
    for raw in line.lstrip("#").split(","):
        name = re.sub(r"\(.*?\)", "", raw).strip().lower()
        names.append(COLUMNS.get(name, name.replace(" ", "_")))
    return names


def parse(ctx: ParseContext) -> Iterator[Batch]:
    rows: list[dict] = []
    header: list[str] | None = None
    started: datetime | None = None
    for lineno, line in read_text_lines(ctx, encoding="utf-8-sig"):
        text = line.strip()
        if not text:
            continue
        if text.startswith("#"):
            if _HEADER.match(text):
                header = _header(text)
            elif m := _DATE.match(text):
                mon, day, hms, year = m.groups()
                try:
                    started = datetime.strptime(f"{year} {mon} {day} {hms}", "%Y %b %d %H:%M:%S")
                except ValueError:
                    raise ctx.error(f"bad date in {text!r}", line=lineno) from None
                header = None
            else:
                ctx.unknown("comment line")
            continue
        if header is None or not (text[0].isdigit() or text[0] == "-") or "," not in text:
            ctx.unknown("line outside the results CSV")
            continue
        fields = [f.strip() for f in text.split(",")]
        if len(fields) != len(header):
            raise ctx.error(
                f"cphtestp row has {len(fields)} fields, header has {len(header)}", line=lineno
            )
        row: dict = {"source_file": ctx.source_file, "source_line": lineno, "run_started": started}
        extra = {}
        for col, value in zip(header, fields, strict=True):
            if col == "persistence":
                row[col] = value or None
            elif col in TABLE.columns:
                if value == "":
                    row[col] = None
                    continue
                if not _NUM.fullmatch(value):
                    raise ctx.error(f"column {col}: expected a number, got {value!r}", line=lineno)
                if col in INTS:
                    if "." in value or len(value) > 18:
                        raise ctx.error(f"column {col}: expected a whole number", line=lineno)
                    row[col] = int(value)
                else:
                    row[col] = float(value)
            else:
                extra[col] = value
        row["extra"] = extra_json(extra)
        rows.append(row)
    if not rows:
        raise ctx.error("no cphtestp result rows (header '# ... Msg Size, Threads, Rate')", line=1)
    yield TABLE.name, rows


PARSER = Parser(
    kind="driver_cphtestp",
    description="cphtestp results CSV (msg size, threads, round trips/s, client and QM CPU)",
    tables=(TABLE,),
    sniff=sniff,
    parse=parse,
    priority=40,
)
