"""The file ledger (``meta.ingest_ledger``): every version of every raw file ingest has seen.

This module owns every read and write of the ledger; ``mqcap.ingest`` keeps the flow
(discover, detect, land). A path's *current* entry is its ``loaded`` row, else its newest
``set_aside`` row. Statuses:

- ``loaded``: its rows are in the landing tables (``file_id`` on every row);
- ``set_aside``: proven bad input (or waiting: ``retry``), with the reason and position;
- ``replaced``: an older version, superseded by a newer entry of the same path;
- ``deleted``: the raw file is gone (or, for a loaded file read again because its parser
  changed, the same bytes were refused now: see ``parser_print``). A loaded file's deletion is
  a *new* row (fresh ``file_id``, ``deleted_at``) and its rows leave landing in the same
  transaction.

``parser_print`` (``codeprint.parser_print``) names the parser code that read the file. A file
whose print is not its parser's print now is read again by the next ingest, as if it had
changed: its rows are replaced, or withdrawn when the same bytes are now refused.

Invariant the pipeline relies on: every change of landing rows (load, replace, delete) has a
ledger row with a fresh ``file_id`` from ``meta.file_id_seq``, so what changed since a step
covered file id X is :func:`tables_changed_since` ``(con, X)``.

``attribution`` (loaded rows) says how the file's rows find their run: ``run_folder`` (a
run.yaml in its folder or above), ``by_time`` (the format carries time and system identity),
``by_columns`` (every results row names study and run), ``by_workload`` (a cphtestp series in
a study folder), ``study_folder`` (a study.yaml describes its study, not a run) or ``none``:
landed, but no run can claim its rows, so they reach no mart.
"""

from __future__ import annotations

import json
from collections.abc import Container, Iterator
from contextlib import contextmanager, suppress
from datetime import datetime
from functools import cache
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, NamedTuple

import duckdb

from mqcap import arrowcols, warehouse
from mqcap.ledger import codeprint
from mqcap.ledger.schema import LEDGER
from mqcap.parsers import all_parsers, all_tables, parser_for_kind

if TYPE_CHECKING:
    import pyarrow as pa

REASON_CAP = 2000  # characters of a reason kept in the ledger (a hostile file can make it huge)


@cache
def by_time_kinds() -> frozenset[str]:
    """Formats whose rows carry their own time and system identity (attributed to runs in dbt):
    each parser declares it (``Parser.attributed_by_time``). Asked when a file lands, not at
    import: a command that lands nothing imports no parser module (nor polars)."""
    return frozenset(p.kind for p in all_parsers() if p.attributed_by_time)


class Entry(NamedTuple):
    """A ledger row as ingest needs it."""

    file_id: int
    sha256: str
    status: str
    retry: bool
    bytes: int
    mtime_ns: int | None
    kind: str | None
    study: str | None
    run_id: str | None
    reason: str | None
    position: str | None
    path: str
    parser_print: str | None = None  # codeprint.parser_print of the parser that read it


def print_of_kind(kind: str | None) -> str | None:
    """The print (``codeprint.parser_print``) of the parser of ``kind`` now; None for no kind
    (an unrecognised file) or a kind this version does not have."""
    if kind is None:
        return None
    try:
        module = parser_for_kind(kind).parse.__module__
    except KeyError:
        return None
    return codeprint.parser_print(module)


def stale(entry: Entry) -> bool:
    """Whether ``entry``'s file was read by other parser code than its parser's now (or by a
    version that kept no print): its rows, or its verdict, are owed again."""
    return entry.kind is not None and not codeprint.print_is_current(entry.parser_print)


def cap(text: str | None, limit: int = REASON_CAP) -> str | None:
    """``text`` cut to ``limit`` characters, saying how many were left out.

    Example:
        >>> cap("x" * 2005, 2000)[-22:]
        'x… (5 more characters)'
    """
    if text is None or len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text) - limit} more characters)"


def rollback_quietly(con: duckdb.DuckDBPyConnection) -> None:
    """Roll back if a transaction is open; a failed commit already ended it (DuckDB then says
    "no transaction is active", which must not hide the error that made the commit fail)."""
    with suppress(duckdb.TransactionException):
        con.rollback()


