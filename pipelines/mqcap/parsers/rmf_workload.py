"""RMF Postprocessor WORKLOAD ACTIVITY report (WLMGL), text (docs/formats.md section 5).

One landed row per interval and service-class or report-class section (and period, when the
section names one): the SERVICE TIME block (CPU, SRB, RCT, IIT, HST, AAP, IIP seconds in the
interval) and the APPL % block (CP, AAPCP, IIPCP, AAP, IIP). MQ performance teams give each
address space (MSTR, CHIN, TCPIP, application) its own report class, so this is where CPU per
address space comes from.

Both block layouts are read: the older one where SERVICE TIME and APPL % are columns of the
big ``-TRANSACTIONS- TRANS-TIME ... SERVICE TIME ---APPL %---`` block (z/OS V2R2), and the
V2R3 one with a separate ``----SERVICE----   SERVICE TIME  ---APPL %---`` block. Values are
found by their names in row order, not by column position, because the copies of these reports
that circulate (PDF text) lost their alignment: ``CPU 356803K`` (service units) and ``CPU
6153.266`` (seconds) share a row and are told apart by their order and shape.

Workload and policy total sections (``REPORT BY: POLICY=x WORKLOAD=y`` without a class) and
the service policy page are recognised and skipped (counted). Pages of other RMF reports in the
same file are skipped and counted; a file holding only other RMF reports (e.g. CPU ACTIVITY) is
rejected with an error naming the report, since mqcap does not read those.

A plain-text report (latin-1 text without control characters but the ASCII blanks, form feeds
among them, and without NEL or no-break spaces) is read by the compiled parser
(``native/src/rmf_workload.rs``, :func:`parse_native`) when it is built; any other one by
:func:`parse_python`, the reference the compiled parser is tested against
(``tests/test_native_workload.py``): the same rows, errors and counts.

Example section::

    REPORT BY: POLICY=BASEPOL    WORKLOAD=SYSTEM     SERVICE CLASS=SYSSTC     RESOURCE GROUP=*NONE
    ...
    -TRANSACTIONS- ... ---SERVICE--- SERVICE TIME  ---APPL %--- ...
    AVG     253.29 ... IOC      2237K  CPU 6153.266  CP    672.77 ...
"""

from __future__ import annotations

import ctypes
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from mqcap.arrowcols import constant_string
from mqcap.errors import InputError
from mqcap.parsers import _native, _rmf
from mqcap.parsers._lazy import lazy_module
from mqcap.parsers.base import (
    MAX_LINE_BYTES,
    TEXT_OR_BINARY_LINEAGE,
    UTF8_BOM,
    Batch,
    ParseContext,
    Parser,
    Table,
    open_input,
    text_chunks,
)

pl = lazy_module("polars", __name__, "pl")

ST_KEYS = {"CPU": "cpu_s", "SRB": "srb_s", "RCT": "rct_s", "IIT": "iit_s", "HST": "hst_s",
           "AAP": "aap_s", "IIP": "iip_s"}  # fmt: skip
APPL_KEYS = {"CP": "appl_cp_pct", "AAPCP": "appl_aapcp_pct", "IIPCP": "appl_iipcp_pct",
             "AAP": "appl_aap_pct", "IIP": "appl_iip_pct"}  # fmt: skip

TABLE = Table(
    "rmf_workload",
    {
        **TEXT_OR_BINARY_LINEAGE,
        "sysplex": "VARCHAR",
        "zos_level": "VARCHAR",
        "interval_start": "TIMESTAMP",
        "interval_s": "DOUBLE",
        "policy": "VARCHAR",
        "workload": "VARCHAR",
        "class_kind": "VARCHAR",
        "class_name": "VARCHAR",
        "resource_group": "VARCHAR",
        "period": "INTEGER",
        "importance": "VARCHAR",
        **{c: "DOUBLE" for c in ST_KEYS.values()},
        **{c: "DOUBLE" for c in APPL_KEYS.values()},
    },
    "One row per RMF interval and WLM service- or report-class section (and period): "
    "SERVICE TIME seconds and APPL %.",
    identity=True,
)

