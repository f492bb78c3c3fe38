"""``amqsmon`` output: MQ statistics and accounting messages of distributed MQ and the Appliance.

IBM's sample ``amqsmon`` reads the PCF messages a queue manager writes to
SYSTEM.ADMIN.STATISTICS.QUEUE / SYSTEM.ADMIN.ACCOUNTING.QUEUE and prints one record per message:

    MonitoringType: QueueStatistics
    QueueManager: 'QM1'
    IntervalStartDate: '2024-05-06'
    IntervalStartTime: '09.00.00'
    IntervalEndDate: '2024-05-06'
    IntervalEndTime: '09.30.00'
    CommandLevel: 940
    ObjectCount: 1
    QueueStatistics: 0
      QueueName: 'APP.REQUEST'
      PutCount: [0, 50020]
      ...

``Name: value`` lines: a number, a quoted string, a named constant (``QueueType: Local``) or a
list ``[non-persistent, persistent]``; a group (``QueueStatistics: n``, ``ChannelStatistics: n``,
``QueueAccounting: n``) indents its members by two blanks. Records are MQIStatistics,
QueueStatistics, ChannelStatistics, MQIAccounting and QueueAccounting. Every value lands as one
row of ``amqsmon_value`` (a list gives one row per element, ``item`` 0, 1, ...) with its record's
queue manager and interval, and its group's object (queue or channel).

Interval dates and times are the PCF strings of the message (MQCAMO_START_DATE/TIME,
MQCAMO_END_DATE/TIME), printed without a zone. Unlike the MQMD put time (UTC), dates and times
kept in the data of distributed MQ are the queue manager's local clock (IBM documents the same
for object creation dates and times: GMT on z/OS, local time elsewhere); they land as printed
(``_local``) and are attributed to runs on the manifest's local clock, with no offset applied.

Example:
    parsed = parse_file(PARSER, Path("amqsmon_statistics.txt"))
    parsed["amqsmon_value"].filter(pl.col("name") == "PutCount")
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import datetime

from mqcap.parsers.base import TEXT_LINEAGE, Batch, ParseContext, Parser, Table, read_text_lines

TABLE = Table(
    "amqsmon_value",
    {
        **TEXT_LINEAGE,
        "record_line": "BIGINT",  # line of the record's MonitoringType
        "monitoring_type": "VARCHAR",  # QueueStatistics, MQIStatistics, ChannelStatistics, ...
        "qmgr": "VARCHAR",
        "interval_start_local": "TIMESTAMP",
        "interval_end_local": "TIMESTAMP",
        "group_name": "VARCHAR",  # QueueStatistics / ChannelStatistics / QueueAccounting, or NULL
        "group_index": "BIGINT",
        "object_name": "VARCHAR",  # the group's QueueName or ChannelName
        "name": "VARCHAR",
        "item": "BIGINT",  # position in a list value (0 non-persistent, 1 persistent), else NULL
        "value_text": "VARCHAR",  # as printed, quotes removed
        "value_number": "DOUBLE",  # the value when it is a number
    },
    "One row per value of an amqsmon statistics or accounting record.",
)

TYPES = (
    "QueueStatistics",
    "MQIStatistics",
    "ChannelStatistics",
    "QueueAccounting",
    "MQIAccounting",
)
GROUPS = ("QueueStatistics", "ChannelStatistics", "QueueAccounting")
_TYPE = re.compile(rf"^MonitoringType: (?P<type>{'|'.join(TYPES)})\s*$")
_PAIR = re.compile(r"^(?P<indent> *)(?P<name>[A-Za-z0-9_]+): (?P<value>.*?)\s*$")
_NUMBER = re.compile(r"^-?\d+(?:\.\d+)?$")
# The record header fields whose values describe every row of the record.
_INTERVAL = {
    "IntervalStartDate",
    "IntervalStartTime",
    "IntervalEndDate",
    "IntervalEndTime",
    "QueueManager",
}


def sniff(head: bytes, name: str) -> bool:
    text = head.decode("latin-1")
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()][:20]
    return any(_TYPE.match(ln) for ln in lines)


def _values(ctx: ParseContext, lineno: int, text: str) -> list[tuple[str, float | None]]:
    """(text, number) of each value: one for a scalar, one per element of a list."""
    if text.startswith("["):
        if not text.endswith("]"):
            raise ctx.error(f"list value {text[:40]!r} has no closing ']'", line=lineno)
        inner = text[1:-1].strip()
        parts = [p.strip() for p in inner.split(",")] if inner else []
        out = []
        for p in parts:
            if not _NUMBER.match(p):
                raise ctx.error(f"list element {p!r} is not a number", line=lineno)
            out.append((p, float(p)))
        return out
    if text.startswith("'"):
        if len(text) < 2 or not text.endswith("'"):
            raise ctx.error(f"string value {text[:40]!r} has no closing quote", line=lineno)
        return [(text[1:-1], None)]
    return [(text, float(text) if _NUMBER.match(text) else None)]


def _stamp(ctx: ParseContext, lineno: int, date: str | None, time: str | None) -> datetime | None:
    if not date or not time:
        return None
    try:
        return datetime.strptime(f"{date} {time}", "%Y-%m-%d %H.%M.%S")
    except ValueError:
        raise ctx.error(f"interval {date} {time} is not a date and time", line=lineno) from None


class _Record:
    """The lines of one record, held until its header (queue manager, interval) is complete."""

    def __init__(self, lineno: int, mtype: str) -> None:
        self.lineno = lineno
        self.type = mtype
        self.head: dict[str, tuple[int, str]] = {}
        self.items: list[tuple[int, str | None, int | None, str | None, str, list]] = []

    def rows(self, ctx: ParseContext) -> list[dict]:
        def get(k: str) -> str | None:
            return self.head[k][1] if k in self.head else None

        def line(k: str) -> int:
            return self.head.get(k, (self.lineno, ""))[0]

        start = _stamp(
            ctx, line("IntervalStartTime"), get("IntervalStartDate"), get("IntervalStartTime")
        )
        end = _stamp(ctx, line("IntervalEndTime"), get("IntervalEndDate"), get("IntervalEndTime"))
        if start and end and end < start:
            raise ctx.error(
                f"interval ends ({end}) before it starts ({start})", line=line("IntervalEndTime")
            )
        common = {
            "source_file": ctx.source_file,
            "record_line": self.lineno,
            "monitoring_type": self.type,
            "qmgr": get("QueueManager"),
            "interval_start_local": start,
            "interval_end_local": end,
        }
        out = []
        for lineno, group, index, obj, name, values in self.items:
            listed = len(values) > 1 or (values and values[0][2])
            for k, (text, number, _is_list) in enumerate(values):
                out.append(
                    {
                        **common,
                        "source_line": lineno,
                        "group_name": group,
                        "group_index": index,
                        "object_name": obj,
                        "name": name,
                        "item": k if listed else None,
                        "value_text": text,
                        "value_number": number,
                    }
                )
        return out


def parse(ctx: ParseContext) -> Iterator[Batch]:
    rows: list[dict] = []
    rec: _Record | None = None
    group: tuple[str, int] | None = None
    objects: dict[int, str] = {}  # group start line -> object name (filled when seen)
    group_line = 0
    pending: list[list] = []  # items of the current group, waiting for its object name

    def close_group() -> None:
        obj = objects.get(group_line)
        for item in pending:
            item[3] = obj
            rec.items.append(tuple(item))  # type: ignore[union-attr]
        pending.clear()

    for lineno, raw in read_text_lines(ctx):
        line = raw.rstrip()
        if not line.strip():
            continue
        m = _TYPE.match(line.strip())
        if m:
            if rec is not None:
                close_group()
                rows += rec.rows(ctx)
            rec, group = _Record(lineno, m["type"]), None
            if len(rows) >= 50_000:
                yield TABLE.name, rows
                rows = []
            continue
        pair = _PAIR.match(line)
        if rec is None or not pair:
            ctx.unknown("line")
            continue
        indent, name, text = len(pair["indent"]), pair["name"], pair["value"]
        if indent == 0:
            if group is not None:
                close_group()
                group = None
            if name in GROUPS:
                if not _NUMBER.match(text):
                    raise ctx.error(f"group {name} index {text!r} is not a number", line=lineno)
                group, group_line = (name, int(text)), lineno
                continue
            if name in _INTERVAL:
                rec.head[name] = (lineno, _values(ctx, lineno, text)[0][0])
        elif group is None:
            raise ctx.error(f"indented {name} outside a statistics group", line=lineno)
        values = [(t, n, text.startswith("[")) for t, n in _values(ctx, lineno, text)]
        if group is not None and indent > 0:
            if name in ("QueueName", "ChannelName"):
                objects[group_line] = values[0][0]
            pending.append([lineno, group[0], group[1], None, name, values])
        else:
            rec.items.append((lineno, None, None, None, name, values))
    if rec is None:
        raise ctx.error("no 'MonitoringType:' line: not amqsmon output", line=1)
    close_group()
    rows += rec.rows(ctx)
    if rows:
        yield TABLE.name, rows


PARSER = Parser(
    kind="amqsmon",
    description="IBM MQ amqsmon statistics/accounting output (distributed MQ, MQ Appliance)",
    tables=(TABLE,),
    attributed_by_time=True,
    sniff=sniff,
    parse=parse,
    priority=30,
)
