"""Encoder: landing-style values -> SMF structures, records and dumps (the decoder's inverse).

For tests and scenario generators that need SMF 115/231 (channel initiator statistics), 116/10
(channel accounting), any other 115 statistics record (``record_115``) and the storage-manager
records 115/5, 6, 7 (``record_115_storage``) as input. Driven by the same field tables as the decoder, so any field
the decoder reads can be written; fields left out are zero (or blank text).

Example:
    rec = record_116_10(Ident(...), [{"chl_name": "TO.QM2", "msg_all_count": 100}])
    write_dump(path, [rec])  # with RDWs; spanned when a record exceeds 32,756 bytes
"""

from __future__ import annotations

import struct
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from mqcap.parsers.smf.convert import (
    datetime_to_epoch_us,
    epoch_us_to_stck,
    pack_smf_date,
    to_ebcdic,
)
from mqcap.parsers.smf.decode import INT_KINDS
from mqcap.parsers.smf.fields import Structure
from mqcap.parsers.smf.structures import (
    ENUMS,
    QCCT,
    QCST,
    QCTADP,
    QCTDNS,
    QCTDSP,
    QCTSSL,
    QSGM,
    QSPH,
    QSRS,
)

# (id, eyecatcher) of the structures that carry them.
EYES = {
    "QCST": (0xE74A, "QCST"),
    "QCCT": (0xE741, "QCCT"),
    "QSGM": (0xE20F, "QSGM"),
    "QSPH": (0xE210, "QSPH"),
    "QSRS": (0xE20E, "QSRS"),
}
STORAGE_SUBTYPES = {5: QSPH, 6: QSGM, 7: QSRS}
MAX_SEGMENT = 32756  # data bytes per RDW segment


@dataclass
class Ident:
    """What the SMF header and QWHS of an encoded record say."""

    written_local: datetime
    system_id: str = "SYS1"
    qmgr: str = "QM01"
    mq_version: str = "930"
    interval_start_utc: datetime | None = None
    interval_us: int = 0
    # Write older (shorter) structure versions: e.g. {"QCCT": 48} is the MQ 8.0 QCCT.
    lengths: dict[str, int] | None = None
    # MQ 10 header extension (QWHX): queue-sharing group and the long release, e.g. "A00";
    # written when ``release`` is set (the header's ``mq_version`` is then "946").
    qsg: str | None = None
    release: str | None = None

    def length(self, s: Structure) -> int:
        return (self.lengths or {}).get(s.name, s.size)


def _as_us(v) -> int | None:
    return datetime_to_epoch_us(v) if isinstance(v, datetime) else v


def encode_structure(s: Structure, values: dict, length: int | None = None) -> bytes:
    """One instance of ``s``; ``values`` keyed by landing column (unknown keys are an error)."""
    buf = bytearray(length or s.size)
    size = len(buf)
    if s.name in EYES:
        ident, eye = EYES[s.name]
        struct.pack_into(">H", buf, 0, ident)
        buf[4:8] = to_ebcdic(eye, 4)
    if s.length_member:
        struct.pack_into(">H", buf, s.member(s.length_member).offset, len(buf))
    by_column = {f.column: f for f in s.fields}
    unknown = set(values) - set(by_column)
    if unknown:
        raise KeyError(f"{s.name} has no column(s) {sorted(unknown)}")
    for f in s.fields:
        if not f.member or f.member.startswith("__"):
            continue
        m = s.member(f.member)
        if m.offset + m.size > size:
            continue  # not in this (older) version of the structure
        v = values.get(f.column)
        kind = f.kind
        if kind in ("text", "dspname"):
            if kind == "dspname" and v is None:
                continue
            buf[m.offset : m.offset + m.size] = to_ebcdic(v, m.size)
            continue
        if v is None:
            continue
        if kind == "hex":
            buf[m.offset : m.offset + m.size] = bytes.fromhex(v).ljust(m.size, b"\0")
        elif kind == "stck":
            struct.pack_into(">Q", buf, m.offset, v * 4096)
        elif kind == "time":
            struct.pack_into(">Q", buf, m.offset, epoch_us_to_stck(_as_us(v)))
        elif kind.startswith("enum:"):
            code = {name: c for c, name in ENUMS[kind.split(":")[1]].items()}[v]
            struct.pack_into(">" + m.code, buf, m.offset, code)
        elif kind.startswith("flag:"):
            _, mask, yes, _no = kind.split(":")
            if v == yes:
                word = struct.unpack_from(">" + m.code, buf, m.offset)[0] | int(mask, 16)
                struct.pack_into(">" + m.code, buf, m.offset, word)
        elif kind in INT_KINDS or kind in ("x32", "min0", "minsize"):
            code = INT_KINDS.get(kind, m.code)
            struct.pack_into(">" + code, buf, m.offset, v)
    return bytes(buf)


def _header(rtype: int, subtype: int, ident: Ident) -> bytes:
    t = ident.written_local
    hundredths = (t.hour * 3600 + t.minute * 60 + t.second) * 100 + t.microsecond // 10000
    return (
        bytes([0x5E, rtype])
        + struct.pack(">I", hundredths)
        + pack_smf_date(t)
        + to_ebcdic(ident.system_id, 4)
        + to_ebcdic(ident.qmgr, 4)
        + struct.pack(">H", subtype)
        + to_ebcdic(ident.mq_version, 3)
        + b"\0"
    )


def _qwhx(ident: Ident) -> bytes:
    """The MQ 10 header extension: length, type, QSG name, release (6 characters)."""
    return (
        struct.pack(">HBB", 16, 0, 0)
        + to_ebcdic(ident.qsg, 4)
        + to_ebcdic(ident.release, 6)
        + b"\0" * 2
    )


