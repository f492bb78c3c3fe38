"""Address-space CPU per interval as CSV (FORMATS.md section 6).

Any SMF tool can export SMF 30 interval records like this; later the SMF 30 decoder and the RMF
WORKLOAD ACTIVITY report feed the same concept, so every row says where its CPU came from
(``cpu_source`` = ``csv``). Header names are case-insensitive; required ``interval_start``,
``interval_end``, ``system``, ``jobname``, ``cpu_seconds``; optional ``srb_seconds``,
``ziip_seconds``; other columns are kept in ``extra`` as ``name=value``. Timestamps are ISO
(``2024-03-01T10:00:00`` or with a blank), as printed, no time zone.

Example::

    interval_start,interval_end,system,jobname,cpu_seconds,srb_seconds,ziip_seconds
    2024-03-01 10:00:00,2024-03-01 10:15:00,MV41,CSQ1CHIN,41.532,3.107,0.000
"""

from __future__ import annotations

import csv
from collections.abc import Iterator
from datetime import datetime

from mqcap.parsers.base import (
    TEXT_LINEAGE,
    Batch,
    ParseContext,
    Parser,
    Table,
    csv_cells,
    read_text_lines,
)

TABLE = Table(
    "ascpu_interval",
    {
        **TEXT_LINEAGE,
        "interval_start": "TIMESTAMP",
        "interval_end": "TIMESTAMP",
        "system_id": "VARCHAR",
        "jobname": "VARCHAR",
        "cpu_s": "DOUBLE",
        "srb_s": "DOUBLE",
        "ziip_s": "DOUBLE",
        "cpu_source": "VARCHAR",
        "extra": "VARCHAR",
    },
    "One row per interval and address space (job name) with its CPU seconds.",
)

REQUIRED = ("interval_start", "interval_end", "system", "jobname", "cpu_seconds")
NUMBERS = {"cpu_seconds": "cpu_s", "srb_seconds": "srb_s", "ziip_seconds": "ziip_s"}
BATCH_ROWS = 50000


def _names(line: str) -> list[str]:
    try:
        cells = next(csv.reader([line]), [])
    except csv.Error:  # not a CSV header: the caller decides what that means
        return []
    return [c.strip().lower().replace(" ", "_") for c in cells]


def sniff(head: bytes, name: str) -> bool:
    # The head may end inside a multi-byte character; only the first line matters.
    text = head.decode("utf-8", errors="replace")
    for line in text.lstrip("\ufeff").splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            return all(r in _names(line) for r in REQUIRED)
    return False


def _time(ctx: ParseContext, lineno: int, col: str, text: str) -> datetime:
    try:
        return datetime.fromisoformat(text.strip()).replace(tzinfo=None)
    except ValueError:
        raise ctx.error(
            f"column {col}: expected an ISO timestamp, got {text!r}", line=lineno
        ) from None


def parse(ctx: ParseContext) -> Iterator[Batch]:
    rows: list[dict] = []
    header: list[str] | None = None
    for lineno, line in read_text_lines(ctx, encoding="utf-8-sig"):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        fields = csv_cells(ctx, line, lineno)
        if header is None:
            header = [c.strip().lower().replace(" ", "_") for c in fields]
            missing = [r for r in REQUIRED if r not in header]
            if missing:
                raise ctx.error(f"header lacks column(s) {missing}", line=lineno)
            continue
        if len(fields) != len(header):
            raise ctx.error(f"expected {len(header)} fields, found {len(fields)}", line=lineno)
        rec = dict(zip(header, fields, strict=True))
        row: dict = {
            "source_file": ctx.source_file,
            "source_line": lineno,
            "interval_start": _time(ctx, lineno, "interval_start", rec["interval_start"]),
            "interval_end": _time(ctx, lineno, "interval_end", rec["interval_end"]),
            "system_id": rec["system"].strip() or None,
            "jobname": rec["jobname"].strip() or None,
            "cpu_source": "csv",
        }
        if row["jobname"] is None:
            raise ctx.error("jobname is empty", line=lineno)
        if row["interval_end"] < row["interval_start"]:
            raise ctx.error("interval_end is before interval_start", line=lineno)
        for col, target in NUMBERS.items():
            text = rec.get(col, "").strip()
            if not text:
                if col == "cpu_seconds":
                    raise ctx.error("cpu_seconds is empty", line=lineno)
                continue
            try:
                value = float(text)
            except ValueError:
                raise ctx.error(
                    f"column {col}: expected a number, got {text!r}", line=lineno
                ) from None
            if not value >= 0 or value == float("inf"):
                raise ctx.error(f"column {col}: {text!r} is not a CPU time", line=lineno)
            row[target] = value
        extra = [f"{k}={v}" for k, v in rec.items() if k not in REQUIRED and k not in NUMBERS]
        row["extra"] = ";".join(extra) or None
        rows.append(row)
        if len(rows) >= BATCH_ROWS:
            yield TABLE.name, rows
            rows = []
    if header is None:
        raise ctx.error("empty address-space CPU CSV (no header)", line=1)
    if rows:
        yield TABLE.name, rows


PARSER = Parser(
    kind="ascpu_csv",
    description="Address-space CPU per interval as CSV (interval, system, jobname, CPU seconds)",
    tables=(TABLE,),
    sniff=sniff,
    parse=parse,
    priority=40,
)
