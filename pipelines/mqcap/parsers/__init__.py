"""Registry of input-format parsers: every module here that defines ``PARSER`` is one.

New formats need no registration: add a module with a ``PARSER`` (see ``base.py``).
"""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache
from pathlib import Path

from mqcap.parsers.base import Parser, Table

SNIFF_BYTES = 65536


@cache
def all_parsers() -> tuple[Parser, ...]:
    """Every parser, in sniffing order (priority, then kind).

    Example:
        >>> [p.kind for p in all_parsers()][:1]  # doctest: +SKIP
        ['manifest']
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
    """The parser whose ``sniff`` accepts the file's first bytes, or None."""
    with open(path, "rb") as fh:
        head = fh.read(SNIFF_BYTES)
    for p in all_parsers():
        if p.sniff(head, name or path.name):
            return p
    return None
