"""A warm dbt: one process that has imported dbt, forking a child for each dbt command.

Every ``dbt build`` mqcap started was a new interpreter that imported dbt, its adapter and their
libraries before doing anything (1.5-3 CPU-seconds, a fifth of a small study's build). A warm
dbt imports them once: mqcap starts it (``warm``) when a run has work for dbt, so the imports
overlap the ingest and the landing checks, and each dbt command is then a ``fork`` of it that
runs dbt's command line as ``mqcap.dbt_process`` does. A process that runs many builds (``mqcap
watch``, the test suite) imports dbt once in all.

A forked child is a dbt process like the one ``subprocess`` would start: its own PID, its
output on a pipe mqcap reads, the build lock's file inherited, the command's environment and
folder; it dies with the warm process (``prctl(PR_SET_PDEATHSIG)``), which dies with mqcap, so
a ``kill -9`` of mqcap still leaves no dbt behind (``mqcap.lifeline``). mqcap signals the child
through a pidfd (never a PID that could have been reused).

What is checked rather than assumed:

* **The environment.** Modules read some variables when imported, so a command runs in the warm
  process only when its environment equals the one the process imported with, apart from the
  variables that may differ (:func:`varies`: what dbt reads when a command starts, mqcap's
  own). Otherwise the process is replaced by one started with the new environment.
* **One thread.** A fork copies only the thread that calls it; the warm process forks only while
  it is the one thread of its process (``/proc/self/task``), else it says so and mqcap starts
  dbt afresh.
* **A warm process that died or failed to import** is not used: the command starts dbt afresh
  (``subprocess``), as it does with ``MQCAP_DBT_WARM=0`` or on a system without ``fork``.

Example (what ``mqcap.build.run_dbt`` does):
    proc = dbt_warm.popen(cmd, cwd=cwd, env=env, pass_fds=(held,))
    for line in proc.stdout: ...
    proc.wait()
"""

from __future__ import annotations

import atexit
import contextlib
import json
import locale
import os
import signal
import socket
import struct
import subprocess
import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

from mqcap import environment, lifeline

# Set in the warm process's environment: the file descriptor of its end of the socket.
SOCKET_ENV = "MQCAP_DBT_WARM_FD"

# Variables that may differ between the warm process's environment and a command's: what dbt
# reads when a command starts (not when imported), GX's switch (mqcap sets it once GX is in
# use; dbt never imports GX), and every ``MQCAP_`` variable (mqcap reads its own when a
# function is called, never at import: mqcap.environment). tests/test_dbt_warm.py checks that
# the warm process's imports read none of them.
PER_COMMAND = frozenset(
    {
        "DBT_PROFILES_DIR",
        "DBT_PROJECT_DIR",
        "DBT_LOG_PATH",
        "DBT_TARGET_PATH",
        "GX_ANALYTICS_ENABLED",
    }
)


def varies(name: str) -> bool:
    """Whether ``name`` may differ between the warm process and a command it runs.

    Example:
        >>> varies("DBT_TARGET_PATH"), varies("MQCAP_LOCK_WAIT_S"), varies("PYTHONPATH")
        (True, True, False)
    """
    return name in PER_COMMAND or name.partition("_")[0] == "MQCAP"


# What the warm process imports: dbt's command line, the DuckDB adapter and what a build loads,
# then what the project's Python models import (models/intermediate/*.py: pandas, numpy, scipy's
# t distribution, Otava's change points, through mqcap.noise and mqcap.series), which each build
# that runs them paid again in its own process: 1.2-2.2 s of a small build's Python models. None
# of it may start a thread (a fork copies only the thread that calls it): see SINGLE_THREADED.
PRELOAD = (
    "mqcap.dbt_process",
    "dbt.cli.main",
    "dbt.adapters.duckdb",
    "dbt.adapters.duckdb.impl",
    "dbt.task.build",
    "dbt.task.runnable",
    "dbt.parser.manifest",
    "dbt.contracts.graph.manifest",
    "dbt.context.providers",
    "dbt.compilation",
    "agate",
    "numpy",
    "pandas",
    "scipy.stats",
    "otava.analysis",
    "mqcap.noise",
    "mqcap.series",
)

