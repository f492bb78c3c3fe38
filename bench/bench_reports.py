"""RMF Postprocessor report parsing throughput (CRYPTO HARDWARE ACTIVITY, WORKLOAD ACTIVITY), each
on a >= 200 MB report of many intervals, against a plain Python line scan of the same file.

The reports are the real samples (tests/fixtures/rmf/) with a carriage-control column added
(continuation rows left as the PDF text has them), one page per interval, DATE/TIME advancing 15
minutes per interval, the three crypto layouts (V2R2 TOTAL, V2R3 LPAR+CPC, V2R4 CEX7) and the two
WORKLOAD ACTIVITY block layouts taking turns. Parse time includes building the typed polars frames the ingest layer lands (the DuckDB
insert, shared by every parser, is excluded). The reference reads the file line by line as text
and counts lines: the floor any line-oriented parser pays. The notes give the CPU time of the
parse too (all threads): on a shared, loaded machine wall time includes waiting.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from pathlib import Path

from bench.common import line_scan, measure, parse_rows, result
from mqcap.parsers import rmf_crypto, rmf_workload

ROOT = Path(__file__).resolve().parents[1]
RMF = ROOT / "tests" / "fixtures" / "rmf"
TARGET_MB = 200
CRYPTO = sorted(RMF.glob("CRYPTO_PP_*.txt"))
WORKLOAD = [
    RMF / "WLMGL_PP_V2R2_UTCPLXCB_2015-04-21.txt",
    RMF / "WLMGL_PP_V2R3_UTCPLXCB_2016-12-19_STCLOW.txt",
]


def _template(path: Path) -> str:
    """The sample as one SYSOUT page, DATE and TIME replaced by {date} / {time} placeholders."""
    lines = [
        ln for ln in path.read_text(encoding="latin-1").splitlines() if not ln.startswith("# ")
    ]
    out, titled = [], False
    for line in lines:
        line = line.replace("{", "{{").replace("}", "}}")
        if not titled and "A C T I V I T Y" in line:
            out.append("1" + line.strip())
            titled = True
            continue
        out.append(" " + line)
    text = "\n".join(out) + "\n"
    text = re.sub(r"(?<![/])DATE \d\d/\d\d/\d{4}", "DATE {date}", text)
    return re.sub(r"TIME \d\d\.\d\d\.\d\d", "TIME {time}", text)


def make_report(work: Path, name: str, samples: list[Path], target_mb: float) -> tuple[Path, int]:
    """A report of many intervals, >= target_mb; returns (path, intervals)."""
    templates = [_template(p) for p in samples]
    path = work / name
    start = datetime(2024, 1, 1, 0, 0, 0)
    written, n = 0, 0
    with open(path, "w", encoding="latin-1") as fh:
        while written < target_mb * 1e6:
            t = start + timedelta(minutes=15 * n)
            page = templates[n % len(templates)].format(
                date=t.strftime("%m/%d/%Y"), time=t.strftime("%H.%M.%S")
            )
            fh.write(page)
            written += len(page)
            n += 1
    return path, n


PARSERS = {"crypto": rmf_crypto.PARSER, "workload": rmf_workload.PARSER}
# The reports a compiled parser reads: (how the Python parser reads them, what holds the two to
# the same output).
COMPILED = {
    "crypto": ("in bulk", "the same rows as the line-by-line parse (tests/test_native_crypto.py)"),
    "workload": (
        "polars frames",
        "the same rows, counters and errors as the Python parse (tests/test_native_workload.py)",
    ),
}


def run(work: Path, quick: bool) -> list[dict]:
    target = 2 if quick else TARGET_MB
    out = []
    for kind, samples in (("crypto", CRYPTO), ("workload", WORKLOAD)):
        path, intervals = make_report(work, f"rmf_{kind}_bench.txt", samples, target)
        size_mb = path.stat().st_size / 1e6
        t_parse, mem_parse, (rows, cpu) = measure(lambda p=path, k=kind: parse_rows(PARSERS[k], p))
        t_scan, mem_scan, lines = measure(lambda p=path: line_scan(p, "latin-1"))
        out.append(
            result(
                f"rmf_{kind} parse",
                "throughput",
                size_mb / t_parse,
                "MB/s",
                "plain Python line scan (text, count lines)",
                size_mb / t_scan,
                peak_rss_mb=mem_parse,
                notes=(
                    f"{size_mb:.0f} MB, {intervals:,} intervals, {lines:,} lines -> {rows:,} rows "
                    f"in {t_parse:.1f}s, {cpu:.1f}s CPU = {size_mb / cpu:.0f} MB/s of CPU "
                    f"(scan {t_scan:.1f}s, {mem_scan:.0f} MB RSS); goal >= 100 MB/s"
                ),
            )
        )
        if kind in COMPILED:
            t_py, mem_py, (_, cpu_py) = measure(
                lambda p=path, k=kind: _in_python(lambda: parse_rows(PARSERS[k], p))
            )
            out.append(
                result(
                    f"rmf_{kind} parse",
                    "compiled parser, seconds",
                    t_parse,
                    "s",
                    f"the Python parser ({COMPILED[kind][0]}) on the same file (MQCAP_NATIVE=0)",
                    t_py,
                    peak_rss_mb=mem_parse,
                    notes=(
                        f"{t_py / t_parse:.1f}x faster (CPU {cpu:.1f}s against {cpu_py:.1f}s); "
                        f"Python peak RSS {mem_py:.0f} MB; {COMPILED[kind][1]}"
                    ),
                )
            )
        path.unlink()
    return out


def _in_python(fn):
    """``fn()`` with the compiled parsers switched off (in the forked child only)."""
    import os

    os.environ["MQCAP_NATIVE"] = "0"
    return fn()
