"""Parsing on Spark past the in-process ``local[N]`` master: a Spark standalone cluster (a master
and a worker, each its own JVM, started here from pyspark's own Spark) and a Spark Connect server
(``sc://``). These are the paths of ``mqcap.spark.tasks`` that a real cluster takes and
``local[2]`` does not: mqcap's code shipped to the executors as a zip (``addPyFile`` on a
cluster, ``addArtifacts`` through Connect), executors in other processes than the driver, and
results that come back through Spark rather than a shared spool folder.

Each test checks where the executors imported mqcap from (the shipped zip, not this checkout)
and that an ingest of the parallel test's mixed drop with every parse on that cluster lands
exactly what a one-process ingest lands: every landing row, ledger row, outcome and progress line.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mqcap.spark import tasks

from test_ingest_parallel import (
    _assert_same,
    _drop,
    _ingest,
    _same_times,
    _state,
    _twin,
    count_parsed_here,
)
from test_spark_parse import record_pools

pytestmark = [pytest.mark.e2e, pytest.mark.slow, pytest.mark.soak]

# What the executors say of the mqcap they imported (eval is a builtin: it travels by name).
ORIGIN = "__import__('mqcap').__file__"


def _spark_home() -> Path:
    import pyspark

    return Path(pyspark.__file__).parent


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_for_port(port: int, proc: subprocess.Popen, log: Path, seconds: float = 180) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"exited with {proc.returncode}:\n{log.read_text()[-3000:]}")
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.5)
    raise AssertionError(f"port {port} not open after {seconds}s:\n{log.read_text()[-3000:]}")


def _start(cmd: list[str], log: Path, env: dict) -> subprocess.Popen:
    with log.open("w") as out:
        return subprocess.Popen(
            cmd, stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True
        )


def _stop(*procs: subprocess.Popen) -> None:
    for proc in procs:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
    for proc in procs:
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def _env(tmp: Path) -> dict:
    env = dict(os.environ)
    env.update(
        SPARK_HOME=str(_spark_home()),
        SPARK_LOG_DIR=str(tmp / "logs"),
        SPARK_PID_DIR=str(tmp / "pids"),
        SPARK_LOCAL_IP="127.0.0.1",
        # The executors' Python: on a cluster, one with polars and pyarrow (README "Engines").
        PYSPARK_PYTHON=sys.executable,
    )
    return env


@pytest.fixture
def standalone(tmp_path_factory):
    """A standalone master and one worker of 2 cores: the URL ``spark://127.0.0.1:<port>``."""
    tmp = tmp_path_factory.mktemp("standalone")
    env = _env(tmp)
    spark_class = str(_spark_home() / "bin" / "spark-class")
    port = _free_port()
    master = _start(
        [
            spark_class,
            "org.apache.spark.deploy.master.Master",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--webui-port",
            str(_free_port()),
        ],
        tmp / "master.log",
        env,
    )
    worker = None
    try:
        _wait_for_port(port, master, tmp / "master.log")
        url = f"spark://127.0.0.1:{port}"
        worker = _start(
            [
                spark_class,
                "org.apache.spark.deploy.worker.Worker",
                url,
                "--cores",
                "2",
                "--memory",
                "2g",
                "--work-dir",
                str(tmp / "work"),
                "--webui-port",
                str(_free_port()),
            ],
            tmp / "worker.log",
            env,
        )
        deadline = time.monotonic() + 180
        while "Successfully registered with master" not in (tmp / "worker.log").read_text():
            assert worker.poll() is None, (tmp / "worker.log").read_text()[-3000:]
            assert time.monotonic() < deadline, (tmp / "worker.log").read_text()[-3000:]
            time.sleep(0.5)
        yield url
    finally:
        _stop(*(p for p in (worker, master) if p is not None))


@pytest.fixture
def connect_server(tmp_path_factory):
    """A Spark Connect server (its own driver, local[2]): the URL ``sc://127.0.0.1:<port>``."""
    tmp = tmp_path_factory.mktemp("connect")
    env = _env(tmp)
    port = _free_port()
    server = _start(
        [
            str(_spark_home() / "sbin" / "start-connect-server.sh"),
            "--wait",
            "--master",
            "local[2]",
            "--conf",
            f"spark.connect.grpc.binding.port={port}",
            "--conf",
            "spark.ui.enabled=false",
            "--conf",
            "spark.default.parallelism=3",
            "--conf",
            f"spark.pyspark.python={sys.executable}",
        ],
        tmp / "server.log",
        env,
    )
    try:
        _wait_for_port(port, server, tmp / "server.log")
        yield f"sc://127.0.0.1:{port}"
    finally:
        _stop(server)


