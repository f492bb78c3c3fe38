"""Engines: the same generated study decoded and built by the DuckDB engine and by the Spark
engine (``--engine spark``) on this machine, at local[2] and local[1], with Spark's per-task
figures.

The attls scenario is generated at a scale (MQCAP_BENCH_ENGINES_SCALE; 1,600 = about 2 GB of raw
files, 8 with --quick). Decode: the DuckDB engine's ingest (the mqcap process and its ``--jobs 2``
workers) against the Spark engine's (``spark_parse = executors``: every group of files and every
part of a split dump a Spark task; the driver plans and lands) at local[2] and local[1], each
into a warehouse of its own, whose landing tables and ledger must equal the DuckDB engine's.
Build: the DuckDB engine's warehouse is copied for each engine, and each does a full build:
DuckDB with dbt-duckdb; Spark with the lake sync, dbt-spark in a local session and the marts
attached back. Spark's event logs give the tasks and their executor time, from which the notes
project decode and build on a cluster: wall ~= driver part (planning, landing, dbt, JVM start;
not spread over executors) + task seconds / (executors x cores). The marts of both engines are
compared (mqcap.parity). MQCAP_BENCH_ENGINES_LOCAL1=0 leaves out the local[1] runs,
=decode the local[1] build. MQCAP_BENCH_ENGINES_PARTS=build measures the builds only (the
DuckDB engine's ingest still makes the warehouse they start from); =decode the decodes only;
=incremental the Spark engine's incremental build against its full build (``_incremental``).
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


def _landing(warehouse: Path) -> tuple[dict[str, tuple], list[tuple]]:
    """Each landing table's (rows, a checksum of its rows without file ids), and the ledger's
    (path, status, rows) rows: what two ingests of the same drop must agree on."""
    import duckdb

    con = duckdb.connect(str(warehouse), read_only=True)
    try:
        tables = [
            r[0]
            for r in con.execute(
                "select table_name from information_schema.tables where table_schema = 'landing' "
                "and table_type = 'BASE TABLE' order by 1"
            ).fetchall()
        ]
        out = {}
        for t in tables:
            cols = [
                r[0]
                for r in con.execute(
                    "select column_name from information_schema.columns where table_schema = "
                    "'landing' and table_name = ? and column_name <> 'file_id'",
                    [t],
                ).fetchall()
            ]
            row = ", ".join(f'"{c}"' for c in cols)
            out[t] = con.execute(
                f'select count(*), coalesce(sum(hash(({row}))), 0) from landing."{t}"'
            ).fetchone()
        ledger = con.execute(
            "select path, status, rows_landed, rows_by_table, reason, position from meta.ingest_ledger "
            "order by all"
        ).fetchall()
        return out, ledger
    finally:
        con.close()


def _rows_loaded(warehouse: Path) -> int:
    import duckdb

    with duckdb.connect(str(warehouse), read_only=True) as con:
        return con.execute(
            "select coalesce(sum(rows_landed), 0) from meta.ingest_ledger where status = 'loaded'"
        ).fetchone()[0]


def _timed_ingest(settings, log_dir: Path | None = None):
    from mqcap.ingest import ingest

    if log_dir is not None:
        log_dir.mkdir(parents=True, exist_ok=True)
        os.environ["MQCAP_SPARK_EVENT_LOG"] = str(log_dir)
    try:
        t0 = time.perf_counter()
        report = ingest(settings)
        seconds = time.perf_counter() - t0
        print(f"ingest {settings.engine} {settings.spark_master}: {seconds:.1f}s", file=sys.stderr)
        return seconds, report
    finally:
        os.environ.pop("MQCAP_SPARK_EVENT_LOG", None)


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


def _projection(driver_s: float, task_s: float) -> str:
    return "; ".join(
        f"{e} executors x 4 cores ~{driver_s + task_s / (4 * e):.0f}s" for e in (2, 8, 32)
    )


def run(work: Path, quick: bool) -> list[dict]:
    from mqcap.parity import mart_differences

    scale = float(os.environ.get("MQCAP_BENCH_ENGINES_SCALE") or (8 if quick else 1600))
    # MQCAP_BENCH_ENGINES_LOCAL1: 1 (default) decode and build at local[1] too; "decode" only
    # the decode (the local[1] build is the longest part: at 2 GB about as long as the rest);
    # 0 neither.
    local1 = os.environ.get("MQCAP_BENCH_ENGINES_LOCAL1", "1")
    parts = set((os.environ.get("MQCAP_BENCH_ENGINES_PARTS") or "decode,build").split(","))
    if not parts or parts - {"decode", "build", "incremental"}:
        raise SystemExit("MQCAP_BENCH_ENGINES_PARTS: decode, build, incremental, or a list")
    if parts == {"incremental"}:
        return _incremental(work)
    # Spark local[N] runs its executors in the driver's JVM: at 2 GB, 2 GB of heap (mqcap's
    # default) would measure the garbage collector. DuckDB takes 80 % of RAM by default.
    heap = os.environ.setdefault("MQCAP_SPARK_DRIVER_MEMORY", "8g")
    raw = work / "raw"
    files = generate(load_scenario(SCENARIO), raw, scale=scale)
    raw_mb = sum(f.stat().st_size for f in files) / 1e6
    print(f"generated {raw_mb:.0f} MB, {len(files)} files", file=sys.stderr)
    masters = ("local[2]", "local[1]") if local1 != "0" else ("local[2]",)
    build_masters = masters if local1 == "1" else ("local[2]",)

    # Decode: the DuckDB engine's ingest, then the Spark engine's with every parse on Spark.
    duck = _settings(work, "duck", raw, "duckdb")
    ingest_s, _ = _timed_ingest(duck)  # with PARTS=build, a warehouse left here is reused
    rows = _rows_loaded(duck.warehouse)
    expected = _landing(duck.warehouse)
    decode: dict[str, tuple[float, int, float, float, str]] = {}
    for master in masters if "decode" in parts else ():
        name = "parse" + master[6]
        s = _settings(work, name, raw, "spark", master).with_(spark_parse="executors")
        seconds, _ = _timed_ingest(s, work / f"events-{name}")
        same = "landing and ledger equal" if _landing(s.warehouse) == expected else "DIFFERENT"
        decode[master] = (seconds, *_task_figures(work / f"events-{name}"), same)
        shutil.rmtree(s.warehouse.parent)  # the copies of the rows: the disk of a 2 GB study

    study = f"attls x{scale:g}: {raw_mb:,.0f} MB raw, {len(files):,} files, {rows:,} rows"
    out = []
    if "decode" in parts:
        d2_s, d_tasks, d_task_s, d_cpu_s, d_same = decode["local[2]"]
        d_driver_s = max(0.0, d2_s - d_task_s / 2)
        out += [
            result(
                "engines",
                f"decode (ingest), Spark local[2] executors vs DuckDB engine --jobs 2 ({study})",
                d2_s,
                "s",
                "the DuckDB engine's ingest (mqcap process + 2 workers)",
                ingest_s,
                notes=f"{d_same}; Spark = JVM + {d_tasks:,} parse tasks + the driver's landing",
                higher_is_better=False,
            ),
        ]
        if "local[1]" in decode:
            d1_s = decode["local[1]"][0]
            out.append(
                result(
                    "engines",
                    "decode (ingest) on Spark, local[2] vs local[1]",
                    d2_s,
                    "s",
                    "the same ingest at local[1]",
                    d1_s,
                    notes=f"speed-up {d1_s / d2_s:.2f}x from a second core; {decode['local[1]'][4]}",
                    higher_is_better=False,
                )
            )
        out.append(
            result(
                "engines",
                "decode on Spark at local[2]: executor task seconds",
                d_task_s,
                "s",
                "the ingest's wall time",
                d2_s,
                notes=f"{d_tasks:,} tasks, {d_task_s / max(d_tasks, 1) * 1000:.0f} ms each, "
                f"{d_cpu_s:.0f}s CPU; driver part ~{d_driver_s:.0f}s (wall - task s / 2: planning, "
                f"hashing, landing in DuckDB). Projection: {_projection(d_driver_s, d_task_s)}",
            )
        )
    if "build" in parts:
        # Build: copies of the DuckDB engine's warehouse.
        builds = {m: _settings(work, "spark" + m[6], raw, "spark", m) for m in build_masters}
        for s in builds.values():
            shutil.copy(duck.warehouse, s.warehouse)
        duck_s = _timed_build(duck)
        build_s = {m: _timed_build(s, work / f"events{m[6]}") for m, s in builds.items()}
        tasks, task_s, task_cpu_s = _task_figures(work / "events2")
        differences = mart_differences(duck.warehouse, builds["local[2]"].warehouse)
        same = "marts equal row for row" if not differences else f"{len(differences)} differences"
        spark2_s = build_s["local[2]"]
        driver_s = max(0.0, spark2_s - task_s / 2)

        out.append(
            result(
                "engines",
                f"full build, Spark local[2] vs DuckDB ({study})",
                spark2_s,
                "s",
                "the DuckDB engine's full build (dbt-duckdb)",
                duck_s,
                notes=f"{same}; Spark = lake sync + JVM + dbt-spark + marts attached back; "
                f"driver heap {heap}",
                higher_is_better=False,
            )
        )
        if "local[1]" in build_s:
            spark1_s = build_s["local[1]"]
            out.append(
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
            )
        out.append(
            result(
                "engines",
                "Spark build at local[2]: executor task seconds",
                task_s,
                "s",
                "the build's wall time",
                spark2_s,
                notes=f"{tasks:,} tasks, {task_s / max(tasks, 1) * 1000:.0f} ms each, "
                f"{task_cpu_s:.0f}s CPU; driver part ~{driver_s:.0f}s (wall - task s / 2). "
                f"Projection: {_projection(driver_s, task_s)}",
            )
        )
    return out


# The run held back from the sample and then added (a run of the attls study: SMF, CHSTATUS,
# NETSTAT, RMF and driver files, a baseline in another configuration).
ADDED_RUN = Path("attls") / "attls-chacha-16k"


def _incremental(work: Path) -> list[dict]:
    """Adding one run on each engine: the bundled sample (data/sample, every study) without one
    run, ingested and built in full; then the run dropped, ingested, and the build that follows
    (incremental: the runs in its scope recomputed) timed against the full build. Build times
    are ``mqcap.build.build`` (for Spark: the DuckDB views for the scope, the lake sync, the JVM,
    dbt-spark and the marts copied back). The two engines' marts are compared after each step.
    """
    from mqcap.build import build
    from mqcap.ingest import ingest
    from mqcap.parity import mart_differences

    raw = work / "inc-raw"
    held = work / "held" / ADDED_RUN.name
    shutil.copytree(ROOT / "data" / "sample", raw)
    held.parent.mkdir(parents=True)
    shutil.move(raw / ADDED_RUN, held)
    engines = {e: _settings(work, "inc-" + e, raw, e) for e in ("duckdb", "spark")}
    times: dict[tuple[str, str], float] = {}
    scopes: dict[str, str] = {}
    same: dict[str, str] = {}
    for step in ("full", "added"):
        if step == "added":
            shutil.move(held, raw / ADDED_RUN)
        for engine, s in engines.items():
            ingest(s)
            t0 = time.perf_counter()
            built = build(s)
            times[engine, step] = time.perf_counter() - t0
            assert built.ok, built.summary()
            if step == "added":
                scopes[engine] = built.scope
            print(f"{engine} {step}: {times[engine, step]:.1f}s {built.scope}", file=sys.stderr)
        differences = mart_differences(
            engines["duckdb"].warehouse, engines["spark"].warehouse, rel=1e-9
        )
        same[step] = (
            "marts equal row for row" if not differences else f"{len(differences)} differences"
        )
    runs = "the sample (data/sample, every study)"
    return [
        result(
            "engines",
            f"add one run ({ADDED_RUN}) to {runs}: Spark incremental build vs Spark full build",
            times["spark", "added"],
            "s",
            "the Spark engine's full build of the sample without that run (local[2])",
            times["spark", "full"],
            notes=f"goal <= 1/3; scope: {scopes['spark']}; {same['added']} after, "
            f"{same['full']} before",
            higher_is_better=False,
        ),
        result(
            "engines",
            f"add one run ({ADDED_RUN}) to {runs}: DuckDB incremental build vs DuckDB full build",
            times["duckdb", "added"],
            "s",
            "the DuckDB engine's full build of the sample without that run",
            times["duckdb", "full"],
            notes=f"side by side with the Spark rows; scope: {scopes['duckdb']}",
            higher_is_better=False,
        ),
        result(
            "engines",
            f"add one run to {runs}: Spark incremental build vs DuckDB incremental build",
            times["spark", "added"],
            "s",
            "the DuckDB engine's incremental build of the same step",
            times["duckdb", "added"],
            higher_is_better=False,
        ),
    ]
