"""RMF Postprocessor CRYPTO HARDWARE ACTIVITY report, text (docs/formats.md section 5).

One landed row per interval, card and (where the layout has them) function and key size, per
scope. Three real layouts are handled:

- z/OS V2R2: one ``TOTAL`` column group per card (scope ``TOTAL``); PKCS11 cards add per-function
  rows (ASYM FAST/GEN/SLOW, SYMM COMPLETE/PARTIAL); accelerators add RSA ME and CRT rows by key
  size;
- z/OS V2R3 (OA54952) and V2R4 (CEX7): ``LPAR`` and ``CPC`` column groups (scope ``LPAR`` /
  ``CPC``), the accelerator's function column reads ``RSA ME   1024``; a group left blank (the
  LPAR does not use the card) lands nothing for that scope.

A row without a TYPE continues the card type above (it starts with the card ID); a row starting
with a function name (or, in the V2R2 accelerator, a key size) continues the card above. Reports
copied from PDF lost the leading blanks of those rows: values are placed by their position
relative to the first token, so the fixed-column original and the PDF text parse the same.

A plain-text report (printable ASCII and ASCII blanks, form feeds among them) is read by the
compiled parser (``native/src/rmf_crypto.rs``, :func:`parse_native`) when it is built; any other
one of ``BULK_MIN_BYTES`` (512 KB) or more a few MB of lines at a time, its data rows in bulk
(:func:`parse_bulk`), a smaller one one line at a time (:func:`parse_by_line`, the reference the
other two are tested against): the same rows, errors and counts.

Example row (V2R2, S35)::

    CEX5C   0   1882    0.206    38.8     0.25
"""

from __future__ import annotations

import ctypes
import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache

from mqcap.arrowcols import constant_string
from mqcap.errors import InputError
from mqcap.parsers import _native, _rmf
from mqcap.parsers._lazy import lazy_module
from mqcap.parsers.base import (
    TEXT_OR_BINARY_LINEAGE,
    Batch,
    ParseContext,
    Parser,
    Table,
    text_chunks,
)

pl = lazy_module("polars", __name__, "pl")

TABLE = Table(
    "rmf_crypto",
    {
        **TEXT_OR_BINARY_LINEAGE,
        "system_id": "VARCHAR",
        "zos_level": "VARCHAR",
        "interval_start": "TIMESTAMP",
        "interval_s": "DOUBLE",
        "section": "VARCHAR",
        "card_type": "VARCHAR",
        "card_id": "INTEGER",
        "function": "VARCHAR",
        "key_size_bits": "INTEGER",
        "scope": "VARCHAR",
        "rate_per_s": "DOUBLE",
        "exec_time_ms": "DOUBLE",
        "util_pct": "DOUBLE",
        "keygen_rate_per_s": "DOUBLE",
    },
    "One row per RMF interval, crypto card, function (NULL = card total), key size and scope "
    "(TOTAL, or LPAR / CPC).",
    identity=True,
)

BATCH_ROWS = 20000
BULK_MIN_BYTES = 512 << 10  # parse: smaller reports are read one line at a time
SECTIONS = {"CCA": "CCA COPROCESSOR", "PKCS11": "PKCS11 COPROCESSOR", "ACCEL": "ACCELERATOR"}
_SECTION = re.compile(r"^\s*-+\s*CRYPTOGRAPHIC\s+([A-Z0-9 ]+?)\s*-*\s*$")
_OTHER_SECTION = re.compile(r"^\s*-{3,}\s*([A-Z][A-Z0-9 /]*?[A-Z0-9])\s*-{3,}\s*$")
_GROUPS = re.compile(r"\b(?:TOTAL|LPAR|CPC)\b")
_LABELS = re.compile(r"KEY-GEN RATE|EXEC TIME|UTIL%|RATE|KEY|FUNCTION|TYPE|ID")
_CARD_TYPE = re.compile(r"[A-Z][A-Z0-9]{2,7}")
_WORD = re.compile(r"[A-Z][A-Z-]*")
_INT = re.compile(r"\d{1,5}")
FUNCTION_WORDS = {"ASYM", "SYMM", "RSA", "FAST", "GEN", "SLOW", "COMPLETE", "PARTIAL", "ME", "CRT"}
METRIC = {"RATE": "rate_per_s", "EXEC TIME": "exec_time_ms", "UTIL%": "util_pct"}
MIN_KEY_BITS = 256


@dataclass(frozen=True)
class Slot:
    """One value column of the column-header line: where it is and what it holds."""

    center: float
    end: int
    part: str  # "card" or "func"
    metric: str  # rate_per_s, exec_time_ms, util_pct, keygen_rate_per_s, key
    scope: str
    function: str | None = None


@dataclass
class Section:
    name: str
    line: int
    interval_key: tuple
    layout: str | None = None  # "TOTAL" or "LPAR_CPC"
    slots: list[Slot] | None = None
    func_slots: list[Slot] | None = None
    id_end: int = 9
    func_start: int | None = None
    key_end: int | None = None
    rows: int = 0
    card_type: str | None = None
    card_id: int | None = None
    has_card: bool = False
    uid: int | None = None  # parse: the section's number in the report


def sniff(head: bytes, name: str) -> bool:
    return _rmf.CRYPTO_TITLE in _rmf.head_titles(head)


def _section_kind(name: str) -> str:
    if "PKCS11" in name:
        return SECTIONS["PKCS11"]
    if "ACCELERATOR" in name:
        return SECTIONS["ACCEL"]
    return SECTIONS["CCA"]


_SLOT_CACHE: dict[tuple, tuple] = {}
# A header's ID, FUNCTION and KEY columns, where it has them; where it has not, the section keeps
# those of its earlier header. The cache keeps only what the header itself set (None: not set),
# so a header read in one report gives a later report's section what reading it gives there.
_CARRIED = ("id_end", "func_start", "key_end")
_UNSET = object()


def _slots(section: Section, text: str) -> None:
    """Read the column-header line (``TYPE   ID   RATE  EXEC TIME  UTIL% ...``) into slots."""
    key = (section.name, section.layout, text)
    hit = _SLOT_CACHE.get(key)
    if hit is None:
        carried = [getattr(section, name) for name in _CARRIED]
        for name in _CARRIED:
            setattr(section, name, _UNSET)
        _read_slots(section, text)
        found = tuple(
            None if getattr(section, name) is _UNSET else getattr(section, name)
            for name in _CARRIED
        )
        for name, old in zip(_CARRIED, carried, strict=True):
            if getattr(section, name) is _UNSET:
                setattr(section, name, old)
        hit = (section.layout, section.slots, *found)
        if len(_SLOT_CACHE) < 256:
            _SLOT_CACHE[key] = hit
    else:
        section.layout, section.slots = hit[0], hit[1]
        for name, value in zip(_CARRIED, hit[2:], strict=True):
            if value is not None:
                setattr(section, name, value)
    section.func_slots = [s for s in section.slots if s.part == "func"]


