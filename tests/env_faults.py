"""Environment faults for tests: a disk that fills up, a file that cannot be read.

Root reads a chmod-000 file, and not every machine may mount a small tmpfs, so these inject
the faults at the boundary where the machine reports them, with the errors it raises.
"""

from __future__ import annotations

import builtins
import errno
import io
import os

import duckdb

from mqcap import warehouse

ENOSPC_TEXT = (
    'TransactionContext Error: Failed to commit: Could not write file "{wal}": '
    "No space left on device"
)


class FullDisk:
    """A DuckDB connection whose commits fail the way a full disk makes them fail (after
    ``fail_after`` good ones): the transaction is gone and DuckDB says 'Failed to commit ...
    No space left on device' (a rollback after it finds no transaction)."""

    def __init__(self, con, wal: str, fail_after: int) -> None:
        self._con = con
        self._wal = wal
        self.commits_left = fail_after

    def commit(self):
        if self.commits_left <= 0:
            self._con.rollback()  # what DuckDB does inside a failed commit
            raise duckdb.TransactionException(ENOSPC_TEXT.format(wal=self._wal))
        self.commits_left -= 1
        return self._con.commit()

    def __getattr__(self, name):
        return getattr(self._con, name)


def fill_disk(monkeypatch, fail_after: int = 0) -> None:
    """Every warehouse connection opened for writing from now on hits a full disk."""
    real_connect = duckdb.connect

    def connect(path, *args, **kwargs):
        con = real_connect(path, *args, **kwargs)
        if kwargs.get("read_only"):
            return con
        return FullDisk(con, f"{path}.wal", fail_after)

    monkeypatch.setattr(warehouse.duckdb, "connect", connect)


def deny(monkeypatch, target) -> None:
    """Opening ``target`` fails with EACCES (permission denied)."""
    target = os.fspath(target)
    real_open = builtins.open

    def guarded(file, *args, **kwargs):
        if isinstance(file, str | os.PathLike) and os.fspath(file) == target:
            raise PermissionError(errno.EACCES, "Permission denied", target)
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", guarded)
    monkeypatch.setattr(io, "open", guarded)
    # Ingest opens raw files with os.open (beneath the raw root, the resolved path: see
    # mqcap.parsers.base.open_raw): the fault is raised there too.
    names = {target, os.path.realpath(target)}
    real_os_open = os.open

    def guarded_os_open(file, flags, *args, **kwargs):
        if isinstance(file, str | os.PathLike) and os.fspath(file) in names:
            raise PermissionError(errno.EACCES, "Permission denied", target)
        return real_os_open(file, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", guarded_os_open)
