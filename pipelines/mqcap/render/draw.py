"""A chart of many rows drawn to SVG in a process of its own, which gives its memory back.

vl-convert draws in a V8 runtime inside the calling process, and V8 keeps the heap a drawing
grew to: a 1,000-run study's NETSTAT charts (44,000 rows each) left about 150 MB each in the
report kernel, which reached 970 MB (bench/RESULTS.md). A chart whose data passes
:data:`CHILD_ROWS` rows is therefore drawn by ``python -m mqcap.render.draw``: the spec goes in
on stdin, the SVG comes back on stdout, and the memory goes with the process. Smaller charts
are drawn in place (starting a process costs more than they do). The child dies with its
parent (``lifeline.die_with_parent``), so a killed render leaves no drawing behind.

Example:
    svg = draw_svg(spec, vl_version="5.20")  # '<svg ...'
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

# Rows of inline data from which a chart is drawn in a child process.
CHILD_ROWS = 5000


def data_rows(spec: dict[str, Any]) -> int:
    """Rows of inline data a Vega-Lite spec carries (its ``datasets``).

    Example:
        >>> data_rows({"datasets": {"a": [{"x": 1}, {"x": 2}], "b": [{"y": 3}]}})
        3
    """
    datasets = spec.get("datasets")
    if not isinstance(datasets, dict):
        return 0
    return sum(len(rows) for rows in datasets.values() if isinstance(rows, list))


def draw_svg(spec: dict[str, Any], vl_version: str | None) -> str:
    """The SVG vl-convert draws of ``spec``: here for a small chart, in a child process for a
    chart of :data:`CHILD_ROWS` rows or more (the same vl-convert, the same SVG)."""
    if data_rows(spec) < CHILD_ROWS:
        import vl_convert as vlc

        return vlc.vegalite_to_svg(spec, vl_version=vl_version)
    from mqcap import lifeline

    proc = subprocess.run(
        [sys.executable, "-m", "mqcap.render.draw"],
        input=json.dumps({"spec": spec, "vl_version": vl_version}).encode("utf-8"),
        capture_output=True,
        env={**os.environ, lifeline.PARENT_ENV: str(os.getpid())},
        check=False,
    )
    if proc.returncode != 0:
        lines = proc.stderr.decode("utf-8", errors="replace").strip().splitlines()
        raise RuntimeError(
            "vl-convert could not draw the chart: "
            + (lines[-1] if lines else f"exit status {proc.returncode}")
        )
    return proc.stdout.decode("utf-8")


def main() -> None:
    """Read ``{"spec": ..., "vl_version": ...}`` on stdin, write the SVG on stdout."""
    from mqcap.lifeline import die_with_parent

    die_with_parent()
    import vl_convert as vlc

    job = json.loads(sys.stdin.buffer.read())
    svg = vlc.vegalite_to_svg(job["spec"], vl_version=job["vl_version"])
    sys.stdout.buffer.write(svg.encode("utf-8"))


if __name__ == "__main__":
    main()
