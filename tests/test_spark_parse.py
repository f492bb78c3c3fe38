"""Parsing as Spark tasks (``mqcap.spark.tasks``): with the Spark engine, ingest parses on the
executors (local[2] here, a real Spark session) and lands exactly what a local ingest lands.

The drop is test_ingest_parallel's mixed drop (bad and unknown files, duplicates, the same SMF
dump twice, a gzip dump, a dump cut inside a record, CHSTATUS, a run waiting for its manifest)
plus two SMF dumps large enough to be split at record boundaries, one with bad input in a later
part. Every landing row with every column, every ledger row, every outcome and every progress
line (but the two that say Spark ran) equal those of a one-process ingest; and nothing was
parsed in the mqcap process: every file and part came back from a Spark task.
"""

from __future__ import annotations

import pytest

from mqcap import ingest_pool
from mqcap.spark import tasks

from helpers import query, tree_hashes
from smf_support import mixed_records, write_layout
from test_ingest_parallel import (
    _assert_same,
    _drop,
    _ingest,
    _same_times,
    _second_drop,
    _state,
    _twin,
    count_parsed_here,
)

pytestmark = [pytest.mark.e2e, pytest.mark.slow, pytest.mark.ci]


def record_pools(monkeypatch, on_start=None) -> list[tasks.SparkTaskPool]:
    """Every SparkTaskPool ingest starts from now on (``on_start(pool)`` called on each)."""
    pools: list[tasks.SparkTaskPool] = []
    real_start = tasks.SparkTaskPool.start.__func__

    def recording(cls, settings):
        pools.append(real_start(cls, settings))
        if on_start is not None:
            on_start(pools[-1])
        return pools[-1]

    monkeypatch.setattr(tasks.SparkTaskPool, "start", classmethod(recording))
    return pools


def _spark_lines(lines: list[str]) -> tuple[list[str], list[str]]:
    said = [line for line in lines if "Spark" in line]
    return [line for line in lines if "Spark" not in line], said


def test_parsing_on_spark_executors_lands_what_one_process_lands(settings, tmp_path, monkeypatch):
    monkeypatch.setattr(ingest_pool, "SPLIT_BYTES", 1 << 20)  # the big dumps: about 2.4 MB
    monkeypatch.setattr(ingest_pool, "PART_MIN_BYTES", 200_000)
    monkeypatch.setattr(tasks, "GROUP_FILES", 4)  # the small files: several tasks
    local, raw_l = _twin(settings, tmp_path, "local")
    spark, raw_x = _twin(settings, tmp_path, "spark")
    spark = spark.with_(engine="spark", spark_master="local[2]", spark_parse="executors")
    for raw in (raw_l, raw_x):
        _drop(raw)
        write_layout(raw / "day" / "big-good.dat", mixed_records(), "rdw")
        write_layout(raw / "day" / "big-bad.dat", mixed_records(corrupt_at=2), "bdw")
    _same_times(raw_l, raw_x)
    before = tree_hashes(raw_x)

    pools = record_pools(monkeypatch)
    done_here = count_parsed_here(monkeypatch)

    out_l, lines_l = _ingest(local, 1)
    assert len(done_here) == 36 and pools == []
    done_here.clear()
    out_x, lines_x = _ingest(spark, 1)
    assert done_here == []  # every file and every part came from a Spark task
    assert len(pools) == 1
    pool = pools[0]
    # The session read Spark's own settings file (SPARK_CONF_DIR, tests/conftest.py).
    assert pool.spark.conf.get("spark.sql.codegen.factoryMode") == "NO_CODEGEN"
    # 34 small files in groups of at most 4 (9 tasks), the good dump in 8 parts (the bad one's
    # parts after its error are not wanted).
    assert pool.tasks_run >= 9 + 8 and pool.tasks_failed == 0
    assert out_x == out_l
    kept, said = _spark_lines(lines_x)
    assert kept == lines_l
    assert said == [
        "log starting Spark (local[2]) to parse 36 file(s)",
        f"log parsed as {pool.tasks_run} Spark task(s) on local[2]",
    ]
    _assert_same(_state(spark), _state(local))
    assert tree_hashes(raw_x) == before
    status = {}
    for o in out_l:
        status[o[1]] = status.get(o[1], 0) + 1
    assert status == {"loaded": 29, "set_aside": 7}, out_l
    reasons = {o[0]: (o[4], o[5]) for o in out_l if o[1] == "set_aside"}
    assert reasons["day/big-bad.dat"][1].startswith("byte ")

    # The second drop: only its new and changed files are parsed, on Spark again.
    for raw in (raw_l, raw_x):
        _second_drop(raw)
    _same_times(raw_l, raw_x)
    out_l, lines_l = _ingest(local, 1)
    out_x, lines_x = _ingest(spark, 1)
    assert out_x == out_l
    assert _spark_lines(lines_x)[0] == lines_l
    _assert_same(_state(spark), _state(local))
    # With spark_parse auto, a drop this small is not worth starting Spark for.
    (raw_x / "day" / "late.csv").write_text("rate_per_s,round_trip_us\n7,8\n")
    out_x, lines_x = _ingest(spark.with_(spark_parse="auto"), 1)
    assert ("day/late.csv", "loaded") in [o[:2] for o in out_x]
    assert len(pools) == 2 and _spark_lines(lines_x)[1] == []


