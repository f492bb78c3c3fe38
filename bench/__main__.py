"""Run every bench/bench_*.py and write bench/RESULTS.md.

Usage: python -m bench [--quick] [--only NAME ...] [--out bench/RESULTS.md]

Each module exposes ``run(work: Path, quick: bool) -> list[dict]`` (see bench/common.py). Figures
are quoted as ratios against a reference measured side by side in the same run: the machines are
shared and noisy, absolute times are given only for context.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

HERE = Path(__file__).resolve().parent


def machine() -> str:
    cpu = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = ""
    try:
        kb = int(Path("/proc/meminfo").read_text().split()[1])
        mem = f", {kb / 1024 / 1024:.0f} GiB RAM"
    except (OSError, ValueError, IndexError):
        pass
    return f"{platform.node()}: {os.cpu_count()} cores of {cpu}{mem}, {platform.platform()}, Python {platform.python_version()}"


def fmt(v) -> str:
    if v is None:
        return ""
    if isinstance(v, float):
        if v != v:
            return "n/a"
        if abs(v) >= 100:
            return f"{v:,.0f}"
        if abs(v) >= 1:
            return f"{v:,.2f}"
        return f"{v:.3g}"
    return str(v)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench", description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="tiny inputs: checks the benchmarks run")
    ap.add_argument("--only", nargs="*", help="module names (bench_smf ...) to run")
    ap.add_argument("--out", type=Path, default=HERE / "RESULTS.md")
    args = ap.parse_args(argv)
    modules = sorted(p.stem for p in HERE.glob("bench_*.py"))
    if args.only:
        modules = [m for m in modules if m in args.only or m.removeprefix("bench_") in args.only]
    rows: list[dict] = []
    failures: list[str] = []
    started = time.time()
    for name in modules:
        work = Path(tempfile.mkdtemp(prefix=f"mqcap-{name}-"))
        print(f"== {name}", flush=True)
        t0 = time.perf_counter()
        # Each module in a fresh interpreter: measurements fork children, and forking a process
        # whose DuckDB/polars thread pools are running can deadlock.
        cmd = [sys.executable, "-m", "bench._one", name, str(work)] + (
            ["--quick"] if args.quick else []
        )
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, cwd=HERE.parent)
            if proc.returncode != 0:
                failures.append(f"{name}: {(proc.stderr.strip().splitlines() or ['?'])[-1]}")
                print(proc.stderr, file=sys.stderr)
            else:
                got = json.loads(proc.stdout.strip().splitlines()[-1])
                for r in got:
                    r.setdefault("module", name)
                rows.extend(got)
                print(f"   {len(got)} figure(s) in {time.perf_counter() - t0:.1f}s", flush=True)
        finally:
            shutil.rmtree(work, ignore_errors=True)
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=HERE
    ).stdout.strip()
    lines = [
        "# Benchmark results",
        "",
        f"- date: {datetime.now().isoformat(timespec='seconds')}",
        f"- machine: {machine()}",
        f"- commit: {commit or 'unknown'}; mode: {'quick (tiny inputs, not meaningful)' if args.quick else 'full'}",
        f"- total time: {time.time() - started:.0f}s",
        "",
        "Ratios compare each figure with a reference measured side by side in the same run",
        "(ratio = value / reference value). Absolute values are for context only: the machine",
        "is shared and noisy.",
        "",
        "| benchmark | measure | value | unit | reference | reference value | ratio | peak RSS MB | notes |",
        "|---|---|---:|---|---|---:|---:|---:|---|",
    ]
    for r in rows:
        lines.append(
            "| "
            + " | ".join(
                fmt(r.get(k))
                for k in (
                    "benchmark",
                    "measure",
                    "value",
                    "unit",
                    "reference",
                    "reference_value",
                    "ratio",
                    "peak_rss_mb",
                    "notes",
                )
            )
            + " |"
        )
    if failures:
        lines += ["", "## Failed", ""] + [f"- {f}" for f in failures]
    args.out.write_text("\n".join(lines) + "\n")
    print(f"wrote {args.out}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
