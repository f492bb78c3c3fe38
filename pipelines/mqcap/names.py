"""File names as mqcap stores and prints them: any byte sequence is a valid name.

A POSIX file name is bytes; Python hands names that are not UTF-8 over with "surrogate
escapes", which DuckDB (UTF-8 only) refuses. The ledger and the landing tables therefore hold
a reversible *stored name*: each byte that is not part of valid UTF-8 is written ``\\xNN`` (two
lower-case hex digits) and a backslash is doubled (``\\\\``), so the stored form maps back to
exactly one name. Everything else, newlines included, is kept as it is.

Printing is separate: a name (or a reason quoting one) may hold newlines or terminal escape
sequences, so every message about a file goes through :func:`printable`.
"""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path, PurePosixPath

_SURROGATE_LO, _SURROGATE_HI = 0xDC80, 0xDCFF
_ESCAPE = re.compile(r"\\(\\|x[0-9a-f]{2})")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def stored_name(name: str) -> str:
    """The reversible, UTF-8-safe form of a name (see the module docstring).

    Example:
        >>> stored_name("run\\udcff/a\\\\b.csv")
        'run\\\\xff/a\\\\\\\\b.csv'
    """
    if "\\" not in name and name.isascii():
        return name  # the common case: nothing to escape
    out: list[str] = []
    for ch in name:
        code = ord(ch)
        if ch == "\\":
            out.append("\\\\")
        elif _SURROGATE_LO <= code <= _SURROGATE_HI:
            out.append(f"\\x{code - 0xDC00:02x}")
        else:
            out.append(ch)
    return "".join(out)


def original_name(stored: str) -> str:
    """The name (with surrogate escapes, as os functions take it) a stored name stands for.

    Example:
        >>> original_name(stored_name("a\\udc80b")) == "a\\udc80b"
        True
    """

    def back(m: re.Match) -> str:
        token = m.group(1)
        return "\\" if token == "\\" else chr(0xDC00 + int(token[1:], 16))

    if "\\" not in stored:
        return stored  # nothing escaped
    return _ESCAPE.sub(back, stored)


def relative_name(root: Path, path: Path | str) -> str:
    """The stored name of ``path`` relative to ``root``, '/' separated.

    Example:
        relative_name(Path("/raw"), Path("/raw/attls/r1/results.csv"))  # 'attls/r1/results.csv'
    """
    full, base = str(path), str(root)
    if full.startswith(base) and full[len(base) : len(base) + 1] == "/":
        return stored_name(full[len(base) + 1 :])  # a plain child: no Path arithmetic
    return stored_name(PurePosixPath(Path(path).relative_to(root)).as_posix())


def raw_path(root: Path, stored: str) -> Path:
    """The file a stored relative name stands for under ``root``.

    Example:
        raw_path(Path("/raw"), "attls/r1/results.csv")  # Path('/raw/attls/r1/results.csv')
    """
    return root / original_name(stored)


def printable_lines(text: object) -> str:
    """``text`` line by line, each line made ``printable``: for a message that is meant to
    span lines (a query's failure with the engine's hint and caret lines).

    Example:
        >>> printable_lines("a\\nb\\x1b[2J")
        'a\\nb\\\\x1b[2J'
    """
    return "\n".join(printable(line) for line in str(text).splitlines())


def error_text(exc: Exception) -> str:
    """An mqcap error's message, safe to print: line by line for a ``multiline`` error, else
    one line (a hostile name inside it cannot start a line of its own)."""
    return printable_lines(exc) if getattr(exc, "multiline", False) else printable(exc)


def printable(text: object) -> str:
    """``text`` safe to print on a terminal: control and format characters escaped.

    Newlines, carriage returns, tabs, ESC (terminal escape sequences), other C0/C1 controls,
    bidirectional overrides and surrogate escapes become visible ``\\n``, ``\\x1b``,
    ``\\u202e``... so one message stays one line and cannot rewrite the terminal.

    Example:
        >>> printable("a\\nb\\x1b[2Jc")
        'a\\\\nb\\\\x1b[2Jc'
    """
    text = str(text)
    if text.isprintable():
        return text  # no control, format, separator or surrogate character: as it is
    out: list[str] = []
    for ch in text:
        code = ord(ch)
        if ch in _NAMED:
            out.append(_NAMED[ch])
        elif 0xD800 <= code <= 0xDFFF:
            out.append(f"\\x{code & 0xFF:02x}" if code >= _SURROGATE_LO else f"\\u{code:04x}")
        elif unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp"):
            out.append(f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")
        else:
            out.append(ch)
    return "".join(out)
