"""The clock a run's times are written in: ``utc_offset`` or ``timezone`` (run.yaml, study.yaml).

Manifest intervals, SMF, RMF, NETSTAT and CHSTATUS times are the measured system's local time;
amqsrua prints the MQ message descriptor's put time, which MQ sets in UTC. To attribute such
rows by time, mqcap needs to know how the local clock relates to UTC. A manifest (or the study
file, for all its runs) states it one of two ways:

    utc_offset: "+01:00"          # a fixed offset: +HH:MM, -HH:MM, +HHMM, +HH, Z or UTC
    timezone: Europe/Berlin       # an IANA time zone: the offset at each time (summer time)

Neither stated: the local clock is taken to be UTC (offset 0), as before these fields existed.
The dbt layer turns a run's interval into UTC with the first that is stated of the run's
``utc_offset``, its ``timezone``, the study's ``utc_offset``, the study's ``timezone``
(``int_runs.interval_start_utc``); only sources stamped in UTC are compared with it.

Example:
    parse_offset("-05:00")  # -300
    parse_offset("+0530")  # 330
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

FIELDS = {
    "utc_offset": "a UTC offset in quotes like '+01:00' or '-05:00' (or Z): the local clock's "
    "offset from UTC (unquoted, YAML reads +10:00 as the number 600)",
    "timezone": "an IANA time zone name like Europe/Berlin or America/New_York",
}
_OFFSET = re.compile(r"^(?P<sign>[+-])(?P<h>\d{2})(?::?(?P<m>\d{2}))?$")
_ZONE_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_+-]*(?:/[A-Za-z0-9_+-]+){0,2}$")


def parse_offset(value: Any) -> int | None:
    """Minutes east of UTC for a written offset; None when it is not one.

    Example:
        parse_offset("Z")  # 0
    """
    if isinstance(value, bool):
        return None
    if isinstance(value, int):  # YAML reads +01:00 as text, but a bare 0 as a number
        return 0 if value == 0 else None
    if not isinstance(value, str):
        return None
    text = value.strip()
    if text.upper() in ("Z", "UTC", "GMT", "0"):
        return 0
    m = _OFFSET.match(text)
    if not m:
        return None
    hours, minutes = int(m["h"]), int(m["m"] or 0)
    if hours > 14 or minutes > 59 or (hours == 14 and minutes):
        return None
    total = hours * 60 + minutes
    return -total if m["sign"] == "-" else total


def known_zone(name: Any) -> str | None:
    """The IANA zone name if it is one this system knows, else None."""
    if not isinstance(name, str) or not _ZONE_NAME.match(name.strip()):
        return None
    name = name.strip()
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        return None
    return name if name in available_timezones() or name == "UTC" else None


def stamp_offset(value: Any) -> int | None:
    """Minutes east of UTC carried by a YAML timestamp (``10:00:00+01:00``), else None."""
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value.strip())
        except ValueError:
            return None
    if isinstance(value, datetime) and value.tzinfo is not None:
        delta = value.utcoffset()
        return None if delta is None else int(delta.total_seconds() // 60)
    return None


def validate(doc: Any, check: Any, out: dict) -> None:
    """Read ``utc_offset`` / ``timezone`` of a manifest or study mapping into ``out``.

    ``check`` is the parser's checker (``fail(where, key, field, expected, got)``): an offset
    that is not one, an unknown zone or both fields at once fail with the field's line.
    """
    offset, zone = doc.get("utc_offset"), doc.get("timezone")
    if offset is not None and zone is not None:
        check.fail(doc, "timezone", "timezone", "either utc_offset or timezone, not both", zone)
    out["utc_offset_minutes"] = None
    out["timezone"] = None
    if offset is not None:
        minutes = parse_offset(offset)
        if minutes is None:
            check.fail(doc, "utc_offset", "utc_offset", FIELDS["utc_offset"], offset)
        out["utc_offset_minutes"] = minutes
    if zone is not None:
        name = known_zone(zone)
        if name is None:
            check.fail(doc, "timezone", "timezone", FIELDS["timezone"], zone)
        out["timezone"] = name
