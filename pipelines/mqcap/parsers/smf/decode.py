"""Compiled decoders: one function per (structure, length, version), built from the field table.

Each plan unpacks every numeric member of a structure instance with one precompiled
``struct.Struct`` (members in offset order, gaps as pad bytes) and returns the row's values in
the field-table order: absent fields (the record's version lacks them) are None. Building the
function from the table once keeps the per-record work to a single ``unpack_from`` plus a few
arithmetic conversions.

Example:
    decode = plan_for(STRUCTURES["QCTADP"], 32, 0)
    values = decode(buf, base, index=0)
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from functools import cache

from mqcap.parsers.smf.convert import DROPSIGN, ebcdic_text, stck_to_epoch_us
from mqcap.parsers.smf.fields import INT_KINDS, F, Structure
from mqcap.parsers.smf.structures import ENUMS

Decoder = Callable[..., tuple]
_NUMERIC = {*INT_KINDS, "stck", "time", "minsize", "min0", "x32"}


def _code(s: Structure, f: F) -> str:
    if f.kind in INT_KINDS:
        return INT_KINDS[f.kind]
    if f.kind in ("stck", "time"):
        return "Q"
    if f.kind in ("minsize", "min0"):
        return "i" if f.kind == "minsize" else "I"
    m = s.member(f.member)  # type: ignore[arg-type]
    return m.code  # x32, flag:, enum: use the member's own type


def _spans(s: Structure, fields: list[F]) -> dict[tuple[int, str], int]:
    """Numeric members to unpack, keyed (offset, code) -> position in the unpacked tuple."""
    keys = set()
    for f in fields:
        if f.kind in _NUMERIC or f.kind.startswith(("enum:", "flag:")) or f.kind == "dspname":
            member = "flags" if f.kind == "dspname" else f.member
            code = "B" if f.kind == "dspname" else _code(s, f)
            keys.add((s.member(member).offset, code))  # type: ignore[arg-type]
    ordered = sorted(keys)
    return {k: i for i, k in enumerate(ordered)}


def _format(spans: dict[tuple[int, str], int]) -> str:
    fmt, pos = [">"], 0
    for off, code in sorted(spans):
        if off < pos:
            raise ValueError(f"overlapping numeric members at offset {off}")
        if off > pos:
            fmt.append(f"{off - pos}x")
        fmt.append(code)
        pos = off + struct.calcsize(">" + code)
    return "".join(fmt)


@cache
def plan_for(s: Structure, length: int, version: int) -> Decoder:
    present = [f for f in s.fields if f.member and _present(s, f, length, version)]
    spans = _spans(s, present)
    st = struct.Struct(_format(spans))
    env: dict[str, object] = {
        "_unpack": st.unpack_from,
        "_t": stck_to_epoch_us,
        "_s": ebcdic_text,
        "_DROP": DROPSIGN,
    }
    exprs = []
    for f in s.fields:
        if f not in present:
            exprs.append("None")
            continue
        exprs.append(_expr(s, f, spans, env))
    src = (
        "def decode(buf, base, index=None, correl=None):\n"
        "    v = _unpack(buf, base)\n"
        f"    return ({', '.join(exprs)},)\n"
    )
    exec(compile(src, f"<smf {s.name} len={length} ver={version}>", "exec"), env)
    return env["decode"]  # type: ignore[return-value]


def _present(s: Structure, f: F, length: int, version: int) -> bool:
    if f.member in ("__index__", "__correl__"):
        return True
    if f.kind == "dspname":
        return s.member("flags").offset < length and s.present(f, length, version)
    return s.present(f, length, version)


def _expr(s: Structure, f: F, spans: dict, env: dict) -> str:
    kind = f.kind
    if kind == "index":
        return "index"
    if kind == "correl":
        return "(None if correl is None else correl.hex().upper())"
    m = s.member(f.member)  # type: ignore[arg-type]
    if kind in ("text", "hex", "hex16", "dspname"):
        size = 16 if kind == "hex16" else m.size
        sl = f"buf[base + {m.offset}:base + {m.offset + size}]"
        if kind == "text":
            return f"_s({sl})"
        if kind == "dspname":
            flags = f"v[{spans[(s.member('flags').offset, 'B')]}]"
            return f"(_s({sl}) if {flags} & 0x20 else None)"
        return f"{sl}.hex().upper()"
    i = spans[(m.offset, _code(s, f))]
    val = f"v[{i}]"
    if kind == "u64":
        return f"({val} & _DROP)"
    if kind == "stck":
        return f"({val} >> 12)"
    if kind == "time":
        return f"_t({val})"
    if kind == "minsize":
        return f"(-1 if {val} == 0x0FFFFFFF else {val})"
    if kind == "min0":
        return f"(0 if {val} == 0x8FFFFFFF else {val})"
    if kind.startswith("enum:"):
        name = kind.split(":")[1]
        env[f"_E_{name}"] = ENUMS[name]
        return f"_E_{name}.get({val})"
    if kind.startswith("flag:"):
        _, mask, yes, no = kind.split(":")
        return f"({yes!r} if {val} & 0x{mask} else {no!r})"
    return val
