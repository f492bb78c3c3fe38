"""mqcap's compiled parsers (the Rust crate in ``native/``), loaded with ctypes.

The library is built by ``make`` (``cargo build --release --offline``: the crate has no
dependencies) and by the wheel build (``setup.py``), and lands in ``mqcap/_lib/`` (a data folder:
the parser registry imports every module of this package, a library here among them). Python parses every file itself when the library is not there, when
``MQCAP_NATIVE=0`` is set, or when a file is not plain text (printable ASCII, tab, CR, LF): the
compiled parsers are ports of the Python ones for plain text, held to them row for row by
``tests/test_native.py`` (see ``docs/formats.md``).

Example:
    lib = library()  # None: parse in Python
"""

from __future__ import annotations

import ctypes
import io
from functools import lru_cache
from pathlib import Path

from mqcap import environment
from mqcap.parsers._lazy import lazy_module

pa = lazy_module("pyarrow", __name__, "pa")
pl = lazy_module("polars", __name__, "pl")

LIB_NAME = "libmqcap_native.so"
ABI_VERSION = 3
_P = ctypes.POINTER


def lib_path() -> Path:
    """Where the built library is looked for (``MQCAP_NATIVE_LIB`` overrides it)."""
    found = environment.text("MQCAP_NATIVE_LIB")
    return Path(found) if found else Path(__file__).parents[1] / "_lib" / LIB_NAME


def enabled() -> bool:
    """False when ``MQCAP_NATIVE=0``: every file is parsed in Python."""
    return environment.text("MQCAP_NATIVE") != "0"


def library() -> ctypes.CDLL | None:
    """The compiled library, or None (not built, another ABI version, or switched off)."""
    return _load() if enabled() else None


@lru_cache(maxsize=1)
def _load() -> ctypes.CDLL | None:
    path = lib_path()
    if not path.is_file():
        return None
    lib = ctypes.CDLL(str(path))
    lib.mqn_abi_version.restype = ctypes.c_uint32
    if lib.mqn_abi_version() != ABI_VERSION:
        return None
    vp, i64, sz = ctypes.c_void_p, ctypes.c_int64, ctypes.c_size_t
    sigs = {
        "mqn_plain": (ctypes.c_int32, [ctypes.c_char_p, sz]),
        "mqn_fd_plain": (ctypes.c_int32, [ctypes.c_int32]),
        "mqn_chs_new": (vp, []),
        "mqn_chs_free": (None, [vp]),
        "mqn_chs_feed": (ctypes.c_int32, [vp, ctypes.c_char_p, sz, i64]),
        "mqn_chs_finish": (ctypes.c_int32, [vp]),
        "mqn_chs_check": (ctypes.c_int32, [vp, ctypes.c_int32]),
        "mqn_chs_error": (None, [vp, _P(ctypes.c_void_p), _P(sz), _P(i64)]),
        "mqn_chs_pending": (None, [vp, _P(i64), _P(i64)]),
        "mqn_chs_counters": (None, [vp, _P(i64)]),
        "mqn_chs_take": (vp, [vp, ctypes.c_int32, _P(i64), _P(i64), _P(i64)]),
        "mqn_batch_buf": (None, [vp, sz, _P(ctypes.c_void_p), _P(sz)]),
        "mqn_batch_free": (None, [vp]),
        "mqn_batch_data": (ctypes.c_int32, [vp, sz, sz, _P(ctypes.c_void_p), _P(sz)]),
        "mqn_set_view_limit": (None, [sz]),
        "mqn_ns_new": (vp, []),
        "mqn_ns_free": (None, [vp]),
        "mqn_ns_feed": (ctypes.c_int32, [vp, ctypes.c_char_p, sz, i64]),
        "mqn_ns_finish": (ctypes.c_int32, [vp]),
        "mqn_ns_error": (None, [vp, _P(ctypes.c_void_p), _P(sz), _P(i64)]),
        "mqn_ns_pending": (None, [vp, _P(i64)]),
        "mqn_ns_counters": (None, [vp, _P(i64)]),
        "mqn_ns_take": (vp, [vp, ctypes.c_int32, _P(i64), _P(i64), _P(i64)]),
        "mqn_rw_plain": (ctypes.c_int32, [ctypes.c_char_p, sz]),
        "mqn_rw_fd_plain": (ctypes.c_int32, [ctypes.c_int32]),
        "mqn_rw_new": (vp, [ctypes.c_uint64, ctypes.c_int32]),
        "mqn_rw_free": (None, [vp]),
        "mqn_rw_feed": (ctypes.c_int32, [vp, ctypes.c_char_p, sz, i64]),
        "mqn_rw_finish": (ctypes.c_int32, [vp]),
        "mqn_rw_error": (None, [vp, _P(ctypes.c_void_p), _P(sz), _P(i64)]),
        "mqn_rw_pending": (i64, [vp]),
        "mqn_rw_counters": (None, [vp, _P(i64)]),
        "mqn_rw_nothing": (ctypes.c_int32, [vp]),
        "mqn_rw_take": (vp, [vp, _P(i64)]),
    }
    bind(lib, sigs)
    return lib


def bind(lib: ctypes.CDLL, sigs: dict) -> ctypes.CDLL:
    """Declare the result and argument types of library functions: ``{name: (restype,
    [argtypes])}``. A parser module binds its own entry points (idempotent).

    Example:
        bind(lib, {"mqn_chs_new": (ctypes.c_void_p, [])})
    """
    for name, (res, args) in sigs.items():
        fn = getattr(lib, name)
        fn.restype = res
        fn.argtypes = args
    return lib


