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
    describe_landed(con, report.landed)
    # ['day.smf: 1,234 of 1,300 records already loaded from attls/r1/dump.smf (first at
    #   byte 0); they count once']
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
# CHSTATUS is compared a block (snapshot x channel) at a time with all its KEY(value)s, and a
# snapshot with everything it printed (so a block that counts keeps its snapshot).
CONTENT_COLUMN = {"chstatus_attr": "block_content", "chstatus_snapshot": "snapshot_content"}


def identity_tables() -> dict[str, Table]:
    """Landing tables whose rows carry their own identity, by name.

    Example:
        "smf_qcst" in identity_tables()
    """
    return {t.name: t for t in all_tables() if t.identity}


def identity_columns(table: Table) -> tuple[tuple[str, ...], str]:
    """(columns naming a record, SQL condition for a row to have an identity at all).

    ``identity=True``: every column but lineage, identified when its first timestamp column is
    set; a tuple: those columns, identified when the first (the time) is set.

    Example:
        cols, when = identity_columns(identity_tables()["rmf_crypto"])
    """
    if table.identity is True:
        cols = tuple(c for c in table.columns if c not in LINEAGE)
        stamps = [_q(c) for c in cols if table.columns[c].upper() == "TIMESTAMP"]
        return cols, f"{stamps[0]} is not null" if stamps else "false"
    cols = tuple(table.identity)  # type: ignore[arg-type]
    if table.name in CONTENT_COLUMN:
        cols = (*cols, CONTENT_COLUMN[table.name])
    return cols, f"{_q(cols[0])} is not null"


def _q(col: str) -> str:
    return '"' + col.replace('"', '""') + '"'


def _units(table: Table, where: str) -> str:
    """SQL: the comparable units of ``table`` (rows, or CHSTATUS blocks) with pos / pos_order."""
    rel = f'{LANDING}."{table.name}"'
    if table.name == "chstatus_attr":  # as macros/first_copy.sql chstatus_blocks
        return f"""
            select file_id, min(source_file) as source_file, min(snapshot_time) as snapshot_time,
                   min(channel) as channel, 'line ' || min(source_line) as pos,
                   min(source_line) as pos_order,
                   string_agg(key || '(' || coalesce(value, '') || ')', ' ' order by pair_no)
                       as block_content
            from {rel} where {where} group by file_id, block_no"""
    if table.name == "chstatus_snapshot":  # as macros/first_copy.sql chstatus_snapshots
        return f"""
            select snap.*, 'line ' || snap.source_line as pos, snap.source_line as pos_order,
                   coalesce(content.snapshot_content, '') as snapshot_content
            from {rel} as snap left join (
                select file_id, snapshot_no, string_agg(
                    coalesce(channel, '') || ':' || key || '(' || coalesce(value, '') || ')', ' '
                    order by block_no, pair_no) as snapshot_content
                from {LANDING}.chstatus_attr group by file_id, snapshot_no
            ) as content using (file_id, snapshot_no) where {where}"""
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


def copies_in_files(
    con: duckdb.DuckDBPyConnection, files: dict[int, Iterable[str]]
) -> dict[int, FileCopies]:
    """For each file (file_id -> the landing tables it wrote), the records it repeats from
    earlier-loaded files; files without any are left out.

    A record is a position of the file (an SMF record's byte offset, a text line, a CHSTATUS
    block); it is a copy when its rows equal rows of a file with a lower file_id. One query per
    landing table for the whole batch, counted in DuckDB (a large file's rows stay there).

    Example:
        found = copies_in_files(con, {12: ["smf_qcst"]}).get(12)
    """
    known = identity_tables()
    names = sorted({t for tables in files.values() for t in tables if t in known})
    if not names:
        return {}
    # One query per landing table into two small temporary tables (positions only), then one
    # query over those: a query joining every table at once held them all in memory together
    # (2.2 GB for a 1.5 GB SMF dump), one table at a time stays within ingest's memory limit.
    con.execute(
        "create or replace temp table mqcap_dup_units (file_id bigint, pos varchar);"
        "create or replace temp table mqcap_dup_pairs (file_id bigint, pos varchar, "
        "first_id bigint, first_file varchar, first_pos varchar, first_order bigint)"
    )
    try:
        for name in names:
            ids = ", ".join(str(int(f)) for f, tables in files.items() if name in tables)
            table = known[name]
            cols, when = identity_columns(table)
            new = _units(table, f"file_id in ({ids})")
            old = _units(table, f"file_id < {max(int(f) for f in files)}")
            on = " and ".join(f"n.{_q(c)} is not distinct from o.{_q(c)}" for c in cols)
            cond = f"coalesce({_prefixed(when)}, false)"
            con.execute(
                f"insert into mqcap_dup_units select distinct n.file_id, n.pos from ({new}) as n "
                f"where {cond}"
            )
            # each new unit with every equal unit of an earlier file
            con.execute(
                f"""insert into mqcap_dup_pairs
                    select n.file_id, n.pos, o.file_id, o.source_file, o.pos, o.pos_order
                    from ({new}) as n join ({old}) as o on o.file_id < n.file_id and {on}
                    where {cond}"""
            )
        rows = con.execute(
            """with records as (
                    select file_id, count(distinct pos) as n from mqcap_dup_units group by file_id
                ),
                best as (
                    select file_id, pos, min((first_id, first_order)) as k,
                           arg_min(first_file, (first_id, first_order)) as first_file,
                           arg_min(first_pos, (first_id, first_order)) as first_pos
                    from mqcap_dup_pairs group by file_id, pos
                )
                select file_id, first_file, arg_min(first_pos, k), count(*), any_value(records.n)
                from best join records using (file_id)
                group by file_id, first_file order by file_id, min(k)"""
        ).fetchall()
    finally:
        con.execute("drop table if exists mqcap_dup_units; drop table if exists mqcap_dup_pairs")
    found: dict[int, FileCopies] = {}
    for fid, first_file, first_pos, n, records in rows:
        prior = found.get(fid, FileCopies(records, 0, ()))
        found[fid] = FileCopies(
            records, prior.copies + n, (*prior.first_files, (first_file, first_pos))
        )
    return found


def describe_landed(con: duckdb.DuckDBPyConnection, landed: Iterable) -> list[str]:
    """One line per just-landed file (ingest ``FileOutcome``s) repeating earlier records.

    Example:
        for line in describe_landed(con, report.landed): progress.log(line)
    """
    outcomes = {o.file_id: o for o in landed if o.file_id is not None}
    found = copies_in_files(con, {f: o.tables for f, o in outcomes.items()})
    return [found[f].sentence(outcomes[f].path) for f in sorted(found)]


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
