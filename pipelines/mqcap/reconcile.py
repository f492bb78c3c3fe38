"""No silent drop: what each loaded file landed against what reaches the marts.

``marts.fct_file_reconciliation`` (dbt) counts, per loaded file and landing table a mart reads,
the file's records and those that reach a run, and marks a shortfall that is a finding with its
reason (see the model). This module reads it for ``mqcap status`` and ``mqcap run`` (one line
per finding, exit 1 on ``run``), and says where a run folder overrode the ids a file carries:
a results file in a run folder belongs to that run whatever its ``study``/``run_id`` columns
say (the folder wins), and each such file is named with the ids it carries.

Example:
    for line in dropped(con): print(line)
    # rows reach no run: day/netstat.txt: 0 of 12 NETSTAT poll x connection record(s) ...
"""

from __future__ import annotations

from collections.abc import Iterable

import duckdb

from mqcap.ledger.steps import _table_exists as _exists
from mqcap.names import printable


def dropped(con: duckdb.DuckDBPyConnection) -> list[str]:
    """One line per loaded file whose records fall short of the marts (``is_dropped``); empty
    before the first build made the mart.

    Example:
        dropped(con)  # ['rows reach no run: s/r/results.csv: 0 of 2 results row(s) ...']
    """
    if not _exists(con, "marts", "fct_file_reconciliation"):
        return []
    rows = con.execute(
        """select source_file, source_table, record_kind, records, records_reaching, reason
           from marts.fct_file_reconciliation where is_dropped
           order by source_file, source_table"""
    ).fetchall()
    lines = [
        printable(
            f"rows reach no run: {path}: {n - reached:,} of {n:,} {what} record(s) "
            f"(landing.{table}) reach no run: {reason}"
        )
        for path, table, what, n, reached, reason in rows
    ]
    return lines + shared(con)


def shared(con: duckdb.DuckDBPyConnection) -> list[str]:
    """One line per loaded file with records that two or more runs count (``is_shared``): a
    file outside run folders whose records fall in the intervals of overlapping runs. They are
    reported, not summed; an older mart without the column gives none.

    Example:
        shared(con)  # ['records counted in two or more runs: day/netstat.txt: 12 of 12 ...']
    """
    has = con.execute(
        """select count(*) from information_schema.columns where table_schema = 'marts'
           and table_name = 'fct_file_reconciliation' and column_name = 'is_shared'"""
    ).fetchone()[0]
    if not has:
        return []
    rows = con.execute(
        """select source_file, source_table, record_kind, records, records_shared, shared_runs
           from marts.fct_file_reconciliation where is_shared
           order by source_file, source_table"""
    ).fetchall()
    return [
        printable(
            f"records counted in two or more runs: {path}: {n_shared:,} of {n:,} {what} "
            f"record(s) (landing.{table}) fall in the intervals of runs {runs} on their system "
            "and queue manager, and each of those runs counts them: put the file in its run's "
            "folder, or make the runs' intervals not overlap"
        )
        for path, table, what, n, n_shared, runs in rows
    ]


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
            inner join meta.ingest_ledger as ledger on results.file_id = ledger.file_id
            where ledger.status = 'loaded' and ledger.study is not null {only}
              and (coalesce(results.study, ledger.study) <> ledger.study
                   or coalesce(results.run_id, ledger.run_id) <> ledger.run_id)
            group by 1, 2, 3 order by 1""",
        [] if file_ids is None else [sorted(file_ids)],
    ).fetchall()
    return [
        printable(
            f"{path}: {n:,} row(s) name run {named}; taken as run {study}/{run} "
            "(a file in a run folder belongs to that run)"
        )
        for path, study, run, named, n in rows
    ]
