"""Shared pieces of the z/OS (non-MQ) SMF decoders: numbers, triplets, the RMF product section.

- IBM hexadecimal floating point (HFP long, 8 bytes): what IBM's RMF record layouts call
  "floating" (SMF 70-2 crypto timers and counters, SMF 72-3 service units and times);
- packed decimal times and dates (``0HHMMSSF``, ``MMSSTTTF``, ``0CYYDDDF``);
- section triplets (offset from the RDW, length, count), checked against the record;
- the RMF header and product section shared by SMF 70 and 72 (IBM "z/OS MVS System Management
  Facilities (SMF)", record type 70 / 72: "Header/Self-defining Section" and "RMF Product
  Section", mapped by ERBSMFR): SMFxxPRS at record offset 28 (RDW included), the subtype's own
  triplets from offset 36; in the product section SMFxxIST at 10, SMFxxDAT at 14, SMFxxINT at
  18, SMFxxMVS at 40, SMFxxXNM (sysplex) at 88.

Offsets in this package are relative to the record without its RDW (``data[0]`` is the SMF flag
byte), so an SMF offset "from the RDW" ``o`` is ``data[o - 4]``.

Example:
    >>> hfp_to_float(float_to_hfp(0.5))
    0.5
"""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass
from datetime import datetime, timedelta

from mqcap.parsers.smf.convert import ebcdic_text, smf_date

RDW = 4
_TRIP = struct.Struct(">IHH")
_H = struct.Struct(">H")
_I = struct.Struct(">I")
_Q = struct.Struct(">Q")


class ZosRecordError(ValueError):
    """A z/OS SMF record whose sections do not fit in it, or whose values cannot be right."""


def hfp_to_float(raw: bytes) -> float:
    """An 8-byte IBM hexadecimal floating point number as a Python float."""
    word = _Q.unpack(raw)[0]
    fraction = word & 0x00FFFFFFFFFFFFFF
    if fraction == 0:
        return 0.0
    exponent = (word >> 56) & 0x7F
    value = math.ldexp(fraction, 4 * (exponent - 64) - 56)
    return -value if word >> 63 else value


def float_to_hfp(value: float) -> bytes:
    """Inverse of :func:`hfp_to_float` (for the encoder); 0 for 0."""
    if value == 0:
        return bytes(8)
    if not math.isfinite(value):
        raise ValueError(f"{value} has no HFP form")
    sign = 0x80 if value < 0 else 0
    v = abs(value)
    exponent = 64
    while v >= 1.0:
        v /= 16.0
        exponent += 1
    while v < 1 / 16:
        v *= 16.0
        exponent -= 1
    fraction = round(math.ldexp(v, 56))
    if fraction >> 56:  # rounding carried into a new hex digit
        fraction >>= 4
        exponent += 1
    if not 0 <= exponent <= 127:
        raise ValueError(f"{value} is out of the HFP range")
    return bytes([sign | exponent]) + fraction.to_bytes(7, "big")


def _bcd(raw: bytes) -> list[int] | None:
    nib = [n for b in raw for n in (b >> 4, b & 0x0F)]
    if nib[-1] not in (0xC, 0xD, 0xF) or any(d > 9 for d in nib[:-1]):
        return None
    return nib[:-1]


def packed_time_of_day(raw: bytes) -> timedelta | None:
    """``0HHMMSSF`` -> time since midnight."""
    d = _bcd(raw)
    if d is None:
        return None
    h, m, s = d[1] * 10 + d[2], d[3] * 10 + d[4], d[5] * 10 + d[6]
    if h > 23 or m > 59 or s > 59:
        return None
    return timedelta(hours=h, minutes=m, seconds=s)


def packed_duration_s(raw: bytes) -> float | None:
    """``MMSSTTTF`` (minutes, seconds, thousandths) -> seconds."""
    d = _bcd(raw)
    if d is None:
        return None
    minutes, seconds, ms = d[0] * 10 + d[1], d[2] * 10 + d[3], d[4] * 100 + d[5] * 10 + d[6]
    return minutes * 60 + seconds + ms / 1000


