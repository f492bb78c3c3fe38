"""Helpers shared by the text-capture parsers (``chstatus``, ``netstat``): fast line chunks and
the timestamp lines a capture script leaves between snapshots.

Timestamp lines recognised (the whole line, after stripping blanks and ``#=-*[]`` decoration):

- ISO-8601: ``2026-11-21T05:52:09``, ``2026-11-21 05:52:09.123``, optional ``Z``/``+01:00``
  (the offset is dropped: times are kept as printed);
- ``date`` command, C/POSIX and en_GB locales: ``Sat Nov 21 05:52:09 UTC 2026``,
  ``Sat Nov 21 05:52:09 2026``, ``Sat 21 Nov 05:52:09 UTC 2026``, ``Sat 21 Nov 2026 05:52:09 UTC``;
- z/OS JES2 job-log date line: ``---- SATURDAY, 21 NOV 2026 ----`` (sets the date only; the
  job-log prefix ``hh.mm.ss JOBnnnnn`` of later lines gives the time).

Example:
    >>> parse_stamp_line("Sat Nov 21 05:52:09 UTC 2026")
    datetime.datetime(2026, 11, 21, 5, 52, 9)
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import date, datetime, time

from mqcap.parsers.base import ParseContext, text_chunks

CHUNK_BYTES = 4 * 1024 * 1024

_MONTHS = {
    m: i
    for i, m in enumerate(
        ("JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"), 1
    )
}
_ISO = re.compile(
    r"(\d{4})-(\d\d)-(\d\d)[T ](\d\d):(\d\d)(?::(\d\d)(?:[.,](\d{1,9}))?)?"
    r"\s*(?:Z|[+-]\d\d:?\d\d|UTC|GMT)?"
)
_DAYS = frozenset(("MON", "TUE", "WED", "THU", "FRI", "SAT", "SUN"))
_DAY = r"(?:MON|TUE|WED|THU|FRI|SAT|SUN)[A-Z]*,?"
_TZ = r"(?:[A-Z]{2,5}|[+-]\d{4})"
_DATE_CMD = re.compile(
    rf"{_DAY}\s+([A-Z]{{3}})\s+(\d{{1,2}})\s+(\d\d):(\d\d):(\d\d)(?:\s+{_TZ})?\s+(\d{{4}})"
)
_DATE_GB = re.compile(
    rf"{_DAY}\s+(\d{{1,2}})\s+([A-Z]{{3}})\s+(?:(\d{{4}})\s+)?(\d\d):(\d\d):(\d\d)"
    rf"(?:\s+{_TZ})?(?:\s+(\d{{4}}))?"
)
_JES_DATE = re.compile(r"-{2,}\s*" + _DAY + r"\s+(\d{1,2})\s+([A-Z]{3})\s+(\d{4})\s*-{2,}")
_DECOR = " \t#=-*[]<>|"


def iter_line_chunks(
    ctx: ParseContext, chunk_bytes: int = CHUNK_BYTES
) -> Iterator[tuple[int, list[str]]]:
    """(number of the chunk's first line, lines without end-of-line) for a text file, chunk by
    chunk; NUL bytes, lines over the cap (:func:`~mqcap.parsers.base.text_chunks`) and bad
    UTF-8 are errors naming the line.

    Example:
        for first, lines in iter_line_chunks(ctx): ...
    """
    for lineno, _data, text in decoded_chunks(ctx, chunk_bytes):
        lines = text.split("\n")
        if "\r" in text:
            lines = [ln.rstrip("\r") for ln in lines]
        yield lineno, lines


def decoded_chunks(
    ctx: ParseContext, chunk_bytes: int = CHUNK_BYTES
) -> Iterator[tuple[int, bytes, str]]:
    """(number of the chunk's first line, its bytes, its text without the last line end) of a
    text file, chunk by chunk; NUL bytes, lines over the cap and bad UTF-8 (naming the line)
    are errors. What :func:`iter_line_chunks` and ``_lines.line_series`` split.

    Example:
        for first, data, text in decoded_chunks(ctx): ...
    """
    for lineno, data in text_chunks(ctx, chunk_bytes):
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ctx.error(
                f"not utf-8 text (byte 0x{data[exc.start]:02x})",
                line=lineno + data.count(b"\n", 0, exc.start),
            ) from None
        yield lineno, data, text[:-1] if text.endswith("\n") else text


def _dt(y: int, mo: int, d: int, h: int, mi: int, s: int, us: int = 0) -> datetime | None:
    try:
        return datetime(y, mo, d, h, mi, s, us)
    except ValueError:
        return None


def parse_stamp_line(text: str) -> datetime | None:
    """The timestamp a whole line stands for (see module doc), or None.

    Example:
        >>> parse_stamp_line("=== 2026-11-21T05:52:09Z ===")
        datetime.datetime(2026, 11, 21, 5, 52, 9)
    """
    s = text.strip(_DECOR)
    if len(s) < 16 or len(s) > 48:
        return None
    c = s[0]
    if c.isdecimal():
        m = _ISO.fullmatch(s)
        if not m:
            return None
        y, mo, d, h, mi, sec, frac = m.groups()
        us = int((frac or "0")[:6].ljust(6, "0"))
        return _dt(int(y), int(mo), int(d), int(h), int(mi), int(sec or 0), us)
    if not c.isalpha() or s[:3].upper() not in _DAYS:
        return None
    u = s.upper()
    m = _DATE_CMD.fullmatch(u)
    if m:
        mon, d, h, mi, sec, y = m.groups()
        if mon not in _MONTHS:
            return None
        return _dt(int(y), _MONTHS[mon], int(d), int(h), int(mi), int(sec))
    m = _DATE_GB.fullmatch(u)
    if m:
        d, mon, y1, h, mi, sec, y2 = m.groups()
        y = y1 or y2
        if mon not in _MONTHS or y is None:
            return None
        return _dt(int(y), _MONTHS[mon], int(d), int(h), int(mi), int(sec))
    return None


def parse_jes_date(text: str) -> date | None:
    """The date of a JES2 job-log date line ``---- SATURDAY,  21 NOV 2026 ----``, or None."""
    if "--" not in text:
        return None
    m = _JES_DATE.search(text.upper())
    if not m:
        return None
    d, mon, y = m.groups()
    if mon not in _MONTHS:
        return None
    try:
        return date(int(y), _MONTHS[mon], int(d))
    except ValueError:
        return None


def parse_clock(token: str) -> time | None:
    """``hh.mm.ss`` / ``hh:mm:ss`` (optional ``.th`` fraction) as a time of day, or None."""
    if len(token) < 7 or len(token) > 15:
        return None
    sep = token[2] if len(token) > 2 else ""
    if sep not in ".:" or token[5:6] != sep:
        # also accept a one-digit hour: 1:52:31
        if len(token) >= 7 and token[1] in ".:" and token[4:5] == token[1]:
            token = "0" + token
            sep = token[2]
        else:
            return None
    hh, mm, ss = token[0:2], token[3:5], token[6:8]
    if not (hh.isdecimal() and mm.isdecimal() and ss.isdecimal()):
        return None
    frac = token[9:] if len(token) > 8 and token[8] in ".," else ""
    if len(token) > 8 and (token[8] not in ".," or not frac.isdecimal()):
        return None
    try:
        return time(int(hh), int(mm), int(ss), int(frac[:6].ljust(6, "0")) if frac else 0)
    except ValueError:
        return None