class FileLedger:
    """Reads and writes of ``meta.ingest_ledger`` for one ingest batch.

    Example:
        led = FileLedger(con, datetime.now())
        entry = led.current("attls/r1/results.csv")
    """

    _CURRENT_SQL = f"""
        select file_id, sha256, status, retry, bytes, mtime_ns, kind, study, run_id,
            reason, position, path, parser_print
        from (
            select *, row_number() over (
                partition by path order by status = 'loaded' desc, file_id desc
            ) as pick
            from {LEDGER} where status in ('loaded', 'set_aside') {{only}}
        ) where pick = 1"""
    # The verdict on a newer version of a loaded file: set aside while the loaded version's rows
    # stay (landing a version replaces the verdicts of its path, so at most one stands).
    _ASIDE_SQL = f"""
        select file_id, sha256, status, retry, bytes, mtime_ns, kind, study, run_id,
            reason, position, path, parser_print
        from {LEDGER} as aside
        where status = 'set_aside' {{only}} and exists (
            select 1 from {LEDGER} as loaded where loaded.path = aside.path and loaded.status = 'loaded'
        )
        order by file_id"""

    def __init__(self, con: duckdb.DuckDBPyConnection, now: datetime) -> None:
        self.con = con
        self.now = now
        self._current: dict[str, Entry] | None = None
        self._loaded: dict[str, tuple] | None = None  # see loaded_as_read
        self._aside: dict[str, Entry] = {}  # path -> the verdict on a newer version (see aside)
        self._loaded_by_sha: dict[str, dict[str, Entry]] = {}  # sha256 -> path -> loaded entry
        self._runs: dict[tuple, dict[str, int]] | None = None  # (study, run) -> manifest -> id
        self._run_of: dict[str, tuple] = {}  # manifest path -> its (study, run) in _runs

    # -- reads ------------------------------------------------------------------------------
    def current(self, rel: str) -> Entry | None:
        """The entry that stands for ``rel`` now: loaded, else the newest set aside.

        The whole ledger is read once per ingest (one query, not one per file: a no-change run
        over thousands of files stays fast) and each path is re-read after it is written.
        """
        current = self._current if self._current is not None else self.entries()
        return current.get(rel)  # (asked twice per file of a no-change run: kept to one call)

    def entries(self) -> dict[str, Entry]:
        if self._current is None:
            # The whole ledger at once (a no-change run over 30,000 files reads it first thing):
            # what _put keeps per entry, built in bulk (``_runs`` is not read yet).
            rows = self.con.execute(self._CURRENT_SQL.format(only="")).fetchall()
            self._current = {row[11]: Entry._make(row) for row in rows}
            for rel, entry in self._current.items():
                if entry.status == "loaded":
                    self._loaded_by_sha.setdefault(entry.sha256, {})[rel] = entry
            rows = self.con.execute(self._ASIDE_SQL.format(only="")).fetchall()
            self._aside = {row[11]: Entry._make(row) for row in rows}  # (the newest per path)
        return self._current

    # path, bytes, mtime_ns, kind, file_id, study, run_id, and whether the parser code that read
    # the file is its parser's now (no kind: nothing to read it again with)
    _LOADED_SQL = f"""
        select path, bytes, mtime_ns, kind, file_id, study, run_id,
            kind is null or coalesce(list_contains(?::varchar[], parser_print), false)
        from {LEDGER} where status = 'loaded'"""

    def loaded_as_read(self) -> dict[str, tuple]:
        """Every loaded file as the ledger had it when first asked (once per ingest): path ->
        ``(path, bytes, mtime_ns, kind, file_id, study, run_id, print_current)``, where
        ``print_current`` is ``not stale(entry)`` of its :meth:`current` entry.

        Plain rows of one narrow query, no :class:`Entry` each: what a no-change run over
        30,000 files needs to settle them by their stat (``Changes.settled_in_bulk``), sweep
        deletions and follow run folders, without reading whole entries. Not kept up to date
        by writes: read it before the ingest writes (its first write follows a read of
        :meth:`entries`).

        Example:
            led.loaded_as_read()["s/r1/results.csv"]
            # ('s/r1/results.csv', 812, 1700000000000000000, 'driver_csv', 3, 's', 'r1', True)
        """
        if self._loaded is None:
            prints = self.con.execute(
                f"""select distinct parser_print from {LEDGER}
                    where status = 'loaded' and kind is not null and parser_print is not null"""
            ).fetchall()
            current = [p for (p,) in prints if codeprint.print_is_current(p)]
            rows = self.con.execute(self._LOADED_SQL, [current]).fetchall()
            self._loaded = {row[0]: row for row in rows}
            if len(self._loaded) < len(rows):  # (a path loaded twice: its newest row stands)
                self._loaded = {row[0]: row for row in sorted(rows, key=lambda r: r[4])}
        return self._loaded

    def current_paths(self) -> set[str]:
        """The stored names that have a :meth:`current` entry (loaded or set aside); from the
        entries when they are read, else from :meth:`loaded_as_read` and one small query.

        Example:
            "s/r1/results.csv" in led.current_paths()  # True
        """
        if self._current is not None:
            return set(self._current)
        aside = self.con.execute(
            f"select distinct path from {LEDGER} where status = 'set_aside'"
        ).fetchall()
        return set(self.loaded_as_read()).union(p for (p,) in aside)

    def aside(self, rel: str) -> Entry | None:
        """The set-aside verdict on a newer version of ``rel`` while its loaded version (the
        ``current`` entry) keeps its rows: the bytes that verdict was given on are not read
        again while they stay as they are."""
        self.entries()
        return self._aside.get(rel)

    def _put(self, rel: str, entry: Entry | None) -> None:
        """The in-memory current entry of ``rel`` (and the index of loaded content)."""
        assert self._current is not None
        old = self._current.pop(rel, None)
        if old is not None and old.status == "loaded":
            self._loaded_by_sha.get(old.sha256, {}).pop(rel, None)
            if self._runs is not None and rel in self._run_of:
                self._runs.get(self._run_of.pop(rel), {}).pop(rel, None)
        if entry is not None:
            self._current[rel] = entry
            if entry.status == "loaded":
                self._loaded_by_sha.setdefault(entry.sha256, {})[rel] = entry
                if self._runs is not None and entry.kind == "manifest":
                    self._run_of[rel] = (entry.study, entry.run_id)
                    self._runs.setdefault(self._run_of[rel], {})[rel] = entry.file_id

    def refresh(self, rel: str) -> None:
        if self._current is not None:
            row = warehouse.one(self.con, self._CURRENT_SQL.format(only="and path = ?"), [rel])
            self._put(rel, None if row is None else Entry(*row))
            rows = self.con.execute(self._ASIDE_SQL.format(only="and path = ?"), [rel]).fetchall()
            self._aside.pop(rel, None)
            if rows:
                self._aside[rel] = Entry(*rows[-1])

    def remember(self, entry: Entry) -> None:
        """The current entry of ``entry.path`` is ``entry``, just committed by the caller (saves
        re-reading it, see ``refresh``)."""
        if self._current is not None:
            self._put(entry.path, entry)
            self._aside.pop(entry.path, None)  # (landing replaced the verdicts of its path)

    def loaded_with_sha(
        self,
        sha: str,
        rel: str,
        run: tuple[str | None, str | None],
        replaced: Container[str] = (),
    ) -> str | None:
        """Another loaded file with the same content that would count the same data again.

        Within one run folder (or among files outside run folders, which carry their own
        identity) the same bytes are the same data. The same small file in two run folders
        (say a results CSV without a run column) describes two runs: not a duplicate. Of
        several, the first loaded (lowest file id) is named. Read from memory (the ledger is
        read once per ingest and kept up to date as it is written). The paths in ``replaced``
        are about to land in a new version: their loaded content is on its way out.
        """
        self.entries()
        same = [
            e
            for path, e in self._loaded_by_sha.get(sha, {}).items()
            if path != rel and (e.study, e.run_id) == run and path not in replaced
        ]
        return min(same, key=lambda e: e.file_id).path if same else None

    def run_folders(self) -> dict[str, tuple[str, str]]:
        """Folder (relative) -> (study, run) for every loaded manifest."""
        rows = self.con.execute(
            f"""select l.path, m.study, m.run_id from {LEDGER} l
                join {warehouse.LANDING}.run_manifest m using (file_id)
                where l.status = 'loaded'"""
        ).fetchall()
        return {parent_of(p): (s, r) for p, s, r in rows}

    def pending_manifests(self) -> dict[str, str]:
        """Folder -> reason, for run folders whose manifest is set aside."""
        rows = self.con.execute(
            f"""select path, reason from {LEDGER}
                where status = 'set_aside' and kind = 'manifest'"""
        ).fetchall()
        return {parent_of(p): f"run manifest {p} is set aside: {r}" for p, r in rows}

    def run_defined_by(
        self, study: str, run: str, other_than: str | None = None, replaced: Container[str] = ()
    ) -> str | None:
        """Path of the loaded manifest declaring ``study``/``run`` (other than ``other_than``,
        and than the paths in ``replaced``: about to land in a new version); of several, the
        first loaded. The loaded manifests are read once per ingest (with the run each
        declared, from ``landing.run_manifest``) and followed as they are written."""
        if self._runs is None:
            self.entries()
            self._runs = {}
            for path, study_, run_, file_id in self.con.execute(
                f"""select l.path, m.study, m.run_id, l.file_id from {LEDGER} l
                    join {warehouse.LANDING}.run_manifest m using (file_id)
                    where l.status = 'loaded'"""
            ).fetchall():
                self._runs.setdefault((study_, run_), {})[path] = file_id
                self._run_of[path] = (study_, run_)
        found = [
            (f, p)
            for p, f in self._runs.get((study, run), {}).items()
            if p != other_than and p not in replaced
        ]
        return min(found)[1] if found else None

    def retry_paths(self) -> list[str]:
        """Stored names of files set aside for a reason that can go away."""
        return [
            p
            for (p,) in self.con.execute(
                f"select distinct path from {LEDGER} where status = 'set_aside' and retry"
            ).fetchall()
        ]

    # -- writes -----------------------------------------------------------------------------
    @contextmanager
    def transaction(self) -> Iterator[None]:
        """One transaction (one file): committed whole or rolled back whole.

        A commit that fails (disk full) ends the transaction inside DuckDB; the rollback after
        it is then a no-op, and the commit's own error is what propagates.
        """
        self.con.begin()
        try:
            yield
            self.con.commit()
        except BaseException:
            rollback_quietly(self.con)
            raise

    def next_id(self) -> int:
        return self.con.execute(f"select nextval('{warehouse.META}.file_id_seq')").fetchall()[0][0]

    def next_ids(self, n: int) -> list[int]:
        """``n`` fresh file ids in ascending order (one query for a batch of files)."""
        rows = self.con.execute(
            f"select nextval('{warehouse.META}.file_id_seq') as id from range(?) order by id", [n]
        ).fetchall()
        return [r[0] for r in rows]

    def _insert(self, values: dict) -> None:
        cols = ", ".join(values)
        marks = ", ".join("?" for _ in values)
        self.con.execute(f"insert into {LEDGER} ({cols}) values ({marks})", list(values.values()))

    def touch(self, entry: Entry, mtime_ns: int) -> None:
        """Touched, not changed: remember the new mtime so the next run skips hashing."""
        self.con.execute(
            f"update {LEDGER} set mtime_ns = ? where file_id = ?", [mtime_ns, entry.file_id]
        )
        self.refresh(entry.path)

    def set_aside(
        self,
        rel: str,
        sha: str,
        size: int,
        mtime_ns: int,
        kind: str | None,
        reason: str,
        position: str | None,
        retry: bool = False,
        run: tuple[str | None, str | None] = (None, None),
        file_id: int | None = None,
    ) -> int:
        """Record ``rel`` as set aside (one transaction); the newest verdict replaces the older
        set-aside entries of the path (a loaded version keeps its rows: see :meth:`aside`). Returns the new file id (``file_id``: the one a landing of this file
        took before it was rolled back, so ids do not depend on how the file was parsed)."""
        prior = self.current(rel)
        if prior is not None and prior.status == "loaded" and prior.sha256 == sha and stale(prior):
            # The same bytes, read again by this mqcap's parser and refused: the rows older code
            # made of them leave landing (a ``deleted`` row, as for a file gone).
            self.delete(prior, "read again by this mqcap's parser and refused")
        with self.transaction():
            # the newest verdict replaces every earlier one of the path (one stands, counted once)
            self.con.execute(
                f"update {LEDGER} set status = 'replaced' where path = ? and status = 'set_aside'",
                [rel],
            )
            if file_id is None:
                file_id = self.next_id()
            self._insert(
                {
                    "file_id": file_id,
                    "path": rel,
                    "sha256": sha,
                    "bytes": size,
                    "mtime_ns": mtime_ns,
                    "kind": kind,
                    "status": "set_aside",
                    "reason": cap(reason),
                    "position": cap(position, 200),
                    "retry": retry,
                    "study": run[0],
                    "run_id": run[1],
                    "seen_at": self.now,
                    "parser_print": print_of_kind(kind),
                }
            )
        self.refresh(rel)
        return file_id

    def remove_rows(self, file_id: int, kind: str | None) -> dict[str, int]:
        """Delete a file's landing rows (inside the caller's transaction): table -> rows."""
        try:
            tables = [t.name for t in parser_for_kind(kind).tables] if kind else []
        except KeyError:  # a kind this version no longer has: look everywhere
            tables = [t.name for t in all_tables()]
        removed: dict[str, int] = {}
        for name in tables:
            n = self.con.execute(
                f'delete from {warehouse.LANDING}."{name}" where file_id = ?', [file_id]
            ).fetchall()[0][0]
            if n:
                removed[name] = n
        return removed

    def supersede(self, prior: Entry, file_id: int) -> set[str]:
        """``prior`` gives way to the new entry ``file_id`` (inside the caller's transaction):
        a loaded prior's rows leave landing. Returns the landing tables whose rows went."""
        touched: set[str] = set()
        if prior.status == "loaded":
            touched = set(self.remove_rows(prior.file_id, prior.kind))
            with suppress(KeyError):
                touched |= {t.name for t in parser_for_kind(prior.kind).tables}
        self.con.execute(
            f"update {LEDGER} set status = 'replaced', reason = ? where file_id = ?",
            [f"superseded by file {file_id}", prior.file_id],
        )
        return touched

    def record_loaded(
        self,
        file_id: int,
        rel: str,
        sha: str,
        size: int,
        mtime_ns: int,
        kind: str,
        run: tuple[str | None, str | None],
        per_table: dict[str, int],
        unknown_lines: int,
        skipped: dict[str, int],
        facts: dict[str, int] | None = None,
    ) -> Entry:
        """The ledger row of a landed file (inside the caller's transaction); returns its entry.

        ``facts``: what :func:`attribution_facts` counted on the file's rows (else read back).
        """
        return self.insert_loaded(
            [
                (
                    file_id,
                    rel,
                    sha,
                    size,
                    mtime_ns,
                    kind,
                    run,
                    per_table,
                    unknown_lines,
                    skipped,
                    facts,
                )
            ]
        )[0]

    @staticmethod
    @cache
    def _loaded_columns():
        """The Arrow schema of the ledger rows :meth:`insert_loaded` writes."""
        import pyarrow as pa

        return pa.schema(
            [
                ("file_id", pa.int64()),
                ("path", pa.string()),
                ("sha256", pa.string()),
                ("bytes", pa.int64()),
                ("mtime_ns", pa.int64()),
                ("kind", pa.string()),
                ("status", pa.string()),
                ("reason", pa.string()),
                ("study", pa.string()),
                ("run_id", pa.string()),
                ("rows_landed", pa.int64()),
                ("rows_by_table", pa.string()),
                ("unknown_lines", pa.int64()),
                ("skipped", pa.string()),
                ("seen_at", pa.timestamp("us")),
                ("landed_at", pa.timestamp("us")),
                ("attribution", pa.string()),
                ("parser_print", pa.string()),
            ]
        )

    def insert_loaded(self, files: list[tuple]) -> list[Entry]:
        """Ledger rows of landed files, in one insert (inside the caller's transaction).

        Each item: (file_id, path, sha256, bytes, mtime_ns, kind, (study, run), rows per table,
        unknown lines, skipped kinds, attribution facts or None). Returns their entries.
        """
        landed_at = datetime.now().replace(microsecond=0)
        rows, entries = [], []
        for fid, rel, sha, size, mtime_ns, kind, run, per_table, unknown, skipped, facts in files:
            attribution, why = self.attribution(fid, rel, kind, run, facts)
            printed = print_of_kind(kind)
            rows.append(
                {
                    "file_id": fid,
                    "path": rel,
                    "sha256": sha,
                    "bytes": size,
                    "mtime_ns": mtime_ns,
                    "kind": kind,
                    "status": "loaded",
                    "reason": why,
                    "study": run[0],
                    "run_id": run[1],
                    "rows_landed": sum(per_table.values()),
                    "rows_by_table": json.dumps(per_table, sort_keys=True),
                    "unknown_lines": unknown,
                    "skipped": json.dumps(skipped, sort_keys=True) if skipped else None,
                    "seen_at": self.now,
                    "landed_at": landed_at,
                    "attribution": attribution,
                    "parser_print": printed,
                }
            )
            entries.append(
                Entry(
                    fid,
                    sha,
                    "loaded",
                    False,
                    size,
                    mtime_ns,
                    kind,
                    run[0],
                    run[1],
                    why,
                    None,
                    rel,
                    printed,
                )
            )
        import pyarrow as pa

        schema = self._loaded_columns()
        frame = arrowcols.table(schema, rows) or pa.Table.from_pylist(rows, schema=schema)
        self.con.register("mqcap_ledger_rows", frame)
        try:
            # A version landed answers the verdicts on earlier versions of its path.
            self.con.execute(
                f"""update {LEDGER} set status = 'replaced' where status = 'set_aside'
                    and path in (select path from mqcap_ledger_rows)"""
            )
            self.con.execute(f"insert into {LEDGER} by name select * from mqcap_ledger_rows")
        finally:
            self.con.unregister("mqcap_ledger_rows")
        return entries

    def delete(self, entry: Entry, why: str) -> dict[str, int]:
        """The raw file of ``entry`` is gone: its rows leave landing (one transaction).

        A loaded file gets a new ``deleted`` row (fresh file id, so the build sees landing
        changed) and its loaded row becomes ``replaced``; a set-aside entry is marked
        ``deleted`` where it is. Returns table -> rows removed.
        """
        removed: dict[str, int] = {}
        with self.transaction():
            if entry.status == "loaded":
                removed = self.remove_rows(entry.file_id, entry.kind)
                new_id = self.next_id()
                self._insert(
                    {
                        "file_id": new_id,
                        "path": entry.path,
                        "sha256": entry.sha256,
                        "bytes": entry.bytes,
                        "mtime_ns": entry.mtime_ns,
                        "kind": entry.kind,
                        "status": "deleted",
                        "reason": f"{why}: {sum(removed.values())} row(s) of file "
                        f"{entry.file_id} left landing",
                        "study": entry.study,
                        "run_id": entry.run_id,
                        "rows_by_table": json.dumps(removed, sort_keys=True),
                        "seen_at": self.now,
                        "deleted_at": self.now,
                    }
                )
                self.con.execute(
                    f"update {LEDGER} set status = 'replaced', reason = ? where file_id = ?",
                    [f"deleted (file {new_id})", entry.file_id],
                )
            else:
                self.con.execute(
                    f"""update {LEDGER} set status = 'deleted', deleted_at = ?,
                        reason = ? || ' (was set aside: ' || coalesce(reason, '') || ')'
                        where path = ? and status = 'set_aside'""",
                    [self.now, why, entry.path],
                )
        self.refresh(entry.path)
        return removed

    def attribution(
        self,
        file_id: int,
        rel: str,
        kind: str | None,
        run: tuple[str | None, str | None],
        facts: dict[str, int] | None = None,
    ) -> tuple[str | None, str | None]:
        """(attribution, reason when 'none') of a loaded file; see the module docstring.

        ``facts``: :func:`attribution_facts` of the file's rows; without them the landed rows
        are counted in the warehouse."""
        if kind is None:
            return None, None
        if kind == "manifest" or run[1] is not None:
            return "run_folder", None
        if kind == "study":
            return "study_folder", None
        if kind in by_time_kinds():
            return "by_time", None
        if kind == "chstatus" and facts is not None:
            untimed = facts.get("untimed", 0)
            if not untimed:
                return "by_time", None
            what = f"{untimed} CHSTATUS snapshot(s) without a time"
        elif kind == "driver_csv" and facts is not None:
            unnamed = facts.get("unnamed", 0)
            if not unnamed:
                return "by_columns", None
            what = f"{unnamed} results row(s) without study and run_id columns"
        elif kind == "chstatus":
            untimed = self.con.execute(
                f"""select count(*) from {warehouse.LANDING}.chstatus_snapshot
                    where file_id = ? and snapshot_time is null""",
                [file_id],
            ).fetchall()[0][0]
            if not untimed:
                return "by_time", None
            what = f"{untimed} CHSTATUS snapshot(s) without a time"
        elif kind == "driver_csv":
            unnamed = self.con.execute(
                f"""select count(*) from {warehouse.LANDING}.driver_results
                    where file_id = ? and (study is null or run_id is null)""",
                [file_id],
            ).fetchall()[0][0]
            if not unnamed:
                return "by_columns", None
            what = f"{unnamed} results row(s) without study and run_id columns"
        elif kind == "driver_cphtestp" and len(PurePosixPath(rel).parts) > 1:
            return "by_workload", None
        else:
            what = f"a {kind} file attaches only to its run folder"
        return "none", (
            f"unattributed: no run.yaml in its folder or above, and {what}: "
            "its rows reach no mart (put it in a run folder with a run.yaml)"
        )

    def reattribute(self, folders: dict[str, tuple[str, str]]) -> list[str]:
        """Follow the run folders as they are now: a file whose folder gained, lost or changed
        its run.yaml (a run-id edit, a manifest added late or deleted) takes the new study/run.

        Runs after the manifests of the batch are processed; returns the paths updated.
        """
        changed: list[str] = []
        for path, kind, file_id, study, run_id in self._loaded_identities():
            if kind == "manifest":
                continue
            # (the nearest run folder is most often the file's own: one look-up)
            parent = path.rpartition("/")[0] or "."
            folder = parent if parent in folders else folder_of(path, folders)
            run = folders[folder] if folder is not None else (None, None)
            if (study, run_id) == run:
                continue
            attribution, why = self.attribution(file_id, path, kind, run)
            self.con.execute(
                f"""update {LEDGER} set study = ?, run_id = ?, attribution = ?, reason = ?
                    where file_id = ?""",
                [run[0], run[1], attribution, why, file_id],
            )
            self.refresh(path)
            changed.append(path)
        if changed and self._current is None:
            self.entries()  # (written: the rows as read no longer stand for the ledger)
        return changed

    def _loaded_identities(self) -> list[tuple]:
        """(path, kind, file_id, study, run_id) of every loaded file: from the entries once they
        are read (kept up to date as the ingest writes), else from :meth:`loaded_as_read` when
        it was read (nothing written since: every write follows a read of the entries)."""
        if self._current is None and self._loaded is not None:
            return [(r[0], r[3], r[4], r[5], r[6]) for r in self._loaded.values()]
        return [
            (e.path, e.kind, e.file_id, e.study, e.run_id)
            for e in list(self.entries().values())
            if e.status == "loaded"
        ]


