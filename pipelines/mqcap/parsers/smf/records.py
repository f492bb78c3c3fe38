"""One SMF 115/116 record -> rows per structure: header, QWHS, triplets, dispatch by subtype.

Which self-defining section (triplet) holds which structure is fixed per subtype; like IBM's
mq-smf-csv, only the first ``qwhsnsda`` triplets are read (a later one is not part of the
record), and a QWHS length of 4 means "no QWHS, one data section".

Example:
    for table, values in decode_record(rec.data): ...
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache

from mqcap.parsers.smf.convert import (
    MQSMFCSV_TABLE,
    datetime_to_epoch_us,
    ebcdic_text,
    smf_timestamp,
    stck_to_epoch_us,
)
from mqcap.parsers.smf.decode import plan_for
from mqcap.parsers.smf.fields import Structure
from mqcap.parsers.smf.structures import (
    QEST,
    QEST_ENTRIES,
    QEST_HEADER,
    QWHC_SIZE,
    STRUCTURES,
)

S = STRUCTURES
_TRIP = struct.Struct(">IHH")
_H = struct.Struct(">H")
_I = struct.Struct(">I")
_QQ = struct.Struct(">QQ")
HEADER_LEN = 24  # flag, type, time, date, sid, ssid, subtype, release, reserved (no RDW)
# subtype -> {triplet index: structure} for the simple "n entries of one structure" layouts
DISPATCH_115 = {
    1: {9: "QSST", 11: "QJST"},
    2: {1: "QMST", 2: "QIST", 3: "QPST", 4: "QLST", 5: "Q5ST", 6: "QEST", 7: "QTST", 8: "QESD"},
    5: {1: "QSPH"},
    6: {1: "QSGM"},
    7: {1: "QSRS"},
    201: {1: "QIS1"},
    215: {1: "QPST"},
    231: {1: "QCCT", 2: "QCTDSP", 3: "QCTADP", 4: "QCTSSL", 5: "QCTDNS"},
}


class RecordError(ValueError):
    """The record's own pointers do not fit in it (truncated or corrupt)."""


@dataclass
class Identity:
    smf_type: int
    smf_subtype: int
    record_time_local: int | None
    system_id: str | None
    qmgr: str | None
    mq_version: str | None
    interval_start: int | None = None
    interval_us: int | None = None
    qsg: str | None = None

    def values(self) -> tuple:
        dur_s = None if self.interval_us is None else self.interval_us // 1_000_000
        return (
            self.smf_type,
            self.smf_subtype,
            self.record_time_local,
            self.system_id,
            self.qmgr,
            self.qsg,  # from the MQ 10 header extension (QWHX) of 115 records, else NULL
            self.mq_version,
            self.interval_start,
            dur_s,
            self.interval_us,
        )


def is_mq(data: bytes) -> bool:
    return len(data) >= 2 and data[1] in (115, 116)


def identity(data: bytes) -> Identity:
    return Identity(*_identity(data[:HEADER_LEN]))


@lru_cache(maxsize=1024)
def _identity(data: bytes) -> tuple:
    flag, rtype = data[0], data[1]
    subtype = _H.unpack_from(data, 18)[0] if flag & 0x40 else 0xFF
    when = smf_timestamp(data[6:10], _I.unpack_from(data, 2)[0])
    return (
        rtype,
        subtype,
        datetime_to_epoch_us(when),
        ebcdic_text(data[10:14]),
        ebcdic_text(data[14:18]),
        ebcdic_text(data[20:23]),
    )


def _qwhs_at(data: bytes) -> int | None:
    """Offset in data of the record's QWHS (None: the record has none)."""
    if len(data) < HEADER_LEN + 8:
        raise RecordError(f"record of {len(data)} bytes is too short for an MQ SMF header")
    off0, len0, _ = _TRIP.unpack_from(data, HEADER_LEN)
    if len0 == 4:
        return None
    qwhs = off0 - 4
    if qwhs < 0 or qwhs + 2 > len(data):
        raise RecordError(
            f"truncated record: QWHS offset {off0} is outside the record ({len(data)} bytes)"
        )
    return qwhs