def pack_digits(digits: str) -> bytes:
    """Digits + the ``F`` sign nibble as packed decimal (for the encoder): '0103000' -> 4 bytes."""
    return bytes.fromhex(digits + "F")


def local_datetime(packed_date: bytes, since_midnight: timedelta | None) -> datetime | None:
    yd = smf_date(packed_date)
    if yd is None or since_midnight is None:
        return None
    year, day = yd
    return datetime(year, 1, 1) + timedelta(days=day - 1) + since_midnight


def header_time(data: bytes) -> datetime | None:
    """The SMF header's local write time (``SMFxxTME`` hundredths, ``SMFxxDTE`` packed)."""
    return local_datetime(data[6:10], timedelta(milliseconds=_I.unpack_from(data, 2)[0] * 10))


def triplet(data: bytes, at: int, what: str, min_len: int = 0) -> tuple[int, int, int]:
    """(offset in ``data``, length, count) of the triplet at record offset ``at`` (RDW
    included), checked: the sections must lie inside the record and be long enough."""
    if at - RDW + 8 > len(data):
        raise ZosRecordError(
            f"record of {len(data) + RDW} bytes is too short for the {what} triplet at offset {at}"
        )
    off, ln, n = _TRIP.unpack_from(data, at - RDW)
    if n == 0:
        return 0, ln, 0
    if ln < min_len:
        raise ZosRecordError(
            f"truncated {what} section at offset {off}: {ln} bytes, at least {min_len} expected"
        )
    if off < RDW or off - RDW + ln * n > len(data):
        raise ZosRecordError(
            f"{what} triplet (offset {off}, {n} x {ln} bytes) points past the end of the record "
            f"({len(data) + RDW} bytes with RDW)"
        )
    return off - RDW, ln, n


def text(data: bytes, at: int, size: int) -> str | None:
    return ebcdic_text(bytes(data[at : at + size]))


def u16(data: bytes, at: int) -> int:
    return _H.unpack_from(data, at)[0]


def u32(data: bytes, at: int) -> int:
    return _I.unpack_from(data, at)[0]


def hfp(data: bytes, at: int) -> float:
    return hfp_to_float(bytes(data[at : at + 8]))


@dataclass(frozen=True)
class RmfInterval:
    """What the RMF product section says about the measurement interval (local time)."""

    system_id: str | None
    sysplex: str | None
    zos_level: str | None
    start: datetime
    seconds: float


PRODUCT_MIN = 96  # through SMFxxXNM (sysplex name, 8 bytes at 88)


def zos_level(mvs: str | None) -> str | None:
    """``SP7.2.4`` (SMFxxMVS) -> ``V2R4`` as RMF reports print it; other text unchanged."""
    if mvs and mvs.startswith("SP7.") and mvs.count(".") == 2:
        _, v, r = mvs.split(".")
        return f"V{int(v)}R{int(r)}" if v.isdigit() and r.isdigit() else mvs
    return mvs


def rmf_interval(data: bytes) -> RmfInterval:
    """The RMF product section of an SMF 70/72 record (triplet at offset 28)."""
    off, _ln, _n = triplet(data, 28, "RMF product", PRODUCT_MIN)
    if not _n:
        raise ZosRecordError("RMF record without a product section")
    start = local_datetime(data[off + 14 : off + 18], packed_time_of_day(data[off + 10 : off + 14]))
    seconds = packed_duration_s(data[off + 18 : off + 22])
    if start is None:
        raise ZosRecordError(f"RMF product section: bad interval start date/time at {off + RDW}")
    if seconds is None or seconds <= 0:
        raise ZosRecordError(
            f"RMF product section: interval length {data[off + 18 : off + 22].hex()} at "
            f"offset {off + RDW + 18} is not a positive MMSSTTT duration"
        )
    return RmfInterval(
        system_id=text(data, 10, 4),
        sysplex=text(data, off + 88, 8),
        zos_level=zos_level(text(data, off + 40, 8)),
        start=start,
        seconds=seconds,
    )