def attribution_facts(table: str, frame: pa.Table) -> dict[str, int]:
    """What :meth:`FileLedger.attribution` counts on a file's rows, from one typed batch of
    ``table`` (summed over the batches by the caller): CHSTATUS snapshots without a time
    (``untimed``), results rows without study and run (``unnamed``).

    Example:
        >>> import pyarrow as pa
        >>> attribution_facts("driver_results", pa.table({"study": [None, "s", "s"],
        ...                                               "run_id": ["r", "r", None]}))
        {'unnamed': 2}
    """
    if table == "chstatus_snapshot":
        return {"untimed": frame["snapshot_time"].null_count}
    if table == "driver_results":
        study, run = frame["study"].null_count, frame["run_id"].null_count
        if min(study, run) == 0 or max(study, run) == frame.num_rows:
            return {"unnamed": max(study, run)}  # (pyarrow.compute costs 50 ms to import)
        import pyarrow.compute as pc

        unnamed = pc.or_(pc.is_null(frame["study"]), pc.is_null(frame["run_id"]))
        return {"unnamed": int(pc.sum(unnamed).as_py() or 0)}
    return {}


def parent_of(rel: str) -> str:
    """The folder of a stored relative name, '.' at the raw root (as ``PurePosixPath.parent``).

    Example:
        >>> parent_of("s/r1/run.yaml"), parent_of("run.yaml")
        ('s/r1', '.')
    """
    return rel.rpartition("/")[0] or "."