BATCH_ROWS = 20000
BLOCK_MAX_ROWS = 12
_CLASS = re.compile(
    r"POLICY=(?P<policy>\S+)\s+(?:WORKLOAD=(?P<workload>\S+)\s+)?"
    r"(?P<kind>SERVICE|REPORT) CLASS=(?P<name>\S+)"
)
_SUMMARY = re.compile(r"REPORT BY:\s*POLICY=\S+")
_GROUP = re.compile(r"RESOURCE GROUP=(\S+)")
_PERIOD = re.compile(r"PERIOD=(\d{1,4})\b")
_IMPORTANCE = re.compile(r"IMPORTANCE=(\S+)")
_VALUE = re.compile(r"-?\d[\d.]*[KMGT]?|-?\.\d+|N/A|\*+")


@dataclass
class Section:
    line: int
    interval_key: tuple
    row: dict
    block_seen: bool = False
    in_block: bool = False
    block_rows: int = 0
    values: dict = field(default_factory=dict)


def sniff(head: bytes, name: str) -> bool:
    titles = _rmf.head_titles(head)
    if _rmf.WORKLOAD_TITLE in titles:
        return True
    # Other RMF Postprocessor reports are claimed so that ingest can say which report it is.
    return bool(titles) and _rmf.CRYPTO_TITLE not in titles and b"RPT VERSION" in head


_VALUE_FIRST = frozenset("-0123456789.N*")  # what a _VALUE token can start with


def _block_row(ctx: ParseContext, section: Section, lineno: int, text: str) -> None:
    """Take the SERVICE TIME and APPL % cells of one block row (the row-by-row reading that
    :func:`block_cells` does for many rows at once; kept as its reference, tests compare them).

    Each row holds at most one cell per column, left to right; SERVICE TIME comes before APPL %.
    ``CPU``/``SRB`` of the SERVICE column (service units: ``356803K``) precede SERVICE TIME and
    never carry a decimal point; AAP/IIP are SERVICE TIME when no SERVICE TIME cell came yet.
    The row is read as ``KEY value`` pairs left to right (a key may be several words, R/S AFFIN;
    a value is a _VALUE token after a key), up to the APPL % cell: nothing after it lands.
    """
    st_taken = False
    words: list[str] = []
    is_value = _VALUE.fullmatch
    for value in text.split():
        if not (words and value[0] in _VALUE_FIRST and is_value(value)):
            words.append(value)
            continue
        key = words[0] if len(words) == 1 else " ".join(words)
        words = []
        if not st_taken and key in ST_KEYS:
            if key in ("CPU", "SRB") and "." not in value and value != "N/A":
                continue
            col = ST_KEYS[key]
            st_taken = True
            last = False
        elif key in APPL_KEYS and (st_taken or key not in ST_KEYS):
            col = APPL_KEYS[key]
            last = True
        else:
            continue
        if col in section.values:
            raise ctx.error(f"WORKLOAD ACTIVITY block: {key} appears twice", line=lineno)
        num = _rmf.number(value)
        if num is None and value != "N/A" and not value.startswith("*"):
            raise ctx.error(
                f"WORKLOAD ACTIVITY block: {key} {value!r} is not a number", line=lineno
            )
        section.values[col] = num
        if last:
            return


