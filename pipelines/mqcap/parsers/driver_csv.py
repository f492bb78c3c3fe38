"""Generic load-driver results CSV (docs/formats.md section 7): one row per run.

Header names are case-insensitive; required: ``rate_per_s`` and ``round_trip_us``, or, for
streaming at a target rate (no round trips), ``rate_per_s`` and ``target_rate_per_s``: a row
may then leave ``round_trip_us`` out or empty when it gives its target rate. Optional:
``study`` and ``run_id`` (default: the run folder's manifest), ``target_rate_per_s``, ``threads``,
``message_bytes``, ``transactions``, ``interval_start``, ``interval_end``. Unknown columns are
kept in ``extra`` as a JSON object so nothing is lost.

Example file::

    run_id,rate_per_s,round_trip_us,target_rate_per_s,threads
    ssl-2k,460.4,2172,,1
"""

from __future__ import annotations

import csv
from collections.abc import Iterator

from mqcap.errors import InputError
from mqcap.parsers.base import (
    TEXT_LINEAGE,
    Batch,
    ParseContext,
    Parser,
    Table,
    csv_records,
    extra_json,
    iso_timestamp,
    read_text_lines,
)

TABLE = Table(
    "driver_results",
    {
        **TEXT_LINEAGE,
        "study": "VARCHAR",
        "run_id": "VARCHAR",
        "rate_per_s": "DOUBLE",
        "round_trip_us": "DOUBLE",
        "target_rate_per_s": "DOUBLE",
        "threads": "BIGINT",
        "message_bytes": "BIGINT",
        "transactions": "BIGINT",
        "interval_start": "TIMESTAMP",
        "interval_end": "TIMESTAMP",
        "extra": "VARCHAR",
    },
    "One row per results line of a generic load-driver CSV.",
)

ALIASES = {
    "run": "run_id",
    "rate": "rate_per_s",
    "rate_per_sec": "rate_per_s",
    "round_trip": "round_trip_us",
    "rtt_us": "round_trip_us",
    "target_rate": "target_rate_per_s",
    "msg_bytes": "message_bytes",
}
REQUIRED = ("rate_per_s", "round_trip_us")
# Streaming at a target rate measures no round trip: the target stands in for it.
STREAMING = ("rate_per_s", "target_rate_per_s")
FLOATS = ("rate_per_s", "round_trip_us", "target_rate_per_s")
INTS = ("threads", "message_bytes", "transactions")
TIMES = ("interval_start", "interval_end")


def _canonical(name: str) -> str:
    key = name.strip().lower().replace(" ", "_")
    return ALIASES.get(key, key)


def sniff(head: bytes, name: str) -> bool:
    try:
        first = head.decode("utf-8").lstrip("\ufeff").splitlines()[0]
    except (UnicodeDecodeError, IndexError):
        return False
    try:
        cols = {_canonical(c) for c in next(csv.reader([first]), [])}
    except csv.Error:
        return False
    return all(r in cols for r in REQUIRED) or all(r in cols for r in STREAMING)


def _number(ctx: ParseContext, lineno: int, col: str, text: str, kind: type) -> float | int | None:
    text = text.strip()
    if text == "":
        return None
    try:
        value = float(text)
    except ValueError:
        raise ctx.error(f"column {col}: expected a number, got {text!r}", line=lineno) from None
    if kind is int:
        if not value.is_integer():
            raise ctx.error(f"column {col}: expected a whole number, got {text!r}", line=lineno)
        return int(value)
    return value


def parse(ctx: ParseContext) -> Iterator[Batch]:
    rows: list[dict] = []
    for lineno, rec in csv_records(
        ctx, required=("rate_per_s",), what="results CSV", canonical=_canonical
    ):
        if "round_trip_us" not in rec and "target_rate_per_s" not in rec:
            raise ctx.error(
                "the header lacks column round_trip_us (or target_rate_per_s for streaming)",
                line=lineno,
            )
        row: dict = {"source_file": ctx.source_file, "source_line": lineno}
        extra = {}
        for col, value in rec.items():
            if col in FLOATS:
                row[col] = _number(ctx, lineno, col, value, float)
            elif col in INTS:
                row[col] = _number(ctx, lineno, col, value, int)
            elif col in TIMES:
                row[col] = iso_timestamp(ctx, lineno, col, value)
            elif col in ("run_id", "study"):
                row[col] = value.strip() or None
            else:
                extra[col] = value
        if row.get("rate_per_s") is None:
            raise ctx.error("column rate_per_s is empty", line=lineno)
        if row.get("round_trip_us") is None and row.get("target_rate_per_s") is None:
            raise ctx.error(
                "column round_trip_us is empty (a streaming row gives target_rate_per_s)",
                line=lineno,
            )
        row["extra"] = extra_json(extra)
        rows.append(row)
    if not rows:
        raise _no_rows(ctx)
    yield TABLE.name, rows


def _no_rows(ctx: ParseContext) -> InputError:
    """The error for a results CSV with a header and no row: a results file is there to give
    rows, so one that gives none lost them (fixed-length records without line ends read as one
    long header line)."""
    content = [
        (lineno, line)
        for lineno, line in read_text_lines(ctx, encoding="utf-8-sig")
        if line.strip() and not line.lstrip().startswith("#")
    ]
    lineno, line = content[0] if content else (1, "")
    if len(content) == 1 and "   " in line.strip():
        return ctx.error(
            f"no results rows: the file is one line of {len(line)} characters with runs of "
            "blanks inside (fixed-length records without line ends?); save it with one line "
            "per record",
            line=lineno,
        )
    return ctx.error("no results rows: a header and nothing under it", line=lineno)


PARSER = Parser(
    kind="driver_csv",
    description="Generic load-driver results CSV (rate, round trip, target rate, threads)",
    tables=(TABLE,),
    sniff=sniff,
    parse=parse,
    priority=80,
)