# Set while the warm process imports, so that the native libraries the Python models load start
# no thread of their own: OpenBLAS (numpy's and scipy's) starts one per core unless told one, and
# pyarrow's jemalloc (pandas imports pyarrow) a background thread. Read when each library loads:
# a forked command keeps OpenBLAS on one thread (the models' arrays are a study's rows, far below
# what a second BLAS thread pays for) and its own environment otherwise.
SINGLE_THREADED = {
    "OPENBLAS_NUM_THREADS": "1",
    "GOTO_NUM_THREADS": "1",
    "OMP_NUM_THREADS": "1",
    "JE_ARROW_MALLOC_CONF": "background_thread:false",
}

_HEADER = struct.Struct("!I")


def enabled() -> bool:
    """Whether dbt commands run in a warm process here (``MQCAP_DBT_WARM``, Linux's fork).

    Example:
        >>> isinstance(enabled(), bool)
        True
    """
    return (
        environment.text("MQCAP_DBT_WARM") != "0"
        and hasattr(os, "fork")
        and hasattr(socket, "send_fds")
        and sys.platform.startswith("linux")
    )


def _send(sock: socket.socket, message: dict, fds: Sequence[int] = ()) -> None:
    data = json.dumps(message).encode()
    payload = _HEADER.pack(len(data)) + data
    if fds:
        socket.send_fds(sock, [payload], list(fds))
    else:
        sock.sendall(payload)


def _exact(sock: socket.socket, size: int, start: bytes = b"") -> bytes | None:
    """``size`` bytes (``start`` the first of them), or None at the end of the stream. Reads
    no further than the message: the next one may carry descriptors of its own."""
    buf = bytearray(start)
    while len(buf) < size:
        chunk = sock.recv(size - len(buf))
        if not chunk:
            return None
        buf += chunk
    return bytes(buf)


def _recv(sock: socket.socket, with_fds: int = 0) -> tuple[dict | None, list[int]]:
    """One message (None at the end of the stream) and the descriptors sent with it."""
    fds: list[int] = []
    if with_fds:
        first, fds, _flags, _addr = socket.recv_fds(sock, _HEADER.size, with_fds)
    else:
        first = sock.recv(_HEADER.size)
    head = _exact(sock, _HEADER.size, first) if first else None
    body = _exact(sock, _HEADER.unpack(head)[0]) if head else None
    if body is None:
        for fd in fds:
            os.close(fd)
        return None, []
    return json.loads(body), fds


def _base(env: dict[str, str]) -> dict[str, str]:
    return {k: v for k, v in env.items() if not varies(k)}