_TOKEN = r"[^\s\x1c-\x1f]+"
_VALUE_RX = r"^(?:-?[0-9][0-9.]*[KMGT]?|-?\.[0-9]+|N/A|\*+)$"  # _VALUE, whole token
_SCALE = {"K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}


def block_cells(rows: pl.DataFrame) -> pl.DataFrame:
    """The SERVICE TIME and APPL % cells of block rows, as :func:`_block_row` reads them.

    ``rows`` has ``r`` (row number) and ``text``; the result has per cell ``r``, ``key``,
    ``col`` (the landing column), ``value`` (as printed), ``num`` (None for N/A, stars or a
    bad number) and ``bad`` (not a number), the SERVICE TIME cell before the APPL % one.

    Example:
        block_cells(pl.DataFrame({"r": [0], "text": ["IOC 23349 CPU 9.021 CP 1.06"]}))
    """
    tok = pl.col("tok")
    toks = rows.select("r", pl.col("text").str.extract_all(_TOKEN).alias("tok")).explode("tok")
    toks = toks.drop_nulls("tok")
    i, v, r = pl.int_range(pl.len()), pl.col("v"), pl.col("r")
    toks = toks.with_columns(i.alias("i"), tok.str.contains(_VALUE_RX).alias("v"))
    row_start = (r != r.shift(1)).fill_null(True)
    toks = toks.with_columns(row_start.alias("rs")).with_columns(
        (pl.col("rs") | (v != v.shift(1)).fill_null(True)).alias("run")
    )
    # A value closes a cell when a word came before it: in a run of values after a word the
    # 1st, 3rd... do; in a run opening the row the 2nd, 4th... (the 1st is taken as a word).
    k = pl.col("i") - pl.when(pl.col("run")).then(pl.col("i")).forward_fill()
    at_row = pl.when(pl.col("run")).then(pl.col("rs")).forward_fill()
    toks = toks.with_columns((v & ((k % 2 == 1) == at_row)).alias("closer"))
    # Only one-word keys can be SERVICE TIME or APPL % keys: the word right before the value,
    # when a value (or the row start) came before that word.
    closer, rs = pl.col("closer"), pl.col("rs")
    one_word = ~rs & (rs.shift(1).fill_null(True) | closer.shift(2).fill_null(True))
    cells = toks.select(
        "r", pl.when(one_word).then(tok.shift(1)).alias("key"), tok.alias("value"), closer
    ).filter(closer)
    return _take_cells(cells)


def _take_cells(cells: pl.DataFrame) -> pl.DataFrame:
    """Per row, the SERVICE TIME cell (first eligible one, unless an APPL-only key comes
    first) and the APPL % cell after it; their columns and numbers."""
    key, value, j = pl.col("key"), pl.col("value"), pl.col("j")
    st_ok = key.is_in(list(ST_KEYS)) & ~(
        key.is_in(["CPU", "SRB"]) & ~value.str.contains(".", literal=True) & (value != "N/A")
    )
    appl_only = key.is_in([k for k in APPL_KEYS if k not in ST_KEYS])
    cells = cells.with_columns(pl.int_range(pl.len()).alias("j")).with_columns(
        pl.when(st_ok).then(j).min().over("r").alias("s"),
        pl.when(appl_only).then(j).min().over("r").alias("p"),
    )
    s, p = pl.col("s"), pl.col("p")
    st = s.is_not_null() & (p.is_null() | (s < p))
    cells = cells.with_columns(
        pl.when(st).then(pl.when(key.is_in(list(APPL_KEYS)) & (j > s)).then(j).min().over("r"))
        .otherwise(p).alias("a")
    )  # fmt: skip
    cells = cells.filter((st & (j == s)) | (j == pl.col("a")))
    is_st = st & (j == s)
    last = value.str.slice(-1)
    scaled = last.is_in(list(_SCALE)) & (value.str.len_chars() > 0)
    body = pl.when(scaled).then(value.str.slice(0, value.str.len_chars() - 1)).otherwise(value)
    fast = ~scaled & value.str.contains(r"^(?:[0-9]+\.?[0-9]*|\.[0-9]+)$")
    slow = body.str.contains(r"^(?:-?[0-9]+(?:\.[0-9]+)?|-?\.[0-9]+)$")
    scale = last.replace_strict(_SCALE, default=1.0, return_dtype=pl.Float64)
    num = pl.when(fast | slow).then(body.cast(pl.Float64, strict=False) * scale)
    return cells.select(
        "r",
        "key",
        pl.when(is_st).then(key.replace_strict(ST_KEYS, default=None))
        .otherwise(key.replace_strict(APPL_KEYS, default=None)).alias("col"),
        "value",
        num.alias("num"),
        (num.is_null() & (value != "N/A") & ~value.str.starts_with("*")).alias("bad"),
    )  # fmt: skip


class _Reader:
    """The section state machine, fed the structural lines of a chunk one by one (:meth:`event`)
    and the lines between two of them at once (:meth:`segment`)."""

    def __init__(self, ctx: ParseContext) -> None:
        self.ctx = ctx
        self.rows: list[dict] = []
        self.section: Section | None = None
        self.pending: list[tuple[Section, int, str]] = []  # block rows not read yet
        self.closed: list[tuple[float, Section]] = []  # (where it closed, section) not landed
        self.at = 0  # the line being read

    def close(self, at_eof: bool = False) -> None:
        """End the open section; its row lands once its block rows are read (:meth:`finish`)."""
        s, self.section = self.section, None
        if s is None:
            return
        if not s.block_seen:
            where = "end of file" if at_eof else "the next section"
            raise self.ctx.error(
                f"WORKLOAD ACTIVITY {s.row['class_kind']} class {s.row['class_name']} has no "
                f"SERVICE TIME block before {where} (report cut?)",
                line=s.line,
            )
        self.closed.append((float("inf") if at_eof else self.at, s))

    def finish(self, failed: tuple[int, InputError] | None = None) -> None:
        """Read the block rows gathered so far, then land the closed sections; raise the first
        error in file order (``failed``: a structural one, and where it was found)."""
        errors = [(failed[0], 1, failed[1])] if failed else []
        if self.pending and (err := self._read_pending()) is not None:
            errors.append((err[0], 0, err[1]))
        for at, s in self.closed:
            if "cpu_s" not in s.values:
                errors.append((at, 0, self.ctx.error(
                    f"WORKLOAD ACTIVITY class {s.row['class_name']}: SERVICE TIME block "
                    "without CPU", line=s.line,
                )))  # fmt: skip
                break
        if errors:
            raise min(errors, key=lambda e: e[:2])[2]  # a close before a line's own error
        self.rows += [{**s.row, **s.values} for _, s in self.closed]
        self.closed = []

    def _read_pending(self) -> tuple[float, InputError] | None:
        """The gathered block rows' cells into their sections' values (as _block_row would,
        row by row); the first duplicate or bad number, if any."""
        pending, self.pending = self.pending, []
        rows = pl.DataFrame(
            {"r": range(len(pending)), "text": [t for _, _, t in pending]},
            schema={"r": pl.UInt32, "text": pl.Utf8},
        )
        cells = block_cells(rows)
        for r, key, col, value, num, bad in cells.iter_rows():
            section, lineno, _ = pending[r]
            if col in section.values:
                msg = f"WORKLOAD ACTIVITY block: {key} appears twice"
            elif bad:
                msg = f"WORKLOAD ACTIVITY block: {key} {value!r} is not a number"
            else:
                section.values[col] = num
                continue
            return lineno, self.ctx.error(msg, line=lineno)
        return None

    def event(self, event: str, lineno: int, text: str, iv: _rmf.Interval) -> None:
        """One line as ReportPages yields it (any line: the structural ones come here)."""
        section = self.section
        if event is not _rmf.LINE:
            if event is _rmf.HEADER:
                if section is not None and section.interval_key != iv.key:
                    self.close()
            elif event is _rmf.TITLE and text != _rmf.WORKLOAD_TITLE:
                self.close()
            elif event is not _rmf.PAGE and section is not None:
                section.in_block = False  # a blank line or a new page ends a SERVICE TIME block
            return
        if "CLASS=" in text and (m := _CLASS.search(text)):
            self.close()
            self.section = _new_section(self.ctx, m, lineno, text, iv)
            return
        if "REPORT BY" in text and _SUMMARY.search(text):
            self.close()
            self.ctx.skip("workload or policy total section")
            self.ctx.nothing_to_land = (
                "a WORKLOAD ACTIVITY report of totals only (no class section)"
            )
            return
        if section is None:
            if "SERVICE POLICY PAGE" in text:
                self.ctx.nothing_to_land = "a WORKLOAD ACTIVITY service policy page"
            self.ctx.unknown("workload line outside a class section")
            return
        if "SERVICE TIME" in text and "APPL %" in text:
            if section.block_seen:
                raise self.ctx.error("second SERVICE TIME block in one class section", line=lineno)
            section.block_seen = section.in_block = True
            section.block_rows = 0
            return
        if section.in_block:
            if text.lstrip().startswith("-") or section.block_rows >= BLOCK_MAX_ROWS:
                section.in_block = False
                return
            section.block_rows += 1
            self.pending.append((section, lineno, text))

    def segment(
        self, lines: int, line: pl.Series, text: pl.Series, p: int, q: int, ends: bool
    ) -> None:
        """The plain lines between two structural ones: ``lines`` lines, of which rows
        ``p:q`` of ``line``/``text`` are neither blank nor start with a dash and come before the
        first such line; that line exists when ``ends``."""
        section = self.section
        if section is None:
            if lines:
                self.ctx.unknown("workload line outside a class section", lines)
            return
        if not section.in_block:
            return
        room = BLOCK_MAX_ROWS - section.block_rows
        taken = min(q - p, room)
        section.block_rows += taken
        if taken:
            got = zip(line.slice(p, taken).to_list(), text.slice(p, taken).to_list(), strict=True)
            self.pending += [(section, lineno, t) for lineno, t in got]
        if ends or q - p > room:
            section.in_block = False


def _new_section(
    ctx: ParseContext, m: re.Match, lineno: int, text: str, iv: _rmf.Interval
) -> Section:
    if iv.date is None or iv.time is None:
        raise ctx.error("WORKLOAD ACTIVITY section before the page header", line=lineno)
    group, period, imp = _GROUP.search(text), _PERIOD.search(text), _IMPORTANCE.search(text)
    return Section(
        lineno,
        iv.key,
        {
            "source_file": ctx.source_file,
            "source_line": lineno,
            "sysplex": iv.sysplex or iv.system_id,
            "zos_level": iv.zos_level,
            "interval_start": _rmf.interval_start(ctx, iv, lineno),
            "interval_s": _rmf.interval_seconds(ctx, iv, lineno),
            "policy": m.group("policy"),
            "workload": m.group("workload"),
            "class_kind": m.group("kind").lower(),
            "class_name": m.group("name"),
            "resource_group": group.group(1) if group else None,
            "period": int(period.group(1)) if period else None,
            "importance": imp.group(1) if imp else None,
        },
    )


_DASHED = r"^[\s\x1c-\x1f]*-"


# Lines the section state machine reads one by one; the others are read a segment at a time.
def _structural():
    return (
        (pl.col("ev") == _rmf.EV_TITLE)
        | (pl.col("ev") == _rmf.EV_HEADER)
        | (pl.col("ev") == _rmf.EV_LINE)
        & pl.col("text").str.contains_any(
            ["CLASS=", "REPORT BY", "SERVICE POLICY PAGE", "SERVICE TIME"]
        )
    )


def _bounds(seg: pl.Series, n: int) -> list[int]:
    """Where each of the segments 0..n-1 starts in ``seg`` (sorted), and the end."""
    return seg.search_sorted(pl.arange(0, n + 1, eager=True).cast(seg.dtype)).to_list()


def _chunk(reader: _Reader, df: pl.DataFrame, intervals: list[_rmf.Interval]) -> None:
    """Feed one ReportFrames chunk to the reader: structural lines one by one, the rest by
    segment (the lines after a structural line, up to the next)."""
    line_ev, seg = pl.col("ev") == _rmf.EV_LINE, pl.col("seg")
    ends = (pl.col("ev") == _rmf.EV_BLANK) | line_ev & pl.col("text").str.contains(_DASHED)
    df = df.with_columns(_structural().alias("st")).with_columns(
        pl.col("st").cum_sum().alias("seg")
    )
    n = int(df["seg"][-1]) + 1 if df.height else 1
    plain = df.filter(~pl.col("st")).with_columns(ends.alias("end"), line_ev.alias("is_line"))
    # Ends seen in the segment before a line: the segment's running count less its first one.
    ended = pl.col("end").cum_sum()
    base = pl.when(seg != seg.shift(1).fill_null(-1)).then(ended - pl.col("end")).forward_fill()
    plain = plain.with_columns((ended - base == 0).alias("before"))
    at = _bounds(plain["seg"], n)
    line_sum = [0, *plain["is_line"].cum_sum().to_list()]
    end_sum = [0, *plain["end"].cum_sum().to_list()]
    rows = plain.filter(pl.col("before") & pl.col("is_line") & ~pl.col("end"))
    row_at = _bounds(rows["seg"], n)
    row_line, row_text = rows["line"], rows["text"]

    def segment(k: int) -> None:
        p, q = at[k], at[k + 1]
        reader.segment(
            line_sum[q] - line_sum[p], row_line, row_text, row_at[k], row_at[k + 1],
            end_sum[q] > end_sum[p],
        )  # fmt: skip

    segment(0)
    try:
        for k, (lineno, ev, text, iv) in enumerate(
            df.filter(pl.col("st")).select("line", "ev", "text", "iv").iter_rows(), 1
        ):
            reader.at = lineno
            reader.event(_rmf.EVENT_OF[ev], lineno, text, intervals[iv])
            segment(k)
    except InputError as err:
        reader.finish((reader.at, err))
    reader.finish()


def parse(ctx: ParseContext) -> Iterator[Batch]:
    """The compiled parser (``native/src/rmf_workload.rs``, :func:`parse_native`) for a
    plain-text report when it is built, else :func:`parse_python`: the same rows, errors and
    counts (tests/test_native_workload.py)."""
    lib = _native.library()
    if lib is not None and _native.file_is_plain(_native.PlainTest(lib, "rw"), ctx):
        yield from parse_native(ctx, lib)
    else:
        yield from parse_python(ctx)


def parse_python(ctx: ParseContext) -> Iterator[Batch]:
    reader = _Reader(ctx)
    pages = _rmf.ReportFrames(ctx, _rmf.WORKLOAD_TITLE)
    for df in pages:
        _chunk(reader, df, pages.intervals)
        if len(reader.rows) >= BATCH_ROWS:
            yield TABLE.name, reader.rows
            reader.rows = []
    try:
        reader.close(at_eof=True)
    except InputError as err:
        reader.finish((float("inf"), err))
    reader.finish()
    if pages.reports == 0:
        found = pages.found("no RMF report")
        raise ctx.error(
            f"RMF Postprocessor report(s) {found}: recognised but not supported "
            "(mqcap reads CRYPTO HARDWARE ACTIVITY and WORKLOAD ACTIVITY)",
            line=1,
        )
    if reader.rows:
        yield TABLE.name, reader.rows


# -- the compiled parser (native/src/rmf_workload.rs, native/src/ffi_workload.rs) ------------------
# A port of parse_python for plain text (latin-1 without the control characters Python does not
# count as blanks, NEL and the no-break space: Python's blanks are then the ASCII ones, tab, CR,
# form feed, vertical tab, 0x1C-0x1F and the space), held to it by tests/test_native_workload.py:
# the same rows, counters and errors. It reads the file in chunks of NATIVE_CHUNK_BYTES; its
# batches are taken after a chunk once NATIVE_BATCH_ROWS rows are waiting (parse_python cuts them
# after a frame once BATCH_ROWS rows are). It is told the frames parse_python reads (their size,
# and whether a byte-order mark comes first): when an error is found, what parse_python counted
# up to the end of the error's frame is counted too.
NATIVE_CHUNK_BYTES = 4 << 20
NATIVE_BATCH_ROWS = 20_000
_COUNTERS = (
    ("unknown", "comment line"),
    ("skip", "overprint line"),
    ("skip", "line of another RMF report"),
    ("skip", "line before the report"),
    ("unknown", "workload line outside a class section"),
    ("skip", "workload or policy total section"),
)  # rmf_workload.rs C_*
_NOTHING = {
    1: "a WORKLOAD ACTIVITY report of totals only (no class section)",
    2: "a WORKLOAD ACTIVITY service policy page",
}  # rmf_workload.rs NOTHING_*


def _frame_bytes() -> int:
    """The frame parse_python reads (``ReportFrames``' default, as ``text_chunks`` caps it)."""
    return min(_rmf.ReportFrames.__init__.__defaults__[0], MAX_LINE_BYTES)


def _starts_with_bom(ctx: ParseContext) -> bool:
    with open_input(ctx.path, ctx.source_file) as fh:
        return fh.read(len(UTF8_BOM)) == UTF8_BOM


def parse_native(ctx: ParseContext, lib: ctypes.CDLL) -> Iterator[Batch]:
    """:func:`parse_python`'s rows, counters and errors from the compiled parser, chunk by chunk
    (``lib``: the compiled library)."""
    h = lib.mqn_rw_new(_frame_bytes(), int(_starts_with_bom(ctx)))

    def check(rc: int) -> None:
        _native.add_counters(ctx, lib, "rw", h, _COUNTERS)
        if nothing := lib.mqn_rw_nothing(h):
            ctx.nothing_to_land = _NOTHING[nothing]
        _native.raise_for(ctx, lib, "rw", h, rc, "RMF WORKLOAD")

    try:
        for first, data in text_chunks(ctx, NATIVE_CHUNK_BYTES):
            check(lib.mqn_rw_feed(h, data, len(data), first))
            if lib.mqn_rw_pending(h) >= NATIVE_BATCH_ROWS:
                yield TABLE.name, _native_take(ctx, lib, h)
        check(lib.mqn_rw_finish(h))
        if lib.mqn_rw_pending(h):
            yield TABLE.name, _native_take(ctx, lib, h)
    finally:
        lib.mqn_rw_free(h)


_VALUE_COLUMNS = (*ST_KEYS.values(), *APPL_KEYS.values())


def _native_take(ctx: ParseContext, lib: ctypes.CDLL, h: int) -> _native.pa.Table:
    """The rows landed so far, as an Arrow table of the table's columns (buffers of
    ``mqn_rw_take``; ``Table.arrow`` takes it as it is, ``Table.frame`` through polars)."""
    pa = _native.pa
    n = ctypes.c_int64()
    ptr = lib.mqn_rw_take(h, ctypes.byref(n))
    if not ptr:
        raise _native.NativeBug(f"{ctx.source_file}: the compiled RMF WORKLOAD parser failed")
    b, n = _native.Batch(lib, ptr), n.value
    f64 = pa.float64()
    return pa.table(
        {
            "source_file": constant_string(ctx.source_file, n),
            "source_line": b.ints(9, n),
            "sysplex": b.views(0, n),
            "zos_level": b.views(3, n),
            "interval_start": b.ints(6, n, pa.timestamp("us")),
            "interval_s": b.ints(7, n, f64, valid=8),
            "policy": b.views(10, n),
            "workload": b.views(13, n),
            "class_kind": b.views(16, n),
            "class_name": b.views(19, n),
            "resource_group": b.views(22, n),
            "period": b.ints(25, n, pa.int32(), valid=26),
            "importance": b.views(27, n),
            **{c: b.ints(30 + 2 * k, n, f64, valid=31 + 2 * k)
               for k, c in enumerate(_VALUE_COLUMNS)},
        }
    )  # fmt: skip


PARSER = Parser(
    kind="rmf_workload",
    description="RMF Postprocessor WORKLOAD ACTIVITY report (text): CPU per service/report class",
    tables=(TABLE,),
    attributed_by_time=True,
    sniff=sniff,
    parse=parse,
    priority=30,
)
