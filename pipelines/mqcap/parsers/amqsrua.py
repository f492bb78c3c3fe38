"""``amqsrua`` output: the resource-usage publications of distributed MQ and the MQ Appliance.

A queue manager on Linux, Windows, AIX or an MQ Appliance publishes its resource usage every
10 seconds on ``$SYS/MQ/INFO/QMGR/<qmgr>/Monitor/<CLASS>/<TYPE>[/<object>]``; IBM's sample
``amqsrua`` subscribes and prints each publication as a header line then one line per element:

    Publication received PutDate:20190303 PutTime:18201013 Interval:10.000 seconds
    Log - physical bytes written 33718272 3371827/sec
    Log - write latency 994 uSec
    Q1                                              MQPUT/MQPUT1 count 120 12/sec

The element lines are ``[<object>] <description> <value>[<unit>][ <rate>/sec]``: the unit is
``%`` (percentages), ``KB``/``MB``/``GB``, `` uSec`` (microseconds), nothing for counts and
hundredths (a load average); counters ("delta" elements) also print their rate over the interval.
The object (a queue for the STATQ class, 48 characters wide) is printed before the description.
The output does not name the class and type: they come from the element's description (IBM's
documented metric names, ``ELEMENTS``), NULL for a description this table does not know.
Blog and web copies turn the hyphens of the descriptions into dashes (``Log – write latency``):
read as hyphens.

Every element lands as one row of ``amqsrua_value`` with its publication's time: PutDate and
PutTime are the MQ message descriptor's, which MQ sets in UTC (``put_time_utc``); the interval
ends there.

Example:
    parsed = parse_file(PARSER, Path("amqsrua_log.txt"))
    parsed["amqsrua_value"]["value"].to_list()[:2]  # [50331648.0, 83886080.0]
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import datetime, timedelta

from mqcap.parsers.base import TEXT_LINEAGE, Batch, ParseContext, Parser, Table, read_text_lines

TABLE = Table(
    "amqsrua_value",
    {
        **TEXT_LINEAGE,
        "publication_line": "BIGINT",  # line of the 'Publication received' header
        "put_time_utc": "TIMESTAMP",  # end of the interval (MQMD PutDate/PutTime, UTC)
        "interval_us": "BIGINT",
        "interval_start_utc": "TIMESTAMP",
        "metric_class": "VARCHAR",  # CPU, DISK, STATMQI, STATQ... (NULL: description unknown)
        "metric_type": "VARCHAR",  # SystemSummary, QMgrSummary, Log, PUT, GET...
        "object_name": "VARCHAR",  # the queue of STATQ elements, else NULL
        "description": "VARCHAR",  # as printed (dashes read as hyphens)
        "value": "DOUBLE",  # as printed, in the printed unit
        "unit": "VARCHAR",  # '%', 'KB', 'MB', 'GB', 'uSec' or NULL
        "rate_per_s": "DOUBLE",  # counters: the rate amqsrua printed over the interval
    },
    "One row per element of an amqsrua resource-usage publication.",
)

_HEADER = re.compile(
    r"^Publication received PutDate:(?P<date>\d{8}) PutTime:(?P<time>\d{8})"
    r"(?: Interval:(?P<interval>.*?))?\s*$"
)
_INTERVAL = re.compile(
    r"^(?:(?P<d>\d+) days?,)?(?:(?P<h>\d+) hours?,)?(?:(?P<m>\d+) minutes?,)?"
    r"(?P<s>\d+)\.(?P<ms>\d{3}) seconds$"
)
_ELEMENT = re.compile(
    r"^(?P<head>\S.*?) (?P<value>-?\d+(?:\.\d+)?)(?P<unit>%|KB|MB|GB| uSec)?"
    r"(?: (?P<rate>-?\d+)/sec)?\s*$"
)
_DASHES = str.maketrans({"\u2013": "-", "\u2014": "-", "\u2212": "-"})
_PAD = re.compile(r"^(?P<obj>\S+)\s{2,}(?P<desc>\S.*)$")


# IBM's documented metric names by (class, type). The descriptions of the queue manager and
# system elements are printed alone; the STATQ ones after their queue's name.
_SYSTEM_ELEMENTS = {
    ("CPU", "SystemSummary"): [
        "User CPU time percentage",
        "System CPU time percentage",
        "CPU load - one minute average",
        "CPU load - five minute average",
        "CPU load - fifteen minute average",
        "RAM free percentage",
        "RAM total bytes",
    ],
    ("CPU", "QMgrSummary"): [
        "User CPU time - percentage estimate for queue manager",
        "System CPU time - percentage estimate for queue manager",
        "RAM total bytes - estimate for queue manager",
    ],
    ("DISK", "SystemSummary"): [
        "MQ trace file system - bytes in use",
        "MQ trace file system - free space",
        "MQ errors file system - bytes in use",
        "MQ errors file system - free space",
        "MQ FDC file count",
    ],
    ("DISK", "QMgrSummary"): [
        "Queue Manager file system - bytes in use",
        "Queue Manager file system - free space",
    ],
    ("DISK", "Log"): [
        "Log - bytes in use",
        "Log - bytes max",
        "Log file system - bytes in use",
        "Log file system - bytes max",
        "Log - physical bytes written",
        "Log - logical bytes written",
        "Log - write latency",
        "Log - current primary space in use",
        "Log - workload primary space utilization",
        "Log - bytes required for media recovery",
        "Log - bytes occupied by reusable extents",
        "Log - bytes occupied by extents waiting to be archived",
        "Log - write size",
        "Log file system - free space",
        "Log - slowest write since restart",
        "Log - timestamp of slowest write",
    ],
}
_STATMQI_ELEMENTS = {
    ("STATMQI", "CONNDISC"): [
        "MQCONN/MQCONNX count",
        "Failed MQCONN/MQCONNX count",
        "Concurrent connections - high water mark",
        "MQDISC count",
    ],
    ("STATMQI", "OPENCLOSE"): [
        "MQOPEN count",
        "Failed MQOPEN count",
        "MQCLOSE count",
        "Failed MQCLOSE count",
    ],
    ("STATMQI", "PUT"): [
        "Interval total MQPUT/MQPUT1 count",
        "Interval total MQPUT/MQPUT1 byte count",
        "Non-persistent message MQPUT count",
        "Persistent message MQPUT count",
        "Failed MQPUT count",
        "Non-persistent message MQPUT1 count",
        "Persistent message MQPUT1 count",
        "Failed MQPUT1 count",
        "Put non-persistent messages - byte count",
        "Put persistent messages - byte count",
        "MQSTAT count",
    ],
    ("STATMQI", "GET"): [
        "Interval total destructive get- count",
        "Interval total destructive get - byte count",
        "Non-persistent message destructive get - count",
        "Persistent message destructive get - count",
        "Failed MQGET - count",
        "Got non-persistent messages - byte count",
        "Got persistent messages - byte count",
        "Non-persistent message browse - count",
        "Persistent message browse - count",
        "Failed browse count",
        "Non-persistent message browse - byte count",
        "Persistent message browse - byte count",
        "Expired message count",
        "Purged queue count",
        "MQCB count",
        "Failed MQCB count",
        "MQCTL count",
    ],
    ("STATMQI", "COMMIT"): ["Commit count", "Rollback count"],
}
_STATQ_ELEMENTS = {
    ("STATQ", "GENERAL"): [
        "messages expired",
        "queue purged count",
        "average queue time",
        "Queue depth",
    ],
    ("STATQ", "OPENCLOSE"): ["MQOPEN count", "MQCLOSE count"],
    ("STATQ", "PUT"): [
        "MQPUT/MQPUT1 count",
        "MQPUT byte count",
        "MQPUT non-persistent message count",
        "MQPUT persistent message count",
        "rolled back MQPUT count",
        "MQPUT1 non-persistent message count",
        "MQPUT1 persistent message count",
        "non-persistent byte count",
        "persistent byte count",
        "lock contention",
        "queue avoided puts",
        "queue avoided bytes",
    ],
    ("STATQ", "GET"): [
        "MQGET count",
        "MQGET byte count",
        "destructive MQGET non-persistent message count",
        "destructive MQGET persistent message count",
        "destructive MQGET non-persistent byte count",
        "destructive MQGET persistent byte count",
        "MQGET browse non-persistent message count",
        "MQGET browse persistent message count",
        "MQGET browse non-persistent byte count",
        "MQGET browse persistent byte count",
        "destructive MQGET fails",
        "destructive MQGET fails with MQRC_NO_MSG_AVAILABLE",
        "destructive MQGET fails with MQRC_TRUNCATED_MSG_FAILED",
        "MQGET browse fails",
        "MQGET browse fails with MQRC_NO_MSG_AVAILABLE",
        "MQGET browse fails with MQRC_TRUNCATED_MSG_FAILED",
        "rolled back MQGET count",
    ],
}


def _elements() -> dict[tuple[str, bool], tuple[str, str]]:
    """(description, has object) -> (class, type), from IBM's documented metric list: a
    description may name an element of the queue manager and one of a queue (MQOPEN count),
    told apart by the object printed before it."""
    out: dict[tuple[str, bool], tuple[str, str]] = {}
    for has_object, groups in (
        (False, _SYSTEM_ELEMENTS),
        (False, _STATMQI_ELEMENTS),
        (True, _STATQ_ELEMENTS),
    ):
        for key, names in groups.items():
            for name in names:
                out[(name, has_object)] = key
    return out


ELEMENTS = _elements()
_STATQ_NAMES = sorted({d for d, obj in ELEMENTS if obj}, key=len, reverse=True)


def sniff(head: bytes, name: str) -> bool:
    text = head.decode("latin-1")
    return any(_HEADER.match(ln.strip()) for ln in text.splitlines()[:200])


def interval_us(text: str) -> int | None:
    """amqsrua's interval ('4 minutes,39.684 seconds') in microseconds; None if unreadable.

    Example:
        interval_us("1 hours,0 minutes,5.250 seconds")  # 3605250000
    """
    m = _INTERVAL.match(text.strip())
    if not m:
        return None
    secs = int(m["d"] or 0) * 86400 + int(m["h"] or 0) * 3600 + int(m["m"] or 0) * 60
    return (secs + int(m["s"])) * 1_000_000 + int(m["ms"]) * 1000


def split_object(head: str) -> tuple[str | None, str]:
    """(object, description) of an element line's text before the value."""
    padded = _PAD.match(head)
    if padded and (padded["desc"], True) in ELEMENTS:
        return padded["obj"], padded["desc"]
    if (head, False) in ELEMENTS:
        return None, head
    for desc in _STATQ_NAMES:  # an object printed with a single blank before the description
        if head.endswith(" " + desc) and " " not in head[: -len(desc) - 1]:
            return head[: -len(desc) - 1], desc
    if padded:
        return padded["obj"], padded["desc"]
    return None, head


