"""Parsing on Spark past the in-process ``local[N]`` master, through a Spark Connect server
(``sc://``): mqcap's code shipped to the executors as a zip (``addArtifacts``), executors in
other processes than the driver, and results that come back through Spark rather than a shared
spool folder. The test checks where the executors imported mqcap from (the shipped zip, not this
checkout) and that an ingest of the parallel test's mixed drop with every parse on the server
lands exactly what a one-process ingest lands: every landing row, ledger row, outcome and
progress line.

A standalone cluster (a master and a worker, each its own JVM, started from pyspark's own Spark
as docs/engines.md says, word for word) parses and builds the Spark warehouse that
tests/test_spark_engine.py compares with the DuckDB engine's.
"""

from __future__ import annotations

import os
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


def test_parsing_through_spark_connect(connect_server, settings, tmp_path, monkeypatch):
    pool = _parse_on(connect_server, settings, tmp_path, monkeypatch)
    # The process's environment is left as it was: a later session here (or in a child, as a
    # dbt build's) must not become a client of this server.
    assert "SPARK_REMOTE" not in os.environ
    assert "SPARK_CONNECT_MODE_ENABLED" not in os.environ
    # addArtifacts(pyfile=True): the server's executors import mqcap from the shipped zip.
    assert "mqcap.zip" in pool.origin, pool.origin
    assert pool.workers == 3  # the server's spark.default.parallelism
