"""Where a run folder overrode the ids a file carries: a results file in a run folder belongs to
that run whatever its ``study``/``run_id`` columns say, and a dump in a run folder is the run's
whatever system its records name (the folder wins). Each such file is named with the ids it
carries, never taken in silence (``mqcap status``, the run's notes).

Example:
    for line in folder_notes(con): print(line)
"""

from __future__ import annotations

from collections.abc import Iterable

import duckdb

from mqcap.ledger.schema import LEDGER
from mqcap.ledger.schema import table_exists as _exists
from mqcap.names import printable


def folder_notes(
    con: duckdb.DuckDBPyConnection, file_ids: Iterable[int] | None = None
) -> list[str]:
    """One line per loaded results file in a run folder whose ``study``/``run_id`` columns name
    another run: the ids it carries and the run it was taken as (its folder's). ``file_ids``:
    only those files (default: every loaded one).

    Example:
        folder_notes(con)  # ['b/r1/results.csv: its rows name run a/r9; taken as run b/r1 ...']
    """
    if not _exists(con, "landing", "driver_results"):
        return []
    only = "" if file_ids is None else "and ledger.file_id in (select unnest(?::bigint[]))"
    rows = con.execute(
        f"""select ledger.path, ledger.study, ledger.run_id,
                   string_agg(distinct coalesce(results.study, ledger.study) || '/'
                              || coalesce(results.run_id, ledger.run_id), ', '
                              order by coalesce(results.study, ledger.study) || '/'
                              || coalesce(results.run_id, ledger.run_id)),
                   count(*)
            from landing.driver_results as results
            inner join {LEDGER} as ledger on results.file_id = ledger.file_id
            where ledger.status = 'loaded' and ledger.study is not null {only}
              and (coalesce(results.study, ledger.study) <> ledger.study
                   or coalesce(results.run_id, ledger.run_id) <> ledger.run_id)
            group by 1, 2, 3 order by 1""",
        [] if file_ids is None else [sorted(file_ids)],
    ).fetchall()
    notes = [
        printable(
            f"{path}: {n:,} row(s) name run {named}; taken as run {study}/{run} "
            "(a file in a run folder belongs to that run)"
        )
        for path, study, run, named, n in rows
    ]
    return notes + identity_notes(con, file_ids)


def _identity_tables(con: duckdb.DuckDBPyConnection) -> list[tuple[str, bool]]:
    """Landing tables whose rows carry the system id they were measured on (SMF, RMF crypto,
    CPU intervals): (table, has a qmgr column)."""
    cols: dict[str, set[str]] = {}
    for table, column in con.execute(
        """select table_name, column_name from information_schema.columns
           where table_schema = 'landing' and table_name <> 'run_manifest'
             and column_name in ('file_id', 'system_id', 'qmgr')"""
    ).fetchall():
        cols.setdefault(table, set()).add(column)
    return sorted((t, "qmgr" in c) for t, c in cols.items() if {"file_id", "system_id"} <= c)


def identity_notes(
    con: duckdb.DuckDBPyConnection, file_ids: Iterable[int] | None = None
) -> list[str]:
    """One line per loaded file in a run folder whose records name another system (or queue
    manager) than the run's run.yaml: the folder wins (its records are the run's), and the ids
    they carry are named, never taken in silence. ``file_ids``: only those files.

    Example:
        identity_notes(con)  # ['s/r1/day.smf: its records are of system MV42; taken as ...']
    """
    tables = _identity_tables(con)
    if not tables or not _exists(con, "landing", "run_manifest"):
        return []
    params = [] if file_ids is None else [sorted(file_ids)]
    inputs = _identity_inputs(tables, file_ids is not None)
    # Most warehouses have no such file: asked first without the per-file aggregates (an
    # ordered distinct aggregate per file is most of the time of the query below: 10,000 run
    # folders, 65 against 13 ms).
    if not con.execute(
        f"""{inputs}
            select 1 from carried as c
            inner join folder_files as f on c.file_id = f.file_id
            inner join runs as r on f.study = r.study and f.run_id = r.run_id
            where (r.system_id is not null and c.system_id <> r.system_id)
               or (r.qmgr is not null and c.qmgr <> r.qmgr)
            limit 1""",
        params,
    ).fetchall():
        return []
    rows = con.execute(
        f"""{inputs}
            select f.path, f.study, f.run_id, any_value(r.system_id), any_value(r.qmgr),
                   string_agg(distinct c.system_id, ', ' order by c.system_id)
                       filter (where r.system_id is not null and c.system_id <> r.system_id),
                   string_agg(distinct c.qmgr, ', ' order by c.qmgr)
                       filter (where r.qmgr is not null and c.qmgr <> r.qmgr)
            from carried as c
            inner join folder_files as f on c.file_id = f.file_id
            inner join runs as r on f.study = r.study and f.run_id = r.run_id
            group by f.path, f.study, f.run_id
            having count(*) filter (where (r.system_id is not null and c.system_id <> r.system_id)
                                       or (r.qmgr is not null and c.qmgr <> r.qmgr)) > 0
            order by f.path""",
        params,
    ).fetchall()
    out = []
    for path, study, run, want_sys, want_qmgr, other_sys, other_qmgr in rows:
        carried_ids = "; ".join(
            x
            for x in (
                f"system {other_sys} (run.yaml: {want_sys})" if other_sys else "",
                f"queue manager {other_qmgr} (run.yaml: {want_qmgr})" if other_qmgr else "",
            )
            if x
        )
        out.append(
            printable(
                f"{path}: its records are of {carried_ids}; taken as run {study}/{run} "
                "(a file in a run folder belongs to that run)"
            )
        )
    return out


def _identity_inputs(tables: list[tuple[str, bool]], only: bool) -> str:
    """The common table expressions of :func:`identity_notes`: ``folder_files`` (loaded files
    of run folders; ``only``: those of the query's parameter), ``runs`` (each loaded run's
    system and queue manager) and ``carried`` (the ids each of those files' records carry)."""
    only_sql = "and ledger.file_id in (select unnest(?::bigint[]))" if only else ""
    carried = " union all ".join(
        f"select file_id, upper(system_id) as system_id, "
        f"{'upper(qmgr)' if has_qmgr else 'null'} as qmgr from landing.{table}"
        for table, has_qmgr in tables
    )
    return f"""with folder_files as (
                select ledger.file_id, ledger.path, ledger.study, ledger.run_id
                from {LEDGER} as ledger
                where ledger.status = 'loaded' and ledger.run_id is not null {only_sql}
            ),
            runs as (
                select manifest.study, manifest.run_id, upper(manifest.system_id) as system_id,
                       upper(manifest.qmgr) as qmgr
                from landing.run_manifest as manifest
                inner join {LEDGER} as m on manifest.file_id = m.file_id
                where m.status = 'loaded'
            ),
            carried as (
                select * from ({carried}) as c
                where c.file_id in (select file_id from folder_files)
            )"""
