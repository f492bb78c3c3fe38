"""Line chunks of a text capture as polars Series, for the vectorised capture parsers
(``chstatus``, ``netstat``): the lines ``_kv.iter_line_chunks`` gives, split in polars instead of
one Python string per line, so that only the few lines a state machine must see become Python
strings (:func:`texts`).

Example:
    >>> owner_column(6, [0, 4], [2, 6], [7, 9]).to_list()
    [7, 7, 0, 0, 9, 9]
"""

from __future__ import annotations

from collections.abc import Iterator

from mqcap.parsers._kv import decoded_chunks
from mqcap.parsers._lazy import lazy_module
from mqcap.parsers.base import ParseContext

np = lazy_module("numpy", __name__, "np")
pl = lazy_module("polars", __name__, "pl")

CHUNK_BYTES = 4 * 1024 * 1024
_PLAIN = bytes(range(0x20, 0x7F)) + b"\n"


def line_series(
    ctx: ParseContext, chunk_bytes: int = CHUNK_BYTES
) -> Iterator[tuple[int, pl.Series, bool]]:
    """(number of the chunk's first line, its lines without end-of-line as a Utf8 Series, whether
    the chunk is plain: printable ASCII and line ends only), the same lines, numbers and
    refusals (NUL byte, a line over the cap, bad UTF-8 naming the line) as
    :func:`mqcap.parsers._kv.iter_line_chunks`. In a plain chunk, byte offsets are character
    offsets and the only blank is the space: the fast paths need no per-line check of that.

    Example:
        for first, lines, plain in line_series(ctx): lines.str.starts_with("AMQ8417")
    """
    for lineno, data, text in decoded_chunks(ctx, chunk_bytes):
        # Split in polars: a Python list of strings and a Series made of it cost more.
        lines = pl.Series("line", [text], dtype=pl.Utf8).str.split("\n").explode()
        if "\r" in text:
            lines = lines.str.strip_chars_end("\r")
        yield lineno, lines, not data.translate(None, _PLAIN)


def texts(lines: pl.Series, idx: list[int]) -> list[str]:
    """The lines at positions ``idx`` as Python strings (one gather, not one call per line).

    Example:
        texts(pl.Series(["a", "b", "c"]), [0, 2])  # ["a", "c"]
    """
    if not idx:
        return []
    return lines.gather(idx).to_list()


def owner_column(n: int, starts: list[int], ends: list[int], owners: list[int]) -> pl.Series:
    """An Int64 column of ``n`` rows: ``owners[k]`` on rows ``starts[k]:ends[k]`` (disjoint runs),
    0 elsewhere: which block each line of a chunk belongs to, from the runs a state machine saw.

    Example:
        owner_column(4, [1], [3], [5]).to_list()  # [0, 5, 5, 0]
    """
    d = np.zeros(n + 1, dtype=np.int64)
    if starts:
        o = np.asarray(owners, dtype=np.int64)
        np.add.at(d, np.asarray(starts, dtype=np.int64), o)
        np.add.at(d, np.asarray(ends, dtype=np.int64), -o)
    return pl.Series("owner", np.cumsum(d[:n]), dtype=pl.Int64)
