"""Engines: the same generated study built by the DuckDB engine and by the Spark engine
(``--engine spark``) on this machine, at local[2] and local[1], with Spark's per-task figures.

The attls scenario is generated at a scale (MQCAP_BENCH_ENGINES_SCALE; 1,600 = about 2 GB of raw
files, 8 with --quick) and ingested once (ingest is the same on both engines); the warehouse is
copied for each engine, and each does a full build: DuckDB with dbt-duckdb; Spark with the lake
sync, dbt-spark in a local session and the marts attached back. Spark's event log gives the
tasks and their executor time, from which the notes project the build on a cluster:
wall ~= driver part (planning, dbt, JVM start; not spread over executors) + task seconds /
(executors x cores). The marts of both engines are compared (mqcap.spark.parity).
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import time
from pathlib import Path

from bench.common import result
from mqcap.generate import generate, load_scenario

ROOT = Path(__file__).resolve().parents[1]
SCENARIO = ROOT / "data" / "scenarios" / "attls.yaml"


def _settings(work: Path, name: str, raw: Path, engine: str, master: str = "local[2]"):
    from mqcap.settings import Settings

    wh = work / name / "warehouse.duckdb"
    wh.parent.mkdir(parents=True, exist_ok=True)
    return Settings.load(warehouse=wh, raw=raw, reports_out=work / name / "reports").with_(
        engine=engine, spark_master=master, jobs=2, quiet=True
    )


def _task_figures(log_dir: Path) -> tuple[int, float, float]:
    """(tasks, executor run seconds, executor CPU seconds) from Spark's event log."""
    tasks, run_ms, cpu_ns = 0, 0.0, 0.0
    # Spark 4 writes each application's log as a folder of rolled files (eventlog_v2_*/).
    for path in sorted(p for p in log_dir.rglob("*") if p.is_file()):
        for line in path.read_text().splitlines():
            if not line.startswith("{"):
                continue
            event = json.loads(line)
            if event.get("Event") == "SparkListenerTaskEnd":
                metrics = event.get("Task Metrics") or {}
                tasks += 1
                run_ms += metrics.get("Executor Run Time", 0)
                cpu_ns += metrics.get("Executor CPU Time", 0)
    return tasks, run_ms / 1000, cpu_ns / 1e9


def _timed_build(settings, log_dir: Path | None = None) -> float:
    from mqcap.build import build

    if log_dir is not None:
        log_dir.mkdir(parents=True, exist_ok=True)
        os.environ["MQCAP_SPARK_EVENT_LOG"] = str(log_dir)
    try:
        t0 = time.perf_counter()
        assert build(settings, full=True).ok
        seconds = time.perf_counter() - t0
        print(f"{settings.engine} {settings.spark_master}: {seconds:.1f}s", file=sys.stderr)
        return seconds
    finally:
        os.environ.pop("MQCAP_SPARK_EVENT_LOG", None)


def run(work: Path, quick: bool) -> list[dict]:
    from mqcap.ingest import ingest
    from mqcap.spark.parity import mart_differences

    scale = float(os.environ.get("MQCAP_BENCH_ENGINES_SCALE") or (8 if quick else 1600))
    raw = work / "raw"
    files = generate(load_scenario(SCENARIO), raw, scale=scale)
    raw_mb = sum(f.stat().st_size for f in files) / 1e6
    duck = _settings(work, "duck", raw, "duckdb")
    t0 = time.perf_counter()
    landed = ingest(duck)
    ingest_s = time.perf_counter() - t0
    print(f"{raw_mb:.0f} MB, {len(files)} files ingested in {ingest_s:.1f}s", file=sys.stderr)
    rows = sum(o.rows for o in landed.landed)
    # MQCAP_BENCH_ENGINES_LOCAL1=0 leaves out the local[1] build (the longest: at 2 GB, about
    # as long as all the rest together).
    with_local1 = os.environ.get("MQCAP_BENCH_ENGINES_LOCAL1", "1") != "0"
    spark2 = _settings(work, "spark2", raw, "spark", "local[2]")
    spark1 = _settings(work, "spark1", raw, "spark", "local[1]")
    for s in (spark2, spark1) if with_local1 else (spark2,):
        shutil.copy(duck.warehouse, s.warehouse)
    duck_s = _timed_build(duck)
    spark2_s = _timed_build(spark2, work / "events2")
    spark1_s = _timed_build(spark1, work / "events1") if with_local1 else None
    tasks, task_s, task_cpu_s = _task_figures(work / "events2")
    differences = mart_differences(duck.warehouse, spark2.warehouse)
    same = "marts equal row for row" if not differences else f"{len(differences)} differences"
    driver_s = max(0.0, spark2_s - task_s / 2)
    projection = "; ".join(
        f"{e} executors x 4 cores ~{driver_s + task_s / (4 * e):.0f}s" for e in (2, 8, 32)
    )
    study = f"attls x{scale:g}: {raw_mb:,.0f} MB raw, {len(files):,} files, {rows:,} rows"
    return (
        [
            result(
                "engines",
                f"full build, Spark local[2] vs DuckDB ({study})",
                spark2_s,
                "s",
                "the DuckDB engine's full build (dbt-duckdb)",
                duck_s,
                notes=f"ingest (same for both) {ingest_s:.1f}s; {same}; Spark = lake sync + JVM + "
                "dbt-spark + marts attached back",
                higher_is_better=False,
            ),
        ]
        + (
            []
            if spark1_s is None
            else [
                result(
                    "engines",
                    "Spark build, local[2] vs local[1]",
                    spark2_s,
                    "s",
                    "the same build at local[1]",
                    spark1_s,
                    notes=f"speed-up {spark1_s / spark2_s:.2f}x from a second core",
                    higher_is_better=False,
                )
            ]
        )
        + [
            result(
                "engines",
                "Spark build at local[2]: executor task seconds",
                task_s,
                "s",
                "the build's wall time",
                spark2_s,
                notes=f"{tasks:,} tasks, {task_s / max(tasks, 1) * 1000:.0f} ms each, "
                f"{task_cpu_s:.0f}s CPU; driver part ~{driver_s:.0f}s (wall - task s / 2). "
                f"Projection: {projection}",
            ),
        ]
    )
