"""Drop-in workflow: time to add one run to a warehouse already holding 10, 100 and 1,000 runs
(goal: flat, within 1.5x from 10 to 1,000), and the time of a no-change `mqcap run`.

Each run is a manifest, a driver-results CSV and an address-space CPU CSV (so the cost marts
have work to do). Reports are not rendered (their time depends on the study, not the warehouse).
"""

from __future__ import annotations

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


def _add_one(settings, raw: Path, n: int) -> tuple[float, float]:
    from mqcap.pipeline import run

    _write_run(raw, n)
    t0 = time.perf_counter()
    result_ = run(settings, reports=False)
    added = time.perf_counter() - t0
    assert [o.status for o in result_.ingest.landed] == ["loaded"] * 3, result_.ingest.summary()
    t0 = time.perf_counter()
    again = run(settings, reports=False)
    nothing = time.perf_counter() - t0
    assert again.nothing_new
    return added, nothing


def run(work: Path, quick: bool) -> list[dict]:
    from mqcap.pipeline import run as do_run
    from mqcap.settings import Settings

    sizes = [10, 30] if quick else [10, 100, 1000]
    timings: dict[int, tuple[float, float]] = {}
    for n in sizes:
        raw = work / f"raw{n}"
        for i in range(n):
            _write_run(raw, i)
        settings = Settings.load(warehouse=work / f"w{n}.duckdb", raw=raw)
        do_run(settings, reports=False)  # the existing warehouse (not timed)
        timings[n] = _add_one(settings, raw, n)
    base_add = timings[sizes[0]][0]
    rows = []
    for n in sizes:
        added, nothing = timings[n]
        rows.append(
            result(
                "incremental",
                f"add one run to a warehouse of {n} runs (ingest, validate, dbt build)",
                added,
                "s",
                f"the same with {sizes[0]} runs",
                base_add,
                None,
                "goal: ratio <= 1.5 at 1,000 runs",
            )
        )
        rows.append(
            result(
                "incremental",
                f"no-change `mqcap run` with {n} runs",
                nothing,
                "s",
                f"add one run with {n} runs",
                added,
                None,
                "stat of every file, no hashing, no dbt",
            )
        )
    return rows
