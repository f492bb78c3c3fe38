"""Report rendering overhead: the full own-engine render vs executing the same cells alone.

Both sides start a fresh Jupyter kernel and run the test report's cells; the render adds
output conversion, pandoc (HTML and Typst) and the Typst compile. ``ratio`` is the render
time over the execution time: the price of turning results into documents.
"""

from __future__ import annotations

import resource
import statistics
import time
from pathlib import Path

from mqcap.render import render_report
from mqcap.render.display import VEGA_BUNDLE_ENV
from mqcap.render.execute import build_notebook, execute_notebook
from mqcap.render.qmd import parse_qmd

REPORT = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "render" / "report.qmd"
PARAMS = {"study": "bench"}


def _peak_rss_mb() -> float:
    # ru_maxrss is KiB on Linux; the kernel is a child process, so count both.
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return round(max(own, children) / 1024, 1)


def _time_execute() -> float:
    doc = parse_qmd(REPORT)
    nb = build_notebook(doc, PARAMS)
    start = time.perf_counter()
    execute_notebook(nb, doc, env={VEGA_BUNDLE_ENV: "document"})
    return time.perf_counter() - start


def _time_render(out: Path, formats: tuple[str, ...]) -> float:
    start = time.perf_counter()
    render_report(REPORT, out, params=PARAMS, formats=formats, engine="own")
    return time.perf_counter() - start


def run(work: Path, quick: bool) -> list[dict]:
    """Median of 1 (quick) or 3 runs of each: execute only, render HTML+PDF, HTML, PDF.

    Example:
        rows = run(Path("/tmp/bench"), quick=True)
        rows[0]["ratio"]  # e.g. 1.6: rendering takes 60% longer than running the cells
    """
    repeats = 1 if quick else 3
    execute = statistics.median(_time_execute() for _ in range(repeats))
    rows = []
    for name, formats in (
        ("render html+pdf", ("html", "pdf")),
        ("render html", ("html",)),
        ("render pdf", ("pdf",)),
    ):
        seconds = statistics.median(
            _time_render(work / "render" / name.replace(" ", "_").replace("+", "_"), formats)
            for _ in range(repeats)
        )
        rows.append(
            {
                "benchmark": f"render: {name}",
                "measure": "wall time, test report (6 cells, 2 charts, 1 table)",
                "value": round(seconds, 3),
                "unit": "s",
                "reference": "execute the same cells in a fresh kernel (nbclient)",
                "reference_value": round(execute, 3),
                "ratio": round(seconds / execute, 2),
                "peak_rss_mb": _peak_rss_mb(),
                "notes": f"median of {repeats}; includes kernel start on both sides",
            }
        )
    return rows


if __name__ == "__main__":
    import json
    import sys
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        for row in run(Path(tmp), quick="--quick" in sys.argv):
            print(json.dumps(row))
