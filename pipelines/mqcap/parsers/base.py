"""The contract every input-format parser follows.

A parser module in ``mqcap.parsers`` exposes ``PARSER``, a :class:`Parser`:

- ``kind``: short name recorded in the ingest ledger (``"driver_csv"``, ``"smf_mq"``...);
- ``tables``: the landing tables it writes, each a :class:`Table` with typed columns, units in
  the names; the warehouse creates them all up front so dbt sources always exist;
- ``sniff(head, name)``: True when the first bytes (up to 64 KiB) look like this format. Content
  decides; the name is only a tie-breaker;
- ``parse(ctx)``: a generator of ``(table_name, rows)`` batches. ``rows`` is a list of dicts or a
  polars DataFrame. Batches keep memory bounded on large files. Every row carries its lineage:
  ``source_file`` plus ``source_line`` (text) or ``source_offset`` (+ ``source_record``) (binary).
  Bad input raises ``ctx.error(...)`` naming the position; lines the parser does not know are
  counted with ``ctx.unknown(...)``, not fatal.

The ingest layer adds ``file_id`` (the ledger row) to every landed row and lands all batches of
one file in one transaction, so a failure part-way leaves nothing of that file behind.
"""

from __future__ import annotations

import csv
import gzip
import json
import zlib
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import polars as pl

from mqcap.errors import InputError

GZIP_MAGIC = b"\x1f\x8b"
UTF8_BOM = b"\xef\xbb\xbf"
# No line of a real capture or report comes near this; a longer one is refused before it is
# held in memory (a 2 GB file without a line end costs at most this much).
MAX_LINE_BYTES = 16 << 20

# Lineage columns a parser may set, per family of formats.
TEXT_LINEAGE = {"source_file": "VARCHAR", "source_line": "BIGINT"}
BINARY_LINEAGE = {
    "source_file": "VARCHAR",
    "source_offset": "BIGINT",  # byte offset of the record (its RDW) in the (decompressed) file
    "source_record": "BIGINT",  # record number in the file, from 1
    "source_item": "BIGINT",  # the row's number among the rows of its record, from 1
}
# A table fed by a text format and by binary records (RMF reports and SMF 70/72, the CPU CSV
# and SMF 30): a row has source_line, or source_offset + source_record + source_item.
TEXT_OR_BINARY_LINEAGE = {**TEXT_LINEAGE, **BINARY_LINEAGE}

_POLARS_TYPES: dict[str, Any] = {
    "VARCHAR": pl.Utf8,
    "BIGINT": pl.Int64,
    "INTEGER": pl.Int32,
    "SMALLINT": pl.Int16,
    "UBIGINT": pl.UInt64,
    "UINTEGER": pl.UInt32,
    "DOUBLE": pl.Float64,
    "BOOLEAN": pl.Boolean,
    "DATE": pl.Date,
    "TIMESTAMP": pl.Datetime("us"),
    "TIME": pl.Time,
    "BLOB": pl.Binary,
}


def polars_type(duckdb_type: str) -> Any:
    """Polars dtype for a DuckDB column type used in a :class:`Table`."""
    try:
        return _POLARS_TYPES[duckdb_type.upper()]
    except KeyError:
        raise ValueError(f"unsupported landing column type {duckdb_type!r}") from None


@dataclass(frozen=True)
class Table:
    """A landing table: ``landing.<name>``; ``columns`` maps name -> DuckDB type, lineage included.

    Example:
        Table("driver_results", {"source_file": "VARCHAR", "source_line": "BIGINT",
                                 "rate_per_s": "DOUBLE"}, "One row per run in a results CSV")
    """

    name: str
    columns: dict[str, str]
    description: str = ""
    # Rows that name their own record (time + system / queue manager): True = every column but
    # lineage, a tuple = these columns. A row equal to one of an earlier-loaded file is a
    # second copy of the same record and does not count (mqcap.duplicates, macros/first_copy).
    identity: bool | tuple[str, ...] = False

    def polars_schema(self) -> dict[str, Any]:
        return {c: polars_type(t) for c, t in self.columns.items()}

    def frame(self, rows: list[dict] | pl.DataFrame) -> pl.DataFrame:
        """Rows as a DataFrame with exactly this table's typed columns (missing ones NULL)."""
        if isinstance(rows, pl.DataFrame):
            df = rows
        else:
            df = pl.DataFrame(rows, schema_overrides=None, infer_schema_length=None)
        unknown = set(df.columns) - set(self.columns)
        if unknown:
            raise ValueError(f"landing.{self.name} has no column(s) {sorted(unknown)}")
        exprs = []
        for col, typ in self.polars_schema().items():
            if col in df.columns:
                exprs.append(pl.col(col).cast(typ, strict=True))
            else:
                exprs.append(pl.lit(None, dtype=typ).alias(col))
        return df.select(exprs) if len(df) else pl.DataFrame(schema=self.polars_schema())