def _triplets(data: bytes) -> tuple[list[tuple[int, int, int]], int | None]:
    """(offset in data, length, count) of the sections the record declares; QWHS offset."""
    qwhs = _qwhs_at(data)
    if qwhs is None:
        count = 2
    else:
        off0 = qwhs + 4
        if _H.unpack_from(data, qwhs)[0] == 1:
            # The storage-manager subtypes (5, 6, 7) of MQ 10 carry a 4-byte header whose length
            # halfword is 1 (an extension may follow): like mq-smf-csv, one data section.
            count = 2
        elif qwhs + 7 > len(data):
            raise RecordError(
                f"truncated record: QWHS offset {off0} is outside the record ({len(data)} bytes)"
            )
        else:
            count = min(data[qwhs + 6], 12)
    out = []
    for i in range(count):
        pos = HEADER_LEN + 8 * i
        if pos + 8 > len(data):
            break
        off, ln, n = _TRIP.unpack_from(data, pos)
        out.append((off - 4, ln, n))
    return out, qwhs


def _check(data: bytes, off: int, ln: int, n: int, what: str) -> None:
    if off < 0 or off + ln * n > len(data):
        raise RecordError(
            f"{what} section (offset {off + 4}, {n} x {ln} bytes) runs past the end of the "
            f"record ({len(data) + 4} bytes with RDW): truncated record"
        )


_PLANS: dict[tuple[str, bytes, bytes, int], object] = {}


def _decode(s: Structure, data: bytes, base: int, section_len: int, **kw) -> tuple:
    """Decode one instance; the compiled plan is looked up by the raw length/version bytes."""
    lm = s.member(s.length_member) if s.length_member else None
    vm = s.member(s.version_member) if s.version_member else None
    lraw = data[base + lm.offset : base + lm.offset + 2] if lm else b""
    vraw = data[base + vm.offset : base + vm.offset + 4] if vm else b""
    room = len(data) - base
    key = (s.name, lraw, vraw, min(section_len, room))
    plan = _PLANS.get(key)
    if plan is None:
        length = int.from_bytes(lraw, "big") if lm else section_len
        plan = plan_for(s, min(length, room), int.from_bytes(vraw, "big") if vm else 0)
        _PLANS[key] = plan
    return plan(data, base, **kw)  # type: ignore[operator]


Interval = tuple[int | None, int | None]


QWHX_FLAG = 0x40  # qwhsflag1: a QWHX (header extension) follows the QWHS


def _qwhx(data: bytes, at: int, ident: Identity) -> None:
    """The MQ 10 header extension: queue-sharing group and the long release name."""
    if at + 14 > len(data):
        raise RecordError(f"QWHX header extension at {at + 4} runs past the end of the record")
    ident.qsg = ebcdic_text(data[at + 4 : at + 8])
    ident.mq_version = ebcdic_text(data[at + 8 : at + 14])


def advance_intervals(data: bytes, intervals: dict[tuple, Interval]) -> None:
    """What :func:`decode_record` does to ``intervals`` for this record, without decoding its
    sections: how the parts of one dump decoded in parallel learn the statistics interval the
    records before them left (``mqcap.parsers.smf.parts``)."""
    _header(data, identity(data), _qwhs_at(data), intervals)


def _header(
    data: bytes, ident: Identity, qwhs: int | None, intervals: dict[tuple, Interval] | None
) -> None:
    """The interval and header extension of ``ident`` from the QWHS; ``intervals`` updated."""
    key = (ident.system_id, ident.qmgr)
    if qwhs is not None and ident.smf_type == 115:
        qlen = _H.unpack_from(data, qwhs)[0]
        if qlen >= 52:
            _check(data, qwhs, 52, 1, "QWHS")
            start, dur = _QQ.unpack_from(data, qwhs + 36)
            ident.interval_start = stck_to_epoch_us(start)
            ident.interval_us = dur // 4096 if ident.smf_subtype == 231 else dur
            if ident.interval_start is None:
                ident.interval_us = None
            if intervals is not None:
                intervals[key] = (ident.interval_start, ident.interval_us)
            if data[qwhs + 32] & QWHX_FLAG:
                _qwhx(data, qwhs + 52, ident)
        elif qlen == 1:
            if intervals is not None:
                ident.interval_start, ident.interval_us = intervals.get(key, (None, None))
            # No flag here: mq-smf-csv takes release "946" (no real MQ release) to mean MQ 10+.
            if (ident.mq_version or "") >= "946":
                _qwhx(data, qwhs + 4, ident)
        elif intervals is not None:
            intervals.pop(key, None)  # mq-smf-csv forgets the interval here
    elif qwhs is None and intervals is not None:
        intervals.pop(key, None)  # no QWHS: mq-smf-csv forgets the interval too