def test_a_failed_spark_task_is_an_exception_of_its_future(settings):
    pool = tasks.SparkTaskPool.start(settings.with_(engine="spark", spark_master="local[1]"))
    with pool:
        assert pool.workers == 1
        assert pool.submit(len, "abc").result() == 3
        failing = pool.submit(int, "not a number")
        with pytest.raises(Exception, match="invalid literal for int"):
            failing.result()
    assert (pool.tasks_run, pool.tasks_failed) == (1, 1)


def test_auto_parses_on_a_cluster_only_when_the_drop_is_worth_it(settings):
    spark = settings.with_(engine="spark", spark_master="spark://head:7077")
    assert not tasks.use_executors(settings, 1e6)  # the DuckDB engine parses here
    assert tasks.use_executors(spark, tasks.AUTO_MIN_SECONDS)
    assert tasks.use_executors(spark.with_(spark_master="sc://head:15002"), 1e6)
    assert not tasks.use_executors(spark, tasks.AUTO_MIN_SECONDS - 1)
    # local[N]: the executors would be this machine's cores, which --jobs workers use better.
    assert not tasks.use_executors(spark.with_(spark_master="local[*]"), 1e6)
    assert not tasks.use_executors(spark.with_(spark_master="local[2]"), 1e6)
    assert tasks.use_executors(spark.with_(spark_parse="executors", spark_master="local[2]"), 0.1)
    assert not tasks.use_executors(spark.with_(spark_parse="local"), 1e6)


def test_executors_that_cannot_run_the_parsers_stop_the_ingest_before_any_file(
    settings, sample_study, tmp_path
):
    """Executors whose Python lacks mqcap's dependencies (a Python without packages as
    PYSPARK_PYTHON: what a cluster without it set gives) fail one probe task before any file:
    exit 3 naming the missing module and what to do, nothing landed. Spark's own log goes to
    <stem>.mqcap/spark/spark.log: the terminal shows mqcap's lines only."""
    import os
    import subprocess
    import sys

    from helpers import PROJECT

    bare = tmp_path / "bare"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(bare)], check=True)
    env = dict(
        os.environ,
        PYSPARK_PYTHON=str(bare / "bin" / "python"),
        MQCAP_SPARK_MASTER="local[1]",
        MQCAP_SPARK_PARSE="executors",
    )
    args = ["--warehouse", str(settings.warehouse), "--raw", str(settings.raw_root)]
    out = subprocess.run(
        [sys.executable, "-m", "mqcap.cli", *args, "--engine", "spark", "ingest"],
        capture_output=True,
        text=True,
        env=env,
        cwd=PROJECT,
    )
    assert out.returncode == 3, out.stdout + out.stderr
    said = " ".join(out.stderr.split())
    assert "mqcap: error: the Spark executors on local[1] cannot run mqcap's parsers: " in said
    assert "ModuleNotFoundError: No module named '" in said
    assert "point PYSPARK_PYTHON at such a Python" in said
    # mqcap's lines only: its progress and its error; Spark's log is in its file.
    terminal = (out.stdout + out.stderr).splitlines()
    mqcaps = ("starting Spark (local[1]) to parse ", "mqcap: error: ")
    spark_lines = [ln for ln in terminal if not ln.startswith(mqcaps)]
    assert [ln for ln in spark_lines if ln.strip()] == [], terminal
    log = settings.outputs / "spark" / "spark.log"
    assert log.is_file() and "ERROR" in log.read_text()
    assert query(settings, "select count(*) from meta.ingest_ledger") == [(0,)]


def test_a_failed_task_stops_a_cluster_ingest_with_its_reason(settings):
    """After the probe, a task that fails on a cluster (here: a pool that says it is one) is
    the error that stops the ingest; on local[N] the file is parsed here and the note says why."""
    pool = tasks.SparkTaskPool.start(settings.with_(engine="spark", spark_master="local[1]"))
    with pool:
        assert pool.executor_python.startswith("Python 3.")
        assert pool.failure_stop() is None
        with pytest.raises(Exception, match="invalid literal for int"):
            pool.submit(int, "not a number").result()
        assert pool.failure_stop() is None  # local[1]: parsed here
        assert pool.first_failure.startswith("ValueError: invalid literal for int()")
        pool.master = "spark://head:7077"
        stop = pool.failure_stop()
    assert stop is not None and stop.exit_code == 3
    assert str(stop).startswith(
        "a Spark task failed on spark://head:7077: ValueError: invalid literal for int()"
    )
