"""Measuring helpers for benchmarks: wall time and peak memory of one call in its own process."""

from __future__ import annotations

import multiprocessing as mp
import resource
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any


def _child(fn: Callable[[], Any], queue: mp.Queue) -> None:
    try:
        start = time.perf_counter()
        value = fn()
        elapsed = time.perf_counter() - start
        peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        queue.put(("ok", elapsed, peak_mb, value))
    except BaseException:
        queue.put(("error", 0.0, 0.0, traceback.format_exc()))


def measure(fn: Callable[[], Any], repeat: int = 1) -> tuple[float, float, Any]:
    """(best wall seconds, peak RSS MB of that process, fn's return value): each try runs in a
    fresh forked process, so peak memory belongs to that call alone.

    Example:
        seconds, peak_mb, rows = measure(lambda: load(path))
    """
    ctx = mp.get_context("fork")
    best: tuple[float, float, Any] | None = None
    for _ in range(repeat):
        queue = ctx.Queue()
        proc = ctx.Process(target=_child, args=(fn, queue))
        proc.start()
        status, elapsed, peak, value = queue.get()
        proc.join()
        if status != "ok":
            raise RuntimeError(f"benchmark call failed:\n{value}")
        if best is None or elapsed < best[0]:
            best = (elapsed, peak, value)
    assert best is not None
    return best


def result(
    benchmark: str,
    measure_name: str,
    value: float,
    unit: str,
    reference: str,
    reference_value: float,
    peak_rss_mb: float | None = None,
    notes: str = "",
    higher_is_better: bool = True,
) -> dict:
    """One row of RESULTS.md; ratio = value / reference (for times: reference / value is shown
    the same way, as 'how many times the reference's speed')."""
    ratio = (value / reference_value) if reference_value else float("nan")
    return {
        "benchmark": benchmark,
        "measure": measure_name,
        "value": value,
        "unit": unit,
        "reference": reference,
        "reference_value": reference_value,
        "ratio": ratio,
        "peak_rss_mb": peak_rss_mb,
        "notes": notes,
    }


def parse_rows(parser, path: Path) -> tuple[int, float]:
    """Parse ``path`` with ``parser``: (rows landed, CPU seconds of the process, all threads)."""
    from mqcap.parsers.base import ParseContext

    cpu = time.process_time()
    ctx = ParseContext(path=path, source_file=path.name, size=path.stat().st_size)
    rows = 0
    for table, batch in parser.parse(ctx):
        rows += parser.table(table).frame(batch).height
    return rows, time.process_time() - cpu


def line_scan(path: Path, encoding: str | None = None) -> int:
    """Lines in ``path`` by a plain Python scan: the reference a text parser is held to."""
    n = 0
    with open(path, encoding=encoding) as fh:
        for _ in fh:
            n += 1
    return n
