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

Example row (V2R2, S35)::

    CEX5C   0   1882    0.206    38.8     0.25
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from mqcap.parsers import _rmf
from mqcap.parsers._lazy import lazy_module
from mqcap.parsers.base import TEXT_OR_BINARY_LINEAGE, Batch, ParseContext, Parser, Table

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


def sniff(head: bytes, name: str) -> bool:
    return _rmf.CRYPTO_TITLE in _rmf.head_titles(head)


def _section_kind(name: str) -> str:
    if "PKCS11" in name:
        return SECTIONS["PKCS11"]
    if "ACCELERATOR" in name:
        return SECTIONS["ACCEL"]
    return SECTIONS["CCA"]


_SLOT_CACHE: dict[tuple, tuple] = {}


def _slots(section: Section, text: str) -> None:
    """Read the column-header line (``TYPE   ID   RATE  EXEC TIME  UTIL% ...``) into slots."""
    key = (section.name, section.layout, text)
    if key in _SLOT_CACHE:
        (section.layout, section.slots, section.id_end, section.func_start, section.key_end) = (
            _SLOT_CACHE[key]
        )
        section.func_slots = [s for s in section.slots if s.part == "func"]
        return
    _read_slots(section, text)
    if len(_SLOT_CACHE) < 256:
        _SLOT_CACHE[key] = (
            section.layout, section.slots, section.id_end, section.func_start, section.key_end,
        )  # fmt: skip


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
    placed: list[tuple[Slot, str]] = []
    nxt = 0
    for i, (text, center) in enumerate(values):
        # Leave room for the values still to place.
        last = len(slots) - (len(values) - i)
        best = min(range(nxt, last + 1), key=lambda j: abs(slots[j].center - center))
        placed.append((slots[best], text))
        nxt = best + 1
    return placed


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


def parse(ctx: ParseContext) -> Iterator[Batch]:
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


PARSER = Parser(
    kind="rmf_crypto",
    description="RMF Postprocessor CRYPTO HARDWARE ACTIVITY report (text)",
    tables=(TABLE,),
    attributed_by_time=True,
    sniff=sniff,
    parse=parse,
    priority=30,
)
