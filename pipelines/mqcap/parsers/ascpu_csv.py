"""Address-space CPU per interval as CSV (docs/formats.md section 6).

Any SMF tool can export SMF 30 interval records like this; later the SMF 30 decoder and the RMF
WORKLOAD ACTIVITY report feed the same concept, so every row says where its CPU came from
(``cpu_source`` = ``csv``). Header names are case-insensitive; required ``interval_start``,
``interval_end``, ``system``, ``jobname``, ``cpu_seconds``; optional ``srb_seconds``,
``ziip_seconds``; other columns are kept in ``extra`` as a JSON object. Timestamps are ISO
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
    TEXT_OR_BINARY_LINEAGE,
    Batch,
    ParseContext,
    Parser,
    Table,
    csv_records,
    extra_json,
    iso_timestamp,
)

TABLE = Table(
    "ascpu_interval",
    {
        **TEXT_OR_BINARY_LINEAGE,
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
    # extra is left out: rows from SMF 30 start it with the record's position in the dump.
    identity=(
        "interval_start",
        "interval_end",
        "system_id",
        "jobname",
        "cpu_s",
        "srb_s",
        "ziip_s",
        "cpu_source",
    ),
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


def _required_time(ctx: ParseContext, lineno: int, col: str, rec: dict[str, str]) -> datetime:
    value = iso_timestamp(ctx, lineno, col, rec[col])
    if value is None:
        raise ctx.error(f"column {col}: expected an ISO timestamp, got ''", line=lineno)
    return value


def parse(ctx: ParseContext) -> Iterator[Batch]:
    rows: list[dict] = []
    for lineno, rec in csv_records(ctx, required=REQUIRED, what="address-space CPU CSV"):
        row: dict = {
            "source_file": ctx.source_file,
            "source_line": lineno,
            "interval_start": _required_time(ctx, lineno, "interval_start", rec),
            "interval_end": _required_time(ctx, lineno, "interval_end", rec),
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
        row["extra"] = extra_json(
            {k: v for k, v in rec.items() if k not in REQUIRED and k not in NUMBERS}
        )
        rows.append(row)
        if len(rows) >= BATCH_ROWS:
            yield TABLE.name, rows
            rows = []
    if rows:
        yield TABLE.name, rows


PARSER = Parser(
    kind="ascpu_csv",
    description="Address-space CPU per interval as CSV (interval, system, jobname, CPU seconds)",
    tables=(TABLE,),
    attributed_by_time=True,
    sniff=sniff,
    parse=parse,
    priority=40,
)