def _parse_on(master: str, settings, tmp_path, monkeypatch) -> tasks.SparkTaskPool:
    """Ingest the mixed drop with every parse on ``master``; check it against one process."""
    monkeypatch.setattr(tasks, "GROUP_FILES", 8)  # the 34 small files: several tasks
    local, raw_l = _twin(settings, tmp_path, "local")
    remote, raw_r = _twin(settings, tmp_path, "remote")
    remote = remote.with_(engine="spark", spark_master=master, spark_parse="executors")
    for raw in (raw_l, raw_r):
        _drop(raw)
    _same_times(raw_l, raw_r)

    def ask_origin(pool) -> None:
        # Where the executors took mqcap from, asked before the ingest uses the pool.
        pool.origin = pool.submit(eval, ORIGIN).result()

    pools = record_pools(monkeypatch, ask_origin)
    done_here = count_parsed_here(monkeypatch)
    out_l, lines_l = _ingest(local, 1)
    done_here.clear()
    out_r, lines_r = _ingest(remote, 1)
    assert done_here == []  # every file came back from a Spark task
    assert len(pools) == 1
    pool = pools[0]
    assert pool.tasks_failed == 0 and pool.tasks_run >= 5
    assert out_r == out_l
    assert [line for line in lines_r if "Spark" not in line] == lines_l
    assert [line for line in lines_r if "Spark" in line] == [
        f"log starting Spark ({master}) to parse 34 file(s)",
        f"log parsed as {pool.tasks_run} Spark task(s) on {master}",
    ]
    _assert_same(_state(remote), _state(local))
    return pool


def test_parsing_on_a_standalone_cluster(standalone, settings, tmp_path, monkeypatch):
    monkeypatch.setenv("PYSPARK_PYTHON", sys.executable)
    pool = _parse_on(standalone, settings, tmp_path, monkeypatch)
    # addPyFile: the executors import mqcap from the zip the driver shipped, not from here.
    assert "mqcap.zip" in pool.origin, pool.origin
    assert pool.workers == 2  # the worker's cores, from the cluster


def test_parsing_through_spark_connect(connect_server, settings, tmp_path, monkeypatch):
    pool = _parse_on(connect_server, settings, tmp_path, monkeypatch)
    # The process's environment is left as it was: a later session here (or in a child, as a
    # dbt build's) must not become a client of this server.
    assert "SPARK_REMOTE" not in os.environ
    assert "SPARK_CONNECT_MODE_ENABLED" not in os.environ
    # addArtifacts(pyfile=True): the server's executors import mqcap from the shipped zip.
    assert "mqcap.zip" in pool.origin, pool.origin
    assert pool.workers == 3  # the server's spark.default.parallelism


GUIDE = Path(__file__).parent.parent / "docs" / "engines.md"
CLUSTER_HEADING = "### A standalone cluster, step by step"


def _guide_block() -> str:
    """The shell block of the guide's cluster section, as written."""
    section = GUIDE.read_text().split(CLUSTER_HEADING, 1)[1]
    return section.split("```sh\n", 1)[1].split("```", 1)[0]


def test_the_guides_cluster_steps_run_word_for_word(tmp_path, mini_run):
    """docs/engines.md "A standalone cluster, step by step", in a work folder made by `mqcap
    init` holding the mini study: the block runs as written (mqcap's venv first on PATH, as
    `source .venv/bin/activate` leaves it), parsing and building on the cluster's executors,
    and the marts equal the DuckDB engine's. Then the guide's `kill %1 %2`."""
    from mqcap.parity import mart_differences

    from helpers import FIXTURES, group_alive, layout_settings

    work = tmp_path / "work"
    work.mkdir()
    env = {
        k: v for k, v in os.environ.items() if not k.startswith(("MQCAP_", "SPARK_", "PYSPARK_"))
    }
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    init = subprocess.run(
        ["mqcap", "init"], cwd=work, env=env, capture_output=True, text=True, check=False
    )
    assert init.returncode == 0, init.stdout + init.stderr
    shutil.copytree(FIXTURES / "mini_study" / "attls", work / "data" / "raw" / "attls")
    script = _guide_block() + "status=$?\nkill %1 %2\nwait\nexit $status\n"
    proc = subprocess.Popen(
        ["bash", "-c", script],
        cwd=work,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    try:
        out, _ = proc.communicate(timeout=2400)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 0, out[-5000:]
    assert "summary: 10 runs, 20 files" in out, out[-3000:]
    assert "parsed as " in out and "Spark task(s) on spark://127.0.0.1:7077" in out, out[-3000:]
    built = work / "data" / "warehouse.duckdb"
    assert mart_differences(layout_settings(mini_run).warehouse, built, rel=1e-9) == []
    assert (work / "spark-master.log").is_file() and (work / "spark-worker.log").is_file()
    deadline = time.monotonic() + 60
    while group_alive(proc.pid):
        assert time.monotonic() < deadline, group_alive(proc.pid)
        time.sleep(0.5)