@dataclass
class ParseContext:
    """What a parser gets: the file, its name for messages and lineage, counters, progress."""

    path: Path
    source_file: str
    size: int = 0
    unknown_lines: Counter = field(default_factory=Counter)
    skipped: Counter = field(default_factory=Counter)
    on_progress: Callable[[int], None] | None = None
    # A part of the file to parse instead of all of it (``Parser.split`` made it), or None.
    window: Any = None

    def error(
        self, message: str, *, line: int | None = None, offset: int | None = None
    ) -> InputError:
        """An :class:`InputError` naming this file; ``raise ctx.error(...)``."""
        return InputError(message, file=self.source_file, line=line, offset=offset)

    def unknown(self, what: str = "line", n: int = 1) -> None:
        self.unknown_lines[what] += n

    def skip(self, what: str, n: int = 1) -> None:
        self.skipped[what] += n

    def progress(self, bytes_done: int) -> None:
        if self.on_progress is not None:
            self.on_progress(bytes_done)


Batch = tuple[str, list[dict] | pl.DataFrame]


@dataclass(frozen=True)
class Parser:
    kind: str
    description: str
    tables: tuple[Table, ...]
    sniff: Callable[[bytes, str], bool]
    parse: Callable[[ParseContext], Iterator[Batch]]
    # Lower sniffs first: specific formats before generic CSV.
    priority: int = 50
    # "text" formats are decoded as text; "binary" formats are read as bytes.
    mode: str = "text"
    # (path, source name, part size) -> the parts (``ParseContext.window``) whose rows, parsed
    # one by one in any order and put in order, are the file's; None when it cannot be split.
    split: Callable[[Path, str, int], list | None] | None = None

    def table(self, name: str) -> Table:
        for t in self.tables:
            if t.name == name:
                return t
        raise KeyError(f"{self.kind} declares no landing table {name!r}")


def csv_cells(ctx: ParseContext, line: str, lineno: int) -> list[str]:
    """The fields of one CSV line; a line the csv module refuses names its line number.

    Example:
        fields = csv_cells(ctx, line, lineno)
    """
    try:
        return next(csv.reader([line]), [])
    except csv.Error as exc:
        raise ctx.error(f"not a valid CSV line: {exc}", line=lineno) from None


def csv_rows(ctx: ParseContext, *, encoding: str = "utf-8") -> Iterator[tuple[int, str, list[str]]]:
    """(first line number, first line's text, fields) of each record of a CSV file.

    The file is read by one ``csv.reader`` (a quoted field may hold line ends: its record is
    numbered by the line it starts on), over :func:`read_text_lines` (encoding, NUL bytes and
    the line cap checked per line); a record the csv module refuses names the line it reached.

    Example:
        for lineno, text, fields in csv_rows(ctx): ...
    """
    at: list = [0, None]  # the line being read; (line number, text) of the record's first line

    def lines() -> Iterator[str]:
        for lineno, line in read_text_lines(ctx, encoding=encoding):
            at[0] = lineno
            if at[1] is None:
                at[1] = (lineno, line)
            yield line + "\n"

    reader = csv.reader(lines())
    while True:
        try:
            fields = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            raise ctx.error(f"not a valid CSV line: {exc}", line=at[0]) from None
        (lineno, text), at[1] = at[1], None
        yield lineno, text, fields


