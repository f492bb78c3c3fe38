"""The warm dbt process (mqcap.dbt_warm) against a new dbt process per command, in interleaved
pairs on the same study: a whole `mqcap run --force --no-reports` as a command (one build; the
warm process imports dbt beside the landing checks), and three full builds in one process (as
`mqcap watch` and the test suite run them: dbt imported once). Wall and CPU seconds, the CPU of
every process each side started included (the warm process is reaped before the clock stops).

The study is the ten-run mini study of the tests (tests/fixtures/mini_study), ingested and built
once untimed. MQCAP_BENCH_WARM_PAIRS sets the pairs (default 3; 1 with --quick).
"""

from __future__ import annotations

import os
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

from bench.common import result

ROOT = Path(__file__).resolve().parent.parent
STUDY = ROOT / "tests" / "fixtures" / "mini_study" / "attls"


def _children_cpu() -> float:
    k = resource.getrusage(resource.RUSAGE_CHILDREN)
    return k.ru_utime + k.ru_stime


def _command(root: Path, warm: str) -> tuple[float, float]:
    """One `mqcap run --force --no-reports` as a command: wall, CPU of it and its children."""
    cmd = [sys.executable, "-m", "mqcap.cli", "--warehouse", str(root / "wh" / "warehouse.duckdb")]
    cmd += ["--raw", str(root / "raw"), "-q", "run", "--force", "--no-reports"]
    env = dict(os.environ, MQCAP_DBT_WARM=warm)
    c0, t0 = _children_cpu(), time.perf_counter()
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    wall, cpu = time.perf_counter() - t0, _children_cpu() - c0
    assert proc.returncode == 0, proc.stdout[-800:] + proc.stderr[-800:]
    return wall, cpu


_BUILDS = """
import os, resource, sys, time
from pathlib import Path
from mqcap import build, dbt_warm
from mqcap.settings import Settings
root = Path(sys.argv[1])
s = Settings.load(warehouse=root / "wh" / "warehouse.duckdb", raw=root / "raw",
                  reports_out=root / "reports", project_root=Path(sys.argv[2]))
t0 = time.perf_counter()
for _ in range(3):
    build.build(s, full=True)
dbt_warm.stop()
print(time.perf_counter() - t0)
"""


def _builds(root: Path, warm: str) -> tuple[float, float]:
    """Three full builds in one process: wall (the builds alone), CPU of the whole process."""
    env = dict(os.environ, MQCAP_DBT_WARM=warm)
    c0 = _children_cpu()
    proc = subprocess.run(
        [sys.executable, "-c", _BUILDS, str(root), str(ROOT)],
        env=env,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr[-800:]
    return float(proc.stdout.strip().splitlines()[-1]), _children_cpu() - c0


def run(work: Path, quick: bool) -> list[dict]:
    from mqcap.pipeline import run as mqcap_run
    from mqcap.settings import Settings

    pairs = 1 if quick else int(os.environ.get("MQCAP_BENCH_WARM_PAIRS", "3"))
    base = work / "warm-dbt" / "base"
    shutil.rmtree(base.parent, ignore_errors=True)
    shutil.copytree(STUDY, base / "raw" / "attls")
    settings = Settings.load(
        warehouse=base / "wh" / "warehouse.duckdb",
        raw=base / "raw",
        reports_out=base / "reports",
        project_root=ROOT,
    )
    mqcap_run(settings, reports=False)
    load = os.getloadavg()
    times: dict[tuple[str, str], list[tuple[float, float]]] = {}
    for i in range(pairs):
        for kind, fn in (("command", _command), ("builds", _builds)):
            for warm in ("1", "0") if i % 2 == 0 else ("0", "1"):
                copy = work / "warm-dbt" / f"{kind}-{warm}-{i}"
                shutil.copytree(base, copy)
                times.setdefault((kind, warm), []).append(fn(copy, warm))
                shutil.rmtree(copy)
    after = os.getloadavg()
    loads = (
        f"load average {load[0]:.1f} / {load[1]:.1f} before, {after[0]:.1f} / {after[1]:.1f} after"
    )

    def best(kind: str, warm: str, part: int) -> float:
        return min(t[part] for t in times[(kind, warm)])

    def listed(kind: str, warm: str) -> str:
        return ", ".join(f"{w:.1f} s / {c:.1f} CPU-s" for w, c in times[(kind, warm)])

    rows = []
    for kind, what in (
        ("command", "`mqcap run --force --no-reports` of the ten-run mini study, as a command"),
        ("builds", "three full builds of the ten-run mini study in one process"),
    ):
        notes = (
            f"{pairs} interleaved pair(s); warm: {listed(kind, '1')}; afresh: {listed(kind, '0')}; "
            f"{loads}"
        )
        for part, measure, unit in (
            (0, "wall seconds", "s"),
            (1, "CPU seconds of every process", "CPU-s"),
        ):
            rows.append(
                result(
                    "warm dbt",
                    f"{what}, {measure} (best)",
                    best(kind, "1", part),
                    unit,
                    "the same with MQCAP_DBT_WARM=0 (a new dbt process per command)",
                    best(kind, "0", part),
                    notes=notes,
                )
            )
    return rows