def _qwhs(ident: Ident, sections: int, durn: int) -> bytes:
    start = epoch_us_to_stck(_as_us(ident.interval_start_utc))
    written = epoch_us_to_stck(datetime_to_epoch_us(ident.written_local))
    # qwhsflag1 bit 0x40: a QWHX follows the QWHS.
    flag1 = 0x40 if ident.release else 0
    return (
        struct.pack(">HBBHBB", 52, 1, 0x1A, 1, sections, 0x10)
        + b"\0" * 4
        + to_ebcdic(ident.qmgr, 4)
        + struct.pack(">Q", written)
        + b"\0" * 8
        + bytes([flag1])
        + b"\0" * 3
        + struct.pack(">QQ", start, durn)
        + (_qwhx(ident) if ident.release else b"")
    )


def _record(
    rtype: int,
    subtype: int,
    ident: Ident,
    durn: int,
    sections: list[tuple[bytes, int, int]],
    qwhs: bytes | None = None,
) -> bytes:
    """Header, triplets (QWHS first), then the QWHS and the data sections."""
    ntrip = len(sections) + 1
    head = _header(rtype, subtype, ident)
    pos = len(head) + 8 * ntrip + 4  # offsets count the RDW
    qwhs = _qwhs(ident, ntrip, durn) if qwhs is None else qwhs
    triplets = [struct.pack(">IHH", pos, len(qwhs), 1)]
    pos += len(qwhs)
    body = [qwhs]
    for data, ln, n in sections:
        triplets.append(struct.pack(">IHH", pos if n else 0, ln, n))
        body.append(data)
        pos += len(data)
    return head + b"".join(triplets) + b"".join(body)


def record_116_10(ident: Ident, channels: Iterable[dict]) -> bytes:
    """An SMF 116 subtype 10 record (no RDW) holding one QCST per channel."""
    ln = ident.length(QCST)
    rows = [encode_structure(QCST, c, ln) for c in channels]
    return _record(116, 10, ident, ident.interval_us, [(b"".join(rows), ln, len(rows))])


def record_115_231(
    ident: Ident,
    qcct: dict,
    dispatchers: Iterable[dict] = (),
    adapters: Iterable[dict] = (),
    ssl: Iterable[dict] = (),
    dns: Iterable[dict] = (),
) -> bytes:
    """An SMF 115 subtype 231 record (no RDW): QCCT and the per-task blocks (``task_index`` is
    the position in its list, so it is not given)."""
    sections = [(encode_structure(QCCT, qcct, ident.length(QCCT)), ident.length(QCCT), 1)]
    for s, rows in ((QCTDSP, dispatchers), (QCTADP, adapters), (QCTSSL, ssl), (QCTDNS, dns)):
        data = [
            encode_structure(s, {k: v for k, v in r.items() if k != "task_index"}) for r in rows
        ]
        sections.append((b"".join(data), s.size, len(data)))
    return _record(115, 231, ident, ident.interval_us * 4096, sections)


def record_115(
    ident: Ident, subtype: int, sections: dict[int, tuple[Structure, list[dict]]]
) -> bytes:
    """An SMF 115 statistics record (no RDW) with a full QWHS (interval start and duration);
    ``sections`` maps a triplet number (``records.DISPATCH_115``) to a structure and its rows.

    Example:
        record_115(ident, 2, {4: (STRUCTURES["QLST"], [{"get_lock_requests": 5}])})
    """
    out = []
    for i in range(1, max(sections, default=0) + 1):
        s, rows = sections.get(i, (None, []))
        if s is None:
            out.append((b"", 0, 0))
            continue
        ln = ident.length(s)
        data = [encode_structure(s, r, ln) for r in rows]
        out.append((b"".join(data), ln, len(data)))
    return _record(115, subtype, ident, ident.interval_us, out)


def record_115_storage(ident: Ident, subtype: int, rows: Iterable[dict]) -> bytes:
    """A storage-manager record (115 subtype 5 QSPH, 6 QSGM, 7 QSRS; no RDW).

    These records have no QWHS: their first section is a 4-byte header whose length halfword
    is 1, followed by the QWHX when ``ident.release`` is set (MQ 10); without a release the
    section is the bare 4 bytes (its triplet length 4, as before MQ 10). The interval is not in
    the record: readers take it from the statistics record before it.
    """
    s = STORAGE_SUBTYPES[subtype]
    ln = ident.length(s)
    data = [encode_structure(s, r, ln) for r in rows]
    head = struct.pack(">HH", 1, 0) + (_qwhx(ident) if ident.release else b"")
    return _record(115, subtype, ident, 0, [(b"".join(data), ln, len(data))], qwhs=head)


def with_rdw(record: bytes) -> bytes:
    """The record with RDWs, split into spanned segments when it is too long for one."""
    if len(record) <= MAX_SEGMENT:
        return struct.pack(">HH", len(record) + 4, 0) + record
    parts = [record[i : i + MAX_SEGMENT] for i in range(0, len(record), MAX_SEGMENT)]
    out = []
    for k, p in enumerate(parts):
        flag = 1 if k == 0 else 2 if k == len(parts) - 1 else 3
        out.append(struct.pack(">HH", len(p) + 4, flag << 8) + p)
    return b"".join(out)


def write_dump(path: Path, records: Iterable[bytes], rdw: bool = True) -> Path:
    with open(path, "wb") as fh:
        for r in records:
            fh.write(with_rdw(r) if rdw else r)
    return path