def csv_records(
    ctx: ParseContext,
    *,
    required: tuple[str, ...],
    what: str,
    canonical: Callable[[str], str] = lambda c: c.strip().lower().replace(" ", "_"),
) -> Iterator[tuple[int, dict[str, str]]]:
    """(line number, {column: text}) for each data line of a CSV with a header row.

    Blank lines and ``#`` comments are skipped; the header (names through ``canonical``) must
    have the ``required`` columns and every row its width; errors name the line.

    Example:
        for lineno, rec in csv_records(ctx, required=("rate_per_s",), what="results CSV"): ...
    """
    header: list[str] | None = None
    for lineno, first_line, fields in csv_rows(ctx, encoding="utf-8-sig"):
        if not first_line.strip() or first_line.lstrip().startswith("#"):
            continue
        if header is None:
            header = [canonical(c) for c in fields]
            missing = [r for r in required if r not in header]
            if missing:
                raise ctx.error(f"header lacks column(s) {missing}", line=lineno)
            continue
        if len(fields) != len(header):
            raise ctx.error(f"expected {len(header)} fields, found {len(fields)}", line=lineno)
        yield lineno, dict(zip(header, fields, strict=True))
    if header is None:
        raise ctx.error(f"empty {what} (no header)", line=1)


def extra_json(values: dict[str, Any]) -> str | None:
    """The columns a table has no place for, as a JSON object (NULL values left out), or None.

    JSON, not ``k=v;`` text: a value may hold ``;``, ``=`` or quotes. Read it in SQL with
    DuckDB's JSON functions (``extra ->> '$.step'``).

    Example:
        >>> extra_json({"comment": "a;b=c", "step": None, "n": 3})
        '{"comment": "a;b=c", "n": 3}'
    """
    kept = {k: v for k, v in values.items() if v is not None}
    return json.dumps(kept, ensure_ascii=False) if kept else None


def iso_timestamp(ctx: ParseContext, lineno: int, col: str, text: str) -> datetime | None:
    """An ISO-8601 timestamp cell as a naive datetime (offset dropped); empty -> None.

    Example:
        iso_timestamp(ctx, 3, "interval_start", "2021-06-01T10:00:00")
    """
    text = text.strip()
    if not text:
        return None
    try:
        return datetime.fromisoformat(text).replace(tzinfo=None)
    except ValueError:
        raise ctx.error(
            f"column {col}: expected an ISO timestamp, got {text!r}", line=lineno
        ) from None


class _Gunzip(gzip.GzipFile):
    """A gzip stream whose damage is bad input naming the file and the decompressed offset."""

    def __init__(self, path: Path, source_file: str) -> None:
        super().__init__(filename=str(path), mode="rb")
        self.source_file = source_file

    def _damaged(self, exc: Exception) -> InputError:
        return InputError(
            f"damaged gzip data ({type(exc).__name__}: {exc})",
            file=self.source_file,
            offset=self.tell(),
        )

    def read(self, size: int = -1) -> bytes:
        try:
            return super().read(size)
        except (gzip.BadGzipFile, EOFError, zlib.error) as exc:
            raise self._damaged(exc) from None

    def read1(self, size: int = -1) -> bytes:
        try:
            return super().read1(size)
        except (gzip.BadGzipFile, EOFError, zlib.error) as exc:
            raise self._damaged(exc) from None

    def readline(self, size: int | None = -1) -> bytes:
        try:
            return super().readline(size)
        except (gzip.BadGzipFile, EOFError, zlib.error) as exc:
            raise self._damaged(exc) from None


def is_gzip(path: Path) -> bool:
    with open(path, "rb") as fh:
        return fh.read(2) == GZIP_MAGIC


def open_input(path: Path, source_file: str | None = None) -> Any:
    """The file's content as a binary stream: gzip files (by their magic bytes) are decompressed
    transparently, so positions (lines, byte offsets) refer to the decompressed content.

    Example:
        with open_input(ctx.path, ctx.source_file) as fh: head = fh.read(4)
    """
    if is_gzip(path):
        return _Gunzip(path, source_file or path.name)
    return open(path, "rb")


