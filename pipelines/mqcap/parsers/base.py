"""The contract every input-format parser follows.

A parser module in ``mqcap.parsers`` exposes ``PARSER``, a :class:`Parser`:

- ``kind``: short name recorded in the ingest ledger (``"driver_csv"``, ``"smf_mq"``...);
- ``tables``: the landing tables it writes, each a :class:`Table` with typed columns, units in
  the names; the warehouse creates them all up front so dbt sources always exist;
- ``attributed_by_time``: True when its rows carry their own time and system identity, so that
  dbt matches them to runs by time (``attribute_to_runs``), not only by their run folder: a file
  of it outside a run folder is then attributed ``by_time`` (``mqcap.ledger.files``), not
  reported as reaching no mart. CHSTATUS (timed only when its snapshots are) is decided per file;
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
import errno
import gzip
import hashlib
import io
import json
import os
import stat as stat_mod
import zlib
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

from mqcap.errors import InputError
from mqcap.settings import DEFAULT_MAX_EXPANDED_BYTES, DEFAULT_MAX_GZIP_RATIO

if TYPE_CHECKING:
    import polars as pl
    import pyarrow as pa

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

# DuckDB column type -> polars dtype name (polars is imported when a frame is made: a command
# that parses nothing, a no-change `mqcap run` say, does not pay for importing it).
_POLARS_TYPES: dict[str, tuple[str, tuple]] = {
    "VARCHAR": ("Utf8", ()),
    "BIGINT": ("Int64", ()),
    "INTEGER": ("Int32", ()),
    "SMALLINT": ("Int16", ()),
    "UBIGINT": ("UInt64", ()),
    "UINTEGER": ("UInt32", ()),
    "DOUBLE": ("Float64", ()),
    "BOOLEAN": ("Boolean", ()),
    "DATE": ("Date", ()),
    "TIMESTAMP": ("Datetime", ("us",)),
    "TIME": ("Time", ()),
    "BLOB": ("Binary", ()),
}


def polars_type(duckdb_type: str) -> Any:
    """Polars dtype for a DuckDB column type used in a :class:`Table`."""
    import polars as pl

    try:
        name, args = _POLARS_TYPES[duckdb_type.upper()]
    except KeyError:
        raise ValueError(f"unsupported landing column type {duckdb_type!r}") from None
    dtype = getattr(pl, name)
    return dtype(*args) if args else dtype


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

    def frame(self, rows: list[dict] | pl.DataFrame | pa.Table) -> pl.DataFrame:
        """Rows as a DataFrame with exactly this table's typed columns (missing ones NULL)."""
        import polars as pl

        if isinstance(rows, pl.DataFrame):
            df = rows
        elif _is_arrow_table(rows):
            df = pl.from_arrow(rows)
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

    def arrow(self, rows: list[dict] | pl.DataFrame | pa.Table) -> pa.Table:
        """Rows as the Arrow table ``self.frame(rows).to_arrow()`` gives, built straight from the
        values when every value is of its column's own Python type (float or int for DOUBLE, int
        for the integers, str, naive datetime...): a polars frame costs about 0.5 ms of fixed
        work per call, which a drop of small files pays once per file. Any other value (a str to
        be cast to a number, a bool, a tz-aware time, an int too large) takes ``frame``, so the
        result and the errors are the same either way.

        Example:
            Table("t", {"source_line": "BIGINT", "x": "DOUBLE"}).arrow([{"source_line": 2, "x": 1}])
            # pyarrow.Table source_line: int64, x: double (x = 1.0)
        """
        if isinstance(rows, list):
            fast = _arrow_of_rows(self, rows)
            if fast is not None:
                return fast
        else:
            typed = _arrow_of_typed_frame(self, rows)
            if typed is not None:
                return typed
        return self.frame(rows).to_arrow()


