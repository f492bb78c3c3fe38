"""Arrow arrays from Python values, built from numpy buffers.

``pa.array`` / ``pa.scalar`` / ``pa.Table.from_pylist`` of Python objects ask pyarrow's pandas
shim whether the values are pandas objects, and that imports pandas (about 0.2 s, more than the
whole work of landing a few hundred small files). These helpers make the same arrays from
buffers (``pa.Array.from_buffers``) and never touch the shim; a value they do not take exactly
(a type other than the column's own, an int out of the type's range) gives None, and the caller
takes its general path.

Example:
    >>> import pyarrow as pa
    >>> column(pa.float64(), [1.5, None, 2]).to_pylist()
    [1.5, None, 2.0]
    >>> column(pa.int64(), ["1"]) is None  # a str for an int column: not taken
    True
    >>> repeat_int64(7, 3).to_pylist()
    [7, 7, 7]
"""

from __future__ import annotations

from datetime import date, datetime, time, timedelta
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pyarrow as pa

_EPOCH = datetime(1970, 1, 1)
_EPOCH_DAY = date(1970, 1, 1)
_US = timedelta(microseconds=1)
# Ints a double holds exactly: past them polars and numpy may round an int differently.
_EXACT_IN_DOUBLE = 2**53


def _types():
    """Arrow type id -> (numpy dtype, lowest, highest) for the integer types taken."""
    import numpy as np
    import pyarrow as pa

    return {
        pa.int8().id: (np.int8, -(2**7), 2**7 - 1),
        pa.int16().id: (np.int16, -(2**15), 2**15 - 1),
        pa.int32().id: (np.int32, -(2**31), 2**31 - 1),
        pa.int64().id: (np.int64, -(2**63), 2**63 - 1),
        pa.uint8().id: (np.uint8, 0, 2**8 - 1),
        pa.uint16().id: (np.uint16, 0, 2**16 - 1),
        pa.uint32().id: (np.uint32, 0, 2**32 - 1),
        pa.uint64().id: (np.uint64, 0, 2**64 - 1),
    }


_INTS: dict[int, tuple] | None = None


def column(arrow_type: pa.DataType, values: list) -> pa.Array | None:
    """``values`` (None = NULL) as an array of ``arrow_type``, or None when a value is not of
    the type's own Python type (int for integers; float or int for float64; str for strings;
    bytes for binaries; bool; date; naive datetime for timestamp[us]; naive time for
    time64[ns]) or out of its range, or the type is not one of those."""
    import numpy as np
    import pyarrow as pa

    global _INTS
    if _INTS is None:
        _INTS = _types()
    n = len(values)
    types = set(map(type, values))
    nulls = n - len([v for v in values if v is not None]) if type(None) in types else 0
    if nulls == n:  # (a column the file does not have: common, and cheapest this way)
        return pa.nulls(n, arrow_type) if _taken(arrow_type) else None
    types.discard(type(None))
    validity = None
    if nulls:
        validity = pa.py_buffer(
            np.packbits(np.array([v is not None for v in values], dtype=bool), bitorder="little")
        )
    if arrow_type.id in _INTS:
        data = _ints(_INTS[arrow_type.id], types, values)
    elif arrow_type in (pa.large_string(), pa.string(), pa.large_binary(), pa.binary()):
        data = _binaries(arrow_type, types, values)
    else:
        data = _scalars(arrow_type, types, values)
    if data is None:
        return None
    return pa.Array.from_buffers(arrow_type, n, [validity, *data], null_count=nulls)


def _ints(kind: tuple, types: set, values: list) -> list | None:
    """The data buffer of an integer column: ``kind`` is (numpy dtype, lowest, highest)."""
    import numpy as np
    import pyarrow as pa

    if not types <= {int}:
        return None
    dtype, lo, hi = kind
    data = [0 if v is None else v for v in values]
    if data and (min(data) < lo or max(data) > hi):
        return None
    return [pa.py_buffer(np.array(data, dtype=dtype))]


