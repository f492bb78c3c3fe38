"""Parser ``smf_csv``: IBM mq-smf-csv output files (docs/formats.md section 2) -> the same landing
tables as the binary decoder (``landing.smf_<structure>``).

Accepted forms, one structure per file (``SMF-<STRUCT>.csv``):

- the default CSV form: header row, trailing comma, ``="..."`` around hex-looking strings,
  STCK durations as ``X(S),X(US)`` pairs, timestamps as ``X (DATE),X (TIME)`` pairs with dates
  ``YYYY/MM/DD`` and times ``HH:MM:SS,ffffff``; columns are matched by name, so older tool
  versions (fewer columns, older names such as ``Remote_QMgr`` or ``Dispatcher_Numer``) load too;
- the ``-f SQL`` form: no header, columns in the order of the tool's DDL, one ``_US`` column per
  duration, dates ``YYYY-MM-DD``. The structure comes from the file name (the only tie-breaker
  this header-less form has); a row one column short of the expected count is the pre-2023
  layout without ``Task_Index``.

Placeholders mean "not available": ``-1`` (and ``.....`` for text) where the record's MQ version
predates the field, empty or 1970-01-01 timestamps; they land as NULL.

Example:
    parsed = parse_file(PARSER, Path("csv/SMF-QCST.csv"))
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import datetime

from mqcap.parsers.base import Batch, ParseContext, Parser, csv_cells, read_text_lines
from mqcap.parsers.smf.binary import frame
from mqcap.parsers.smf.convert import datetime_to_epoch_us
from mqcap.parsers.smf.fields import F, Structure, column_name
from mqcap.parsers.smf.structures import STRUCTURES
from mqcap.parsers.smf.tables import HEAD_COLUMNS, TABLES

BATCH_ROWS = 20000
_NAME = re.compile(r"SMF-([A-Z0-9]+)\.csv$", re.IGNORECASE)
_FIRST_SQL = re.compile(r'^"\d{4}-\d{2}-\d{2}","\d{2}:\d{2}:\d{2},\d{6}",')
SMF_TYPE = {
    "QCST": (116, 10),
    "QMAC": (116, 0),
    "WTAS": (116, 1),
    "WQ": (116, None),
    "WTID": (116, None),
    "QSST": (115, 1),
    "QJST": (115, 1),
    "QPST": (115, None),
    "QSPH": (115, 5),
    "QSGM": (115, 6),
    "QSRS": (115, 7),
    "QIS1": (115, 201),
    "QCCT": (115, 231),
    "QCTDSP": (115, 231),
    "QCTADP": (115, 231),
    "QCTSSL": (115, 231),
    "QCTDNS": (115, 231),
}
IDENTITY_HEADINGS = {
    "lpar": "system_id",
    "qmgr": "qmgr",
    "qsg": "qsg",
    "mq_version": "mq_version",
    "interval_duration": "interval_duration_s",
}
# Headings of older mq-smf-csv releases -> current ones (column_name form).
ALIASES: dict[str, dict[str, str]] = {
    "*": {"remote_qmgr": "remote_qmgr_or_app", "dispatcher_numer": "dispatcher_number"},
    "QCCT": {"storage_usage": "storage_usage_31"},
    "WQ": {
        "get_pageset_suspend_et": "get_suspend_et",
        "get_pageset_suspend_count": "get_suspend_count",
    },
    "QPST": dict(
        zip(
            [
                "pool",
                "nbuf",
                "cbsl",
                "cbs",
                "getp",
                "getn",
                "rio",
                "stw",
                "tpw",
                "wio",
                "imw",
                "dwt",
                "dmc",
                "stl",
                "stla",
                "sos",
            ],
            [
                "bufferpool",
                "buffer_count",
                "lowest_stealable",
                "current_stealable",
                "getp_old_requests",
                "getp_new_requests",
                "dasd_read",
                "set_write_pages",
                "pages_written",
                "dasd_write",
                "sync_writes",
                "defer_write_thold_reached",
                "sync_write_thold_reached",
                "buffer_steals",
                "buffer_steals_hash_changes",
                "suspend_no_buffers",
            ],
            strict=True,
        )
    ),
    "QSST": dict(
        zip(
            [
                "gplf",
                "fplf",
                "fref",
                "expf",
                "conf",
                "gplv",
                "fplv",
                "frev",
                "expv",
                "conv",
                "getm",
                "frem",
                "rcnz",
                "cont",
                "crit",
                "abnd",
            ],
            [column_name(f.heading) for f in STRUCTURES["QSST"].fields],
            strict=True,
        )
    ),
}


def structure_from_name(name: str) -> Structure | None:
    m = _NAME.search(name)
    return STRUCTURES.get(m.group(1).upper()) if m else None


def sniff(head: bytes, name: str) -> bool:
    try:
        first = head.decode("utf-8", errors="strict").splitlines()[0]
    except (UnicodeDecodeError, IndexError):
        return False
    if first.startswith("Date,Time,LPAR,"):
        return True
    return structure_from_name(name) is not None and bool(_FIRST_SQL.match(first))


# ------------------------------------------------------------------ value parsing
def _unwrap(v: str) -> str:
    if v.startswith('="') and v.endswith('"'):
        return v[2:-1]
    return v


def _int(v: str, hexa: bool = False) -> int | None:
    v = v.strip()
    if v == "":
        return None
    return int(v, 16) if hexa else int(v)


def _text(v: str) -> str | None:
    v = v.rstrip()
    if v == "" or set(v) == {"."}:
        return None
    return v


def _stamp(d: str, t: str) -> int | None:
    d, t = d.strip(), t.strip()
    if not d or d in ("1970/01/01", "1970-01-01"):
        return None
    dt = datetime.strptime(f"{d.replace('/', '-')} {t.replace(',', '.')}", "%Y-%m-%d %H:%M:%S.%f")
    return datetime_to_epoch_us(dt)


def _version(v: str | None) -> int:
    return int(v) if v and v.isdigit() else 9999


# ------------------------------------------------------------------ column plans
class _Col:
    """How to fill one landing column from one or two CSV cells."""

    __slots__ = ("field", "parts", "target")

    def __init__(self, target: str, field: F | None) -> None:
        self.target = target
        self.field = field
        self.parts: dict[str, int] = {}


def _targets(s: Structure) -> dict[str, F]:
    return {column_name(f.heading): f for f in s.fields}


def _header_plan(ctx: ParseContext, s: Structure, header: list[str], lineno: int) -> list[_Col]:
    fields = _targets(s)
    aliases = {**ALIASES["*"], **ALIASES.get(s.name, {})}
    cols: dict[str, _Col] = {}
    for pos, raw in enumerate(header):
        h = raw.strip()
        if not h:
            continue
        part = "v"
        m = re.fullmatch(r"(.*?)\s*\((DATE|TIME|S|US)\)", h)
        if m:
            h, part = m.group(1), m.group(2).lower()
        base = column_name(h)
        base = aliases.get(base, base)
        if base in ("date", "time") and part == "v":
            col = cols.setdefault("record_time_local", _Col("record_time_local", None))
            col.parts[base] = pos
            continue
        if base == "interval_start":
            col = cols.setdefault("interval_start_utc", _Col("interval_start_utc", None))
            col.parts[part] = pos
            continue
        if base in IDENTITY_HEADINGS:
            cols[base] = _Col(IDENTITY_HEADINGS[base], None)
            cols[base].parts["v"] = pos
            continue
        f = fields.get(base)
        if f is None:
            ctx.unknown(f"column {raw.strip()!r}")
            continue
        col = cols.setdefault(f.column, _Col(f.column, f))
        col.parts[part] = pos
    if "record_time_local" not in cols:
        raise ctx.error("header lacks the Date and Time columns of mq-smf-csv", line=lineno)
    return list(cols.values())


def sql_headings(s: Structure, with_interval: bool, with_task_index: bool = True) -> list[str]:
    """Column names of the ``-f SQL`` form (as its DDL names them), in file order."""
    out = ["DATE", "TIME", "LPAR", "QMGR", "QSG", "MQ_VERSION"]
    if with_interval:
        out += ["INTERVAL_START_DATE", "INTERVAL_START_TIME", "INTERVAL_DURATION"]
    for f in s.fields:
        if f.kind == "index" and not with_task_index:
            continue
        base = column_name(f.heading).upper()
        if f.kind == "time":
            out += [f"{base}_DATE", f"{base}_TIME"]
        elif f.kind == "stck":
            out.append(f"{base}_US")
        else:
            out.append(base)
    return out


def _sql_plan(s: Structure, n: int) -> list[_Col] | None:
    with_interval = SMF_TYPE.get(s.name, (115, 0))[0] == 115
    for with_ti in (True, False):
        heads = sql_headings(s, with_interval, with_ti)
        if len(heads) == n or (not with_ti and len(heads) < n):
            break
    if with_interval and len(heads) != n:
        # mq-smf-csv prints the interval only when the record has one: storage-manager
        # records (115.5/6/7) with the pre-MQ 10 header come without those three columns.
        bare = sql_headings(s, False, True)
        if len(bare) == n:
            heads = bare
    cols: dict[str, _Col] = {}
    fields = {column_name(f.heading).upper(): f for f in s.fields}
    for pos, h in enumerate(heads[:n]):
        if h in ("DATE", "TIME"):
            cols.setdefault("record_time_local", _Col("record_time_local", None)).parts[
                h.lower()
            ] = pos
        elif h.startswith("INTERVAL_START_"):
            cols.setdefault("interval_start_utc", _Col("interval_start_utc", None)).parts[
                h.rsplit("_", 1)[1].lower()
            ] = pos
        elif h.lower() in IDENTITY_HEADINGS:
            cols[h] = _Col(IDENTITY_HEADINGS[h.lower()], None)
            cols[h].parts["v"] = pos
        else:
            key, part = h, "v"
            for suffix, p in (("_DATE", "date"), ("_TIME", "time"), ("_US", "us")):
                if h.endswith(suffix) and h[: -len(suffix)] in fields and h not in fields:
                    key, part = h[: -len(suffix)], p
            f = fields[key]
            cols.setdefault(f.column, _Col(f.column, f)).parts[part] = pos
    return list(cols.values())


def _value(col: _Col, cells: list[str], version: int):
    p = col.parts
    f = col.field
    if f is None:
        if col.target == "record_time_local":
            return _stamp(cells[p["date"]], cells[p["time"]])
        if col.target == "interval_start_utc":
            return _stamp(cells[p["date"]], cells[p["time"]])
        v = _unwrap(cells[p["v"]]).strip()
        if col.target == "interval_duration_s":
            return _int(v)
        return _text(v)
    absent = f.min_version > version
    kind = f.kind
    if kind == "time":
        if absent:
            return None
        return _stamp(_unwrap(cells[p["date"]]), _unwrap(cells[p["time"]]))
    if kind == "stck":
        if "us" in p and "s" not in p:  # SQL form: one microsecond column
            v = _int(cells[p["us"]])
        else:
            s_, us = _int(cells[p["s"]]), _int(cells[p["us"]])
            v = None if s_ is None or us is None else (-1 if s_ < 0 else s_ * 1_000_000 + us)
        return None if v is None or (v == -1 and (absent or f.struct_version)) else v
    raw = _unwrap(cells[p["v"]])
    if f.sql_type == "VARCHAR":
        return None if absent else _text(raw)
    v = _int(raw, hexa=kind == "x32")
    if v == -1 and (absent or f.struct_version):
        return None
    return v


def parse(ctx: ParseContext) -> Iterator[Batch]:
    s = structure_from_name(ctx.source_file) or structure_from_name(ctx.path.name)
    plan: list[_Col] | None = None
    trailing: bool | None = None
    width: int | None = None  # cells per row of the header-less SQL form
    rows: list[tuple] = []
    table = None
    head_pos = {c: i for i, c in enumerate(HEAD_COLUMNS)}
    smf_type, smf_subtype = SMF_TYPE.get(s.name, (115, 2)) if s else (None, None)
    for lineno, line in read_text_lines(ctx, encoding="latin-1"):
        if not line.strip():
            continue
        cells = csv_cells(ctx, line, lineno)
        # mq-smf-csv ends every line, header and rows, with a comma: a line without one was
        # cut (a copy interrupted mid-line) and would land with its columns shifted.
        ends_with_comma = bool(cells) and cells[-1] == ""
        if ends_with_comma:
            cells = cells[:-1]
        if trailing is None:
            trailing = ends_with_comma
        elif ends_with_comma != trailing:
            raise ctx.error(
                "line does not end like the file's first line (a trailing comma "
                f"{'expected' if trailing else 'unexpected'}): cut or edited?",
                line=lineno,
            )
        if plan is None and cells[:3] == ["Date", "Time", "LPAR"]:
            if s is None:
                s = _guess(cells)
                smf_type, smf_subtype = SMF_TYPE.get(s.name, (115, 2))
            plan = _header_plan(ctx, s, cells, lineno)
            continue
        if s is None:
            raise ctx.error(
                "cannot tell which SMF structure this header-less file holds: name it "
                "SMF-<STRUCT>.csv as mq-smf-csv does",
                line=lineno,
            )
        if plan is None:
            if not ends_with_comma:
                raise ctx.error(
                    "an mq-smf-csv -f SQL row ends with a comma; this one does not (cut line?)",
                    line=lineno,
                )
            plan = _sql_plan(s, len(cells))
            width = len(cells)
        elif width is not None and len(cells) != width:
            raise ctx.error(
                f"{len(cells)} columns where the file's first row has {width}", line=lineno
            )
        table = s.table
        try:
            version_col = next((c for c in plan if c.target == "mq_version"), None)
            version = _version(_unwrap(cells[version_col.parts["v"]]) if version_col else None)
            values: dict[str, object] = {c.target: _value(c, cells, version) for c in plan}
        except (ValueError, IndexError, KeyError) as exc:
            raise ctx.error(f"cannot read this {s.name} row: {exc}", line=lineno) from None
        head = [None] * len(HEAD_COLUMNS)
        head[head_pos["source_file"]] = ctx.source_file
        head[head_pos["source_line"]] = lineno
        head[head_pos["source_item"]] = 0
        head[head_pos["smf_type"]] = smf_type
        head[head_pos["smf_subtype"]] = smf_subtype
        for c in HEAD_COLUMNS:
            if c in values:
                head[head_pos[c]] = values[c]
        rows.append(tuple(head) + tuple(values.get(f.column) for f in s.fields))
        if len(rows) >= BATCH_ROWS:
            yield table, frame(table, rows)
            rows = []
    if rows:
        yield table, frame(table, rows)  # type: ignore[arg-type]


def _guess(header: list[str]) -> Structure:
    names = {column_name(re.sub(r"\((DATE|TIME|S|US)\)", "", h)) for h in header}
    return max(STRUCTURES.values(), key=lambda s: len(names & set(_targets(s))))


PARSER = Parser(
    kind="smf_csv",
    description="IBM MQ SMF as written by mq-smf-csv (CSV with header, or -f SQL form)",
    tables=tuple(TABLES.values()),
    attributed_by_time=True,
    sniff=sniff,
    parse=parse,
    priority=30,
)
