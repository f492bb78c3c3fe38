"""A study report as its study grows: the attls scenario generated at 44, 352 and about 1,000
runs (``mqcap.generate`` at density 5 throughout: the 44 runs repeated 1, 8 and 23 times, each
run with five times the sample's polls and intervals), landed and built untimed, then
``mqcap report --study attls --format all`` (HTML and PDF, mqcap's own renderer) timed as a
command.

Each row gives the render's wall time, its CPU (the command and every process it waited for:
the Jupyter kernel, pandoc, Typst) and the largest peak RSS of any one of those processes
(``ru_maxrss`` of the waited children). The reference is the same render at the smallest size:
the goal is time linear in the runs (ratio <= runs / smallest runs) and every process under
1 GB. MQCAP_BENCH_REPORT_RUNS (e.g. "44,352") replaces the sizes.
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
import time
from pathlib import Path

from bench.common import result
from mqcap.generate import generate, load_scenario

ROOT = Path(__file__).resolve().parents[1]
SCENARIO = ROOT / "data" / "scenarios" / "attls.yaml"
RUNS_AT_SCALE_1 = 44  # the attls scenario's runs up to scale 5 (MAX_DENSITY); beyond, repeated
DENSITY = 5


# Runs a command and prints the CPU seconds and the largest peak RSS (KiB) of it and its
# children: a process of its own per command, so a build run before a render in the same bench
# process does not count as the render's (ru_maxrss of children covers a process's whole life).
_RUSAGE = (
    "import resource, subprocess, sys\n"
    "p = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
    "r = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
    "sys.stdout.write(p.stdout); sys.stderr.write(p.stderr)\n"
    "print(f'@rusage {r.ru_utime + r.ru_stime} {r.ru_maxrss}')\n"
    "sys.exit(p.returncode)\n"
)


def _mqcap(work: Path, *args: str) -> tuple[float, float, float, str]:
    """(wall s, CPU s, largest peak RSS MB of the command's processes, output) of one
    ``mqcap`` command run to its end, its waited children included."""
    t0 = time.perf_counter()
    where = ["--warehouse", str(work / "warehouse.duckdb"), "--raw", str(work / "raw")]
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            _RUSAGE,
            sys.executable,
            "-m",
            "mqcap.cli",
            *where,
            "--quiet",
            *args,
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise RuntimeError(f"mqcap {' '.join(args)} failed:\n{proc.stdout}\n{proc.stderr}")
    out, _, usage = proc.stdout.rpartition("@rusage ")
    cpu, maxrss_kib = usage.split()
    return wall, float(cpu), int(maxrss_kib) / 1024, out


def _one_size(work: Path, runs: int) -> dict:
    raw = work / "raw"
    repeats = max(1, math.ceil(runs / RUNS_AT_SCALE_1))
    files = generate(load_scenario(SCENARIO), raw, scale=DENSITY * repeats)
    build_s, _, _, _ = _mqcap(work, "run", "--no-reports")
    runs_landed = len({p.parent for p in raw.rglob("run.yaml")})
    wall, cpu, peak, _ = _mqcap(work, "report", "--study", "attls", "--format", "all")
    out = work / "warehouse.mqcap" / "reports"
    sizes = {p.suffix: p.stat().st_size for p in out.glob("attls.*")}
    return {
        "runs": runs_landed,
        "files": len(files),
        "build_s": build_s,
        "wall": wall,
        "cpu": cpu,
        "peak_mb": peak,
        "html_mb": sizes.get(".html", 0) / 1e6,
        "pdf_mb": sizes.get(".pdf", 0) / 1e6,
    }


def _sizes() -> list[int]:
    text = os.environ.get("MQCAP_BENCH_REPORT_RUNS", "44,352,1000")
    return [int(x) for x in text.split(",") if x.strip()]


def run(work: Path, quick: bool) -> list[dict]:
    """One row per size, each against the smallest size's render.

    Example:
        rows = run(Path("/tmp/bench"), quick=True)  # 44 runs only
    """
    import multiprocessing as mp

    sizes = _sizes()[:1] if quick else _sizes()
    ctx = mp.get_context("spawn")  # a fresh process per size: its own ru_maxrss of children
    measured = []
    for runs in sizes:
        with ctx.Pool(1) as pool:
            measured.append(pool.apply(_one_size, (work / f"runs{runs}", runs)))
    base = measured[0]
    rows = []
    for m in measured:
        rows.append(
            result(
                "study report",
                f"mqcap report --study attls --format all, {m['runs']} runs, seconds",
                round(m["wall"], 2),
                "s",
                f"the same render at {base['runs']} runs",
                round(base["wall"], 2),
                round(m["peak_mb"], 1),
                f"CPU {m['cpu']:.1f} s (the kernel, pandoc and Typst included); runs "
                f"{m['runs'] / base['runs']:.1f}x the reference's, time "
                f"{m['wall'] / base['wall']:.2f}x (goal: no more than the runs' ratio); largest "
                f"process {m['peak_mb']:.0f} MB (goal < 1,024); HTML {m['html_mb']:.1f} MB, PDF "
                f"{m['pdf_mb']:.1f} MB; {m['files']} files landed and built first in "
                f"{m['build_s']:.0f} s (untimed)",
                higher_is_better=False,
            )
        )
    return rows


if __name__ == "__main__":
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        for row in run(Path(tmp), quick="--quick" in sys.argv):
            print(row)
