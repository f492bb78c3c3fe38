"""Streaming reader of binary SMF dumps: one complete SMF record at a time.

Three layouts are accepted (gzip-compressed too: offsets then count the decompressed bytes):

- with block descriptor words (a RECFM=VB data set copied with its blocks, e.g. by a transfer
  that keeps BDWs): each block is ``length(2) 0000`` (or an extended BDW: high bit set, 31-bit
  length) followed by RDW segments as below; the segments of one block fill it exactly;
- with RDWs (record descriptor words, the usual "binary with RDW" transfer): each segment is
  ``length(2) flags(2) data``; the first flag byte says complete (0), first (1), last (2) or
  middle (3) segment of a spanned record, which is re-assembled here;
- without RDWs ("NORDW"): records follow each other; the length of an MQ record comes from its
  self-defining section triplets, that of a dump header/trailer (types 2/3) from its fixed size.
  Other record types cannot be measured without an RDW, so they stop the read with an error.

Memory stays bounded: the file is read in chunks and at most one (re-assembled) record is held.
Every problem raises an :class:`InputError` naming the byte offset.

A part of a dump (``ctx.window``, a :class:`Window`) is read on its own from a record boundary:
its records keep their byte offsets and their numbers in the whole file. Each record says where
such a part may start (``RawRecord.resume``): its first RDW, or the start of its block when it
opens the block (BDW layout), or -1 (a record a block does not begin with cannot start a part).

Example:
    for rec in read_records(ctx):
        rec.offset, rec.number, rec.data[1]  # data starts at the SMF flag byte (no RDW)
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from dataclasses import dataclass

from mqcap.parsers.base import ParseContext, open_input
from mqcap.parsers.smf.convert import smf_date

CHUNK = 1 << 20
MAX_RECORD = 1 << 24  # a re-assembled spanned record larger than this is not an SMF record
PROGRESS_EVERY = 8 << 20
_HALF = struct.Struct(">HH")
_TRIPLET = struct.Struct(">IHH")
# Known SMF record types whose layout this reader can measure without an RDW.
_NORDW_FIXED = {2: 14, 3: 14}


@dataclass(frozen=True)
class RawRecord:
    offset: int  # byte offset of the record's first RDW (or of its first byte, NORDW)
    number: int  # 1-based record number in the file
    data: bytes  # the SMF record from its flag byte on (RDW removed, segments joined)
    resume: int = -1  # where a part of the file that begins with this record starts reading


@dataclass(frozen=True)
class Window:
    """The part of a dump from byte ``start`` (a record's ``resume``) to byte ``end`` (the next
    part's start; None: the end of the file), whose first record is number ``before + 1``;
    ``state``: what the records before it leave for the decoder (parser-specific, picklable)."""

    start: int
    end: int | None
    before: int
    state: tuple = ()


def plausible_header(b: bytes, at: int) -> bool:
    """An SMF header (flag, type, time, packed date) starts at ``at``."""
    if len(b) < at + 10:
        return False
    hundredths = int.from_bytes(b[at + 2 : at + 6], "big")
    return hundredths < 8640000 and smf_date(b[at + 6 : at + 10]) is not None


def detect_layout(head: bytes) -> str | None:
    """``"bdw"``, ``"rdw"``, ``"nordw"`` or None (not an SMF dump) from the first bytes.

    Example:
        >>> detect_layout(b"")  is None
        True
    """
    if _bdw_at(head, 0) and _rdw_at(head, 4):
        return "bdw"
    if _rdw_at(head, 0):
        return "rdw"
    if plausible_header(head, 0):
        return "nordw"
    return None


def _rdw_at(head: bytes, at: int) -> bool:
    if len(head) < at + 4:
        return False
    length, seg = _HALF.unpack_from(head, at)
    return length >= 18 and seg & 0xFCFF == 0 and plausible_header(head, at + 4)


def _bdw_at(head: bytes, at: int) -> bool:
    if len(head) < at + 8:
        return False
    length, rest = _HALF.unpack_from(head, at)
    if length & 0x8000:  # extended BDW: 31-bit length in the whole word
        length = int.from_bytes(head[at : at + 4], "big") & 0x7FFFFFFF
    elif rest:
        return False
    rdw_length = _HALF.unpack_from(head, at + 4)[0]
    return length >= 4 + 18 and rdw_length <= length - 4


class _Chunks:
    """A sliding window over the file: ``take(n)`` returns exactly n bytes or fewer at EOF."""

    def __init__(self, fh, base: int = 0) -> None:
        self.fh = fh
        self.buf = b""
        self.pos = 0  # offset in buf
        self.base = base  # file offset of buf[0]

    @property
    def offset(self) -> int:
        return self.base + self.pos

    def ensure(self, n: int) -> bool:
        while len(self.buf) - self.pos < n:
            more = self.fh.read(max(CHUNK, n))
            if not more:
                return False
            self.base += self.pos
            self.buf = self.buf[self.pos :] + more
            self.pos = 0
        return True

    def take(self, n: int) -> bytes:
        self.ensure(n)
        out = self.buf[self.pos : self.pos + n]
        self.pos += len(out)
        return out

    def peek(self, n: int) -> bytes:
        self.ensure(n)
        return self.buf[self.pos : self.pos + n]

    def at_eof(self) -> bool:
        return not self.ensure(1)


def read_records(ctx: ParseContext) -> Iterator[RawRecord]:
    """The records of the file, or of the part ``ctx.window`` says (progress then counts the
    bytes of the part)."""
    window: Window | None = getattr(ctx, "window", None)
    with open_input(ctx.path, ctx.source_file) as fh:
        chunks = _Chunks(fh)
        head = chunks.peek(64)
        if not head:
            raise ctx.error("empty file: no SMF records", offset=0)
        layout = detect_layout(head)
        if layout is None:
            raise ctx.error(
                "not an SMF dump: no BDW, RDW or SMF record header at the start of the file",
                offset=0,
            )
        start, end, before = 0, None, 0
        if window is not None:
            start, end, before = window.start, window.end, window.before
            fh.seek(start)
            chunks = _Chunks(fh, start)
        if layout == "nordw":
            yield from _read_nordw(ctx, chunks, end, before, start)
        else:
            segments = _bdw_segments if layout == "bdw" else _rdw_segments
            yield from _assemble(ctx, segments(ctx, chunks, end), before, start)
        ctx.progress(chunks.offset - start)


def _rdw_segment(ctx: ParseContext, chunks: _Chunks, at: int) -> tuple[int, int, bytes] | None:
    """(offset, segment flag, body) of the RDW segment at ``at``; None at the end of the file."""
    rdw = chunks.take(4)
    if not rdw:
        return None
    if len(rdw) < 4:
        raise ctx.error(f"truncated RDW: {len(rdw)} byte(s) at end of file", offset=at)
    length, seg = _HALF.unpack(rdw)
    flag = seg >> 8
    if length < 4 or seg & 0xFF or flag > 3:
        raise ctx.error(
            f"bad RDW (length {length}, segment flags 0x{seg:04X}): not an RDW-format "
            "SMF dump or the data is corrupt",
            offset=at,
        )
    body = chunks.take(length - 4)
    if len(body) < length - 4:
        raise ctx.error(
            f"record length {length} runs past the end of the file ({len(body) + 4} byte(s) left)",
            offset=at,
        )
    return at, flag, body


Segment = tuple[int, int, bytes, int]  # offset, flag, body, where a part may start (or -1)


def _rdw_segments(ctx: ParseContext, chunks: _Chunks, end: int | None) -> Iterator[Segment]:
    while (end is None or chunks.offset < end) and (
        segment := _rdw_segment(ctx, chunks, chunks.offset)
    ) is not None:
        yield (*segment, segment[0])


def _bdw_segments(ctx: ParseContext, chunks: _Chunks, end: int | None) -> Iterator[Segment]:
    while end is None or chunks.offset < end:
        at = chunks.offset
        bdw = chunks.take(4)
        if not bdw:
            return
        if len(bdw) < 4:
            raise ctx.error(f"truncated BDW: {len(bdw)} byte(s) at end of file", offset=at)
        length, rest = _HALF.unpack(bdw)
        if length & 0x8000:
            length = int.from_bytes(bdw, "big") & 0x7FFFFFFF
        elif rest:
            raise ctx.error(
                f"bad BDW (length {length}, second half 0x{rest:04X}): the dump's blocks are "
                "out of step or the data is corrupt",
                offset=at,
            )
        if length < 8:
            raise ctx.error(f"bad BDW: block length {length} holds no record", offset=at)
        block_end = at + length
        resume = at
        while chunks.offset < block_end:
            segment = _rdw_segment(ctx, chunks, chunks.offset)
            if segment is None:
                raise ctx.error(f"block length {length} runs past the end of the file", offset=at)
            if chunks.offset > block_end:
                raise ctx.error(
                    f"record at byte {segment[0]} runs past the end of its block "
                    f"(block of {length} bytes)",
                    offset=at,
                )
            yield (*segment, resume)
            resume = -1


def _assemble(
    ctx: ParseContext, segments: Iterator[Segment], number: int = 0, base: int = 0
) -> Iterator[RawRecord]:
    """Complete records from RDW segments, spanned records re-assembled; ``number`` records
    come before the first, which is at byte ``base`` (progress counts from there)."""
    next_progress = base + PROGRESS_EVERY
    parts: list[bytes] = []
    size = 0
    start = 0
    resume = -1
    for at, flag, body, where in segments:
        if flag in (0, 1):  # complete, or first segment
            if parts:
                raise ctx.error(
                    "inconsistent segment flags: a new record starts before the last "
                    "segment of the spanned record at byte " + str(start),
                    offset=at,
                )
            start, resume = at, where
            if flag == 0:
                number += 1
                yield RawRecord(at, number, body, where)
            else:
                parts, size = [body], len(body)
            if at >= next_progress:
                ctx.progress(at - base)
                next_progress = at + PROGRESS_EVERY
            continue
        # middle (3) or last (2) segment
        if not parts:
            raise ctx.error(
                f"inconsistent segment flags: {'last' if flag == 2 else 'middle'} segment "
                "without a first segment",
                offset=at,
            )
        parts.append(body)
        size += len(body)
        if size > MAX_RECORD:
            raise ctx.error(f"spanned record larger than {MAX_RECORD} bytes", offset=start)
        if flag == 2:
            number += 1
            yield RawRecord(start, number, b"".join(parts), resume)
            parts, size = [], 0
    if parts:
        raise ctx.error(
            "inconsistent segment flags: file ends inside a spanned record (no last segment)",
            offset=start,
        )


def nordw_length(head: bytes) -> int | None:
    """Length of the record starting ``head`` (no RDW), from its header and triplets."""
    rtype = head[1]
    if rtype in _NORDW_FIXED:
        return _NORDW_FIXED[rtype]
    if rtype not in (115, 116) or len(head) < 32:
        return None
    # Triplets (offset, length, count) follow the 24-byte header; offsets count the RDW.
    first_off, first_len, _ = _TRIPLET.unpack_from(head, 24)
    if first_len == 4:
        ntrip = 2
    else:
        q = first_off - 4
        if q + 7 > len(head):
            return None
        # A storage-manager record of MQ 10 (115 subtypes 5-7) starts with a 4-byte header
        # whose length halfword is 1 (then the QWHX), not a QWHS: one data section follows, as
        # records.py reads it.
        ntrip = 2 if head[q : q + 2] == b"\x00\x01" else head[q + 6]
    end = 24
    for i in range(min(ntrip, 12)):
        if 24 + i * 8 + 8 > len(head):
            break
        off, ln, n = _TRIPLET.unpack_from(head, 24 + i * 8)
        if off and n:
            end = max(end, off - 4 + ln * n)
    return end


def _read_nordw(
    ctx: ParseContext, chunks: _Chunks, end: int | None = None, number: int = 0, base: int = 0
) -> Iterator[RawRecord]:
    next_progress = base + PROGRESS_EVERY
    while (end is None or chunks.offset < end) and not chunks.at_eof():
        at = chunks.offset
        head = chunks.peek(32768)
        if not plausible_header(head, 0):
            raise ctx.error("no SMF record header here (NORDW dump out of step)", offset=at)
        length = nordw_length(head)
        if length is None:
            raise ctx.error(
                f"cannot tell the length of an SMF type {head[1]} record without RDWs",
                offset=at,
            )
        data = chunks.take(length)
        if len(data) < length:
            raise ctx.error(
                f"truncated record: {length} bytes expected, {len(data)} left", offset=at
            )
        number += 1
        yield RawRecord(at, number, data, at)
        if at >= next_progress:
            ctx.progress(at - base)
            next_progress = at + PROGRESS_EVERY