def _put_time(ctx: ParseContext, lineno: int, date: str, time: str) -> datetime:
    try:
        base = datetime.strptime(date + time[:6], "%Y%m%d%H%M%S")
    except ValueError:
        raise ctx.error(
            f"PutDate/PutTime {date} {time} is not a date and time", line=lineno
        ) from None
    return base + timedelta(milliseconds=10 * int(time[6:8]))


def parse(ctx: ParseContext) -> Iterator[Batch]:
    rows: list[dict] = []
    pub: dict | None = None
    publications = 0
    for lineno, raw in read_text_lines(ctx):
        line = raw.translate(_DASHES).rstrip()
        if not line.strip():
            continue
        head = _HEADER.match(line.strip())
        if head:
            publications += 1
            put = _put_time(ctx, lineno, head["date"], head["time"])
            dur = interval_us(head["interval"]) if head["interval"] else None
            if head["interval"] and dur is None:
                raise ctx.error(f"interval {head['interval']!r} is not readable", line=lineno)
            pub = {
                "publication_line": lineno,
                "put_time_utc": put,
                "interval_us": dur,
                "interval_start_utc": None if dur is None else put - timedelta(microseconds=dur),
            }
            continue
        m = _ELEMENT.match(line)
        if pub is None or not m:
            ctx.unknown("line")
            continue
        obj, desc = split_object(m["head"].rstrip())
        key = ELEMENTS.get((desc, obj is not None))
        rows.append(
            {
                "source_file": ctx.source_file,
                "source_line": lineno,
                **pub,
                "metric_class": key[0] if key else None,
                "metric_type": key[1] if key else None,
                "object_name": obj,
                "description": desc,
                "value": float(m["value"]),
                "unit": (m["unit"] or "").strip() or None,
                "rate_per_s": float(m["rate"]) if m["rate"] else None,
            }
        )
        if len(rows) >= 50_000:
            yield TABLE.name, rows
            rows = []
    if not publications:
        raise ctx.error("no 'Publication received' line: not amqsrua output", line=1)
    if rows:
        yield TABLE.name, rows


PARSER = Parser(
    kind="amqsrua",
    description="IBM MQ amqsrua resource-usage output (distributed MQ, MQ Appliance)",
    tables=(TABLE,),
    attributed_by_time=True,
    sniff=sniff,
    parse=parse,
    priority=30,
)