def folder_of(rel: str, *folders: dict) -> str | None:
    """The nearest folder above ``rel`` (itself excluded) that is a key of one of ``folders``.

    Example:
        >>> folder_of("s/r1/sub/a.csv", {"s/r1": 1}, {"s": 2})
        's/r1'
        >>> folder_of("a.csv", {".": 1}), folder_of("x/a.csv", {"y": 1})
        ('.', None)
    """
    key = rel
    while key:
        key = key.rpartition("/")[0]
        candidate = key or "."
        if any(candidate in f for f in folders):
            return candidate
    return None


def tables_changed_since(con: duckdb.DuckDBPyConnection, through: int) -> set[str]:
    """Landing tables whose rows changed (loaded, replaced or deleted) after ledger file id
    ``through``: the tables of every kind a changed path has had.

    Example:
        tables_changed_since(con, built_through(con) or 0)  # {'driver_results', ...}
    """
    kinds = con.execute(
        f"""select distinct kind from {LEDGER} where kind is not null
            and status <> 'set_aside' and path in (
                select path from {LEDGER} where file_id > ? and status in ('loaded', 'deleted'))""",
        [through],
    ).fetchall()
    return tables_of_kinds(k for (k,) in kinds)


def tables_of_kinds(kinds) -> set[str]:
    """The landing tables the parsers of ``kinds`` write (a kind no parser has any more is
    passed over).

    Example:
        >>> sorted(tables_of_kinds(["driver_csv", "no-such-kind"]))
        ['driver_results']
    """
    tables: set[str] = set()
    for kind in kinds:
        try:
            tables |= {t.name for t in parser_for_kind(kind).tables}
        except KeyError:
            continue
    return tables


