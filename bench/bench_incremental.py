"""Drop-in workflow: time to add one run to a warehouse already holding 10, 100, 1,000 and
10,000 runs (goals, issue 18: <= 1.2x the 10-run time at 1,000 runs, <= 1.5x at 10,000), the
dbt part of it against dbt's own no-op build of the same project and warehouse (goal <= 2x), and
the time of a no-change `mqcap run` (goal: under 1 s at 10,000 runs).

Each run is a manifest, a driver-results CSV and an address-space CPU CSV (so the cost marts
have work to do). Reports are not rendered (their time depends on the study, not the warehouse).
MQCAP_BENCH_INCR_SIZES (e.g. "10,100,1000") replaces the sizes.
"""

from __future__ import annotations

import os
import statistics
import time
from datetime import datetime, timedelta
from pathlib import Path

from bench.common import result


def _write_run(raw: Path, i: int) -> None:
    d = raw / "bench" / f"run{i:05d}"
    d.mkdir(parents=True)
    start = datetime(2026, 1, 1) + timedelta(minutes=10 * i)
    end = start + timedelta(minutes=5)
    (d / "run.yaml").write_text(
        f"study: bench\nrun: run{i:05d}\nconfiguration: cfg{i % 3}\nsystem: SYSA\n"
        f"interval: {{start: {start.isoformat()}, end: {end.isoformat()}}}\n"
        f"workload: {{type: request_reply, message_bytes: {1024 * (1 + i % 5)}, threads: 1}}\n"
        f"baseline: run{i - i % 3:05d}\njobs: {{QM1MSTR: MSTR, QM1CHIN: CHIN, TCPIP: TCPIP}}\n"
    )
    (d / "results.csv").write_text(f"rate_per_s,round_trip_us\n{1000 + i},{1000 - i % 100}\n")
    rows = "".join(
        f"{start.isoformat()},{end.isoformat()},SYSA,{job},{cpu}\n"
        for job, cpu in (("QM1MSTR", 3.0), ("QM1CHIN", 12.5 + i % 7), ("TCPIP", 4.25))
    )
    (d / "cpu.csv").write_text("interval_start,interval_end,system,jobname,cpu_seconds\n" + rows)


class _DbtClock:
    """Wall time of every dbt subprocess mqcap starts (mqcap.build.run_dbt), start to exit."""

    def __init__(self) -> None:
        import mqcap.build

        self.seconds: list[float] = []
        self._run = mqcap.build.run_dbt
        mqcap.build.run_dbt = self._timed

    def _timed(self, *args, **kwargs):
        t0 = time.perf_counter()
        try:
            return self._run(*args, **kwargs)
        finally:
            self.seconds.append(time.perf_counter() - t0)


def _noop_dbt(settings) -> float:
    """dbt's own floor: `dbt build` selecting nothing, same project, warehouse and vars as an
    incremental build (start, parse from its partial-parse cache, select, exit). Best of 2."""
    from mqcap.build import run_dbt

    times = []
    for _ in range(2):
        t0 = time.perf_counter()
        proc = run_dbt(
            settings,
            [
                "build",
                "--select",
                "tag:mqcap_bench_no_such_tag",
                "--vars",
                "{mqcap_incremental: true}",
            ],
        )
        times.append(time.perf_counter() - t0)
        assert proc.returncode == 0, proc.stdout[-500:]
    return min(times)


def _add_one(settings, raw: Path, n: int, clock: _DbtClock) -> dict:
    from mqcap.pipeline import run

    # Warm-up, not timed: the first incremental build after a full one re-parses the project
    # (dbt re-parses everything when --vars change); every later one starts from dbt's
    # partial-parse cache, as a drop-in workflow does run after run.
    _write_run(raw, n)
    run(settings, reports=False)
    _write_run(raw, n + 1)
    clock.seconds.clear()
    t0 = time.perf_counter()
    result_ = run(settings, reports=False)
    added = time.perf_counter() - t0
    assert [o.status for o in result_.ingest.landed] == ["loaded"] * 3, result_.ingest.summary()
    assert result_.build is not None and result_.build.scope.startswith("1 run(s)"), (
        result_.build.scope if result_.build else "no build"
    )
    dbt_s = sum(clock.seconds)
    nothing = []
    for _ in range(3):
        t0 = time.perf_counter()
        again = run(settings, reports=False)
        nothing.append(time.perf_counter() - t0)
        assert again.nothing_new
    return {
        "added": added,
        "dbt": dbt_s,
        "scope": result_.build.scope,
        "nodes": sum(result_.build.counts.values()),
        "noop": _noop_dbt(settings),
        "nothing": statistics.median(nothing),
    }


def run(work: Path, quick: bool) -> list[dict]:
    from mqcap.pipeline import run as do_run
    from mqcap.settings import Settings

    sizes = [10, 30] if quick else [10, 100, 1000, 10000]
    if os.environ.get("MQCAP_BENCH_INCR_SIZES"):
        sizes = [int(x) for x in os.environ["MQCAP_BENCH_INCR_SIZES"].split(",")]
    clock = _DbtClock()
    timings: dict[int, dict] = {}
    setup: dict[int, float] = {}
    for n in sizes:
        raw = work / f"raw{n}"
        for i in range(n):
            _write_run(raw, i)
        settings = Settings.load(warehouse=work / f"w{n}.duckdb", raw=raw)
        t0 = time.perf_counter()
        do_run(settings, reports=False)  # the existing warehouse (not timed in the figures)
        setup[n] = time.perf_counter() - t0
        timings[n] = _add_one(settings, raw, n, clock)
    base = timings[sizes[0]]["added"]
    goal = {1000: "goal <= 1.2x", 10000: "goal <= 1.5x"}
    rows = []
    for n in sizes:
        t = timings[n]
        rows.append(
            result(
                "incremental",
                f"add one run to a warehouse of {n:,} runs (ingest, validate, dbt build)",
                t["added"],
                "s",
                f"the same with {sizes[0]} runs",
                base,
                None,
                f"{goal.get(n, 'goals at 1,000 and 10,000 runs')}; dbt {t['dbt']:.2f}s of it, "
                f"{t['nodes']} nodes, {t['scope']}; first build of the {n:,} runs took "
                f"{setup[n]:.0f}s (then one run added untimed: dbt's re-parse after --vars change)",
            )
        )
        rows.append(
            result(
                "incremental",
                f"add one run, dbt part, warehouse of {n:,} runs",
                t["dbt"],
                "s",
                "dbt build selecting nothing (same project, warehouse, vars), best of 2",
                t["noop"],
                None,
                "goal <= 2x",
            )
        )
        rows.append(
            result(
                "incremental",
                f"no-change `mqcap run` with {n:,} runs",
                t["nothing"],
                "s",
                f"add one run with {n:,} runs",
                t["added"],
                None,
                "median of 3; stat of every file, no hashing, no dbt"
                + ("; goal under 1 s" if n == 10000 else ""),
            )
        )
    return rows