class WarmDbt:
    """The warm process, seen from mqcap: started with an environment, asked to fork."""

    def __init__(self, env: dict[str, str]) -> None:
        self.base = _base(env)
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        child_env = {
            **env,
            SOCKET_ENV: str(theirs.fileno()),
            lifeline.PARENT_ENV: str(os.getpid()),
        }
        try:
            self.proc = subprocess.Popen(
                # -P: the folder mqcap runs in is not on the import path
                [sys.executable, "-P", "-c", "from mqcap.dbt_warm import serve; serve()"],
                env=child_env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                pass_fds=(theirs.fileno(),),
            )
        finally:
            theirs.close()
        self.sock = ours
        self._ready: bool | None = None
        self.busy = False  # a child forked and not yet waited for: one at a time
        self._lock = threading.Lock()
        self.why = ""

    def ready(self) -> bool:
        """Whether it imported dbt (waits for the imports the first time)."""
        if self._ready is None:
            try:
                message, _ = _recv(self.sock)
            except OSError as exc:
                message = {"error": str(exc)}
            self._ready = bool(message and message.get("ready"))
            if not self._ready:
                self.why = (message or {}).get("error", "the warm dbt process ended")
                self.close()
        return self._ready

    def alive(self) -> bool:
        return self._ready is not False and self.proc.poll() is None

    def fork(
        self, argv: list[str], cwd: Path | str, env: dict[str, str], pass_fds
    ) -> Forked | None:
        """A dbt child running ``argv`` (dbt's arguments after the program), or None when this
        process cannot fork it (``why`` says why)."""
        with self._lock:
            if self.busy:
                return None
            self.busy = True
        forked = self._fork(argv, cwd, env, pass_fds) if self.ready() else None
        if forked is None:
            self.busy = False
        return forked

    def _fork(
        self, argv: list[str], cwd: Path | str, env: dict[str, str], pass_fds
    ) -> Forked | None:
        read, write = os.pipe()
        try:
            _send(self.sock, {"argv": argv, "cwd": str(cwd), "env": env}, [write, *pass_fds])
            reply, fds = _recv(self.sock, with_fds=1)
        except OSError as exc:
            reply, fds = {"error": str(exc)}, []
        finally:
            os.close(write)
        if reply is None or "pid" not in reply:
            os.close(read)
            for fd in fds:
                os.close(fd)
            self.why = (reply or {}).get("error", "the warm dbt process ended")
            if reply is None or not reply.get("retry"):
                self.close()
            return None
        pidfd = fds[0] if fds else None
        return Forked(self, reply["pid"], pidfd, read)

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.sock.close()
        if self.proc.poll() is None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(timeout=5)
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
        self._ready = False


class Forked:
    """A forked dbt child, with what ``mqcap.build`` uses of ``subprocess.Popen``: ``pid``,
    ``stdout`` (text), ``wait``, ``terminate``, ``kill``, ``returncode``."""

    def __init__(self, warm: WarmDbt, pid: int, pidfd: int | None, read: int) -> None:
        self.warm = warm
        self.pid = pid
        self._pidfd = pidfd
        self.stdout = open(  # noqa: SIM115 - closed with the pipe, as Popen's is
            read, encoding=locale.getpreferredencoding(False), closefd=True
        )
        self.returncode: int | None = None

    def wait(self, timeout: float | None = None) -> int:
        if self.returncode is None:
            try:
                message, _ = _recv(self.warm.sock)
            except OSError:
                message = None
            if message is None or "exit" not in message:
                # The warm process died: its child died with it (SIGKILL, parent-death signal).
                self.warm.close()
                self.returncode = -signal.SIGKILL
            else:
                self.returncode = int(message["exit"])
            if self._pidfd is not None:
                os.close(self._pidfd)
                self._pidfd = None
            self.warm.busy = False
        return self.returncode

    def poll(self) -> int | None:
        return self.returncode

    def send_signal(self, sig: int) -> None:
        if self.returncode is not None:
            return
        with contextlib.suppress(ProcessLookupError):
            if self._pidfd is not None:
                signal.pidfd_send_signal(self._pidfd, sig)
            else:  # no pidfd on this kernel: the warm process reaps the child only after this
                os.kill(self.pid, sig)

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)


_warm: WarmDbt | None = None
_stop_at_exit: list[bool] = []


def warm(env: dict[str, str]) -> WarmDbt | None:
    """The warm process for commands run with ``env``, started now if there is none (or the one
    there is imported with another environment, or died). None when not :func:`enabled`."""
    global _warm
    if not enabled():
        return None
    if _warm is not None and (_warm.base != _base(env) or not _warm.alive()):
        _warm.close()
        _warm = None
    if _warm is None:
        try:
            _warm = WarmDbt(env)
        except OSError:
            return None
        if not _stop_at_exit:
            atexit.register(stop)  # reaped here: its CPU is counted as this process's children's
            _stop_at_exit.append(True)
    return _warm