def _read_slots(section: Section, text: str) -> None:
    labels = [(m.group(), m.start(), m.end()) for m in _LABELS.finditer(text)]
    layout = section.layout or ("LPAR_CPC" if len(labels) > 12 else "TOTAL")
    section.layout = layout
    scopes = ["LPAR", "CPC"] if layout == "LPAR_CPC" else ["TOTAL"]
    slots: list[Slot] = []
    part, groups, keygens = "card", -1, 0
    accel_total = section.name == SECTIONS["ACCEL"] and layout == "TOTAL"
    for label, start, end in labels:
        center = (start + end) / 2
        if label == "ID":
            section.id_end = end
        elif label == "TYPE":
            continue
        elif label == "FUNCTION":
            part, groups = "func", -1
            section.func_start = start
        elif label == "KEY":
            part, groups = "func", -1
            section.func_start = start
            section.key_end = end
            slots.append(Slot(center, end, part, "key", scopes[0]))
        elif label == "KEY-GEN RATE" or (
            label == "RATE"
            and part == "card"
            and section.name == SECTIONS["CCA"]
            and groups >= 0
            and layout == "TOTAL"
        ):
            scope = scopes[min(keygens, len(scopes) - 1)]
            keygens += 1
            slots.append(Slot(center, end, part, "keygen_rate_per_s", scope))
        else:
            if label == "RATE":
                groups += 1
            g = max(groups, 0)
            if accel_total and part == "func":
                scope, function = "TOTAL", ("RSA ME", "RSA CRT")[min(g, 1)]
            else:
                scope, function = scopes[min(g, len(scopes) - 1)], None
            slots.append(Slot(center, end, part, METRIC[label], scope, function))
    section.slots = slots
    section.func_slots = [s for s in slots if s.part == "func"]


def _place(
    ctx: ParseContext, lineno: int, values: list[tuple[str, float]], slots: list[Slot]
) -> list[tuple[Slot, str]]:
    """Values (text, center column) matched to slots: in order when all are present, else by
    nearest column, keeping left-to-right order (a blank group leaves its slots empty)."""
    if len(values) > len(slots):
        raise ctx.error(
            f"crypto row has {len(values)} values where the column header has {len(slots)}",
            line=lineno,
        )
    if len(values) == len(slots):
        return [(s, v) for s, (v, _) in zip(slots, values, strict=True)]
    at = _nearest([c for _, c in values], [s.center for s in slots])
    return [(slots[j], text) for j, (text, _) in zip(at, values, strict=True)]


def _nearest(centers: list[float], slot_centers: list[float]) -> list[int]:
    """The slot of each of fewer values than slots: the nearest column, keeping left-to-right
    order and leaving room for the values still to place."""
    out: list[int] = []
    nxt = 0
    for i, center in enumerate(centers):
        last = len(slot_centers) - (len(centers) - i)
        best = min(range(nxt, last + 1), key=lambda j: abs(slot_centers[j] - center))
        out.append(best)
        nxt = best + 1
    return out


# The columns a text row sets, in this order: identity (see ``parse``), then the row's own.
IDENT_COLUMNS = ("source_file", "system_id", "zos_level", "interval_start", "interval_s")
ROW_COLUMNS = ("source_line", "section", "card_type", "card_id", "function", "key_size_bits",
               "scope")  # fmt: skip
METRIC_COLUMNS = ("rate_per_s", "exec_time_ms", "util_pct", "keygen_rate_per_s")


class Rows:
    """Landed rows as tuples (IDENT_COLUMNS + ROW_COLUMNS + METRIC_COLUMNS), framed in bulk."""

    NAMES = IDENT_COLUMNS + ROW_COLUMNS + METRIC_COLUMNS

    def __init__(self) -> None:
        self.rows: list[tuple] = []

    def add(self, ident: tuple, own: tuple, metrics: dict) -> None:
        get = metrics.get
        self.rows.append(
            (*ident, *own, get("rate_per_s"), get("exec_time_ms"), get("util_pct"),
             get("keygen_rate_per_s"))
        )  # fmt: skip

    def take(self) -> pl.DataFrame:
        schema = TABLE.polars_schema()
        columns = zip(*self.rows, strict=True)
        self.rows = []
        return pl.DataFrame(
            [pl.Series(n, c, dtype=schema[n]) for n, c in zip(self.NAMES, columns, strict=True)]
        )


def _emit(
    section: Section,
    ctx: ParseContext,
    lineno: int,
    placed: list[tuple[Slot, str]],
    function: str | None,
    key_bits: int | None,
    ident: tuple,
    out: Rows,
) -> None:
    groups: dict[tuple, dict] = {}
    for slot, text in placed:
        if slot.metric == "key":
            if not _INT.fullmatch(text):
                raise ctx.error(f"accelerator row: key size {text!r} is not a number", line=lineno)
            key_bits = int(text)
            continue
        fn = None if slot.part == "card" else (slot.function or function)
        g = groups.setdefault((fn, slot.scope), {})
        if text.isascii() and text.replace(".", "", 1).isdigit():  # _rmf.number's fast path
            g[slot.metric] = float(text)
            continue
        value = _rmf.number(text)
        if value is None and text.strip("*-") and text != "N/A":
            raise ctx.error(f"crypto row: {text!r} is not a number", line=lineno)
        g[slot.metric] = value
    for (fn, scope), metrics in groups.items():
        if None in metrics.values() and all(v is None for v in metrics.values()):
            ctx.skip("crypto scope with no values")
            continue
        own = (
            lineno,
            section.name,
            section.card_type,
            section.card_id,
            fn,
            key_bits if fn is not None else None,
            scope,
        )
        out.add(ident, own, metrics)


def _tokens(text: str) -> list[tuple[str, int, int]]:
    """(token, start, end) of the blank-separated tokens of a line (``\\S+`` runs)."""
    toks = []
    pos = 0
    find = text.find
    for tok in text.split():
        start = find(tok, pos)
        pos = start + len(tok)
        toks.append((tok, start, pos))
    return toks