def unattributed(con: duckdb.DuckDBPyConnection) -> list[tuple[str, str]]:
    """(path, reason) of every loaded file whose rows no run can claim (attribution 'none').

    Example:
        for path, why in unattributed(con): print(printable(path), printable(why))
    """
    return [
        (p, r)
        for p, r in con.execute(
            f"""select path, reason from {LEDGER}
                where status = 'loaded' and attribution = 'none' order by path"""
        ).fetchall()
    ]


def totals(con: duckdb.DuckDBPyConnection) -> tuple[int, int, int]:
    """(files loaded, rows they landed, files set aside): the run summary's counts.

    Example:
        totals(con)  # (1074, 33155, 0)
    """
    files, rows = con.execute(
        f"select count(*), coalesce(sum(rows_landed), 0) from {LEDGER} where status = 'loaded'"
    ).fetchall()[0]
    aside = con.execute(
        f"select count(distinct path) from {LEDGER} where status = 'set_aside'"
    ).fetchall()[0][0]
    return files, rows, aside


def kinds_of(con: duckdb.DuckDBPyConnection, file_ids) -> set[str]:
    """The parser kinds of ``file_ids`` (files of no known kind left out).

    Example:
        kinds_of(con, [3, 4])  # {'driver_csv', 'manifest'}
    """
    return {
        k
        for (k,) in con.execute(
            f"""select distinct kind from {LEDGER} where kind is not null
                and file_id in (select unnest(?::bigint[]))""",
            [sorted(file_ids)],
        ).fetchall()
    }


