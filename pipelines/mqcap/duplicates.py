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


# CHSTATUS units are a block or a snapshot (several rows): the unit's id within its file.
UNIT_COLUMN = {"chstatus_attr": "block_no", "chstatus_snapshot": "snapshot_no"}
# A CHSTATUS unit's text: its KEY(value) parts in the order they were printed. ``pair_no`` is
# the place on the line (1, 2 in runmqsc's two columns), so it repeats on every line of a block;
# ordered by it alone, DuckDB (whose sort is not stable) put the tied parts in whatever order
# the query happened to read them, and two equal blocks could get different texts (a filter,
# an IN list or the thread count changed it: a copy found by one query was missed by another).
# macros/first_copy.sql (chstatus_blocks, chstatus_snapshots) is to order its texts the same way.
BLOCK_PART = "key || '(' || coalesce(value, '') || ')'"
BLOCK_ORDER = "source_line, pair_no"
SNAPSHOT_PART = f"coalesce(channel, '') || ':' || {BLOCK_PART}"
SNAPSHOT_ORDER = "block_no, source_line, pair_no"


def _units(table: Table, where: str, units: str = "true") -> str:
    """SQL: the comparable units of ``table`` (rows, or CHSTATUS blocks) with pos / pos_order.
    ``units``: a condition on the unit's rows (file_id and UNIT_COLUMN) for CHSTATUS units."""
    rel = f'{LANDING}."{table.name}"'
    if table.name == "chstatus_attr":  # as macros/first_copy.sql chstatus_blocks
        return f"""
            select file_id, min(source_file) as source_file, min(snapshot_time) as snapshot_time,
                   min(channel) as channel, 'line ' || min(source_line) as pos,
                   min(source_line) as pos_order,
                   string_agg({BLOCK_PART}, ' ' order by {BLOCK_ORDER}) as block_content
            from {rel} where {where} and {units} group by file_id, block_no"""
    if table.name == "chstatus_snapshot":  # as macros/first_copy.sql chstatus_snapshots
        return f"""
            select snap.*, 'line ' || snap.source_line as pos, snap.source_line as pos_order,
                   coalesce(content.snapshot_content, '') as snapshot_content
            from {rel} as snap left join (
                select file_id, snapshot_no,
                       string_agg({SNAPSHOT_PART}, ' ' order by {SNAPSHOT_ORDER})
                           as snapshot_content
                from {LANDING}.chstatus_attr where {units} group by file_id, snapshot_no
            ) as content using (file_id, snapshot_no) where {where} and {units}"""
    pos, order = _row_position(table)
    return f"select *, {pos} as pos, {order} as pos_order from {rel} where {where}"


def _row_position(table: Table) -> tuple[str, str]:
    """SQL of a row's position (``byte 18``, ``line 3``) and of its order in the file."""
    if "source_offset" in table.columns:
        pos = (
            "case when source_offset is not null then 'byte ' || source_offset "
            "else 'line ' || source_line end"
        )
        return pos, "coalesce(source_offset, source_line)"
    return "'line ' || source_line", "source_line"