def _data_row(
    section: Section, ctx: ParseContext, lineno: int, text: str, ident: tuple, out: Rows
) -> bool:
    """Land the rows of one data line of a section; False when the line is not a data row."""
    toks = _tokens(text)
    first = toks[0][0]
    assert section.slots is not None
    if (
        len(toks) > 1
        and _CARD_TYPE.fullmatch(first)
        and first not in FUNCTION_WORDS
        and _INT.fullmatch(toks[1][0])
    ):
        section.card_type, section.card_id = first, int(toks[1][0])
        section.has_card = True
        shift = section.id_end - toks[1][2]
        rest = toks[2:]
        kind = "card"
    elif _INT.fullmatch(first) and (section.key_end is None or int(first) < MIN_KEY_BITS):
        if not section.has_card:
            raise ctx.error(
                "crypto row continues a card type, but no card row came before", line=lineno
            )
        section.card_id = int(first)
        shift = section.id_end - toks[0][2]
        rest = toks[1:]
        kind = "card"
    elif _INT.fullmatch(first) and section.key_end is not None:
        if not section.has_card:
            raise ctx.error("crypto key-size row before any card row", line=lineno)
        shift = section.key_end - toks[0][2]
        rest = toks
        kind = "func"
    elif _WORD.fullmatch(first) and first in FUNCTION_WORDS and section.func_start is not None:
        if not section.has_card:
            raise ctx.error("crypto function row before any card row", line=lineno)
        shift = section.func_start - toks[0][1]
        rest = toks
        kind = "func"
    else:
        return False

    # Split off the function name (and, in the LPAR/CPC accelerator, the key size after it).
    function, key_bits = None, None
    values: list[tuple[str, float]] = []
    i = 0
    while i < len(rest):
        tok, start, end = rest[i]
        if tok[0].isalpha() and _WORD.fullmatch(tok):
            words = []
            while i < len(rest) and _WORD.fullmatch(rest[i][0]) and rest[i][0] != "N/A":
                words.append(rest[i][0])
                i += 1
            if function is not None:
                raise ctx.error(f"crypto row: unexpected text {' '.join(words)!r}", line=lineno)
            function = " ".join(words)
            if section.name == SECTIONS["ACCEL"] and i < len(rest) and section.key_end is None:
                if not _INT.fullmatch(rest[i][0]):
                    raise ctx.error("accelerator row: key size missing after function", line=lineno)
                key_bits = int(rest[i][0])
                i += 1
            continue
        values.append((tok, (start + end) / 2 + shift))
        i += 1
    if kind == "func" and function is None and section.key_end is None:
        raise ctx.error("crypto function row without a function name", line=lineno)
    slots = section.slots if kind == "card" else section.func_slots
    placed = _place(ctx, lineno, values, slots)
    if function is None and any(
        s.part == "func" and s.function is None and s.metric != "key" for s, _ in placed
    ):
        raise ctx.error("crypto row has function values but no function name", line=lineno)
    section.rows += 1
    _emit(section, ctx, lineno, placed, function, key_bits, ident, out)
    return True


class _Reader:
    """What ``parse`` keeps between the lines of a report: the section being read (a section
    must land a card row before the next one starts, else the report was cut), the identity
    columns of the interval at hand, and the rows landed and not yet framed. The data rows,
    nearly every line, stay in ``parse``'s loop; the reader handles the rarer lines."""

    def __init__(self, ctx: ParseContext) -> None:
        self.ctx = ctx
        self.rows = Rows()
        self.iv = _rmf.Interval()
        self.section: Section | None = None
        self.other_section: str | None = None
        self.derived: dict[tuple, tuple] = {}

    def page(self, event: str, iv: _rmf.Interval) -> None:
        """A page event: a page header of another interval ends the section being read."""
        self.iv = iv
        section = self.section
        if event is _rmf.HEADER and section is not None and section.interval_key != iv.key:
            self.close()

    def close(self, at_eof: bool = False) -> None:
        """End the section being read: one that landed no card row was cut short."""
        section = self.section
        if section is not None and section.rows == 0:
            where = "end of file" if at_eof else "the next section"
            raise self.ctx.error(
                f"CRYPTOGRAPHIC {section.name} section has no card rows before {where} "
                "(report cut?)",
                line=section.line,
            )
        self.section = None

    def section_line(self, lineno: int, text: str) -> bool:
        """Start the section a dashed line names; False when the line names none."""
        if m := _SECTION.match(text):
            self.close()
            if self.iv.date is None:
                raise self.ctx.error(
                    "crypto section before the page header (DATE/TIME)", line=lineno
                )
            self.section = Section(_section_kind(m.group(1)), lineno, self.iv.key)
            self.other_section = None
            return True
        if (m := _OTHER_SECTION.match(text)) and not _GROUPS.search(m.group(1)):
            # e.g. ICSF SERVICES: not a card section; its lines are skipped until the next one.
            self.close()
            self.other_section = m.group(1)
            self.ctx.skip(f"{self.other_section} section")
            return True
        return False

    def outside(self) -> None:
        """A line outside a card section: skipped in a section of another kind, else unknown."""
        if self.other_section:
            self.ctx.skip(f"{self.other_section} line")
        else:
            self.ctx.unknown("crypto line outside a section")

    def ident(self, lineno: int) -> tuple:
        """The identity columns (IDENT_COLUMNS) of the rows being read, worked out once per
        interval (one interval at a time is kept)."""
        iv, derived = self.iv, self.derived
        key = iv.key
        if key not in derived:
            derived.clear()
            derived[key] = (
                self.ctx.source_file,
                iv.system_id,
                iv.zos_level,
                _rmf.interval_start(self.ctx, iv, lineno),
                _rmf.interval_seconds(self.ctx, iv, lineno),
            )
        return derived[key]


def parse_by_line(ctx: ParseContext) -> Iterator[Batch]:
    """The parse one line at a time (:class:`_rmf.ReportPages`): the reference :func:`parse`
    is tested against, and what :func:`parse` does for the rare lines it does not read in bulk."""
    reader = _Reader(ctx)
    rows = reader.rows
    pages = _rmf.ReportPages(ctx, _rmf.CRYPTO_TITLE)
    for event, lineno, text in pages:
        if event is not _rmf.LINE:
            reader.page(event, pages.interval)
            continue
        stripped = text.strip()
        # Both section-line patterns start with blanks and dashes: other lines skip the regexes.
        if stripped[:1] == "-" and reader.section_line(lineno, text):
            continue
        section = reader.section
        if section is None:
            reader.outside()
            continue
        if stripped.startswith("-") and ("TOTAL" in text or "LPAR" in text):
            section.layout = "LPAR_CPC" if "LPAR" in text else "TOTAL"
            continue
        if stripped.startswith("TYPE") and "RATE" in text:
            _slots(section, text)
            continue
        if section.slots is None:
            ctx.unknown("crypto line before the column header")
            continue
        if not _data_row(section, ctx, lineno, text, reader.ident(lineno), rows):
            ctx.unknown("crypto line in a section")
            continue
        if len(rows.rows) >= BATCH_ROWS:
            yield TABLE.name, rows.take()
    reader.close(at_eof=True)
    if pages.reports == 0:
        what = pages.found("no RMF report title")
        raise ctx.error(f"no CRYPTO HARDWARE ACTIVITY report in file (found: {what})", line=1)
    if rows.rows:
        yield TABLE.name, rows.take()


# -- whole chunks of lines (polars) ---------------------------------------------------------------
# ``parse`` reads a ReportFrames chunk in three passes. (1) Facts of every line that depend on no
# state (its first two tokens read as a card type, a card id, a number, a function word). (2) The
# few structural lines (page events, section, layout and column-header lines) one by one, as
# ``parse_by_line`` does, cutting the chunk into segments of plain lines read under one state;
# the counts of the segments' lines come from the facts. (3) The segments' data rows at once:
# card type and id filled forward per section, values split from function names and placed on
# the column header's slots (in order when all are there, else by nearest column, computed once
# per distinct pattern), one landed row per function and scope. A row (3) cannot read exactly
# (non-ASCII text, a value that is not a plain number, a row that raises) goes through
# ``_data_row`` with the state it would have had. An error is the first one in line order.