def landed_rows(
    con: duckdb.DuckDBPyConnection, table: str, file_ids: list[int] | None = None
) -> dict[str, tuple[str | None, int]]:
    """Loaded file path -> (study/run, rows the ledger says it landed in landing ``table``);
    ``file_ids``: only those files.

    Example:
        landed_rows(con, "driver_results")  # {'attls/r1/results.csv': ('attls/r1', 1), ...}
    """
    sql = (
        f"select path, study || '/' || run_id, rows_by_table from {LEDGER} "
        "where status = 'loaded' and rows_by_table is not null"
    )
    params: list = []
    if file_ids is not None:
        sql += " and file_id in (select unnest(?::bigint[]))"
        params = [file_ids]
    return {
        path: (run, int(json.loads(rows).get(table, 0)))
        for path, run, rows in con.execute(sql, params).fetchall()
    }


def tables_landed(con: duckdb.DuckDBPyConnection, file_ids: list[int]) -> set[str]:
    """Names of the landing tables that received rows from ``file_ids``.

    Example:
        tables_landed(con, [3])  # {'driver_results'}
    """
    rows = con.execute(
        f"select rows_by_table from {LEDGER} where status = 'loaded' "
        "and rows_by_table is not null and file_id in (select unnest(?::bigint[]))",
        [file_ids],
    ).fetchall()
    return {t for (r,) in rows for t, n in json.loads(r).items() if n}


