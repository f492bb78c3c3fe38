"""Registry of input-format parsers: every module here that defines ``PARSER`` is one.

New formats need no registration: add a module with a ``PARSER`` (see ``base.py``).
"""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache
from pathlib import Path

from mqcap.parsers.base import Parser, Table, is_gzip, read_head

SNIFF_BYTES = 65536


@cache
def all_parsers() -> tuple[Parser, ...]:
    """Every parser, in sniffing order (priority, then kind).

    Example:
        >>> [p.kind for p in all_parsers()][:3]  # the files known by name first, binary SMF next
        ['manifest', 'study', 'smf_mq']
    """
    found: list[Parser] = []
    for mod in pkgutil.walk_packages(__path__, prefix=f"{__name__}."):
        module = importlib.import_module(mod.name)
        parser = getattr(module, "PARSER", None)
        if isinstance(parser, Parser):
            found.append(parser)
    kinds = [p.kind for p in found]
    dupes = {k for k in kinds if kinds.count(k) > 1}
    if dupes:
        raise RuntimeError(f"two parsers claim the same kind: {sorted(dupes)}")
    return tuple(sorted(found, key=lambda p: (p.priority, p.kind)))


def parser_for_kind(kind: str) -> Parser:
    for p in all_parsers():
        if p.kind == kind:
            return p
    raise KeyError(kind)


def all_tables() -> list[Table]:
    """Every landing table of every parser (names are unique across parsers)."""
    seen: dict[str, Table] = {}
    for p in all_parsers():
        for t in p.tables:
            if t.name in seen and seen[t.name] != t:
                raise RuntimeError(f"landing.{t.name} declared twice with different columns")
            seen[t.name] = t
    return list(seen.values())


def detect(path: Path, name: str | None = None) -> Parser | None:
    """The parser whose ``sniff`` accepts the file's first bytes, or None.

    The bytes are those of the content: decompressed when the file is gzip, without a UTF-8
    byte-order mark.
    """
    head = read_head(path, SNIFF_BYTES)
    for p in all_parsers():
        if p.sniff(head, name or path.name):
            return p
    return None


def refusal_hint(path: Path) -> str | None:
    """What an unrecognised file most likely is, from its first bytes; None when nothing fits.

    Example:
        >>> import tempfile
        >>> with tempfile.NamedTemporaryFile(suffix=".pdf") as f:
        ...     _ = f.write(b"%PDF-1.7 ..."); f.flush()
        ...     refusal_hint(Path(f.name))
        'looks like a PDF: extract its text first (e.g. pdftotext -layout)'
    """
    hint = _hint_from(read_head(path, SNIFF_BYTES))
    if is_gzip(path):
        return f"gzip-compressed; {hint or 'the decompressed content is no known format'}"
    return hint


def _hint_from(head: bytes) -> str | None:
    # Checked in order: the most specific signatures first.
    if head.startswith(b"%PDF-"):
        return "looks like a PDF: extract its text first (e.g. pdftotext -layout)"
    if head.startswith(b"PK\x03\x04"):
        return "looks like a ZIP archive (or an Office document): unpack it or save as text/CSV"
    if head.startswith((b"BZh", b"\xfd7zXZ\x00", b"\x28\xb5\x2f\xfd")):
        return "looks like a bzip2/xz/zstd archive: decompress it first (gzip is read directly)"
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "looks like UTF-16 text: save it as UTF-8"
    if _looks_like_bdw(head):
        return (
            "looks like an SMF dump with block descriptors (RECFM=VB blocks), but its records "
            "are not SMF records this reader knows"
        )
    # EBCDIC text: blanks (0x40), letters and digits (0x81-0xF9), new lines (0x15, 0x25).
    sample = head[:64]
    if (
        sample
        and all(0x40 <= b <= 0xF9 or b in (0x00, 0x15, 0x25) for b in sample)
        and any(0xC1 <= b <= 0xE9 for b in sample)
    ):
        return "looks like EBCDIC text: transfer it in text (ASCII) mode"
    return None


def _looks_like_bdw(head: bytes) -> bool:
    # A block descriptor word: a 2-byte block length, two zero bytes, then an RDW that fits.
    if len(head) < 8:
        return False
    block = int.from_bytes(head[0:2], "big")
    rdw = int.from_bytes(head[4:6], "big")
    return head[2:4] == b"\0\0" and block > 8 and 4 < rdw <= block - 4 and head[6] <= 3