_CANDIDATE = r"^[\s\x1c-\x1f]*(?:-|TYPE)"
_ASCII = r"^[\x20-\x7e]*$"
_RX_CARD = r"^[A-Z][A-Z0-9]{2,7}$"
_RX_INT = r"^[0-9]{1,5}$"
_RX_WORD = r"^[A-Z][A-Z-]*$"
_RX_NUM = r"^(?:[0-9]+\.?[0-9]*|\.[0-9]+)$"
_RX_NULL = r"^(?:[*-]+|N/A)$"
_FAST_PATTERN = r"^[NZ]*(?:W+[NZ]*)?$"
CARD, CONT, KEYROW, FUNC = 1, 2, 3, 4
_SLOT_SCHEMA = {"cfg": "Int64", "slot": "Int64", "metric": "Utf8", "scope": "Utf8", "s_fn": "Utf8",
                "s_card": "Boolean"}  # fmt: skip
_METRICS = ("rate_per_s", "exec_time_ms", "util_pct", "keygen_rate_per_s")


def _facts_by_line(text: str) -> tuple:
    """(tok0, is_card, card_id, int0, is_fw) of one line, as ``_data_row`` decides them."""
    toks = text.split()
    first = toks[0] if toks else ""
    is_card = bool(
        len(toks) > 1
        and _CARD_TYPE.fullmatch(first)
        and first not in FUNCTION_WORDS
        and _INT.fullmatch(toks[1])
    )
    int0 = int(first) if _INT.fullmatch(first) else None
    return first, is_card, int(toks[1]) if is_card else None, int0, first in FUNCTION_WORDS


def _facts(df: pl.DataFrame) -> pl.DataFrame:
    """The state-free facts of each line (``tok0``, ``is_card``, ``card_id``, ``int0``,
    ``is_fw``, ``ascii``); lines with other than printable ASCII are read by ``_facts_by_line``."""
    text = pl.col("text")
    tok0 = text.str.extract(r"^ *([^ ]+)", 1)
    tok1 = text.str.extract(r"^ *[^ ]+ +([^ ]+)", 1)
    df = df.with_columns(
        text.str.contains(_ASCII).alias("ascii"), tok0.alias("tok0"), tok1.alias("tok1")
    )
    words = sorted(FUNCTION_WORDS)
    is_card = (
        pl.col("tok0").str.contains(_RX_CARD) & ~pl.col("tok0").is_in(words)
        & pl.col("tok1").str.contains(_RX_INT)
    ).fill_null(False)  # fmt: skip
    df = df.with_columns(
        is_card.alias("is_card"),
        pl.when(is_card).then(pl.col("tok1").cast(pl.Int64, strict=False)).alias("card_id"),
        pl.when(pl.col("tok0").str.contains(_RX_INT))
        .then(pl.col("tok0").cast(pl.Int64, strict=False))
        .alias("int0"),
        pl.col("tok0").is_in(words).fill_null(False).alias("is_fw"),
    ).drop("tok1")
    odd = (~df["ascii"] & (df["ev"] == _rmf.EV_LINE)).arg_true()
    if odd.len():
        got = [_facts_by_line(t) for t in df["text"].gather(odd).to_list()]
        names = ("tok0", "is_card", "card_id", "int0", "is_fw")
        df = df.with_columns(
            [
                df[n].scatter(odd, pl.Series([g[i] for g in got], dtype=df.schema[n]))
                for i, n in enumerate(names)
            ]
        )
    return df


@lru_cache(maxsize=1024)  # section, layout and header lines repeat page after page
def _line_class(text: str) -> str | None:
    """A candidate line as ``parse_by_line`` reads it: "section", "layout", "header" or None
    (the last two only inside a section)."""
    stripped = text.strip()
    if stripped[:1] == "-":
        if _SECTION.match(text):
            return "section"
        if (m := _OTHER_SECTION.match(text)) and not _GROUPS.search(m.group(1)):
            return "section"
        if "TOTAL" in text or "LPAR" in text:
            return "layout"
    if stripped.startswith("TYPE") and "RATE" in text:
        return "header"
    return None


@dataclass
class _Segment:
    """Plain lines ``start:end`` of a chunk (positions), read under one section state."""

    start: int
    end: int
    section: Section  # a copy: later lines of the chunk may change the live one
    uid: int  # the live section (card type and id carry over its segments)
    ident: tuple