def copy_ledger(con: duckdb.DuckDBPyConnection, write) -> None:
    """Hand the whole ledger to ``write(sql)`` (the Spark lake copies it to Parquet).

    Example:
        copy_ledger(con, lambda sql: copy(con, sql, folder / "ledger.parquet"))
    """
    write(f"select * from {LEDGER}")


def with_ledger(relation: str) -> str:
    """A FROM clause: ``relation`` (as ``t``) joined with the ledger rows of its files (as ``l``:
    ``l.path``, ``l.study``, ``l.run_id``), for checks that name each row's file and run.

    Example:
        con.execute(f"select t.*, l.path from {with_ledger('landing.driver_results')}")
    """
    return f"{relation} as t join {LEDGER} as l using (file_id)"


def loaded_by_study(con: duckdb.DuckDBPyConnection) -> list[tuple[str, int, int, int]]:
    """(study, runs, files, rows) of what is loaded, by study; a study.yaml counts for its
    study, a file outside every run folder under "(no run folder)".

    Example:
        loaded_by_study(con)  # [('attls', 44, 176, 5210), ...]
    """
    return con.execute(
        f"""select coalesce(study, case when kind = 'study' then split_part(path, '/', 1) end,
                            '(no run folder)'),
                   count(distinct run_id), count(*), sum(rows_landed)
            from {LEDGER} where status = 'loaded' group by 1 order by 1"""
    ).fetchall()


def set_aside_files(con: duckdb.DuckDBPyConnection) -> list[tuple[str, str, str, bool]]:
    """(path, position, reason, retried on next ingest) of every file set aside.

    Example:
        set_aside_files(con)  # [('attls/r1/results.csv', 'line 3', 'bad value ...', False)]
    """
    return con.execute(
        f"""select path, coalesce(position, ''), reason, retry from {LEDGER}
            where status = 'set_aside' order by path"""
    ).fetchall()
