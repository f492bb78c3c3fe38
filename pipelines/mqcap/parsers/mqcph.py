"""IBM mq-cph (MQ C Performance Harness) console output (docs/formats.md section 7).

What cph prints (github ibm-messaging/mq-cph, src/ControlThread.cpp): one statistics line per
``-ss`` seconds, ``rate=%.2f,threads=%u``, prefixed ``id=<-id>,`` when a process id is set and
followed by per-thread counts in parentheses with ``-sp``; and, at the end of a run with ``-su``,
the summary ``totalIterations=%u,totalSeconds=%.2f,avgRate=%.2f``. The aggregator script
(samples/utilities/runcph_agg.py) adds ``rate=..,threads=..,processes=..`` lines and a job
summary ``totalJobIterations=..,maxSeconds=..,avgJobRate=..,avgRatePerProcess=..``; it may
prefix lines with ``pid:<n> ``. A captured file (e.g. cphtestp's ``output``) can hold many runs:
each summary closes one run, the statistics lines before it belong to that run.

Lands ``driver_cph`` (one row per summary line) and ``driver_cph_interval`` (one row per
statistics line). Other lines (``controlThread START``, MQ messages) are counted as unknown.

Example::

    rate=1151.20,threads=1
    totalIterations=69034,totalSeconds=60.00,avgRate=1150.56
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from mqcap.parsers.base import TEXT_LINEAGE, Batch, ParseContext, Parser, Table, read_text_lines

SUMMARY = Table(
    "driver_cph",
    {
        **TEXT_LINEAGE,
        "run_seq": "BIGINT",
        "summary_kind": "VARCHAR",
        "total_iterations": "BIGINT",
        "total_s": "DOUBLE",
        "avg_rate_per_s": "DOUBLE",
        "avg_rate_per_process_per_s": "DOUBLE",
        "proc_id": "VARCHAR",
        "threads": "BIGINT",
        "stats_lines": "BIGINT",
    },
    "One row per mq-cph run summary line (process: totalIterations..., "
    "job: totalJobIterations...).",
)
INTERVAL = Table(
    "driver_cph_interval",
    {
        **TEXT_LINEAGE,
        "run_seq": "BIGINT",
        "stats_seq": "BIGINT",
        "proc_id": "VARCHAR",
        "rate_per_s": "DOUBLE",
        "threads": "BIGINT",
        "processes": "BIGINT",
        "thread_iterations": "VARCHAR",
    },
    "One row per mq-cph periodic statistics line (rate=...,threads=...).",
)

NUM = r"(-?\d+(?:\.\d+)?|nan|-?inf)"
_SUMMARY = re.compile(rf"totalIterations=(\d{{1,18}}),totalSeconds={NUM},avgRate={NUM}\s*$")
_JOB = re.compile(
    rf"totalJobIterations=(\d{{1,18}}),maxSeconds={NUM},avgJobRate={NUM},avgRatePerProcess={NUM}\s*$"
)
_STATS = re.compile(
    r"^(?:pid:\d+\s+)?(?:id=(?P<id>[^,]*),)?\s*(?:\((?P<per>[\d\s]*)\)\s*)?"
    r"rate=(?P<rate>-?\d+(?:\.\d+)?|nan|-?inf),threads=(?P<threads>\d{1,9})"
    r"(?:,processes=(?P<procs>\d{1,9}))?\s*$"
)
_SNIFF = re.compile(
    rb"totalIterations=\d+,totalSeconds=|"
    rb"^(?:id=[^,\n]*,)?[ \t]*(?:\([\d\s]*\)[ \t]*)?rate=[\d.]+,threads=\d+",
    re.M,
)
BATCH_ROWS = 50000


def sniff(head: bytes, name: str) -> bool:
    return _SNIFF.search(head) is not None


def _float(ctx: ParseContext, lineno: int, text: str) -> float | None:
    value = float(text)
    if value != value or value in (float("inf"), float("-inf")):
        return None  # cph prints nan/inf when a run lasted no time
    return value


def parse(ctx: ParseContext) -> Iterator[Batch]:
    summaries: list[dict] = []
    stats: list[dict] = []
    run_seq, stats_seq, stats_total = 1, 0, 0
    proc_ids: set[str] = set()
    last_threads: int | None = None
    for lineno, line in read_text_lines(ctx, encoding="utf-8-sig"):
        text = line.strip()
        if not text:
            continue
        if "totalIterations=" in text or "totalJobIterations=" in text:
            if m := _SUMMARY.search(text):
                kind, rate_pp = "process", None
                iters, secs, rate = m.groups()
            elif m := _JOB.search(text):
                kind = "job"
                iters, secs, rate, rate_pp = m.groups()
            else:
                raise ctx.error(f"malformed mq-cph summary line: {text[:120]!r}", line=lineno)
            summaries.append(
                {
                    "source_file": ctx.source_file,
                    "source_line": lineno,
                    "run_seq": run_seq,
                    "summary_kind": kind,
                    "total_iterations": int(iters),
                    "total_s": _float(ctx, lineno, secs),
                    "avg_rate_per_s": _float(ctx, lineno, rate),
                    "avg_rate_per_process_per_s": (
                        _float(ctx, lineno, rate_pp) if rate_pp is not None else None
                    ),
                    "proc_id": proc_ids.pop() if len(proc_ids) == 1 else None,
                    "threads": last_threads,
                    "stats_lines": stats_seq,
                }
            )
            run_seq, stats_seq, last_threads = run_seq + 1, 0, None
            proc_ids.clear()
            continue
        if "rate=" in text and ",threads=" in text:
            m = _STATS.match(text)
            if m is None:
                raise ctx.error(f"malformed mq-cph statistics line: {text[:120]!r}", line=lineno)
            stats_seq += 1
            stats_total += 1
            last_threads = int(m.group("threads"))
            if m.group("id"):
                proc_ids.add(m.group("id"))
            per = m.group("per")
            stats.append(
                {
                    "source_file": ctx.source_file,
                    "source_line": lineno,
                    "run_seq": run_seq,
                    "stats_seq": stats_seq,
                    "proc_id": m.group("id") or None,
                    "rate_per_s": _float(ctx, lineno, m.group("rate")),
                    "threads": last_threads,
                    "processes": int(m.group("procs")) if m.group("procs") else None,
                    "thread_iterations": " ".join(per.split()) if per else None,
                }
            )
            if len(stats) >= BATCH_ROWS:
                yield INTERVAL.name, stats
                stats = []
            continue
        ctx.unknown("mq-cph output line")
    if run_seq == 1 and stats_total == 0:
        raise ctx.error("no mq-cph summary or statistics line in file", line=1)
    if stats:
        yield INTERVAL.name, stats
    if summaries:
        yield SUMMARY.name, summaries


PARSER = Parser(
    kind="driver_cph",
    description="IBM mq-cph output: run summaries (totalIterations/avgRate) and rate lines",
    tables=(SUMMARY, INTERVAL),
    sniff=sniff,
    parse=parse,
    priority=40,
)