def popen(cmd: list[str], *, cwd: Path | str, env: dict[str, str], pass_fds=(), fork: bool = True):
    """``subprocess.Popen(cmd, ...)`` with dbt's output on a text pipe (stderr with it). With
    ``fork``, for ``cmd`` = ``mqcap.build.dbt_executable() + args``: a child of the warm process
    when it can run it, else a new process."""
    process = warm(env) if fork else None
    if process is not None:
        forked = process.fork(list(cmd[3:]), cwd, env, pass_fds)
        if forked is not None:
            return forked
    return subprocess.Popen(
        cmd,
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        pass_fds=tuple(pass_fds),
    )


def stop() -> None:
    """End this process's warm dbt, if any (it also ends when this process does)."""
    global _warm
    if _warm is not None:
        _warm.close()
        _warm = None


# The warm process itself.


def _threads() -> int:
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return 1


def _child(message: dict, out: int, zygote: int) -> NoReturn:
    """In the forked child: become the dbt command, then end as a dbt process does, through the
    interpreter's own exit (never returns). Not ``os._exit``: the exit closes what dbt left
    open, and DuckDB checkpoints the warehouse as it closes; a child that skipped it left its
    write-ahead log for mqcap's next step to replay and checkpoint (and a kill there, the kill
    chain found, could leave a block that failed its checksum)."""
    try:
        signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        os.dup2(out, 1)
        os.dup2(out, 2)
        os.close(out)
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        os.close(devnull)
        os.environ.clear()
        os.environ.update(message["env"])
        os.environ[lifeline.PARENT_ENV] = str(zygote)  # die with the warm process
        os.chdir(message["cwd"])
        sys.argv = ["-c", *message["argv"]]
        from mqcap.dbt_process import main

        main()
    except SystemExit:
        raise
    except BaseException:  # reported on dbt's output, as an interpreter would
        import traceback

        traceback.print_exc()
        raise SystemExit(1) from None
    raise SystemExit(0)


def preload() -> None:
    """Import :data:`PRELOAD` with :data:`SINGLE_THREADED` set, then put the environment back as
    it was (the process stays one thread: tests/test_dbt_warm.py)."""
    import importlib

    before = {k: v for k, v in os.environ.items() if k in SINGLE_THREADED}
    os.environ.update(SINGLE_THREADED)
    try:
        for name in PRELOAD:
            importlib.import_module(name)
    finally:
        for name in SINGLE_THREADED:
            os.environ.pop(name, None)
        os.environ.update(before)


def serve() -> None:
    """The warm process: import dbt, say so, then fork a child for each command until mqcap
    closes the socket."""
    lifeline.die_with_parent()
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the dbt child, not this
    sock = socket.socket(fileno=int(environment.text(SOCKET_ENV) or "-1"))
    try:
        preload()
    except BaseException as exc:  # said to mqcap, which starts dbt afresh
        _send(sock, {"error": f"importing dbt: {exc!r}"})
        return
    _send(sock, {"ready": True})
    while True:
        try:
            message, fds = _recv(sock, with_fds=8)
        except OSError:
            message = None
        if message is None:  # mqcap is done with it: nothing to clean up or flush
            os._exit(0)
        out = fds[0]  # the rest (the build lock) the child inherits as they are
        if _threads() != 1:
            for fd in fds:
                os.close(fd)
            _send(sock, {"error": f"{_threads()} threads in the warm dbt process", "retry": False})
            return
        zygote = os.getpid()
        pid = os.fork()
        if pid == 0:
            sock.close()
            _child(message, out, zygote)
        for fd in fds:
            os.close(fd)
        pidfd = None
        with contextlib.suppress(OSError, AttributeError):
            pidfd = os.pidfd_open(pid)
        _send(sock, {"pid": pid}, [pidfd] if pidfd is not None else [])
        if pidfd is not None:
            os.close(pidfd)
        _pid, status = os.waitpid(pid, 0)
        _send(sock, {"exit": os.waitstatus_to_exitcode(status)})
