"""RMF Postprocessor WORKLOAD ACTIVITY report (WLMGL), text (docs/formats.md section 5).

One landed row per interval and service-class or report-class section (and period, when the
section names one): the SERVICE TIME block (CPU, SRB, RCT, IIT, HST, AAP, IIP seconds in the
interval) and the APPL % block (CP, AAPCP, IIPCP, AAP, IIP). MQ performance teams give each
address space (MSTR, CHIN, TCPIP, application) its own report class, so this is where CPU per
address space comes from.

Both block layouts are read: the older one where SERVICE TIME and APPL % are columns of the
big ``-TRANSACTIONS- TRANS-TIME ... SERVICE TIME ---APPL %---`` block (z/OS V2R2), and the
V2R3 one with a separate ``----SERVICE----   SERVICE TIME  ---APPL %---`` block. Values are
found by their names in row order, not by column position, because the copies of these reports
that circulate (PDF text) lost their alignment: ``CPU 356803K`` (service units) and ``CPU
6153.266`` (seconds) share a row and are told apart by their order and shape.

Workload and policy total sections (``REPORT BY: POLICY=x WORKLOAD=y`` without a class) and
the service policy page are recognised and skipped (counted). Pages of other RMF reports in the
same file are skipped and counted; a file holding only other RMF reports (e.g. CPU ACTIVITY) is
rejected with an error naming the report, since mqcap does not read those.

Example section::

    REPORT BY: POLICY=BASEPOL    WORKLOAD=SYSTEM     SERVICE CLASS=SYSSTC     RESOURCE GROUP=*NONE
    ...
    -TRANSACTIONS- ... ---SERVICE--- SERVICE TIME  ---APPL %--- ...
    AVG     253.29 ... IOC      2237K  CPU 6153.266  CP    672.77 ...
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from mqcap.parsers import _rmf
from mqcap.parsers.base import TEXT_OR_BINARY_LINEAGE, Batch, ParseContext, Parser, Table

ST_KEYS = {"CPU": "cpu_s", "SRB": "srb_s", "RCT": "rct_s", "IIT": "iit_s", "HST": "hst_s",
           "AAP": "aap_s", "IIP": "iip_s"}  # fmt: skip
APPL_KEYS = {"CP": "appl_cp_pct", "AAPCP": "appl_aapcp_pct", "IIPCP": "appl_iipcp_pct",
             "AAP": "appl_aap_pct", "IIP": "appl_iip_pct"}  # fmt: skip

TABLE = Table(
    "rmf_workload",
    {
        **TEXT_OR_BINARY_LINEAGE,
        "sysplex": "VARCHAR",
        "zos_level": "VARCHAR",
        "interval_start": "TIMESTAMP",
        "interval_s": "DOUBLE",
        "policy": "VARCHAR",
        "workload": "VARCHAR",
        "class_kind": "VARCHAR",
        "class_name": "VARCHAR",
        "resource_group": "VARCHAR",
        "period": "INTEGER",
        "importance": "VARCHAR",
        **{c: "DOUBLE" for c in ST_KEYS.values()},
        **{c: "DOUBLE" for c in APPL_KEYS.values()},
    },
    "One row per RMF interval and WLM service- or report-class section (and period): "
    "SERVICE TIME seconds and APPL %.",
    identity=True,
)

BATCH_ROWS = 20000
BLOCK_MAX_ROWS = 12
_CLASS = re.compile(
    r"POLICY=(?P<policy>\S+)\s+(?:WORKLOAD=(?P<workload>\S+)\s+)?"
    r"(?P<kind>SERVICE|REPORT) CLASS=(?P<name>\S+)"
)
_SUMMARY = re.compile(r"REPORT BY:\s*POLICY=\S+")
_GROUP = re.compile(r"RESOURCE GROUP=(\S+)")
_PERIOD = re.compile(r"PERIOD=(\d{1,4})\b")
_IMPORTANCE = re.compile(r"IMPORTANCE=(\S+)")
_VALUE = re.compile(r"-?\d[\d.]*[KMGT]?|-?\.\d+|N/A|\*+")


@dataclass
class Section:
    line: int
    interval_key: tuple
    row: dict
    block_seen: bool = False
    in_block: bool = False
    block_rows: int = 0
    values: dict = field(default_factory=dict)


def sniff(head: bytes, name: str) -> bool:
    titles = _rmf.head_titles(head)
    if _rmf.WORKLOAD_TITLE in titles:
        return True
    # Other RMF Postprocessor reports are claimed so that ingest can say which report it is.
    return bool(titles) and _rmf.CRYPTO_TITLE not in titles and b"RPT VERSION" in head


_VALUE_FIRST = frozenset("-0123456789.N*")  # what a _VALUE token can start with


def _block_row(ctx: ParseContext, section: Section, lineno: int, text: str) -> None:
    """Take the SERVICE TIME and APPL % cells of one block row.

    Each row holds at most one cell per column, left to right; SERVICE TIME comes before APPL %.
    ``CPU``/``SRB`` of the SERVICE column (service units: ``356803K``) precede SERVICE TIME and
    never carry a decimal point; AAP/IIP are SERVICE TIME when no SERVICE TIME cell came yet.
    The row is read as ``KEY value`` pairs left to right (a key may be several words, R/S AFFIN;
    a value is a _VALUE token after a key), up to the APPL % cell: nothing after it lands.
    """
    st_taken = False
    words: list[str] = []
    is_value = _VALUE.fullmatch
    for value in text.split():
        if not (words and value[0] in _VALUE_FIRST and is_value(value)):
            words.append(value)
            continue
        key = words[0] if len(words) == 1 else " ".join(words)
        words = []
        if not st_taken and key in ST_KEYS:
            if key in ("CPU", "SRB") and "." not in value and value != "N/A":
                continue
            col = ST_KEYS[key]
            st_taken = True
            last = False
        elif key in APPL_KEYS and (st_taken or key not in ST_KEYS):
            col = APPL_KEYS[key]
            last = True
        else:
            continue
        if col in section.values:
            raise ctx.error(f"WORKLOAD ACTIVITY block: {key} appears twice", line=lineno)
        num = _rmf.number(value)
        if num is None and value != "N/A" and not value.startswith("*"):
            raise ctx.error(
                f"WORKLOAD ACTIVITY block: {key} {value!r} is not a number", line=lineno
            )
        section.values[col] = num
        if last:
            return


def parse(ctx: ParseContext) -> Iterator[Batch]:
    rows: list[dict] = []
    iv = _rmf.Interval()
    section: Section | None = None

    def close(at_eof: bool = False) -> None:
        nonlocal section
        if section is None:
            return
        s, section = section, None
        if not s.block_seen:
            where = "end of file" if at_eof else "the next section"
            raise ctx.error(
                f"WORKLOAD ACTIVITY {s.row['class_kind']} class {s.row['class_name']} has no "
                f"SERVICE TIME block before {where} (report cut?)",
                line=s.line,
            )
        if "cpu_s" not in s.values:
            raise ctx.error(
                f"WORKLOAD ACTIVITY class {s.row['class_name']}: SERVICE TIME block without CPU",
                line=s.line,
            )
        rows.append({**s.row, **s.values})

    pages = _rmf.ReportPages(ctx, _rmf.WORKLOAD_TITLE)
    for event, lineno, text in pages:
        if event is not _rmf.LINE:
            iv = pages.interval
            if event is _rmf.HEADER:
                if section is not None and section.interval_key != iv.key:
                    close()
            elif event is _rmf.TITLE and text != _rmf.WORKLOAD_TITLE:
                close()
            elif event is not _rmf.PAGE and section is not None:
                section.in_block = False  # a blank line or a new page ends a SERVICE TIME block
            continue
        stripped = text.strip()
        if "CLASS=" in text and (m := _CLASS.search(text)):
            close()
            if iv.date is None or iv.time is None:
                raise ctx.error("WORKLOAD ACTIVITY section before the page header", line=lineno)
            group, period, imp = _GROUP.search(text), _PERIOD.search(text), _IMPORTANCE.search(text)
            section = Section(
                lineno,
                iv.key,
                {
                    "source_file": ctx.source_file,
                    "source_line": lineno,
                    "sysplex": iv.sysplex or iv.system_id,
                    "zos_level": iv.zos_level,
                    "interval_start": _rmf.interval_start(ctx, iv, lineno),
                    "interval_s": _rmf.interval_seconds(ctx, iv, lineno),
                    "policy": m.group("policy"),
                    "workload": m.group("workload"),
                    "class_kind": m.group("kind").lower(),
                    "class_name": m.group("name"),
                    "resource_group": group.group(1) if group else None,
                    "period": int(period.group(1)) if period else None,
                    "importance": imp.group(1) if imp else None,
                },
            )
            continue
        if "REPORT BY" in text and _SUMMARY.search(text):
            close()
            ctx.skip("workload or policy total section")
            ctx.nothing_to_land = "a WORKLOAD ACTIVITY report of totals only (no class section)"
            continue
        if section is None:
            if "SERVICE POLICY PAGE" in text:
                ctx.nothing_to_land = "a WORKLOAD ACTIVITY service policy page"
            ctx.unknown("workload line outside a class section")
            continue
        if "SERVICE TIME" in text and "APPL %" in text:
            if section.block_seen:
                raise ctx.error("second SERVICE TIME block in one class section", line=lineno)
            section.block_seen = section.in_block = True
            section.block_rows = 0
            continue
        if section.in_block:
            if stripped.startswith("-") or section.block_rows >= BLOCK_MAX_ROWS:
                section.in_block = False
                continue
            section.block_rows += 1
            _block_row(ctx, section, lineno, text)
        if len(rows) >= BATCH_ROWS:
            yield TABLE.name, rows
            rows = []
    close(at_eof=True)
    if pages.reports == 0:
        found = pages.found("no RMF report")
        raise ctx.error(
            f"RMF Postprocessor report(s) {found}: recognised but not supported "
            "(mqcap reads CRYPTO HARDWARE ACTIVITY and WORKLOAD ACTIVITY)",
            line=1,
        )
    if rows:
        yield TABLE.name, rows


PARSER = Parser(
    kind="rmf_workload",
    description="RMF Postprocessor WORKLOAD ACTIVITY report (text): CPU per service/report class",
    tables=(TABLE,),
    sniff=sniff,
    parse=parse,
    priority=30,
)
