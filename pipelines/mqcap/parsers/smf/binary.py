"""Parser ``smf_mq``: binary SMF dumps (docs/formats.md section 1) -> ``landing.smf_<structure>``.

Streams the dump (bounded memory: one record plus the current batches), decodes every MQ
SMF 115/116 structure mq-smf-csv knows, and skips (and counts, ``ctx.skip``) dump
header/trailer records (types 2/3), other record types and MQ subtypes without a decoder.
The z/OS records such dumps mix in (SMF 30 subtypes 2/3, 70-2, 72-3) go to ``zos``, which lands
them in the address-space CPU and RMF tables.

A large dump is split into parts at record boundaries (:func:`split`), decoded in parallel by
``mqcap ingest --jobs N`` (``mqcap.ingest_pool``): one quick pass over the records finds the
boundaries and the statistics interval each part starts with (the storage-manager records of a
part take the interval of the last statistics record before them, perhaps in an earlier part),
so the parts' rows, put in order, are the rows of the whole dump, lineage included.

Example:
    parsed = parse_file(PARSER, Path("TESTCHL.dat"))
    parsed["smf_qcst"].height  # 23
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from mqcap.parsers._lazy import lazy_module
from mqcap.parsers.base import Batch, ParseContext, Parser, is_gzip
from mqcap.parsers.smf.reader import Window, detect_layout, read_records
from mqcap.parsers.smf.records import (
    DISPATCH_115,
    RecordError,
    advance_intervals,
    decode_record,
    is_mq,
)
from mqcap.parsers.smf.structures import STRUCTURES
from mqcap.parsers.smf.tables import ALL_TABLES, TABLES
from mqcap.parsers.smf.zos import ZOS_TABLES, ZOS_TYPES, ZosDecoder

if TYPE_CHECKING:
    import pyarrow as pa

pl = lazy_module("polars", __name__, "pl")

# A batch holds at most about this many values (rows x columns), so wide tables (WQ has ~480
# columns) flush sooner and memory stays bounded whatever the dump size.
BATCH_CELLS = 2_000_000
TABLE_OF = {name: s.table for name, s in STRUCTURES.items()}
BATCH_ROWS = {t.name: max(500, BATCH_CELLS // len(t.columns)) for t in ALL_TABLES}
WIDTH = {t.name: len(t.columns) for t in ALL_TABLES}
# All pending batches together hold at most about this many values: without this bound each of
# the ~40 tables could hold BATCH_CELLS before flushing, and memory grew with the dump.
PENDING_CELLS = 2 * BATCH_CELLS
_KNOWN_116 = {0, 1, 2, 10}


def sniff(head: bytes, name: str) -> bool:
    layout = detect_layout(head)
    if layout is None:
        return False
    at = {"bdw": 8, "rdw": 4, "nordw": 0}[layout]
    # Dumps start with a type 2 header, an MQ record or a decoded z/OS record (SMF 30, 70, 72);
    # the name breaks ties only.
    return head[at + 1] in (2, 115, 116, *ZOS_TYPES) or name.lower().endswith(
        (".dat", ".smf", ".bin")
    )


# A batch of at most this many rows is made into Arrow columns here (``mqcap.arrowcols``), not
# into a polars frame: a small dump's few records cost about 1.5 ms less a table that way; a
# larger batch is built faster by polars, whose Series take the Python values in Rust.
SMALL_BATCH_ROWS = 2048


def frame(table: str, rows: list[tuple]) -> pl.DataFrame | pa.Table:
    """Rows (head columns + field values, timestamps as epoch microseconds) -> typed frame
    (an Arrow table for a small batch: ``Table.arrow`` takes either).

    Built column by column (one transpose in C) rather than row by row: several times faster
    for the wide accounting tables.
    """
    t = TABLES[table]
    columns = list(zip(*rows, strict=True)) if rows else [()] * len(t.columns)
    if 0 < len(rows) <= SMALL_BATCH_ROWS:
        small = _arrow(t, columns)
        if small is not None:
            return small
    data = {}
    for (name, typ), values in zip(t.columns.items(), columns, strict=True):
        dtype = pl.Utf8 if typ == "VARCHAR" else pl.Int64
        s = pl.Series(name, values, dtype=dtype)
        data[name] = s.cast(pl.Datetime("us")) if typ == "TIMESTAMP" else s
    return pl.DataFrame(data)


def _arrow(t, columns: list[tuple]) -> pa.Table | None:
    """The columns as an Arrow table of the types ``frame``'s polars path gives (large strings,
    int64, timestamp[us] from epoch microseconds); None when a value does not fit them."""
    import pyarrow as pa

    from mqcap import arrowcols

    arrays = []
    for typ, values in zip(t.columns.values(), columns, strict=True):
        arr = arrowcols.column(pa.large_string() if typ == "VARCHAR" else pa.int64(), values)
        if arr is None:
            return None
        arrays.append(arr.view(pa.timestamp("us")) if typ == "TIMESTAMP" else arr)
    return pa.Table.from_arrays(arrays, names=list(t.columns))


def _mq_subtype(data: bytes) -> int | None:
    """The subtype of an MQ record with a decoder here, else None (a record to skip)."""
    if not is_mq(data):
        return None
    st = int.from_bytes(data[18:20], "big") if len(data) >= 20 else -1
    return st if st in (DISPATCH_115 if data[1] == 115 else _KNOWN_116) else None


def _skip_reason(data: bytes) -> str:
    if not is_mq(data):
        return f"SMF type {data[1] if len(data) > 1 else '?'} record"
    st = int.from_bytes(data[18:20], "big") if len(data) >= 20 else -1
    return f"SMF {data[1]} subtype {st} record (no decoder)"


def split(path: Path, source_file: str, part_bytes: int) -> list[Window] | None:
    """Parts of about ``part_bytes`` each, starting at record boundaries, with the statistics
    intervals the records before each part leave (``Window.state``); None when the dump is not
    worth splitting, is compressed (no seeking), or its records cannot be read through (the
    parse of the whole file then says where).

    One pass reads the records and each MQ record's header only, a few percent of the decode.
    """
    if is_gzip(path):
        return None
    ctx = ParseContext(path=path, source_file=source_file)
    intervals: dict = {}
    parts: list[Window] = []
    start = before = 0
    state: tuple = ()
    cut = part_bytes
    try:
        for rec in read_records(ctx):
            if rec.resume >= cut:
                parts.append(Window(start, rec.resume, before, state))
                start, before, state = rec.resume, rec.number - 1, tuple(intervals.items())
                cut = start + part_bytes
            if _mq_subtype(rec.data) is not None:  # (z/OS records are not MQ's)
                advance_intervals(rec.data, intervals)
    except Exception:  # bad input (or a vanished file): the whole-file parse meets it and says so
        return None
    parts.append(Window(start, None, before, state))
    return parts if len(parts) > 1 else None


def parse(ctx: ParseContext) -> Iterator[Batch]:
    pending: dict[str, list[tuple]] = {}
    source = ctx.source_file
    zos = ZosDecoder(ctx)
    # The last statistics interval per (system, qmgr), see decode_record; a part of the dump
    # starts with those the records before it left.
    intervals: dict = dict(ctx.window.state) if ctx.window is not None else {}
    cells = 0  # values held in pending, all tables
    for rec in read_records(ctx):
        data = rec.data
        if zos.wants(data):
            yield from zos.decode(rec)
            continue
        st = _mq_subtype(data)
        if st is None:
            ctx.skip(_skip_reason(data))
            continue
        try:
            pre = (source, rec.offset, rec.number, None)
            post: tuple = ()
            last = None
            for item, (name, ident, values) in enumerate(decode_record(data, intervals)):
                if ident is not last:
                    last, post = ident, ident.values()
                table = TABLE_OF[name]
                rows = pending.setdefault(table, [])
                rows.append((*pre, item, *post, *values))
                cells += WIDTH[table]
                if len(rows) >= BATCH_ROWS[table]:
                    yield table, frame(table, rows)
                    pending[table] = []
                    cells -= len(rows) * WIDTH[table]
        except (RecordError, IndexError, ValueError) as exc:
            raise ctx.error(
                f"SMF {data[1]}.{st} record {rec.number}: {exc}", offset=rec.offset
            ) from None
        while cells > PENDING_CELLS:
            # Flush the table holding the most values until all pending fit the budget again.
            table = max(pending, key=lambda t: len(pending[t]) * WIDTH[t])
            rows = pending[table]
            yield table, frame(table, rows)
            pending[table] = []
            cells -= len(rows) * WIDTH[table]
    for table, rows in pending.items():
        if rows:
            yield table, frame(table, rows)
    yield from zos.flush()


PARSER = Parser(
    kind="smf_mq",
    description="IBM MQ SMF 115/116 binary dump (with or without RDW), with SMF 30/70-2/72-3",
    tables=ALL_TABLES + ZOS_TABLES,
    attributed_by_time=True,
    sniff=sniff,
    parse=parse,
    priority=20,
    mode="binary",
    split=split,
)
