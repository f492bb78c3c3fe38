"""Environment errors are not input errors: tell them apart while landing a file.

Only a file proven bad (its parser's InputError, or a parser bug on its content) is set aside.
A disk that fills up, a file that vanishes, becomes a folder or cannot be read, an IO error of
the warehouse: the file is not judged; ingest skips it (raw file) or stops the batch (the
warehouse cannot be written), and the next ingest retries it.
"""

from __future__ import annotations

import errno

import duckdb

# The warehouse cannot take more writes: continuing would fail on every file.
_FULL_ERRNOS = {errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EFBIG}
_FULL_TEXTS = (
    "no space left on device",
    "disk quota exceeded",
    "read-only file system",
    "file too large",
    "could not write file",
)
# DuckDB's words for a warehouse file it cannot read (truncated, overwritten, not a database):
# the warehouse's problem, not the file being landed (mqcap.warehouse.damaged names it).
DAMAGED_TEXTS = (
    "not a valid duckdb database",
    "corrupt database",
    "could not read enough bytes",
    "computed checksum",
    "failed to load metadata",
    "invalid wal",
    "serialization error",
    "failure while replaying wal",  # a .wal left beside another version of its file
)
# DuckDB errors that come from the machine (files, memory, a fatal state), not from a row.
_DUCKDB_ENVIRONMENT = (
    duckdb.IOException,
    duckdb.FatalException,
    duckdb.OutOfMemoryException,
    duckdb.InterruptException,
    duckdb.PermissionException,
)


def is_warehouse_problem(exc: BaseException) -> bool:
    """The warehouse (or its disk) failed: stop the batch.

    Example:
        >>> is_warehouse_problem(OSError(28, "No space left on device"))
        True
    """
    if isinstance(exc, OSError) and exc.errno in _FULL_ERRNOS:
        return True
    if isinstance(exc, _DUCKDB_ENVIRONMENT):
        return True
    if isinstance(exc, duckdb.TransactionException):
        # A commit that failed to write (the WAL on a full disk) is the machine's fault.
        text = str(exc).lower()
        return "failed to commit" in text or any(t in text for t in _FULL_TEXTS)
    text = str(exc).lower()
    return isinstance(exc, duckdb.Error) and any(t in text for t in _FULL_TEXTS + DAMAGED_TEXTS)


def is_raw_file_problem(exc: BaseException) -> bool:
    """Reading the raw file failed for a reason outside its content: skip it, retry next time.

    An ``OSError`` with an errno (vanished, a folder now, permission denied, an IO error of
    the raw disk). An ``OSError`` without one (``gzip.BadGzipFile``) is about content.

    Example:
        >>> is_raw_file_problem(FileNotFoundError(2, "No such file or directory"))
        True
    """
    return isinstance(exc, OSError) and exc.errno is not None and not is_warehouse_problem(exc)


def describe(exc: BaseException) -> str:
    """A one-line account of an environment error, for the user.

    Example:
        >>> describe(PermissionError(13, "Permission denied"))
        'not readable (permission denied)'
    """
    why = getattr(exc, "why", None)  # (mqcap.parsers.base: OutsideRoot, ChangedWhileRead)
    if isinstance(exc, OSError) and isinstance(why, str):
        return why
    if isinstance(exc, FileNotFoundError):
        return "vanished between listing and reading"
    if isinstance(exc, IsADirectoryError | NotADirectoryError):
        return "is a folder now (replaced between listing and reading)"
    if isinstance(exc, PermissionError):
        return "not readable (permission denied)"
    if isinstance(exc, OSError) and exc.strerror:
        return f"could not be read ({exc.strerror.lower()})"
    first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return f"{type(exc).__name__}: {first}"