class _Chunks:
    """``parse``'s state over the chunks of a report (see the comment above)."""

    def __init__(self, ctx: ParseContext) -> None:
        self.ctx = ctx
        self.reader = _Reader(ctx)
        self.slot_lists: dict[tuple, int] = {}
        self.slot_frames: list[pl.DataFrame] = []
        self.slot_centers: list[list[float]] = []
        self.sections = 0
        self.segments: list[_Segment] = []
        self.snapshot: Section | None = None  # the live section's fields at its last change
        self.slot_ids: dict[int, tuple[list, tuple[int, int]]] = {}
        self.stats: dict = {}

    # -- pass 2 --------------------------------------------------------------------------------
    def _kind(self, ev: int, text: str) -> str | None:
        """What a candidate line is under the state at hand (None: a plain line)."""
        if ev != _rmf.EV_LINE:
            return "event"
        kind = _line_class(text)
        if kind == "section" or self.reader.section is not None:
            return kind
        return None

    def _structural(self, kind: str, lineno: int, ev: int, text: str, iv: _rmf.Interval) -> None:
        reader = self.reader
        if kind == "event":
            reader.page(_rmf.EVENT_OF[ev], iv)
        elif kind == "section":
            reader.section_line(lineno, text)
        elif kind == "layout":
            reader.section.layout = "LPAR_CPC" if "LPAR" in text else "TOTAL"
            self.snapshot = None
        else:
            _slots(reader.section, text)
            self.snapshot = None

    def _segment(self, lines: list, sums: dict, start: int, end: int, out: list) -> None:
        """Count the plain lines ``start:end`` under the state at hand; keep a segment of data
        lines for pass 3."""
        n = end - start
        if n <= 0:
            return
        reader, ctx = self.reader, self.ctx
        section = reader.section
        if section is None:
            if reader.other_section:
                ctx.skip(f"{reader.other_section} line", n)
            else:
                ctx.unknown("crypto line outside a section", n)
            return
        if section.slots is None:
            ctx.unknown("crypto line before the column header", n)
            return
        ident = reader.ident(lines[start])
        data = sums["ci"][end] - sums["ci"][start]
        if section.func_start is not None:
            data += sums["fw"][end] - sums["fw"][start]
        if n - data:
            ctx.unknown("crypto line in a section", n - data)
        section.rows += data
        if data:
            snap = self.snapshot
            if snap is None or snap.uid != section.uid or section.uid is None:
                if section.uid is None:
                    section.uid, self.sections = self.sections, self.sections + 1
                snap = self.snapshot = Section(**section.__dict__)
            out.append(_Segment(start, end, snap, section.uid, ident))

    def chunk(self, df: pl.DataFrame, intervals: list[_rmf.Interval]) -> tuple:
        """Passes 1-3 over one ReportFrames chunk: (landed rows or None, the first error as
        (line, error) or None)."""
        df = df.filter(pl.col("ev") != _rmf.EV_BLANK)
        if not df.height:
            return None, None
        # Trailing blanks off, as parse_by_line's rstrip (a CRLF file's carriage returns too).
        df = df.with_columns(pl.col("text").str.replace(r"[\s\x1c-\x1f]+$", ""))
        is_line = pl.col("ev") == _rmf.EV_LINE
        df = df.with_columns((~is_line | pl.col("text").str.contains(_CANDIDATE)).alias("cand"))
        df = _facts(df)
        ci = (pl.col("is_card") | pl.col("int0").is_not_null()) & is_line
        sums = {
            "ci": [0, *df.select(ci.cast(pl.Int64).cum_sum())[:, 0].to_list()],
            "fw": [
                0,
                *df.select((pl.col("is_fw") & is_line).cast(pl.Int64).cum_sum())[:, 0].to_list(),
            ],
        }
        carried = self.reader.section
        carry = None
        if carried is not None and carried.has_card and carried.uid is not None:
            carry = (carried.uid, carried.card_type, carried.card_id)
        segments: list[_Segment] = []
        start, error, at = 0, None, 0
        cands = df.with_row_index("pos").filter("cand").select("pos", "line", "ev", "text", "iv")
        lines = df["line"].to_list()
        try:
            for pos, lineno, ev, text, iv in cands.iter_rows():
                kind = self._kind(ev, text)
                if kind is None:
                    continue
                at = lines[start] if start < pos else lineno
                self._segment(lines, sums, start, pos, segments)
                at = lineno
                self._structural(kind, lineno, ev, text, intervals[iv])
                start = pos + 1
            if start < df.height:
                at = lines[start]
                self._segment(lines, sums, start, df.height, segments)
        except InputError as err:
            error = (at, err)
        rows, late = self._rows(df, segments, carry, error[0] if error else None)
        if late is not None and (error is None or late[0] < error[0]):
            error = late
        return rows, error

    # -- pass 3 --------------------------------------------------------------------------------
    def _slot_numbers(self, section: Section) -> tuple[int, int]:
        """The numbers of a section's slot lists, all and the function part's."""
        slots = section.slots
        known = self.slot_ids.get(id(slots))
        if known is not None and known[0] is slots:
            return known[1]
        got = self._slot_list(slots), self._slot_list(section.func_slots)
        self.slot_ids[id(slots)] = (slots, got)
        return got

    def _slot_list(self, slots: list[Slot]) -> int:
        """The number of a column header's slot list (its frame kept in ``slot_frames``)."""
        key = tuple(slots)
        if key not in self.slot_lists:
            n = self.slot_lists[key] = len(self.slot_lists)
            self.slot_centers.append([s.center for s in slots])
            self.slot_frames.append(
                pl.DataFrame(
                    {
                        "cfg": [n] * len(slots),
                        "slot": list(range(len(slots))),
                        "metric": [s.metric for s in slots],
                        "scope": [s.scope for s in slots],
                        "s_fn": [s.function for s in slots],
                        "s_card": [s.part == "card" for s in slots],
                    },
                    schema={k: getattr(pl, t) for k, t in _SLOT_SCHEMA.items()},
                )
            )
        return self.slot_lists[key]

    def _rows(self, df, segments, carry, stop) -> tuple:
        """Pass 3: the segments' data rows (before line ``stop``) landed; (frame or None, the
        first error of a row read one by one as (line, error) or None)."""
        if not segments:
            return None, None
        seg_rows = []
        for k, sg in enumerate(segments):
            sec = sg.section
            seg_rows.append((
                k, sg.start, sg.end, sg.uid, *self._slot_numbers(sec), sec.key_end is not None,
                sec.func_start is not None, sec.name == SECTIONS["ACCEL"], sec.id_end,
                sec.key_end, sec.func_start, sec.name, *sg.ident,
            ))  # fmt: skip
        seg = pl.DataFrame(
            seg_rows,
            schema={"seg": pl.Int64, "start": pl.Int64, "end": pl.Int64, "uid": pl.Int64,
                    "cfg_all": pl.Int64, "cfg_func": pl.Int64, "K": pl.Boolean, "F": pl.Boolean,
                    "accel": pl.Boolean, "id_end": pl.Int64, "key_end": pl.Int64,
                    "func_start": pl.Int64, "section": pl.Utf8,
                    **{c: TABLE.polars_schema()[c] for c in IDENT_COLUMNS}},
            orient="row",
        )  # fmt: skip
        pos = seg.select("seg", pl.int_ranges("start", "end").alias("pos")).explode("pos")
        r = df.select(pl.all().gather(pos["pos"])).with_columns(pos["seg"])
        r = r.join(seg.drop("start", "end"), on="seg", how="left", maintain_order="left")
        if stop is not None:
            r = r.filter(pl.col("line") < stop)
        int0 = pl.col("int0")
        kind = (
            pl.when(pl.col("is_card")).then(CARD)
            .when(int0.is_not_null() & (~pl.col("K") | (int0 < MIN_KEY_BITS))).then(CONT)
            .when(int0.is_not_null()).then(KEYROW)
            .when(pl.col("is_fw") & pl.col("F")).then(FUNC)
            .otherwise(0)
        )  # fmt: skip
        r = r.with_columns(kind.alias("kind")).filter(pl.col("kind") > 0)
        if not r.height:
            return None, None
        r = self._card_state(r, carry)
        fast, slow = self._split(r)
        landed, more = self._fast(fast)
        out = [landed] if landed is not None else []
        slow = pl.concat([slow.select(more.columns), more]).sort("line") if more.height else slow
        self.segments, late = segments, None
        if slow.height:
            got, late = self._slow(slow)
            if got is not None:
                out.append(got)
        # The live section's card state, for the next chunk.
        live = self.reader.section
        if live is not None and live.uid is not None:
            last = r.filter(pl.col("uid") == live.uid)
            if last.height:
                live.card_type, live.card_id = last["ct"][-1], last["cid"][-1]
                live.has_card = True
        if not out:
            return None, late
        rows = pl.concat(out, how="vertical").sort("source_line", "_g", maintain_order=True)
        return rows.drop("_g"), late

    @staticmethod
    def _card_state(r: pl.DataFrame, carry) -> pl.DataFrame:
        """Card type and id in force at each row (``ct``, ``cid``, ``has``) and before it
        (``prev_*``): filled forward per section, from the carried section's state."""
        kind = pl.col("kind")
        r = r.with_columns(
            pl.when(kind == CARD).then(pl.col("tok0")).alias("set_ct"),
            pl.when(kind == CARD).then(pl.col("card_id"))
            .when(kind == CONT).then(pl.col("int0")).alias("set_cid"),
            (kind == CARD).alias("set_has"),
        )  # fmt: skip
        r = r.with_columns(
            pl.col("set_ct").forward_fill().over("uid").alias("ct"),
            pl.col("set_cid").forward_fill().over("uid").alias("cid"),
            pl.col("set_has").cum_max().over("uid").alias("has"),
            pl.col("set_ct").forward_fill().shift(1).over("uid").alias("prev_ct"),
            pl.col("set_cid").forward_fill().shift(1).over("uid").alias("prev_cid"),
            pl.col("set_has").cum_max().shift(1).over("uid").fill_null(False).alias("prev_has"),
        )
        if carry is not None:
            uid, ct, cid = carry
            mine = pl.col("uid") == uid
            r = r.with_columns(
                *[
                    pl.when(mine).then(pl.col(c).fill_null(v)).otherwise(pl.col(c)).alias(c)
                    for c, v in (("ct", ct), ("cid", cid), ("prev_ct", ct), ("prev_cid", cid))
                ],
                *[(pl.col(c) | mine).alias(c) for c in ("has", "prev_has")],
            )
        return r.drop("set_ct", "set_cid", "set_has")

    @staticmethod
    def _split(r: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
        """Rows read in bulk (the tokens, their classes, the function name, the accelerator's key
        size after it) and rows read one by one."""
        kind, toks = pl.col("kind"), pl.col("toks")
        prefix = pl.when(kind == CARD).then(2).when(kind == CONT).then(1).otherwise(0)
        tok = pl.element()
        cls = (
            pl.when(tok.str.contains(_RX_WORD)).then(pl.lit("W"))
            .when(tok.str.contains(_RX_NUM)).then(pl.lit("N"))
            .when(tok.str.contains(_RX_NULL)).then(pl.lit("Z"))
            .otherwise(pl.lit("X"))
        )  # fmt: skip
        r = r.with_columns(
            pl.col("text").str.extract_all(r"[^ ]+").alias("toks"), prefix.alias("prefix")
        ).with_columns(
            toks.list.eval(cls).list.join("").str.slice(pl.col("prefix")).alias("pat")
        )  # fmt: skip
        pat = pl.col("pat")
        r = r.with_columns(
            pat.str.count_matches("W").alias("nw"), pat.str.find("W").alias("fwi")
        )  # fmt: skip
        nw, first = pl.col("nw"), pl.col("prefix") + pl.col("fwi")
        r = r.with_columns(
            pl.when(nw > 0).then(toks.list.slice(first, nw).list.join(" ")).alias("function"),
            pl.when(pl.col("accel") & ~pl.col("K") & (nw > 0) & (first + nw < toks.list.len()))
            .then(first + nw).alias("keypos"),
        )  # fmt: skip
        key_tok = toks.list.get(pl.col("keypos").fill_null(0), null_on_oob=True)
        r = r.with_columns(
            pl.when(pl.col("keypos").is_not_null()).then(key_tok).alias("key_tok")
        ).with_columns(
            pl.when(pl.col("key_tok").str.contains(_RX_INT))
            .then(pl.col("key_tok").cast(pl.Int64, strict=False)).alias("key_fn")
        )  # fmt: skip
        slow = (
            ~pl.col("ascii")
            | ((kind != CARD) & ~pl.col("prev_has"))
            | ~pat.str.contains(_FAST_PATTERN)
            | (pl.col("keypos").is_not_null() & pl.col("key_fn").is_null())
            | ((kind == FUNC) & pl.col("function").is_null() & ~pl.col("K"))
        )
        r = r.with_columns(slow.alias("slow"))
        return r.filter(~pl.col("slow")), r.filter(pl.col("slow"))

    def _fast(self, r: pl.DataFrame) -> tuple[pl.DataFrame | None, pl.DataFrame]:
        """Land the rows ``_split`` found readable in bulk; (landed rows or None, the rows found
        not to be after all: more values than slots, a function value without a function
        name, a key size that is no number)."""
        if not r.height:
            return None, r
        columns = r.columns
        r, v = self._values(r)
        v, too_many = self._place(r, v)
        metric = pl.col("metric")
        bad = (
            pl.col("function").is_null() & ~pl.col("s_card") & pl.col("s_fn").is_null()
            & (metric != "key")
        ) | ((metric == "key") & ~pl.col("tok").str.contains(_RX_INT))  # fmt: skip
        bad_rows = v.filter(bad)["row"].unique()
        more = pl.concat([too_many, bad_rows]).unique()
        v = v.filter(~pl.col("row").is_in(more.implode()))
        landed = self._land(r, v)
        back = r.filter(pl.col("row").is_in(more.implode())).select(columns)
        return (landed if landed.height else None), back

    @staticmethod
    def _values(r: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
        """The rows numbered (``row``) with their slot list (``cfg``), and their value tokens,
        one per row of the second frame: ``tok``, ``ord`` (0, 1, ... in the row) and
        ``center``, its column's middle shifted as ``_data_row`` shifts it."""
        kind, text = pl.col("kind"), pl.col("text")
        lead = text.str.len_bytes() - text.str.strip_chars_start(" ").str.len_bytes()
        end0 = lead + pl.col("tok0").str.len_bytes()
        end1 = text.str.extract(r"^( *[^ ]+ +[^ ]+)", 1).str.len_bytes()
        shift = (
            pl.when(kind == CARD).then(pl.col("id_end") - end1)
            .when(kind == CONT).then(pl.col("id_end") - end0)
            .when(kind == KEYROW).then(pl.col("key_end") - end0)
            .otherwise(pl.col("func_start") - lead)
        )  # fmt: skip
        r = r.with_row_index("row").with_columns(
            pl.when(kind <= CONT).then(pl.col("cfg_all")).otherwise(pl.col("cfg_func"))
            .alias("cfg"),
            shift.cast(pl.Float64).alias("shift"),
        )  # fmt: skip
        tok = pl.col("toks")
        # Token positions without a window per row: offsets of each row's first token and
        # first byte in the exploded frame (a row's pieces cover its text up to trailing blanks).
        ntok = tok.list.len()
        width = text.str.strip_chars_end(" ").str.len_bytes().cast(pl.Int64)
        nv = pl.col("pat").str.count_matches("[NZ]") - pl.col("keypos").is_not_null().cast(
            pl.UInt32
        )
        r = r.with_columns(
            (ntok.cum_sum() - ntok).cast(pl.Int64).alias("tok_base"),
            (width.cum_sum() - width).alias("byte_base"),
            nv.cast(pl.Int64).alias("nv"),
        ).with_columns((pl.col("nv").cum_sum() - pl.col("nv")).alias("val_base"))
        long = (
            r.select("row", "cfg", "prefix", "keypos", "shift", "toks", "tok_base", "byte_base",
                     "val_base", text.str.extract_all(r" *[^ ]+").alias("pieces"))
            .explode("toks", "pieces")
            .with_columns(
                (pl.int_range(pl.len(), dtype=pl.Int64) - pl.col("tok_base")).alias("j"),
                (pl.col("pieces").str.len_bytes().cast(pl.Int64).cum_sum()
                 - pl.col("byte_base")).alias("end"),
            )
        )  # fmt: skip
        value = (
            (pl.col("j") >= pl.col("prefix"))
            & ~tok.str.contains(_RX_WORD)
            & (pl.col("keypos").is_null() | (pl.col("j") != pl.col("keypos")))
        )
        end = pl.col("end").cast(pl.Float64)
        v = long.filter(value).select(
            "row", "cfg", pl.col("toks").alias("tok"),
            (pl.int_range(pl.len(), dtype=pl.Int64) - pl.col("val_base")).alias("ord"),
            (end - tok.str.len_bytes().cast(pl.Float64) / 2 + pl.col("shift")).alias("center"),
        )  # fmt: skip
        return r, v

    def _place(self, r: pl.DataFrame, v: pl.DataFrame) -> tuple[pl.DataFrame, pl.Series]:
        """Each value's slot (in order when a row has all, else by nearest column, computed once
        per distinct pattern) and what the slot is; (values, the rows with more values than
        slots)."""
        slots = pl.concat(self.slot_frames)
        counts = (
            r.select("row", "cfg", "nv")
            .join(slots.group_by("cfg").agg(pl.len().alias("ns")), on="cfg", how="left")
            .with_columns(pl.col("ns").fill_null(0))
        )
        too_many = counts.filter(pl.col("nv") > pl.col("ns"))["row"]
        partial = counts.filter(pl.col("nv") < pl.col("ns"))["row"]
        v = v.filter(~pl.col("row").is_in(too_many.implode()))
        if partial.len():
            part = (
                v.filter(pl.col("row").is_in(partial.implode()))
                .group_by("row", maintain_order=True)
                .agg(pl.col("cfg").first(), pl.col("center"))
                .with_columns(
                    pl.concat_str(
                        pl.col("cfg").cast(pl.Utf8),
                        pl.col("center").list.eval(pl.element().cast(pl.Utf8)).list.join(","),
                        separator=":",
                    ).alias("key")
                )
            )  # fmt: skip
            keys, placed = [], []
            for key, cfg, centers in part.unique("key").select("key", "cfg", "center").iter_rows():
                keys.append(key)
                placed.append(_nearest(centers, self.slot_centers[cfg]))
            at = pl.DataFrame(
                {"key": keys, "slot": placed}, schema={"key": pl.Utf8, "slot": pl.List(pl.Int64)}
            )
            at = (
                part.select("row", "key").join(at, on="key").select("row", "slot")
                .explode("slot").with_columns(pl.int_range(pl.len()).over("row").alias("ord"))
            )  # fmt: skip
            v = v.join(at, on=["row", "ord"], how="left", maintain_order="left")
            v = v.with_columns(pl.coalesce("slot", "ord").alias("slot"))
        else:
            v = v.with_columns(pl.col("ord").alias("slot"))
        v = v.join(slots, on=["cfg", "slot"], how="left", maintain_order="left").join(
            r.select("row", "function"), on="row", how="left", maintain_order="left"
        )
        return v, too_many

    def _land(self, r: pl.DataFrame, v: pl.DataFrame) -> pl.DataFrame:
        """One landed row per row, function and scope of the placed values (``_emit``)."""
        metric = pl.col("metric")
        keys = (
            v.filter(metric == "key")
            .group_by("row")
            .agg(pl.col("tok").cast(pl.Int64).last().alias("key_slot"))
        )
        v = v.filter(metric != "key").with_columns(
            pl.when(pl.col("s_card")).then(None)
            .otherwise(pl.coalesce("s_fn", "function")).alias("fn"),
            pl.when(pl.col("tok").str.contains(_RX_NUM))
            .then(pl.col("tok").cast(pl.Float64, strict=False)).alias("value"),
        )  # fmt: skip
        groups = v.group_by("row", "fn", "scope", maintain_order=True).agg(
            pl.col("ord").min().alias("_g"),
            *[pl.col("value").filter(metric == m).last().alias(m) for m in _METRICS],
        )
        empty = pl.all_horizontal([pl.col(m).is_null() for m in _METRICS])
        if n := groups.select(empty.sum()).item():
            self.ctx.skip("crypto scope with no values", n)
        groups = groups.filter(~empty)
        rows = r.select("row", "line", "section", "ct", "cid", "key_fn", *IDENT_COLUMNS)
        rows = rows.join(keys, on="row", how="left").with_columns(
            pl.coalesce("key_slot", "key_fn").alias("key_bits")
        )
        schema = TABLE.polars_schema()
        landed = groups.join(rows, on="row", how="left", maintain_order="left").select(
            *[pl.col(c).cast(schema[c]) for c in IDENT_COLUMNS],
            pl.col("line").cast(schema["source_line"]).alias("source_line"),
            pl.col("section").cast(schema["section"]),
            pl.col("ct").cast(schema["card_type"]).alias("card_type"),
            pl.col("cid").cast(schema["card_id"]).alias("card_id"),
            pl.col("fn").cast(schema["function"]).alias("function"),
            pl.when(pl.col("fn").is_not_null()).then(pl.col("key_bits"))
            .cast(schema["key_size_bits"]).alias("key_size_bits"),
            pl.col("scope").cast(schema["scope"]),
            *[pl.col(m).cast(schema[m]) for m in _METRICS],
            pl.col("_g").cast(pl.Int64),
        )  # fmt: skip
        return landed

    def _slow(self, r: pl.DataFrame) -> tuple[pl.DataFrame | None, tuple | None]:
        """Rows read one by one by ``_data_row`` with the card state they would have had;
        (landed rows or None, the first error as (line, error) or None)."""
        rows, late = Rows(), None
        self.stats["one_by_one"] += r.height
        for k, line, text, ct, cid, has in r.select(
            "seg", "line", "text", "prev_ct", "prev_cid", "prev_has"
        ).iter_rows():
            sg = self.segments[k]
            sec = sg.section
            sec.card_type, sec.card_id, sec.has_card = ct, cid, has
            try:
                if not _data_row(sec, self.ctx, line, text, sg.ident, rows):
                    self.ctx.unknown("crypto line in a section")
            except InputError as err:
                late = (line, err)
                break
        if not rows.rows:
            return None, late
        df = rows.take()
        return df.with_columns(pl.int_range(pl.len()).over("source_line").alias("_g")), late


def parse(ctx: ParseContext) -> Iterator[Batch]:
    """The compiled parser (``native/src/rmf_crypto.rs``, :func:`parse_native`) for a plain-text
    report when it is built, whatever its size; else a report in bulk (:func:`parse_bulk`) from
    ``BULK_MIN_BYTES`` on, one line at a time (:func:`parse_by_line`) below: the same rows,
    errors and counts (tests), but the bulk parse costs about 35 ms whatever the size, which a
    small report does not repay (bench/RESULTS.md)."""
    lib = native_library()
    if lib is not None and _native.file_is_plain(_native.PlainTest(lib, "rc"), ctx):
        yield from parse_native(ctx, lib)
    elif ctx.size < BULK_MIN_BYTES:  # (0: not known, a part of a file say)
        yield from parse_by_line(ctx)
    else:
        yield from parse_bulk(ctx)


def parse_bulk(
    ctx: ParseContext, chunk_bytes: int = _rmf.FRAME_BYTES, stats: dict | None = None
) -> Iterator[Batch]:
    """The report a ReportFrames chunk at a time (see the comment above ``_facts``);
    ``stats["one_by_one"]`` counts the data rows read by ``_data_row``."""
    chunks = _Chunks(ctx)
    chunks.stats = stats if stats is not None else {}
    chunks.stats.setdefault("one_by_one", 0)
    frames = _rmf.ReportFrames(ctx, _rmf.CRYPTO_TITLE, chunk_bytes)
    pending: list[pl.DataFrame] = []
    held = 0
    for df in frames:
        rows, error = chunks.chunk(df, frames.intervals)
        if error is not None:
            raise error[1]
        if rows is not None:
            pending.append(rows)
            held += rows.height
        if held >= BATCH_ROWS:
            yield TABLE.name, pl.concat(pending)
            pending, held = [], 0
    chunks.reader.close(at_eof=True)
    if frames.reports == 0:
        what = frames.found("no RMF report title")
        raise ctx.error(f"no CRYPTO HARDWARE ACTIVITY report in file (found: {what})", line=1)
    if pending:
        yield TABLE.name, pl.concat(pending)


# -- the compiled parser (native/src/rmf_crypto.rs, native/src/ffi_crypto.rs) ----------------------
# A port of parse_by_line for plain text (printable ASCII, line feeds and the ASCII characters
# Python counts as blanks: tab, CR, form feed, vertical tab, 0x1C-0x1F), held to it by
# tests/test_native_crypto.py: the same rows, counters and errors. Its batches are taken after a
# chunk once NATIVE_BATCH_ROWS rows are waiting (parse_by_line cuts them at BATCH_ROWS rows): a
# chunk of NATIVE_CHUNK_BYTES lands about 45,000 rows.
NATIVE_CHUNK_BYTES = 4 << 20
NATIVE_BATCH_ROWS = 20_000
_P = ctypes.POINTER
_SIGS = {
    "mqn_rc_plain": (ctypes.c_int32, [ctypes.c_char_p, ctypes.c_size_t]),
    "mqn_rc_fd_plain": (ctypes.c_int32, [ctypes.c_int32]),
    "mqn_rc_new": (ctypes.c_void_p, []),
    "mqn_rc_free": (None, [ctypes.c_void_p]),
    "mqn_rc_feed": (
        ctypes.c_int32, [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_int64]
    ),
    "mqn_rc_finish": (ctypes.c_int32, [ctypes.c_void_p]),
    "mqn_rc_error": (
        None, [ctypes.c_void_p, _P(ctypes.c_void_p), _P(ctypes.c_size_t), _P(ctypes.c_int64)]
    ),
    "mqn_rc_pending": (ctypes.c_int64, [ctypes.c_void_p]),
    "mqn_rc_counters": (None, [ctypes.c_void_p, _P(ctypes.c_void_p), _P(ctypes.c_size_t)]),
    "mqn_rc_take": (ctypes.c_void_p, [ctypes.c_void_p, _P(ctypes.c_int64)]),
}  # fmt: skip


def native_library() -> ctypes.CDLL | None:
    """The compiled library with this parser's entry points bound, or None (not built, switched
    off with ``MQCAP_NATIVE=0``, or a library without them: Python parses)."""
    lib = _native.library()
    return _bound(lib) if lib is not None else None


@lru_cache(maxsize=4)
def _bound(lib: ctypes.CDLL) -> ctypes.CDLL | None:
    if not hasattr(lib, "mqn_rc_new"):
        return None
    return _native.bind(lib, _SIGS)


def parse_native(ctx: ParseContext, lib: ctypes.CDLL) -> Iterator[Batch]:
    """:func:`parse_by_line`'s rows, counters and errors from the compiled parser, chunk by
    chunk (``lib``: the compiled library, with this parser's entry points)."""
    lib = _bound(lib)
    h = lib.mqn_rc_new()

    def check(rc: int) -> None:
        _native_counters(ctx, lib, h)
        _native.raise_for(ctx, lib, "rc", h, rc, "RMF CRYPTO")

    try:
        for first, data in text_chunks(ctx, NATIVE_CHUNK_BYTES):
            check(lib.mqn_rc_feed(h, data, len(data), first))
            if lib.mqn_rc_pending(h) >= NATIVE_BATCH_ROWS:
                yield TABLE.name, _native_take(ctx, lib, h)
        check(lib.mqn_rc_finish(h))
        if lib.mqn_rc_pending(h):
            yield TABLE.name, _native_take(ctx, lib, h)
    finally:
        lib.mqn_rc_free(h)


def _native_counters(ctx: ParseContext, lib: ctypes.CDLL, h: int) -> None:
    """The unknown and skipped lines the compiled parser counted since the last call."""
    ptr, n = ctypes.c_void_p(), ctypes.c_size_t()
    lib.mqn_rc_counters(h, ctypes.byref(ptr), ctypes.byref(n))
    if n.value:
        for line in ctypes.string_at(ptr.value, n.value).decode().split("\n")[:-1]:
            what, count = line[1:].rsplit("\t", 1)
            (ctx.unknown if line[0] == "U" else ctx.skip)(what, int(count))


def _native_take(ctx: ParseContext, lib: ctypes.CDLL, h: int) -> _native.pa.Table:
    """The rows landed so far, as an Arrow table of :class:`Rows`' columns (buffers of
    ``mqn_rc_take``; ``Table.arrow`` takes it as it is, ``Table.frame`` through polars)."""
    pa = _native.pa
    n = ctypes.c_int64()
    ptr = lib.mqn_rc_take(h, ctypes.byref(n))
    if not ptr:
        raise _native.NativeBug(f"{ctx.source_file}: the compiled RMF CRYPTO parser failed")
    b, n = _native.Batch(lib, ptr), n.value
    f64, i32 = pa.float64(), pa.int32()
    return pa.table(
        {
            "source_file": constant_string(ctx.source_file, n),
            "system_id": b.views(0, n),
            "zos_level": b.views(3, n),
            "interval_start": b.ints(6, n, pa.timestamp("us")),
            "interval_s": b.ints(7, n, f64, valid=8),
            "source_line": b.ints(9, n),
            "section": b.views(10, n),
            "card_type": b.views(13, n),
            "card_id": b.ints(16, n, i32, valid=17),
            "function": b.views(18, n),
            "key_size_bits": b.ints(21, n, i32, valid=22),
            "scope": b.views(23, n),
            **{m: b.ints(26 + 2 * k, n, f64, valid=27 + 2 * k) for k, m in enumerate(_METRICS)},
        }
    )


PARSER = Parser(
    kind="rmf_crypto",
    description="RMF Postprocessor CRYPTO HARDWARE ACTIVITY report (text)",
    tables=(TABLE,),
    attributed_by_time=True,
    sniff=sniff,
    parse=parse,
    priority=30,
)