# DuckDB column type -> the Arrow type polars' ``to_arrow`` gives the column (large strings),
# so that a batch ``Table.arrow`` builds itself concatenates with one built through polars.
_ARROW_TYPES: dict[str, tuple[str, tuple]] = {
    "VARCHAR": ("large_string", ()),
    "BIGINT": ("int64", ()),
    "INTEGER": ("int32", ()),
    "SMALLINT": ("int16", ()),
    "UBIGINT": ("uint64", ()),
    "UINTEGER": ("uint32", ()),
    "DOUBLE": ("float64", ()),
    "BOOLEAN": ("bool_", ()),
    "DATE": ("date32", ()),
    "TIMESTAMP": ("timestamp", ("us",)),
    "TIME": ("time64", ("ns",)),
    "BLOB": ("large_binary", ()),
}
_ARROW_SCHEMAS: dict[tuple, Any] = {}


def arrow_schema(table: Table) -> pa.Schema:
    """The Arrow schema of ``table``'s typed batches (as polars' ``to_arrow`` gives them)."""
    key = tuple(table.columns.items())
    schema = _ARROW_SCHEMAS.get(key)
    if schema is None:
        import pyarrow as pa

        fields = []
        for col, duck in table.columns.items():
            name, args = _ARROW_TYPES[duck.upper()]
            fields.append(pa.field(col, getattr(pa, name)(*args)))
        schema = _ARROW_SCHEMAS[key] = pa.schema(fields)
    return schema


# Arrow type -> landing Arrow type casts that keep every value as it is, as polars' casts do
# (the compiled parsers give string views, times in microseconds, 32-bit counts).
_EXACT_CASTS = {
    ("string_view", "large_string"),
    ("string", "large_string"),
    ("time64[us]", "time64[ns]"),
    ("int32", "int64"),
    ("int16", "int64"),
    ("int16", "int32"),
}


def _is_arrow_table(rows: object) -> bool:
    return type(rows).__module__.startswith("pyarrow") and type(rows).__name__ == "Table"


def _arrow_of_typed_frame(table: Table, df: pl.DataFrame | pa.Table) -> pa.Table | None:
    """A frame (polars or Arrow) whose columns already have their landing types, as
    ``table``'s Arrow table (its columns in order, the missing ones NULL) without polars'
    casting select (the compiled parsers' batches: about 1 ms a batch); None when a column
    needs a cast or is unknown."""
    if len(df) == 0 or not set(df.column_names if _is_arrow_table(df) else df.columns) <= (
        table.columns.keys()
    ):
        return None
    import pyarrow as pa

    data = df if _is_arrow_table(df) else df.to_arrow()
    schema = arrow_schema(table)
    columns = dict(zip(data.column_names, data.columns, strict=True))
    arrays = []
    for field_ in schema:
        column = columns.get(field_.name)
        if column is None:
            arrays.append(pa.chunked_array([pa.nulls(data.num_rows, field_.type)]))
        elif column.type == field_.type:
            arrays.append(column)
        elif (str(column.type), str(field_.type)) in _EXACT_CASTS:
            arrays.append(column.cast(field_.type))
        else:
            return None
    return pa.Table.from_arrays(arrays, schema=schema)


def _arrow_of_rows(table: Table, rows: list[dict]) -> pa.Table | None:
    """``rows`` as ``table``'s Arrow table, or None when a value is not of its column's plain
    Python type (``Table.arrow`` then goes through polars) or an unknown column appears."""
    from mqcap import arrowcols

    if not rows:
        return None  # frame() gives the empty table
    return arrowcols.table(arrow_schema(table), rows)


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
    # Set by a parser that recognised content which holds no rows by nature (an RMF service
    # policy page): what it is. Otherwise a non-empty file that lands no row is refused.
    nothing_to_land: str | None = None

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


Batch = tuple[str, "list[dict] | pl.DataFrame"]


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
    # Rows carry their own time and system identity and find their runs by time in dbt
    # (the ledger's ``by_time`` attribution, ``mqcap.ledger.files.by_time_kinds``).
    attributed_by_time: bool = False

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