def _binaries(arrow_type: pa.DataType, types: set, values: list) -> list | None:
    """The offsets and data buffers of a string or binary column."""
    import numpy as np
    import pyarrow as pa

    text = arrow_type in (pa.large_string(), pa.string())
    if not types <= ({str} if text else {bytes}):
        return None
    try:
        data = [b"" if v is None else (v.encode("utf-8") if text else v) for v in values]
    except UnicodeEncodeError:  # a lone surrogate: not valid UTF-8
        return None
    large = arrow_type in (pa.large_string(), pa.large_binary())
    offsets = np.zeros(len(data) + 1, dtype=np.int64 if large else np.int32)
    lengths = np.fromiter(map(len, data), dtype=np.int64, count=len(data))
    if not large and lengths.sum() >= 2**31:
        return None
    np.cumsum(lengths, out=offsets[1:])
    return [pa.py_buffer(offsets), pa.py_buffer(b"".join(data))]


def _naive(values: list) -> bool:
    return not any(v is not None and v.tzinfo is not None for v in values)


def _scalars(arrow_type: pa.DataType, types: set, values: list) -> list | None:
    """The data buffer of a float64, bool, date32, timestamp[us] or time64[ns] column."""
    import numpy as np
    import pyarrow as pa

    if arrow_type == pa.float64() and types <= {float, int}:
        if int in types and any(
            type(v) is int and not -_EXACT_IN_DOUBLE <= v <= _EXACT_IN_DOUBLE for v in values
        ):
            return None
        data = np.array([0.0 if v is None else v for v in values], dtype=np.float64)
    elif arrow_type == pa.bool_() and types <= {bool}:
        data = np.packbits(np.array([bool(v) for v in values], dtype=bool), bitorder="little")
    elif arrow_type == pa.date32() and types <= {date}:
        data = np.array([0 if v is None else (v - _EPOCH_DAY).days for v in values], np.int32)
    elif arrow_type == pa.timestamp("us") and types <= {datetime} and _naive(values):
        data = np.array([0 if v is None else (v - _EPOCH) // _US for v in values], np.int64)
    elif arrow_type == pa.time64("ns") and types <= {time} and _naive(values):
        ns = [
            0
            if v is None
            else ((v.hour * 60 + v.minute) * 60 + v.second) * 1_000_000_000 + v.microsecond * 1000
            for v in values
        ]
        data = np.array(ns, dtype=np.int64)
    else:
        return None
    return [pa.py_buffer(data)]


_OTHER_TYPES: set | None = None


def _taken(arrow_type: pa.DataType) -> bool:
    """Whether :func:`column` makes arrays of ``arrow_type``."""
    import pyarrow as pa

    global _OTHER_TYPES
    if _OTHER_TYPES is None:
        _OTHER_TYPES = {
            pa.float64(),
            pa.large_string(),
            pa.string(),
            pa.large_binary(),
            pa.binary(),
            pa.bool_(),
            pa.date32(),
            pa.timestamp("us"),
            pa.time64("ns"),
        }
    return arrow_type.id in (_INTS or {}) or arrow_type in _OTHER_TYPES


def table(schema: pa.Schema, rows: list[dict]) -> pa.Table | None:
    """``rows`` (dicts; a missing key is NULL) as a table of ``schema``, or None when a column
    is not taken by :func:`column` or a row has a key the schema lacks."""
    import pyarrow as pa

    if rows and not set().union(*rows) <= set(schema.names):
        return None
    arrays: list[Any] = []
    for f in schema:
        arr = column(f.type, [r.get(f.name) for r in rows])
        if arr is None:
            return None
        arrays.append(arr)
    return pa.Table.from_arrays(arrays, schema=schema)


def constant_string(value: str, n: int) -> pa.Array:
    """``n`` times ``value`` as a large_string array (a file's name beside its rows).

    Example:
        >>> constant_string("a.txt", 2).to_pylist()
        ['a.txt', 'a.txt']
    """
    import numpy as np
    import pyarrow as pa

    data = value.encode("utf-8")
    offsets = np.arange(n + 1, dtype=np.int64) * len(data)
    return pa.Array.from_buffers(
        pa.large_string(), n, [None, pa.py_buffer(offsets), pa.py_buffer(data * n)]
    )


def repeat_int64(value: int, n: int) -> pa.Array:
    """``n`` times ``value`` as an int64 array (``pa.repeat(pa.scalar(...))`` without pandas)."""
    import numpy as np
    import pyarrow as pa

    return pa.Array.from_buffers(
        pa.int64(), n, [None, pa.py_buffer(np.full(n, value, dtype=np.int64))]
    )
