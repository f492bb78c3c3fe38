"""No silent drop: what each loaded file landed against what reaches the marts.

``marts.fct_file_reconciliation`` (dbt) counts, per loaded file and landing table a mart reads,
the file's records and those that reach a run, and marks a shortfall that is a finding with its
reason (see the model). This module reads it for ``mqcap status`` and ``mqcap run`` (one line
per finding, exit 1 on ``run``). Where a run folder overrode the ids a file carries is the
ledger's to say (mqcap.ledger.attribution).

Example:
    for line in dropped(con): print(line)
    # rows reach no run: day/netstat.txt: 0 of 12 NETSTAT poll x connection record(s) ...
"""

from __future__ import annotations

import duckdb

from mqcap.ledger.schema import table_exists as _exists
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