class PlainTest:
    """A library whose ``mqn_plain`` and ``mqn_fd_plain`` are a parser's own plain-text test
    (``mqn_<prefix>_plain``), for :func:`file_is_plain`.

    Example:
        file_is_plain(PlainTest(lib, "rc"), ctx)  # RMF CRYPTO's test (form feeds are plain)
    """

    def __init__(self, lib: ctypes.CDLL, prefix: str) -> None:
        self.mqn_plain = getattr(lib, f"mqn_{prefix}_plain")
        self.mqn_fd_plain = getattr(lib, f"mqn_{prefix}_fd_plain")


def file_is_plain(lib: ctypes.CDLL, ctx) -> bool:
    """Whether the file a parse of ``ctx`` reads is plain text (after a UTF-8 byte-order mark):
    the compiled parsers' condition. Read as the parse reads it (``base.open_input``: beneath the
    raw root, its pinned copy when the ingest pinned one); a gzip file, or one that cannot be
    read, is not plain (Python reads it and says why)."""
    from mqcap.parsers.base import _Gunzip, _PreadFile, open_input

    try:
        with open_input(ctx.path, ctx.source_file) as fh:
            if isinstance(fh, _Gunzip):
                return False
            if isinstance(fh, io.BytesIO):
                data = fh.getvalue()
                data = data[3:] if data.startswith(b"\xef\xbb\xbf") else data
                return lib.mqn_plain(data, len(data)) == 1
            raw = getattr(fh, "raw", None)
            fd = raw.fd if isinstance(raw, _PreadFile) else fh.fileno()
            return lib.mqn_fd_plain(fd) == 1
    except (OSError, ValueError, io.UnsupportedOperation):
        return False


class NativeBug(RuntimeError):
    """The compiled parser failed (a panic): a bug in mqcap, not bad input."""


def raise_for(ctx, lib: ctypes.CDLL, prefix: str, handle: int, status: int, what: str) -> None:
    """What a parser's ``mqn_<prefix>_feed`` or ``_finish`` status means in Python: 0 nothing,
    1 the input error it found (``ctx.error`` with its message and line), 3 the file is no
    longer the plain text it was checked to be (``ChangedWhileRead``: retried), else a bug.

    Example:
        raise_for(ctx, lib, "chs", h, lib.mqn_chs_feed(h, data, len(data), first), "CHSTATUS")
    """
    from mqcap.parsers.base import ChangedWhileRead

    if status == 0:
        return
    if status == 1:
        msg, n, line = ctypes.c_void_p(), ctypes.c_size_t(), ctypes.c_int64()
        getattr(lib, f"mqn_{prefix}_error")(
            handle, ctypes.byref(msg), ctypes.byref(n), ctypes.byref(line)
        )
        raise ctx.error(ctypes.string_at(msg.value, n.value).decode(), line=line.value)
    if status == 3:
        raise ChangedWhileRead(ctx.path)
    raise NativeBug(f"{ctx.source_file}: the compiled {what} parser failed")


def add_counters(ctx, lib: ctypes.CDLL, prefix: str, handle: int, names: tuple) -> None:
    """The unknown and skipped lines ``mqn_<prefix>_counters`` counted since its last call,
    added to ``ctx``; ``names``: (\"unknown\" or \"skip\", what) in the library's order."""
    counts = (ctypes.c_int64 * len(names))()
    getattr(lib, f"mqn_{prefix}_counters")(handle, counts)
    for (kind, what), n in zip(names, counts, strict=True):
        if n:
            (ctx.unknown if kind == "unknown" else ctx.skip)(what, n)


class Batch:
    """One batch the library made (``mqn_*_take``), its columns read as pyarrow arrays without a
    copy: every array keeps this object alive, and the last one gone frees the batch."""

    def __init__(self, lib: ctypes.CDLL, ptr: int) -> None:
        self._free = lib.mqn_batch_free
        self._buf = lib.mqn_batch_buf
        self._data = lib.mqn_batch_data
        self.ptr = ptr

    def __del__(self) -> None:
        if self.ptr:
            self._free(self.ptr)
            self.ptr = None

    def raw(self, idx: int):
        ptr, n = ctypes.c_void_p(), ctypes.c_size_t()
        self._buf(self.ptr, idx, ctypes.byref(ptr), ctypes.byref(n))
        if not n.value:
            return pa.py_buffer(b"")
        return pa.foreign_buffer(ptr.value, n.value, base=self)

    def ints(self, idx: int, n: int, typ=None, valid: int | None = None):
        typ = typ or pa.int64()
        mask = self.raw(valid) if valid is not None else None
        return pa.Array.from_buffers(typ, n, [mask, self.raw(idx)])

    def views(self, base: int, n: int):
        """A string-view column: views at ``base``, validity at ``base + 2``, its data buffers
        (``mqn_batch_data``) after them; polars takes it without a copy."""
        data = []
        ptr, size = ctypes.c_void_p(), ctypes.c_size_t()
        while self._data(self.ptr, base, len(data), ctypes.byref(ptr), ctypes.byref(size)):
            data.append(
                pa.foreign_buffer(ptr.value, size.value, base=self)
                if size.value
                else pa.py_buffer(b"")
            )
        return pa.Array.from_buffers(
            pa.string_view(), n, [self.raw(base + 2), self.raw(base), *data]
        )

    def strings(self, base: int, n: int):
        return pa.Array.from_buffers(
            pa.large_utf8(), n, [self.raw(base + 2), self.raw(base), self.raw(base + 1)]
        )