# -- how raw files are opened ---------------------------------------------------------------------
# A gzip file smaller than this counts as this large for the ratio (a small file of blanks may
# expand a thousand times and still be harmless): it may expand to ratio x 1 MiB.
RATIO_FLOOR_BYTES = 1 << 20
# Files up to this size are read once into memory: hashed and parsed from those same bytes.
# Larger ones are read from one open file (never reopened by name) and their stat (size,
# mtime, ctime, inode) is compared before and after the read: changed, the file is read again.
SNAPSHOT_BYTES = 32 << 20


@dataclass(frozen=True)
class ReadRules:
    """How raw files are opened: beneath ``root`` only (None: anywhere; set by ingest), and
    the gzip limits (``max_expanded_bytes`` in all, ``max_gzip_ratio`` times the file's size)."""

    root: str | None = None
    max_expanded_bytes: int = DEFAULT_MAX_EXPANDED_BYTES
    max_gzip_ratio: int = DEFAULT_MAX_GZIP_RATIO


_RULES: ContextVar[ReadRules] = ContextVar("mqcap_read_rules", default=ReadRules())  # noqa: B039
# Files pinned by :func:`pinned`: path -> their bytes (small files) or their open descriptor.
_PINNED: ContextVar[dict[str, bytes | int] | None] = ContextVar("mqcap_pinned", default=None)


@contextmanager
def reading(rules: ReadRules) -> Iterator[None]:
    """Raw files opened inside this block follow ``rules`` (this thread or task only).

    Example:
        with reading(ReadRules(root="/data/raw")): detect(path)
    """
    token = _RULES.set(rules)
    try:
        yield
    finally:
        _RULES.reset(token)


def read_rules() -> ReadRules:
    return _RULES.get()


class OutsideRoot(OSError):
    """A raw path that leads outside the raw root (a symlink, perhaps re-pointed after it was
    listed): never opened. An environment error (``mqcap.faults``): skipped, not set aside."""

    def __init__(self, path: str | os.PathLike, target: str) -> None:
        super().__init__(errno.EXDEV, "leads outside the raw root", str(path))
        self.why = "a link leading outside the raw root: not read (point it inside the raw root)"
        self.target = target


class ChangedWhileRead(OSError):
    """The file kept changing while it was read: skipped, retried on the next ingest."""

    def __init__(self, path: str | os.PathLike) -> None:
        super().__init__(errno.EAGAIN, "changed while it was read", str(path))
        self.why = "changed while it was read (still being written?)"


