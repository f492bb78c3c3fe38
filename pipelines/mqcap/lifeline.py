"""mqcap's dbt process dies with mqcap, and a build is locked for as long as it lives.

A closed terminal, an OOM killer or ``kill -9`` stops mqcap alone: without these, its dbt
process (and, on the Spark engine, the JVM dbt started) went on building an unrecorded build in
the warehouse's dbt folders while the next ``mqcap run`` started its own beside it.

* **Dies with mqcap.** The dbt child asks Linux to SIGKILL it when its parent dies
  (``prctl(PR_SET_PDEATHSIG)``, ``die_with_parent``, the first thing the child does), and ends
  at once if mqcap is already gone by then. Spark's JVM reads its stdin from the dbt process
  and exits when that closes (pyspark's gateway), so it follows.
* **A build lock the build holds.** ``build_lock`` takes an OS lock (flock) on
  ``<stem>.mqcap/build.lock`` and the dbt child inherits the locked file, so the lock lives
  while either process does: should a dbt outlive mqcap (a system without parent-death
  signals), the next build waits for it up to ``MQCAP_LOCK_WAIT_S`` and then stops with
  ``BUILD_BUSY`` naming its process, rather than building beside it.

Example:
    with build_lock(settings.outputs / "build.lock", settings.warehouse) as held:
        subprocess.Popen(cmd, pass_fds=(held,), env={**env, PARENT_ENV: str(os.getpid())})
"""

from __future__ import annotations

import fcntl
import os
import signal
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from mqcap import environment
from mqcap.errors import WarehouseBusyError

PARENT_ENV = "MQCAP_PARENT_PID"
PR_SET_PDEATHSIG = 1

BUILD_BUSY = (
    "a dbt build (PID {pid}) is still running on {path}, perhaps left by an `mqcap` that was "
    "killed; this build would run beside it. Let it finish (or stop it), then run again."
)


def die_with_parent() -> None:
    """In a child mqcap started (``PARENT_ENV`` set to mqcap's PID): be killed when mqcap dies.
    Linux only; elsewhere, and when the environment does not name a parent, nothing happens.

    Example:
        >>> die_with_parent()  # no MQCAP_PARENT_PID here: nothing to do
    """
    parent = environment.text(PARENT_ENV) or ""
    if not parent.isdigit() or not sys.platform.startswith("linux"):
        return
    import ctypes

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):
        return
    if os.getppid() != int(parent):  # mqcap died before the request above took effect
        os._exit(128 + signal.SIGKILL)


def note_holder(fd: int, pid: int) -> None:
    """Write ``pid`` as the holder of the lock file open at ``fd``."""
    os.ftruncate(fd, 0)
    os.pwrite(fd, str(pid).encode(), 0)


def lock_holder(path: Path) -> str:
    """The PID written in a lock file, or '?'."""
    try:
        return path.read_text().strip() or "?"
    except OSError:
        return "?"


@contextmanager
def build_lock(path: Path, warehouse: Path, wait_s: float | None = None) -> Iterator[int]:
    """Hold the build lock at ``path`` for ``warehouse`` (waiting up to ``wait_s``, default
    ``MQCAP_LOCK_WAIT_S`` or 15 s, then ``WarehouseBusyError``); yields the locked file's
    descriptor for the build's process to inherit (``pass_fds``; ``note_holder`` then writes
    that process's PID into the file for the message a waiting build gives).

    Example:
        with build_lock(settings.outputs / "build.lock", settings.warehouse) as fd:
            proc = subprocess.Popen(cmd, pass_fds=(fd,))
            note_holder(fd, proc.pid)
    """
    if wait_s is None:
        wait_s = environment.seconds("MQCAP_LOCK_WAIT_S")
    path.parent.mkdir(parents=True, exist_ok=True)
    deadline = time.monotonic() + wait_s
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise WarehouseBusyError(
                        BUILD_BUSY.format(pid=lock_holder(path), path=warehouse)
                    ) from None
                time.sleep(0.25)
        note_holder(fd, os.getpid())
        yield fd
    finally:
        os.close(fd)  # the lock goes with the last descriptor: ours, or the build's
