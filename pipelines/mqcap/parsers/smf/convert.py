"""Value conversions shared by the SMF decoder, encoder and CSV loader (no I/O here).

- STCK (z/Architecture TOD clock, bit 51 = 1 microsecond): durations -> microseconds,
  timestamps -> microseconds since 1970-01-01 UTC (naive UTC in the landing tables);
- the SMF header date (packed ``0cyydddF``) and time (hundredths of a second since midnight);
- EBCDIC text (code page 037) and mq-smf-csv's lossy EBCDIC table, used to compare our text
  with what mq-smf-csv printed.

Example:
    >>> stck_to_epoch_us(0xD05D479E94C54B24)
    1456596033776724
"""

from __future__ import annotations

from datetime import datetime, timedelta
from functools import lru_cache

STCK_PER_US = 4096
# TOD clock value at 1970-01-01 00:00:00 UTC (z/Architecture Principles of Operation).
STCK_1970 = 0x7D91048BCA000000
EPOCH = datetime(1970, 1, 1)
EBCDIC = "cp037"
DROPSIGN = 0x7FFFFFFFFFFFFFFF


def stck_to_epoch_us(v: int) -> int | None:
    """A STCK timestamp as microseconds since 1970 (UTC); None for 0 or before 1970."""
    if v <= STCK_1970:
        return None
    return (v - STCK_1970) // STCK_PER_US


def epoch_us_to_stck(us: int | None) -> int:
    return 0 if us is None else STCK_1970 + us * STCK_PER_US


def datetime_to_epoch_us(dt: datetime | None) -> int | None:
    if dt is None:
        return None
    delta = dt - EPOCH
    return (delta.days * 86400 + delta.seconds) * 1_000_000 + delta.microseconds


def smf_date(packed: bytes) -> tuple[int, int] | None:
    """(year, day of year) from the packed ``0cyydddF`` SMF date; None when not valid BCD."""
    nib = [n for b in packed for n in (b >> 4, b & 0x0F)]
    if len(nib) != 8 or nib[0] != 0 or nib[7] not in (0xF, 0xC, 0xD):
        return None
    if any(d > 9 for d in nib[1:7]):
        return None
    year = 1900 + nib[1] * 100 + nib[2] * 10 + nib[3]
    day = nib[4] * 100 + nib[5] * 10 + nib[6]
    if not 1 <= day <= 366:
        return None
    return year, day


def smf_timestamp(packed_date: bytes, hundredths: int) -> datetime | None:
    """The SMF header's local date and time as one naive timestamp."""
    yd = smf_date(packed_date)
    if yd is None:
        return None
    year, day = yd
    return datetime(year, 1, 1) + timedelta(days=day - 1, milliseconds=hundredths * 10)


def pack_smf_date(dt: datetime) -> bytes:
    """Inverse of :func:`smf_date` (for the encoder)."""
    c = (dt.year - 1900) // 100
    yy = dt.year % 100
    ddd = dt.timetuple().tm_yday
    digits = f"0{c}{yy:02d}{ddd:03d}"
    return bytes.fromhex(digits + "F")


@lru_cache(maxsize=8192)
def ebcdic_text(raw: bytes) -> str | None:
    """EBCDIC text with trailing blanks removed; None when blank or all binary zeros."""
    raw = raw.rstrip(b"\x40")
    if not raw.strip(b"\x00"):
        return None
    return raw.decode(EBCDIC)


def to_ebcdic(text: str | None, length: int) -> bytes:
    b = (text or "").encode(EBCDIC)[:length]
    return b + b"\x40" * (length - len(b))


def _mqsmfcsv_table() -> bytes:
    """mq-smf-csv's EBCDIC->ASCII table: a common subset; every other byte prints as '.'."""
    table = bytearray(b"." * 256)
    spans = {
        0x40: " ",
        0x4A: "$.<(+|&",
        0x5A: "!$*);",
        0x60: "-/",
        0x6B: ",%_>?",
        0x7A: ":#@'=",
        0x81: "abcdefghi",
        0x8B: "{.(+",
        0x91: "jklmnopqr",
        0x9B: "}.)",
        0xA1: "~stuvwxyz",
        0xBA: "[]",
        0xBF: "-{ABCDEFGHI",
        0xD0: "}JKLMNOPQR",
        0xE2: "STUVWXYZ",
        0xF0: "0123456789",
    }
    for start, chars in spans.items():
        for i, ch in enumerate(chars):
            table[start + i] = ord(ch)
    # 0x4A..0x50 span above covers 0x4A '$', 0x4B '.', 0x4C '<', 0x4D '(', 0x4E '+', 0x4F '|',
    # 0x50 '&' as in mq-smf-csv.
    return bytes(table)


MQSMFCSV_TABLE = _mqsmfcsv_table()


def as_mqsmfcsv_prints(text: str | None) -> str | None:
    """How mq-smf-csv would print this text (its lossy table); for comparisons only."""
    if text is None:
        return None
    return text.encode(EBCDIC, errors="replace").translate(MQSMFCSV_TABLE).decode("ascii")