def _positions(table: Table, when: str, where: str) -> str:
    """SQL: ``file_id, pos`` of each unit with an identity (what ``_units`` gives, without a
    CHSTATUS unit's text); a block has one when its snapshot time is known (``when``)."""
    rel = f'{LANDING}."{table.name}"'
    if table.name == "chstatus_attr":
        return f"""
            select file_id, 'line ' || min(source_line) as pos from {rel} where {where}
            group by file_id, block_no having min(snapshot_time) is not null"""
    pos = "'line ' || source_line" if table.name == "chstatus_snapshot" else _row_position(table)[0]
    return f"select file_id, {pos} as pos from {rel} where {where} and coalesce({when}, false)"


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
    con: duckdb.DuckDBPyConnection, files: dict[int, Iterable[str]], *, prefilter: bool = True
) -> dict[int, FileCopies]:
    """For each file (file_id -> the landing tables it wrote), the records it repeats from
    earlier-loaded files; files without any are left out.

    A record is a position of the file (an SMF record's byte offset, a text line, a CHSTATUS
    block); it is a copy when its rows equal rows of a file with a lower file_id. One query per
    landing table for the whole batch, counted in DuckDB (a large file's rows stay there).

    ``prefilter=False`` compares every unit of the table with every other (no hashes first):
    the same answer, in memory that grows with the table (the tests' reference).

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
    # Within a table, first the hashes of units that a new file and an earlier file both have
    # (a grouping of fixed-size values, which DuckDB spills to disk when it must); then the
    # exact comparison of those units only. Comparing every unit of a 64,640-file drop at once
    # (its CHSTATUS blocks' texts built for the whole table) ran out of ingest's 512 MB.
    # Equal units always have equal hashes (``_unit_hashes``), so the units compared exactly
    # include every pair of equal ones: what is found is what comparing every unit finds.
    con.execute(
        "create or replace temp table mqcap_dup_units (file_id bigint, pos varchar);"
        "create or replace temp table mqcap_dup_pairs (file_id bigint, pos varchar, "
        "first_id bigint, first_file varchar, first_pos varchar, first_order bigint)"
    )
    try:
        last = max(int(f) for f in files)
        for name in names:
            _table_pairs(con, name, known[name], files, last, prefilter)
        rows = _per_file(con, names, known, files, prefilter)
    finally:
        con.execute(
            "drop table if exists mqcap_dup_units; drop table if exists mqcap_dup_pairs; "
            "drop table if exists mqcap_dup_keys; drop table if exists mqcap_dup_cand"
        )
    found: dict[int, FileCopies] = {}
    for fid, first_file, first_pos, n, records in rows:
        prior = found.get(fid, FileCopies(records, 0, ()))
        found[fid] = FileCopies(
            records, prior.copies + n, (*prior.first_files, (first_file, first_pos))
        )
    return found


def _table_pairs(
    con: duckdb.DuckDBPyConnection, name: str, table, files: dict, last: int, prefilter: bool
) -> None:
    """Add to ``mqcap_dup_pairs`` the units of landing table ``name`` that the new files
    repeat from earlier ones (hashes first, then the exact comparison of those units only)."""
    in_table = [int(f) for f, tables in files.items() if name in tables]
    ids = ", ".join(str(f) for f in in_table)
    cols, when = identity_columns(table)
    on = " and ".join(f"n.{_q(c)} is not distinct from o.{_q(c)}" for c in cols)
    cond = f"coalesce({_prefixed(when)}, false)"
    if not prefilter:
        new, old = _units(table, f"file_id in ({ids})"), _units(table, f"file_id < {last}")
        con.execute(
            f"insert into mqcap_dup_units select distinct n.file_id, n.pos "
            f"from ({new}) as n where {cond}"
        )
        _insert_pairs(con, new, old, on, cond)
        return
    hashes = _unit_hashes(table, cols, when, last)
    # hashes of a new file's unit and of a unit of a file loaded before it
    con.execute(
        f"""create or replace temp table mqcap_dup_keys as
            select h from ({hashes}) group by h
            having min(file_id) < max(file_id) and max(file_id) >= {min(in_table)}"""
    )
    if not con.execute("select count(*) from mqcap_dup_keys").fetchone()[0]:
        return  # no unit of a new file equals one of an earlier file
    if name in UNIT_COLUMN:
        con.execute(
            f"""create or replace temp table mqcap_dup_cand as
                select file_id, unit from ({hashes})
                where h in (select h from mqcap_dup_keys)"""
        )
        units = f"(file_id, {UNIT_COLUMN[name]}) in (select file_id, unit from mqcap_dup_cand)"
        new = _units(table, f"file_id in ({ids})", units)
        old = _units(table, f"file_id < {last}", units)
    else:
        shared = f"hash({', '.join(_q(c) for c in cols)}) in (select h from mqcap_dup_keys)"
        new = _units(table, f"file_id in ({ids}) and {shared}")
        old = _units(table, f"file_id < {last} and {shared}")
    _insert_pairs(con, new, old, on, cond)


def _per_file(
    con: duckdb.DuckDBPyConnection, names: list[str], known: dict, files: dict, prefilter: bool
) -> list[tuple]:
    """(file_id, first file, first position, copies, records) per file and the file it
    repeats: the records (positions of units with an identity, in every table) of the files
    that repeat any are the "of N records" of their sentence."""
    repeating = [
        f for (f,) in con.execute("select distinct file_id from mqcap_dup_pairs").fetchall()
    ]
    for name in names if repeating and prefilter else []:
        ids = ", ".join(str(int(f)) for f in repeating if name in files[f])
        if ids:
            table = known[name]
            positions = _positions(table, identity_columns(table)[1], f"file_id in ({ids})")
            con.execute(f"insert into mqcap_dup_units select distinct * from ({positions})")
    return con.execute(
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


def _insert_pairs(con: duckdb.DuckDBPyConnection, new: str, old: str, on: str, cond: str) -> None:
    """Each new unit (``new``, with an identity: ``cond``) with every equal unit (``on``) of an
    earlier file (``old``), into mqcap_dup_pairs."""
    con.execute(
        f"""insert into mqcap_dup_pairs
            select n.file_id, n.pos, o.file_id, o.source_file, o.pos, o.pos_order
            from ({new}) as n join ({old}) as o on o.file_id < n.file_id and {on}
            where {cond}"""
    )


def describe_landed(con: duckdb.DuckDBPyConnection, landed: Iterable) -> list[str]:
    """One line per just-landed file (ingest ``FileOutcome``s) repeating earlier records.

    Example:
        for line in describe_landed(con, report.landed): progress.log(line)
    """
    outcomes = {o.file_id: o for o in landed if o.file_id is not None}
    found = copies_in_files(con, {f: o.tables for f, o in outcomes.items()})
    return [found[f].sentence(outcomes[f].path) for f in sorted(found)]


def _unit_hashes(table: Table, cols: tuple[str, ...], when: str, last: int) -> str:
    """SQL: ``file_id, unit, h`` for each unit of ``table`` with an identity in the files up to
    ``last`` (a file id): ``h`` a hash of the identity that equal units share (unequal ones
    rarely), from fixed-size aggregates only.

    A row's ``h`` hashes its identity columns (``hash`` agrees with ``is not distinct from``:
    NULLs, 0.0 and -0.0, NaNs). A CHSTATUS unit's text is never built here: its ``h`` hashes
    the unit's other identity columns and what ``_text_sums`` adds up from its parts, the
    number of blank-separated tokens of its text and the sum of their hashes, each a function
    of the text alone (equal texts, equal hashes). The copies themselves are then found among
    the units of shared hashes with the exact rule (``copies_in_files``).
    """
    rel = f'{LANDING}."{table.name}"'
    where = f"file_id <= {int(last)}"
    if table.name == "chstatus_attr":
        count, total = _text_sums(BLOCK_PART)
        return f"""
            select file_id, block_no as unit,
                   hash(min(snapshot_time), min(channel), {count}, {total}) as h
            from {rel} where {where} group by file_id, block_no
            having min(snapshot_time) is not null"""
    if table.name == "chstatus_snapshot":
        count, total = _text_sums(SNAPSHOT_PART)
        keys = ", ".join(f"snap.{_q(c)}" for c in cols if c != CONTENT_COLUMN[table.name])
        return f"""
            select snap.file_id, snap.snapshot_no as unit,
                   hash({keys}, coalesce(content.n, 0), coalesce(content.s, 0)) as h
            from {rel} as snap left join (
                select file_id, snapshot_no, {count} as n, {total} as s
                from {LANDING}.chstatus_attr where {where} group by file_id, snapshot_no
            ) as content using (file_id, snapshot_no)
            where snap.{where} and {_prefixed(when, "snap.")}"""
    keys = ", ".join(_q(c) for c in cols)
    return f"select file_id, null as unit, hash({keys}) as h from {rel} where {where} and {when}"


def _text_sums(part: str) -> tuple[str, str]:
    """SQL aggregates over a unit's rows: (tokens, sum of the tokens' hashes) of the text that
    ``string_agg(part, ' ')`` makes of them, in any order, without building it.

    The text is the parts joined by single blanks (rows whose part is NULL left out), so its
    tokens (split at every blank, empty ones too) are the tokens of each part in turn: their
    number and the sum of their hashes depend on the text only, never on where one part ended
    (a value with a blank or a parenthesis in it), and not on the order of the parts. A unit
    without parts (text NULL, a snapshot's '') has 0 tokens; any text has at least one.
    """
    tokens = f"(strlen({part}) - strlen(replace({part}, ' ', '')) + 1)"
    hashes = (
        f"case when strpos({part}, ' ') = 0 then hash({part})::hugeint "
        f"else list_sum(list_transform(string_split({part}, ' '), lambda t: hash(t)::hugeint)) "
        "end"
    )
    return f"coalesce(sum({tokens}), 0)", f"coalesce(sum({hashes}), 0)"


def _prefixed(when: str, prefix: str = "n.") -> str:
    """The identity condition on one side of a join (columns prefixed ``n.``)."""
    out, i = [], 0
    while i < len(when):
        if when[i] == '"':
            j = when.index('"', i + 1)
            out.append(prefix + when[i : j + 1])
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