def decode_record(
    data: bytes, intervals: dict[tuple, Interval] | None = None
) -> Iterator[tuple[str, Identity, tuple]]:
    """(structure name, identity, field values) for every structure instance in the record.

    ``intervals`` (kept by the caller across the records of one dump, per system and queue
    manager) carries the statistics interval to the storage-manager records (115 subtypes 5, 6,
    7): their short header has no interval, and mq-smf-csv prints the one of the statistics
    record before them (MQ writes them at the end of the same interval).
    """
    ident = identity(data)
    trips, qwhs = _triplets(data)
    _header(data, ident, qwhs, intervals)

    def trip(i: int) -> tuple[int, int, int]:
        return trips[i] if i < len(trips) else (0, 0, 0)

    if ident.smf_type == 115:
        for i, name in DISPATCH_115.get(ident.smf_subtype, {}).items():
            off, ln, n = trip(i)
            if not n:
                continue
            if name == "QCTDNS" and ln != S["QCTDNS"].size:
                continue  # mq-smf-csv: an idle DNS task's section is not initialised
            _check(data, off, ln, n, name)
            for j in range(n):
                base = off + ln * j
                if name == "QEST":
                    yield from _qest(data, base, ident)
                else:
                    yield name, ident, _decode(S[name], data, base, ln, index=j)
        return
    st = ident.smf_subtype
    if st == 0:
        off, ln, n = trip(2)
        if not n or qwhs is None:
            return
        _check(data, off, ln, 1, "QMAC")
        _check(data, qwhs + 36, QWHC_SIZE, 1, "QWHC")
        buf = data[qwhs + 36 : qwhs + 36 + QWHC_SIZE] + data[off : off + ln]
        yield "QMAC", ident, _decode(S["QMAC"], buf, 0, len(buf))
    elif st in (1, 2):
        correl = bytes(16)
        qtrip = 2
        if st == 1:
            off, ln, n = trip(2)
            if n:
                _check(data, off, ln, 1, "WTAS")
                yield "WTAS", ident, _decode(S["WTAS"], data, off, ln)
                correl = data[off + 8 : off + 24]
                wqct = _I.unpack_from(data, off + S["WTAS"].member("wqct").offset)[0]
            qtrip = 3 if n and wqct > 0 else 0
        if qtrip:
            off, ln, n = trip(qtrip)
            if n:
                _check(data, off, ln, n, "WQ")
            for j in range(n):
                base = off + ln * j
                yield "WQ", ident, _decode(S["WQ"], data, base, ln)
                correl = data[base + 16 : base + 32]
        off, ln, n = trip(1)
        if n:
            _check(data, off, ln, 1, "WTID")
            yield "WTID", ident, _decode(S["WTID"], data, off, ln, correl=correl)
    elif st == 10:
        off, ln, n = trip(1)
        if n:
            _check(data, off, ln, n, "QCST")
        for j in range(n):
            yield "QCST", ident, _decode(S["QCST"], data, off + ln * j, ln)


def _qest(data: bytes, base: int, ident: Identity) -> Iterator[tuple[str, Identity, tuple]]:
    ll = _H.unpack_from(data, base + 2)[0]
    for k in range(QEST_ENTRIES):
        at = base + QEST_HEADER + k * QEST.size
        if at + QEST.size > base + ll or at + QEST.size > len(data):
            break
        # An unused slot has no structure name (mq-smf-csv: its first character prints '.').
        if MQSMFCSV_TABLE[data[at]] == 0x2E:
            continue
        yield "QEST", ident, plan_for(QEST, QEST.size, 0)(data, at)
