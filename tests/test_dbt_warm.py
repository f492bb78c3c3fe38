"""mqcap's warm dbt process (mqcap.dbt_warm): a dbt command forked from it behaves as one started
afresh (its output, its exit code, its environment), the process is reused while the
environment allows and replaced when it does not or when it died, and what it may hold from
its imports is checked. That dbt dies with mqcap: tests/test_lifeline.py."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from mqcap import build, dbt_warm

from helpers import PROJECT


def _parent(pid: int) -> int:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(status.split("\nPPid:\t", 1)[1].split()[0])


@pytest.fixture
def fresh_warm():
    """No warm process from an earlier test in this worker; none left for the next."""
    dbt_warm.stop()
    yield
    dbt_warm.stop()


def _dbt(settings, *args: str) -> subprocess.CompletedProcess:
    settings.outputs.mkdir(parents=True, exist_ok=True)
    return build.run_dbt(settings, list(args))


def _version(settings) -> tuple[int, str]:
    """``dbt --help`` as mqcap starts dbt (no project arguments: the flag takes none)."""
    env = build._dbt_command_env(settings, settings.dbt_target)
    proc = dbt_warm.popen([*build.dbt_executable(), "--help"], cwd=settings.project_root, env=env)
    out = proc.stdout.read()
    return proc.wait(), out


def test_a_forked_command_says_and_exits_as_a_new_process_does(settings, fresh_warm, monkeypatch):
    warm_version = _version(settings)
    assert dbt_warm._warm is not None and dbt_warm._warm.ready()  # it ran in the warm process
    bad_warm = _dbt(settings, "build", "--no-such-flag")
    monkeypatch.setenv("MQCAP_DBT_WARM", "0")
    cold_version = _version(settings)
    bad_cold = _dbt(settings, "build", "--no-such-flag")
    assert warm_version[0] == cold_version[0] == 0
    assert "Usage: dbt" in warm_version[1]
    assert warm_version[1] == cold_version[1]
    assert bad_warm.returncode == bad_cold.returncode == 2
    assert "No such option '--no-such-flag'" in bad_warm.stdout
    assert bad_warm.stdout == bad_cold.stdout


def test_the_warm_process_is_reused_then_replaced_when_the_environment_or_its_life_changes(
    settings, fresh_warm, monkeypatch
):
    env = build._dbt_command_env(settings, settings.dbt_target)
    first = dbt_warm.warm(env)
    assert first is not None and first.ready()
    pid = first.proc.pid
    assert _parent(pid) == os.getpid()
    # A per-command value (another warehouse, another target), mqcap's own settings and GX's
    # switch (set once mqcap has used GX) keep it.
    other = dict(env, MQCAP_WAREHOUSE="other.duckdb", DBT_TARGET_PATH="/elsewhere")
    other.update(MQCAP_LOCK_WAIT_S="1", GX_ANALYTICS_ENABLED="False")
    assert dbt_warm.warm(other) is first
    # The child of a command is the warm process's, and ends before the command's result.
    argv = ["--help"]
    forked = first.fork(argv, settings.project_root, env, ())
    assert forked is not None and _parent(forked.pid) == pid
    assert first.fork(argv, settings.project_root, env, ()) is None  # one at a time
    assert "Usage: dbt" in forked.stdout.read()
    assert forked.wait() == 0
    # Any other variable could have been read at import: a new warm process.
    changed = dict(env, DBT_SEND_ANONYMOUS_USAGE_STATS="True")
    second = dbt_warm.warm(changed)
    assert second is not first and second.proc.pid != pid
    assert first.proc.poll() is not None  # the old one ended
    # One that died is replaced, and the command still runs.
    second.proc.kill()
    second.proc.wait()
    assert _version(settings)[0] == 0
    assert dbt_warm._warm is not second and dbt_warm._warm.ready()


def test_switched_off_each_command_is_a_new_process(settings, fresh_warm, monkeypatch):
    monkeypatch.setenv("MQCAP_DBT_WARM", "0")
    env = build._dbt_command_env(settings, settings.dbt_target)
    proc = dbt_warm.popen([*build.dbt_executable(), "--help"], cwd=settings.project_root, env=env)
    assert isinstance(proc, subprocess.Popen)
    assert "Usage: dbt" in proc.stdout.read()
    assert proc.wait() == 0
    assert dbt_warm._warm is None
    monkeypatch.setenv("MQCAP_DBT_WARM", "1")
    assert not isinstance(_version(settings), subprocess.Popen)


def test_what_it_imports_reads_no_per_command_variable_and_starts_no_thread():
    """The imports of the warm process, watched in a new interpreter: none reads a variable that
    may differ between the process and a command (``dbt_warm.varies``), and the process is
    still one thread after them (a fork copies only the thread that calls it)."""
    code = (
        "import os, sys\n"
        "from mqcap import dbt_warm\n"
        "read, walking = set(), [0]\n"
        "class Watched(type(os.environ)):\n"
        "    def __iter__(self):\n"  # a walk over every variable (networkx's, for its own
        "        walking[0] += 1\n"  # prefix) reads none of them by name
        "        try:\n"
        "            yield from super().__iter__()\n"
        "        finally:\n"
        "            walking[0] -= 1\n"
        "    def __getitem__(self, key):\n"
        "        if not walking[0]:\n"
        "            read.add(key)\n"
        "        return super().__getitem__(key)\n"
        "    def __contains__(self, key):\n"
        "        read.add(key)\n"
        "        return super().__contains__(key)\n"
        "os.environ.__class__ = Watched\n"
        "dbt_warm.preload()\n"
        "os.environ.__class__ = Watched.__mro__[1]\n"
        "print(sorted(k for k in read if dbt_warm.varies(k)), dbt_warm._threads())\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("COV")}
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=PROJECT, env=env, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["[]", "1"]


def test_a_forked_build_closes_the_warehouse_as_a_new_process_does(mini_settings, fresh_warm):
    """dbt's process ends through the interpreter's exit, where DuckDB checkpoints the
    warehouse as it closes: no write-ahead log is left for mqcap's next step to replay (a
    forked child that skipped that exit left one, and a kill during its replay could damage
    a block)."""
    s = mini_settings
    wal = s.warehouse.with_name(s.warehouse.name + ".wal")
    args = ["build", "--select", "dim_run+", "--exclude-resource-type", "test"]
    proc = build.run_dbt(s, args)
    assert proc.returncode == 0, proc.stdout[-800:]
    assert dbt_warm._warm is not None and dbt_warm._warm.ready()  # forked from the warm process
    assert not wal.exists() or wal.stat().st_size == 0


def test_preload_puts_the_environment_back_as_it_was(monkeypatch):
    """The single-thread settings hold only while the warm process imports: a value the user
    set comes back, one the user did not set is gone again."""
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "4")
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    before = dict(os.environ)
    dbt_warm.preload()
    assert dict(os.environ) == before
    assert os.environ["OPENBLAS_NUM_THREADS"] == "4" and "OMP_NUM_THREADS" not in os.environ
