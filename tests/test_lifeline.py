"""mqcap's dbt dies with mqcap, and a build waits while another build's dbt lives
(mqcap.lifeline). mqcap alone is killed here, as a closed terminal or an OOM killer would: not
its process group."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mqcap.lifeline import BUILD_BUSY

from helpers import PROJECT

pytestmark = pytest.mark.e2e


def _mqcap(settings, *args: str, **kw) -> subprocess.Popen:
    cmd = [sys.executable, "-m", "mqcap.cli", "--warehouse", str(settings.warehouse)]
    cmd += ["--raw", str(settings.raw_root), "-q", *args]
    return subprocess.Popen(
        cmd, cwd=PROJECT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **kw
    )


def _alive(pid: int) -> bool:
    """Running (a zombie waiting for a parent to reap it is not)."""
    try:
        state = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return False
    return "\nState:\tZ" not in state


def _holder(lock: Path) -> int:
    text = lock.read_text().strip() if lock.exists() else ""
    return int(text) if text.isdigit() else 0


def _parent(pid: int) -> int:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return 0
    return int(status.split("\nPPid:\t", 1)[1].split()[0])


def _wait(condition, timeout_s: float, what: str) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.05)


def test_dbt_dies_when_mqcap_alone_is_killed_and_the_next_build_runs(mini_settings):
    s = mini_settings
    lock = s.outputs / "build.lock"
    proc = _mqcap(s, "build", "--full", start_new_session=True)
    # mqcap writes its dbt child's PID into the lock the child holds (the copied warehouse's
    # lock file still names the dbt of the build that made it). The dbt process is a child of
    # mqcap's warm dbt process, itself a child of mqcap (mqcap.dbt_warm).
    _wait(lambda: _parent(_parent(_holder(lock))) == proc.pid, 120, "dbt never started")
    dbt = _holder(lock)
    warm = _parent(dbt)
    assert b"mqcap.dbt_warm" in Path(f"/proc/{warm}/cmdline").read_bytes()
    # dbt holds the lock file itself (inherited, not a copy).
    held = {os.path.realpath(f"/proc/{dbt}/fd/{fd}") for fd in os.listdir(f"/proc/{dbt}/fd")}
    assert str(lock.resolve()) in held
    proc.send_signal(signal.SIGKILL)  # mqcap alone
    proc.wait()
    _wait(lambda: not _alive(warm), 15, "the warm dbt process outlived the mqcap that started it")
    _wait(lambda: not _alive(dbt), 15, "dbt outlived the mqcap that started it")
    try:
        os.killpg(proc.pid, 0)
        left = [p for p in os.listdir("/proc") if p.isdigit() and os.getpgid(int(p)) == proc.pid]
    except ProcessLookupError:
        left = []
    assert [p for p in left if _alive(int(p))] == []
    again = _mqcap(s, "run", "--no-reports")
    out, _ = again.communicate(timeout=600)
    assert again.returncode == 0, out


def test_a_build_waits_while_another_build_holds_the_lock_then_stops_saying_so(
    mini_settings, monkeypatch
):
    """A dbt left running by a killed mqcap (where no parent-death signal exists) holds the
    build lock: the next build waits MQCAP_LOCK_WAIT_S, then stops naming it; once it ends,
    the build runs."""
    s = mini_settings
    lock = s.outputs / "build.lock"
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import fcntl, os, sys, time; fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT); "
            "fcntl.flock(fd, fcntl.LOCK_EX); os.ftruncate(fd, 0); os.write(fd, str(os.getpid()).encode()); "
            "print('held', flush=True); time.sleep(120)",
            str(lock),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        env = dict(os.environ, MQCAP_LOCK_WAIT_S="1")
        busy = _mqcap(s, "build", env=env)
        out, _ = busy.communicate(timeout=120)
        assert busy.returncode == 1, out
        expected = BUILD_BUSY.format(pid=holder.pid, path=s.warehouse)
        assert f"mqcap: error: {expected}" in " ".join(out.split()), out
    finally:
        holder.kill()
        holder.wait()
    done = _mqcap(s, "build", env=dict(os.environ, MQCAP_LOCK_WAIT_S="1"))
    out, _ = done.communicate(timeout=600)
    assert done.returncode == 0, out


def test_a_child_that_asked_dies_with_its_parent_and_one_that_did_not_lives():
    """The parent-death request alone (no pipe to break): a parent starts two sleeping
    children, one of them having called die_with_parent; SIGKILL of the parent ends that one
    only."""
    parent = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import os, subprocess, sys, time\n"
            "code = 'import time, mqcap.lifeline as l; {}; time.sleep(120)'\n"
            "env = dict(os.environ, MQCAP_PARENT_PID=str(os.getpid()))\n"
            "kids = [subprocess.Popen([sys.executable, '-c', code.format(c)], env=env,\n"
            "        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)\n"
            "        for c in ('l.die_with_parent()', 'None')]\n"
            "time.sleep(1.5)\n"  # both children past their first line
            "print(kids[0].pid, kids[1].pid, flush=True)\n"
            "time.sleep(120)\n",
        ],
        stdout=subprocess.PIPE,
        text=True,
        cwd=PROJECT,
    )
    asked, did_not = (int(p) for p in parent.stdout.readline().split())
    try:
        assert _alive(asked) and _alive(did_not)
        parent.kill()
        parent.wait()
        _wait(lambda: not _alive(asked), 10, "the child that asked outlived its parent")
        time.sleep(0.5)
        assert _alive(did_not)
    finally:
        for pid in (asked, did_not):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