def read_head(path: Path, n: int) -> bytes:
    """The first ``n`` bytes of the (decompressed) content, a UTF-8 BOM removed.

    Example:
        head = read_head(path, 65536)
    """
    parts: list[bytes] = []
    with open_input(path) as fh:
        try:  # in pieces: a damaged gzip file still shows what comes before the damage
            while n > 0 and (piece := fh.read1(min(n, 4096))):
                parts.append(piece)
                n -= len(piece)
        except InputError:
            pass
    return b"".join(parts).removeprefix(UTF8_BOM)


def read_text_lines(ctx: ParseContext, *, encoding: str = "utf-8") -> Iterator[tuple[int, str]]:
    """(line number from 1, line without newline) of a text file; bad encoding names the line.

    A UTF-8 byte-order mark at the top is dropped whatever the encoding (Windows editors add
    one); a line longer than ``MAX_LINE_BYTES`` is refused before it is read whole.

    Example:
        for lineno, line in read_text_lines(ctx): ...
    """
    done = 0
    with open_input(ctx.path, ctx.source_file) as fh:
        lineno = 0
        while True:
            raw = fh.readline(MAX_LINE_BYTES + 1)
            if not raw:
                break
            lineno += 1
            if len(raw) > MAX_LINE_BYTES:
                raise ctx.error(
                    f"line longer than {MAX_LINE_BYTES} bytes (no line end): not a text "
                    "capture or report",
                    line=lineno,
                )
            if lineno == 1:
                raw = raw.removeprefix(UTF8_BOM)
            done += len(raw)
            if b"\x00" in raw:
                raise ctx.error("binary data (NUL byte) in a text file", line=lineno)
            try:
                text = raw.decode(encoding)
            except UnicodeDecodeError as exc:
                raise ctx.error(
                    f"not {encoding} text (byte 0x{raw[exc.start]:02x} at column {exc.start + 1})",
                    line=lineno,
                ) from None
            if lineno % 10000 == 0:
                ctx.progress(done)
            yield lineno, text.rstrip("\r\n")
        ctx.progress(done)


TEXT_CHUNK_BYTES = 4 << 20


def text_chunks(
    ctx: ParseContext, chunk_bytes: int = TEXT_CHUNK_BYTES
) -> Iterator[tuple[int, bytes]]:
    """(number of the first line, bytes of whole lines) of a text file, a few MB at a time.

    What :func:`read_text_lines` refuses is refused here, naming the same line: a NUL byte, a
    line longer than ``MAX_LINE_BYTES`` (line 1's UTF-8 BOM counted, then dropped). Chunks end
    at a line end (the last one at the end of the file). The chunked parsers decode and split a
    chunk at once instead of taking a Python step per line.

    Example:
        for first, data in text_chunks(ctx): lines = data.decode("latin-1").split("\\n")
    """
    # Only the first line of a chunk (it continues the rest of the last one) can outgrow the
    # cap when chunks are no larger than the cap.
    chunk_bytes = min(chunk_bytes, MAX_LINE_BYTES)
    lineno = 1
    done = 0
    rest = b""
    with open_input(ctx.path, ctx.source_file) as fh:
        block = fh.read(chunk_bytes)
        bom = len(UTF8_BOM) if block.startswith(UTF8_BOM) else 0
        if bom:
            block = block[bom:] or fh.read(chunk_bytes)
        while True:
            data = rest + block
            if block:
                first_end = data.find(b"\n")
                cap = MAX_LINE_BYTES - (bom if lineno == 1 else 0)
                if (first_end < 0 and len(data) > cap) or first_end >= cap:
                    raise ctx.error(
                        f"line longer than {MAX_LINE_BYTES} bytes (no line end): not a text "
                        "capture or report",
                        line=lineno,
                    )
                cut = data.rfind(b"\n") + 1
                if cut == 0:
                    rest = data
                    block = fh.read(chunk_bytes)
                    continue
                data, rest = data[:cut], data[cut:]
            elif not data:
                break
            nul = data.find(b"\x00")
            if nul >= 0:
                raise ctx.error(
                    "binary data (NUL byte) in a text file", line=lineno + data.count(b"\n", 0, nul)
                )
            yield lineno, data
            lineno += data.count(b"\n") + (not data.endswith(b"\n"))
            done += len(data)
            ctx.progress(done)
            if not block:
                break
            block = fh.read(chunk_bytes)
