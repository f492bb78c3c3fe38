"""A compact declarative form for SMF data structures: layout + printed fields.

A structure is declared twice, briefly:

- ``layout``: the C struct in its order (packed, big-endian), one ``name:type`` per member;
  types ``h H i I q Q B`` (struct codes), ``Ns`` (N bytes of text or binary), ``Nx`` (filler);
  ``name:T*N`` is an array (members ``name_0``..``name_{N-1}``). Offsets follow from the order.
- ``fields``: what lands, in mq-smf-csv's column order: ``F(column, member, kind, min_version)``.
  ``column`` is mq-smf-csv's heading (the landing column is derived from it, with the unit);
  ``kind`` says how to read the member: ``s16 u16 s32 u32 s64 u64 u8`` (integers), ``stck``
  (STCK duration -> ``<name>_us``), ``time`` (STCK timestamp -> ``<name>_utc``), ``text``
  (EBCDIC), ``hex`` (bytes as hex), ``enum:<map>`` (a code shown as its name), ``flag:<mask>``
  (Yes/No from a bit of a word).

A field is present in a record when the structure's length covers it (``ll``), or, for the
structures that carry a version number (WQ, WTAS), when ``version`` >= the field's
``struct_version``. ``min_version`` is the MQ release (e.g. 903) that introduced the field: the
CSV loader uses it to tell a "not in this release" placeholder (-1) from a value.

Example:
    S = Structure("QLST", "qlstid:h qlstll:h eye:4s getl:I hldl:I rell:I f:12x",
                  [F("Get_Lock_Requests", "getl", "u32")])
    S.member("getl").offset  # 8
"""

from __future__ import annotations

import re
import struct
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property

_SIZES = {"h": 2, "H": 2, "i": 4, "I": 4, "q": 8, "Q": 8, "B": 1, "b": 1}
# Integer kinds: struct code used to read the member.
INT_KINDS = {"s16": "h", "u16": "H", "s32": "i", "u32": "I", "s64": "q", "u64": "Q", "u8": "B"}
KIND_TYPES = {
    "stck": "BIGINT",
    "time": "TIMESTAMP",
    "text": "VARCHAR",
    "hex": "VARCHAR",
    "hex16": "VARCHAR",
    "correl": "VARCHAR",
    "dspname": "VARCHAR",
}


@dataclass(frozen=True)
class Member:
    name: str
    offset: int
    size: int
    code: str  # struct code, or "s" for bytes


def parse_layout(layout: str) -> dict[str, Member]:
    members: dict[str, Member] = {}
    off = 0
    for tok in layout.split():
        name, _, typ = tok.partition(":")
        count = 1
        if "*" in typ:
            typ, n = typ.split("*")
            count = int(n)
        m = re.fullmatch(r"(\d+)([sx])", typ)
        if m:
            size, code = int(m.group(1)), m.group(2)
        else:
            size, code = _SIZES[typ], typ
        for k in range(count):
            mname = name if count == 1 else f"{name}_{k}"
            if code != "x":
                if mname in members:
                    raise ValueError(f"member {mname} declared twice")
                members[mname] = Member(mname, off, size, code)
            off += size
    members["__size__"] = Member("__size__", off, 0, "x")
    return members


def column_name(heading: str) -> str:
    """mq-smf-csv heading -> snake_case base name: ``IO_Count {1.1}`` -> ``io_count_1_1``."""
    return re.sub(r"[^0-9a-z]+", "_", heading.strip().lower()).strip("_")


def landing_column(heading: str, kind: str) -> str:
    base = column_name(heading)
    if kind == "stck":
        return base + "_us"
    if kind == "time":
        return base + "_utc"
    return base


@dataclass(frozen=True)
class F:
    """One landed field. ``member`` None: the field has no known binary layout (NULL)."""

    heading: str
    member: str | None
    kind: str = "u32"
    min_version: int = 800
    struct_version: int = 0  # WQ/WTAS: first structure version carrying it
    inferred: bool = False  # offset inferred from published sizes, not from a header

    @property
    def column(self) -> str:
        return landing_column(self.heading, self.kind)

    @property
    def sql_type(self) -> str:
        if self.kind in KIND_TYPES:
            return KIND_TYPES[self.kind]
        if self.kind.startswith(("enum:", "flag:")):
            return "VARCHAR"
        return "BIGINT"

    @property
    def unit(self) -> str:
        return {"stck": "us", "time": "utc"}.get(self.kind, "")


@dataclass(eq=False)
class Structure:
    """One SMF data structure (landing table ``smf_<name>``)."""

    name: str
    layout: str
    fields: list[F]
    description: str = ""
    length_member: str | None = None  # member holding the structure length (else triplet l)
    version_member: str | None = None  # WQ/WTAS structure version
    extra: list[tuple[str, str]] = field(default_factory=list)  # extra (column, type)

    @cached_property
    def members(self) -> dict[str, Member]:
        return parse_layout(self.layout)

    def member(self, name: str) -> Member:
        return self.members[name]

    @property
    def size(self) -> int:
        return self.members["__size__"].offset

    @property
    def table(self) -> str:
        return f"smf_{self.name.lower()}"

    def field_span(self, f: F) -> tuple[int, int]:
        m = self.members[f.member]  # type: ignore[index]
        size = struct.calcsize(">" + INT_KINDS[f.kind]) if f.kind in INT_KINDS else m.size
        if f.kind in ("stck", "time"):
            size = 8
        return m.offset, size

    def present(self, f: F, length: int, version: int) -> bool:
        if f.member is None:
            return False
        if f.struct_version and version < f.struct_version:
            return False
        off, size = self.field_span(f)
        return off + size <= length


Converter = Callable[[object], object]
