"""Exactly once by content: records that arrive twice are reported and counted once.

Sources whose rows name their own record (a parser's ``Table(identity=...)``: SMF records,
RMF interval rows, address-space CPU intervals, NETSTAT polls, timestamped CHSTATUS blocks)
can be dropped twice: the same dump in two run folders, in a run folder and at the raw root,
an hourly dump inside the day's. Landing keeps every copy with its lineage (nothing lost, row
counts = the ledger's); a row whose identity equals one of an earlier-loaded file (lower
``file_id``) is a later copy. The dbt staging models leave later copies out and
``marts.fct_duplicate_records`` lists them (``macros/first_copy.sql``); this module applies the
same rule at ingest, to say what a newly landed file repeats, and summarises the mart for
``mqcap status``. Rows of one file are never compared with each other: a file is what it says.

Example:
    note = describe_copies(con, file_id=12, source_file="day.smf")
    # 'day.smf: 1,234 of 1,300 records already loaded from attls/r1/dump.smf (first at byte 0)'
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import duckdb

from mqcap.parsers import all_tables
from mqcap.parsers.base import Table

LANDING = "landing"
# Where a row is, not what it says: never part of a record's identity.
LINEAGE = ("file_id", "source_file", "source_line", "source_offset", "source_record", "source_item")
# CHSTATUS rows are compared a block (snapshot x channel) at a time, with all its KEY(value)s.
BLOCK_TABLES = {"chstatus_attr": "block_no"}


def identity_tables() -> dict[str, Table]:
    """Landing tables whose rows carry their own identity, by name.

    Example:
        "smf_qcst" in identity_tables()
    """
    return {t.name: t for t in all_tables() if t.identity}


def identity_columns(table: Table) -> tuple[tuple[str, ...], str]:
    """(columns naming a record, SQL condition for a row to have an identity at all).

    ``identity=True``: every column but lineage, identified when one of its timestamps is set;
    a tuple: those columns, identified when the first (the time) is set.

    Example:
        cols, when = identity_columns(identity_tables()["rmf_crypto"])
    """
    if table.identity is True:
        cols = tuple(c for c in table.columns if c not in LINEAGE)
        stamps = [_q(c) for c in cols if table.columns[c].upper() == "TIMESTAMP"]
        when = f"coalesce({', '.join(stamps)}) is not null" if stamps else "false"
        return cols, when
    cols = tuple(table.identity)  # type: ignore[arg-type]
    if table.name in BLOCK_TABLES:
        cols = (*cols, "block_content")
    return cols, f"{_q(cols[0])} is not null"


def _q(col: str) -> str:
    return '"' + col.replace('"', '""') + '"'


def _units(table: Table, where: str) -> str:
    """SQL: the comparable units of ``table`` (rows, or CHSTATUS blocks) with pos / pos_order."""
    rel = f'{LANDING}."{table.name}"'
    if table.name in BLOCK_TABLES:
        unit = BLOCK_TABLES[table.name]
        return f"""
            select file_id, min(source_file) as source_file, min(snapshot_time) as snapshot_time,
                   min(channel) as channel, 'line ' || min(source_line) as pos,
                   min(source_line) as pos_order,
                   string_agg(key || '(' || coalesce(value, '') || ')', ' ' order by pair_no)
                       as block_content
            from {rel} where {where} group by file_id, {unit}"""
    if "source_offset" in table.columns:
        pos = (
            "case when source_offset is not null then 'byte ' || source_offset "
            "else 'line ' || source_line end"
        )
        order = "coalesce(source_offset, source_line)"
    else:
        pos, order = "'line ' || source_line", "source_line"
    return f"select *, {pos} as pos, {order} as pos_order from {rel} where {where}"


@dataclass(frozen=True)
class FileCopies:
    """What a landed file repeats: its records (positions) with an identity, and the copies."""

    records: int
    copies: int
    first_files: tuple[tuple[str, str], ...]  # (earlier file, its first copied position)

    def sentence(self, source_file: str) -> str:
        first, pos = self.first_files[0]
        more = len(self.first_files) - 1
        also = f" and {more} other file(s)" if more else ""
        return (
            f"{source_file}: {self.copies:,} of {self.records:,} records already loaded from "
            f"{first}{also} (first at {pos}); they count once"
        )


def copies_in_file(
    con: duckdb.DuckDBPyConnection, file_id: int, tables: Iterable[str] | None = None
) -> FileCopies | None:
    """Records of file ``file_id`` that repeat records of earlier-loaded files, or None.

    A record is a position of the file (an SMF record's byte offset, a text line, a CHSTATUS
    block); it is a copy when its rows equal rows of a file with a lower file_id.

    Example:
        found = copies_in_file(con, 12)
        found.copies if found else 0
    """
    known = identity_tables()
    names = [t for t in (tables if tables is not None else known) if t in known]
    positions: set[str] = set()
    best: dict[str, tuple[int, int, str, str]] = {}  # pos -> its first copy (id, order, file, pos)
    for name in names:
        table = known[name]
        cols, when = identity_columns(table)
        new = _units(table, f"file_id = {int(file_id)}")
        old = _units(table, f"file_id < {int(file_id)}")
        on = " and ".join(f"n.{_q(c)} is not distinct from o.{_q(c)}" for c in cols)
        rows = con.execute(
            f"""select n.pos, o.file_id, o.source_file, o.pos, o.pos_order
                from ({new}) as n left join ({old}) as o on {on}
                where coalesce({_prefixed(when)}, false)"""
        ).fetchall()
        for pos, first_id, first_file, first_pos, first_order in rows:
            positions.add(pos)
            if first_id is not None:
                here = (first_id, first_order, first_file, first_pos)
                best[pos] = min(best.get(pos, here), here)
    if not best:
        return None
    firsts: dict[str, str] = {}  # first-copy file -> its first position, earliest file first
    for _, _, first_file, first_pos in sorted(best.values()):
        firsts.setdefault(first_file, first_pos)
    return FileCopies(len(positions), len(best), tuple(firsts.items()))


def _prefixed(when: str) -> str:
    """The identity condition on the new file's side of the join (columns prefixed ``n.``)."""
    out, i = [], 0
    while i < len(when):
        if when[i] == '"':
            j = when.index('"', i + 1)
            out.append("n." + when[i : j + 1])
            i = j + 1
        else:
            out.append(when[i])
            i += 1
    return "".join(out)


def describe_copies(
    con: duckdb.DuckDBPyConnection,
    file_id: int,
    source_file: str,
    tables: Iterable[str] | None = None,
) -> str | None:
    """One line saying which records of a just-landed file were already loaded, or None.

    Example:
        describe_copies(con, 12, "day.smf", ["smf_qcst"])
    """
    found = copies_in_file(con, file_id, tables)
    return found.sentence(source_file) if found else None


def summary(con: duckdb.DuckDBPyConnection) -> list[tuple[str, str, int, str, str]] | None:
    """(file, first copy file, records repeated, first position, first copy's position) per pair
    of files from ``marts.fct_duplicate_records``; None before the first build made it.

    Example:
        for path, first, n, pos, first_pos in summary(con) or []: ...
    """
    exists = con.execute(
        "select 1 from information_schema.tables "
        "where table_schema = 'marts' and table_name = 'fct_duplicate_records'"
    ).fetchall()
    if not exists:
        return None
    return con.execute(
        """select source_file, first_source_file, count(distinct position),
                  arg_min(position, split_part(position, ' ', 2)::bigint),
                  arg_min(first_position, split_part(first_position, ' ', 2)::bigint)
           from marts.fct_duplicate_records group by 1, 2 order by 1, 2"""
    ).fetchall()