def _beneath(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def _opened_path(fd: int) -> str | None:
    """The path of the file an open descriptor is on (Linux), or None where unknown."""
    try:
        return os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return None


def open_raw(path: str | os.PathLike) -> int:
    """An open descriptor (read-only) on a raw file, confined beneath the rules' root.

    The path is resolved and refused when it leads outside the root; the resolved path is opened
    with ``O_NOFOLLOW`` (a link swapped in after resolving fails) and the opened file is checked
    again: by its own path (``/proc/self/fd``) where the system tells it, else by comparing its
    identity (``st_dev``, ``st_ino``) with the resolved path's. A folder raises
    ``IsADirectoryError``; a FIFO or device is not waited on.
    """
    root = _RULES.get().root
    flags = os.O_RDONLY | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOCTTY", 0)
    if root is None:
        fd = os.open(path, flags)
        if stat_mod.S_ISDIR(os.fstat(fd).st_mode):
            os.close(fd)
            raise IsADirectoryError(errno.EISDIR, "Is a directory", str(path))
        return fd
    real = os.path.realpath(path)
    if not _beneath(real, root):
        raise OutsideRoot(path, real)
    fd = os.open(real, flags | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    try:
        st = os.fstat(fd)
        if stat_mod.S_ISDIR(st.st_mode):
            raise IsADirectoryError(errno.EISDIR, "Is a directory", str(path))
        if not stat_mod.S_ISREG(st.st_mode):
            raise OSError(errno.EINVAL, "not a regular file", str(path))
        opened = _opened_path(fd)
        if opened is not None:
            if not _beneath(opened, root):
                raise OutsideRoot(path, opened)
        else:
            now = os.stat(real, follow_symlinks=False)
            if (now.st_dev, now.st_ino) != (st.st_dev, st.st_ino):
                raise ChangedWhileRead(path)
    except BaseException:
        os.close(fd)
        raise
    return fd


class _PreadFile(io.RawIOBase):
    """A read-only stream over a shared descriptor with its own position (``os.pread``)."""

    def __init__(self, fd: int) -> None:
        self.fd, self.pos = fd, 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def readinto(self, buf) -> int:
        data = os.pread(self.fd, len(buf), self.pos)
        buf[: len(data)] = data
        self.pos += len(data)
        return len(data)

    def seek(self, offset: int, whence: int = 0) -> int:
        if whence == 0:
            self.pos = offset
        elif whence == 1:
            self.pos += offset
        else:
            self.pos = os.fstat(self.fd).st_size + offset
        return self.pos

    def tell(self) -> int:
        return self.pos


def _open_source(path: str | os.PathLike) -> BinaryIO:
    """The raw bytes of ``path``: its pinned copy or descriptor (:func:`pinned`), else the file
    opened beneath the root (:func:`open_raw`)."""
    pins = _PINNED.get()
    held = pins.get(os.fspath(path)) if pins else None
    if isinstance(held, bytes):
        return io.BytesIO(held)
    if isinstance(held, int):
        return io.BufferedReader(_PreadFile(held), 1 << 16)
    return os.fdopen(open_raw(path), "rb")


class GzipLimitError(InputError):
    """A gzip file that expands past the limits (``ReadRules``): refused, nothing parsed."""


class GzipMeter:
    """Counts what a gzip file expands to and raises :class:`GzipLimitError` past the rules'
    limits: ``max_expanded_bytes`` in all, or ``max_gzip_ratio`` times the compressed bytes so
    far (at least ``RATIO_FLOOR_BYTES``).

    Example:
        meter = GzipMeter("a.gz"); meter.check(expanded=10 << 30, compressed=1 << 20)
    """

    def __init__(self, source_file: str, rules: ReadRules | None = None) -> None:
        self.source_file = source_file
        self.rules = rules or _RULES.get()

    def check(self, expanded: int, compressed: int) -> None:
        r = self.rules
        if expanded > r.max_expanded_bytes:
            why = (
                f"more than {r.max_expanded_bytes:,} bytes (MQCAP_MAX_EXPANDED_BYTES, setting "
                "max_expanded_bytes)"
            )
        elif expanded > r.max_gzip_ratio * max(compressed, RATIO_FLOOR_BYTES):
            why = (
                f"more than {r.max_gzip_ratio} times its size ({expanded:,} bytes from "
                f"{compressed:,} compressed; MQCAP_MAX_GZIP_RATIO, setting max_gzip_ratio)"
            )
        else:
            return
        raise GzipLimitError(
            f"gzip data expands to {why}: refused as a decompression bomb, nothing landed "
            "(raise the limit if the capture is real)",
            file=self.source_file,
            offset=expanded,
        )


class _Expander:
    """Inflates raw gzip chunks only to count them (:class:`GzipMeter`); damaged data stops
    the count (the parse says where the damage is)."""

    def __init__(self, meter: GzipMeter) -> None:
        self.meter = meter
        self.d = zlib.decompressobj(31)
        self.expanded = 0
        self.compressed = 0
        self.done = False

    def feed(self, chunk: bytes) -> None:
        if self.done:
            return
        self.compressed += len(chunk)
        data = chunk
        try:
            while data:
                out = self.d.decompress(data, 1 << 20)
                self.expanded += len(out)
                self.meter.check(self.expanded, self.compressed)
                if self.d.eof:  # another member may follow
                    data = self.d.unused_data
                    if not data.startswith(GZIP_MAGIC):
                        self.done = bool(data)
                        return
                    self.d = zlib.decompressobj(31)
                else:
                    data = self.d.unconsumed_tail
        except zlib.error:
            self.done = True


class _Gunzip(gzip.GzipFile):
    """A gzip stream whose damage is bad input naming the file and the decompressed offset,
    and whose expansion is held to the limits (:class:`GzipMeter`)."""

    def __init__(self, raw: BinaryIO, source_file: str) -> None:
        super().__init__(fileobj=raw, mode="rb")
        self.source_file = source_file
        self._raw = raw
        self._meter = GzipMeter(source_file)
        self._expanded = 0

    def _damaged(self, exc: Exception) -> InputError:
        return InputError(
            f"damaged gzip data ({type(exc).__name__}: {exc})",
            file=self.source_file,
            offset=self.tell(),
        )

    def _counted(self, data: bytes) -> bytes:
        self._expanded += len(data)
        self._meter.check(self._expanded, self._raw.tell())
        return data

    def read(self, size: int = -1) -> bytes:
        try:
            return self._counted(super().read(size))
        except (gzip.BadGzipFile, EOFError, zlib.error) as exc:
            raise self._damaged(exc) from None

    def read1(self, size: int = -1) -> bytes:
        try:
            return self._counted(super().read1(size))
        except (gzip.BadGzipFile, EOFError, zlib.error) as exc:
            raise self._damaged(exc) from None

    def readline(self, size: int | None = -1) -> bytes:
        try:
            return self._counted(super().readline(size))
        except (gzip.BadGzipFile, EOFError, zlib.error) as exc:
            raise self._damaged(exc) from None

    def close(self) -> None:
        try:
            super().close()
        finally:
            self._raw.close()


def is_gzip(path: Path) -> bool:
    with _open_source(path) as fh:
        return fh.read(2) == GZIP_MAGIC


def open_input(path: Path, source_file: str | None = None) -> Any:
    """The file's content as a binary stream: gzip files (by their magic bytes) are decompressed
    transparently, so positions (lines, byte offsets) refer to the decompressed content.

    The file is opened beneath the raw root (:func:`open_raw`), or is the copy :func:`pinned`
    holds; gzip expansion is held to the limits (:class:`GzipMeter`).

    Example:
        with open_input(ctx.path, ctx.source_file) as fh: head = fh.read(4)
    """
    fh = _open_source(path)
    try:
        gz = fh.read(2) == GZIP_MAGIC
        fh.seek(0)
    except BaseException:
        fh.close()
        raise
    if gz:
        return _Gunzip(fh, source_file or path.name)
    return fh


@dataclass
class Pin:
    """What :func:`pinned` read: the stat at the read, the sha256 of exactly the bytes the
    parse reads, and a gzip refusal found while hashing (else None)."""

    size: int
    mtime_ns: int
    sha256: str
    refused: GzipLimitError | None = None
    changed: Callable[[], bool] = lambda: False


def _ident(st: os.stat_result) -> tuple:
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


@contextmanager
def pinned(path: Path, source_file: str, attempts: int = 3) -> Iterator[Pin]:
    """Open ``path`` once (beneath the root) and hash it; inside the block every
    :func:`open_input` of ``path`` reads those same bytes. A small file is read into memory
    (whose stat did not change during the read); a large one stays open and ``Pin.changed()``
    says whether its stat moved since (then read it again). A gzip file is inflated (only
    counted) while it is hashed, so a decompression bomb is refused before any parsing.

    Raises :class:`ChangedWhileRead` when the file changed during each of ``attempts`` reads.
    """
    key = os.fspath(path)
    fd = open_raw(path)
    try:
        for _ in range(attempts):
            st = os.fstat(fd)
            h = hashlib.sha256()
            expander: _Expander | None = None
            refused: GzipLimitError | None = None
            held: bytes | int
            if st.st_size <= SNAPSHOT_BYTES:
                chunks, at = [], 0
                while chunk := os.pread(fd, 1 << 20, at):
                    chunks.append(chunk)
                    at += len(chunk)
                held = b"".join(chunks)
                if _ident(os.fstat(fd)) != _ident(st):
                    continue
                h.update(held)
                if held[:2] == GZIP_MAGIC:
                    expander = _Expander(GzipMeter(source_file))
                    try:
                        expander.feed(held)
                    except GzipLimitError as exc:
                        refused = exc
            else:
                held, at = fd, 0
                while chunk := os.pread(fd, 1 << 20, at):
                    if at == 0 and chunk[:2] == GZIP_MAGIC:
                        expander = _Expander(GzipMeter(source_file))
                    h.update(chunk)
                    at += len(chunk)
                    if expander is not None and refused is None:
                        try:
                            expander.feed(chunk)
                        except GzipLimitError as exc:
                            refused = exc
                if _ident(os.fstat(fd)) != _ident(st):
                    continue
            pin = Pin(st.st_size, st.st_mtime_ns, h.hexdigest(), refused)
            if isinstance(held, int):
                pin.changed = lambda st=st: _ident(os.fstat(fd)) != _ident(st)
            pins = dict(_PINNED.get() or {})
            pins[key] = held
            token = _PINNED.set(pins)
            try:
                yield pin
            finally:
                _PINNED.reset(token)
            return
        raise ChangedWhileRead(path)
    finally:
        os.close(fd)


def sha256_of(path: Path) -> str:
    """The sha256 of a raw file (opened beneath the root; the pinned bytes if pinned)."""
    h = hashlib.sha256()
    with _open_source(path) as fh:
        while chunk := fh.read(1 << 20):
            h.update(chunk)
    return h.hexdigest()


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


def at_line(err: InputError, line: int) -> InputError:
    """``err`` placed at ``line`` if it names no line: damaged gzip data or a gzip limit found
    while reading a text file names a byte of the decompressed content, a text format names
    lines.

    Example:
        >>> str(at_line(InputError("damaged gzip data", file="a.txt", offset=0), 1))
        'a.txt line 1: damaged gzip data'
    """
    if err.line is not None:
        return err
    placed = type(err).__new__(type(err))  # the same kind (GzipLimitError stays one)
    placed.__dict__.update(err.__dict__, line=line, offset=None)
    placed.args = (f"{placed.where()}: {placed.reason}",)
    return placed


def _read_text(fh: Any, n: int, line: int) -> bytes:
    """``fh.read(n)`` of a text file whose first unread byte is on ``line``."""
    try:
        return fh.read(n)
    except InputError as err:
        raise at_line(err, line) from None


def read_text_upto(fh: Any, n: int) -> bytes:
    """Up to ``n`` bytes of a small text file opened by :func:`open_input`; damaged gzip data
    names the line it begins on.

    Example:
        data = read_text_upto(fh, MAX_MANIFEST_BYTES + 1)
    """
    parts: list[bytes] = []
    while n > 0:
        try:
            piece = fh.read1(min(n, 1 << 16))
        except InputError as err:
            raise at_line(err, b"".join(parts).count(b"\n") + 1) from None
        if not piece:
            break
        parts.append(piece)
        n -= len(piece)
    return b"".join(parts)


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
            try:
                raw = fh.readline(MAX_LINE_BYTES + 1)
            except InputError as err:  # damaged gzip data: the line it begins on
                raise at_line(err, lineno + 1) from None
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
        block = _read_text(fh, chunk_bytes, lineno)
        bom = len(UTF8_BOM) if block.startswith(UTF8_BOM) else 0
        if bom:
            block = block[bom:] or _read_text(fh, chunk_bytes, lineno)
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
                    block = _read_text(fh, chunk_bytes, lineno)
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
            block = _read_text(fh, chunk_bytes, lineno)
