"""The ``meta`` schema: every table of mqcap's own state, made and migrated here and nowhere else.

A warehouse records the number of the last migration applied in ``meta.ledger_version``;
:func:`ensure` applies the later ones in order, each in its own transaction (sqlite-utils' and
dlt's habit). Every migration's DDL is written to be safe on a warehouse that already has its
tables (``if not exists``), so a warehouse made by any earlier mqcap, with or without a version,
reaches the current schema. Add a change as a new numbered migration at the end; never edit one
that has shipped.

The tables (their columns are documented in the DDL below):

- ``meta.ingest_ledger``: one row per raw file version (loaded, set aside, replaced, deleted).
- ``meta.validation_result``: every GX suite's outcome.
- ``meta.pipeline_event``: free-text events of older versions (read by migration 3).
- ``meta.pipeline_step``: every step's completion per study (checks, build, reports).
- ``meta.build_scope``, ``meta.build_file_spans``: the runs a build owes and the files' time
  spans (``mqcap.ledger.scope``); ``meta.build_runs`` and ``meta.build_file_runs`` are the snapshot
  of the last complete build, replaced whole by ``mqcap.ledger.scope.complete``.

Example:
    with warehouse.connect(settings.warehouse) as con:
        schema.ensure(con)  # landing tables and meta, as this mqcap needs them
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass

import duckdb

from mqcap import warehouse

META = warehouse.META
LEDGER = f"{META}.ingest_ledger"
VALIDATION = f"{META}.validation_result"
EVENTS = f"{META}.pipeline_event"
STEPS = f"{META}.pipeline_step"
SCOPE = f"{META}.build_scope"
SPANS = f"{META}.build_file_spans"
RUNS = f"{META}.build_runs"
FILE_RUNS = f"{META}.build_file_runs"
VERSION = f"{META}.ledger_version"
ALL = "*"  # the study of steps that cover the whole warehouse

# A build recorded by earlier versions as a pipeline_event message (carried over by migration 3).
_OLD_BUILT = "built through file "
_MIGRATED = "migrated: built by an earlier mqcap"

_BASE_DDL = f"""
create sequence if not exists {META}.file_id_seq start 1;
create table if not exists {LEDGER} (
    file_id bigint primary key,
    path varchar not null,          -- relative to the raw root, '/' separated
    sha256 varchar not null,
    bytes bigint not null,
    mtime_ns bigint,                -- lets an unchanged file skip hashing
    kind varchar,                   -- parser kind, NULL when unrecognised
    status varchar not null,        -- loaded | set_aside | replaced | deleted
    reason varchar,                 -- why set aside / replaced
    position varchar,               -- 'line 12' / 'byte 4096' for set-aside files
    retry boolean not null default false,  -- set aside for a reason that can go away
    study varchar,                  -- from the run folder's manifest, NULL outside run folders
    run_id varchar,
    rows_landed bigint not null default 0,
    rows_by_table varchar,          -- JSON object table -> rows
    unknown_lines bigint not null default 0,
    skipped varchar,                -- JSON object of skipped record kinds -> count
    seen_at timestamp not null,
    landed_at timestamp
);
create table if not exists {VALIDATION} (
    validated_at timestamp not null,
    suite varchar not null,
    table_name varchar not null,
    scope varchar not null,         -- landing | mart
    success boolean not null,
    evaluated bigint not null,
    failed bigint not null,
    rows_checked bigint not null,
    details varchar                 -- JSON list of failures
);
create table if not exists {EVENTS} (
    event_at timestamp not null,
    command varchar not null,
    message varchar not null
);
"""

_STEPS_DDL = f"""
create sequence if not exists {META}.pipeline_step_seq start 1;
create table if not exists {STEPS} (
    event_id bigint not null,       -- order of the events (newest = highest)
    step varchar not null,          -- landing_checks | build | mart_checks | report
    study varchar not null,         -- a study, or '*' for the whole warehouse
    part varchar not null,          -- report format (html, pdf); '' for other steps
    status varchar not null,        -- running | done | failed
    inputs varchar,                 -- fingerprint of what the step was made from
    covered bigint[],               -- ledger file_ids covered (build, landing_checks)
    detail varchar,                 -- JSON: failures, or the error of a failed step
    output varchar,                 -- report file written
    output_bytes bigint,
    output_mtime_ns bigint,
    started_at timestamp not null,
    finished_at timestamp
);
"""

_SCOPE_DDL = f"""
create table if not exists {SCOPE} (run_key varchar not null);
create table if not exists {SPANS} (
    file_id bigint not null, clock varchar, span_start timestamp, span_end timestamp);
"""

# The snapshot of the last complete build: made (or dropped) by mqcap.ledger.scope.complete(), absent
# before the first one.
SNAPSHOT_DDL = f"""
create or replace table {RUNS} (
    run_key varchar not null, study varchar, baseline_run_key varchar,
    interval_start timestamp, interval_end timestamp,
    interval_start_utc timestamp, interval_end_utc timestamp, row_hash varchar not null);
create or replace table {FILE_RUNS} (file_id bigint not null, run_key varchar not null);
"""
DROP_SNAPSHOT = f"drop table if exists {RUNS}; drop table if exists {FILE_RUNS}"

# Reasons older versions recorded for what were environment errors, not bad input (a disk-full
# commit, a vanished or unreadable file): migration 2 marks such files to be tried again.
ENVIRONMENT_REASONS = (
    "%TransactionException%",
    "%No space left on device%",
    "%Disk quota exceeded%",
    "%IOException%",
    "%Permission denied%",
    "%PermissionError%",
    "%FileNotFoundError%",
    "%IsADirectoryError%",
    "%NotADirectoryError%",
    "%cannot encode str as UTF-8%",
)


def _base(con: duckdb.DuckDBPyConnection) -> None:
    con.execute(_BASE_DDL)


def _attribution(con: duckdb.DuckDBPyConnection) -> None:
    # Version 1 stored names verbatim; a backslash is now doubled (names.stored_name), and
    # files set aside for an environment reason are tried again.
    con.execute(f"alter table {LEDGER} add column if not exists attribution varchar")
    con.execute(f"alter table {LEDGER} add column if not exists deleted_at timestamp")
    con.execute(
        f"update {LEDGER} set path = replace(path, '\\', '\\\\') where contains(path, '\\')"
    )
    likes = " or ".join("reason like ?" for _ in ENVIRONMENT_REASONS)
    con.execute(
        f"update {LEDGER} set retry = true where status = 'set_aside' and ({likes})",
        list(ENVIRONMENT_REASONS),
    )


def _parser_print(con: duckdb.DuckDBPyConnection) -> None:
    # NULL on the rows of earlier versions: which parser code read those files is not known, so
    # each file is read again once (codeprint.print_is_current).
    con.execute(f"alter table {LEDGER} add column if not exists parser_print varchar")


def _steps(con: duckdb.DuckDBPyConnection) -> None:
    if table_exists(con, META, "pipeline_step"):
        return
    con.execute(_STEPS_DDL)
    old = old_build(con)
    if old is not None:
        con.execute(f"insert into {STEPS} values ({', '.join('?' * 13)})", list(old))


def _scope(con: duckdb.DuckDBPyConnection) -> None:
    con.execute(_SCOPE_DDL)


def old_build(con: duckdb.DuckDBPyConnection) -> tuple | None:
    """The last complete build an earlier mqcap recorded (pipeline_event), as a step row."""
    if not table_exists(con, META, "pipeline_event"):
        return None
    through = con.execute(
        f"""select max(cast(substr(message, {len(_OLD_BUILT) + 1}) as bigint)),
                   max(event_at)
            from {EVENTS} where command = 'build' and message like ?""",
        [_OLD_BUILT + "%"],
    ).fetchall()[0]
    if through[0] is None:
        return None
    ids = [
        r[0]
        for r in con.execute(
            f"select file_id from {LEDGER} where status = 'loaded' and file_id <= ? order by 1",
            [through[0]],
        ).fetchall()
    ]
    # The dbt project that built it is unknown: the inputs never match, so the first run after
    # the upgrade rebuilds everything once (and then knows).
    return (
        0,
        "build",
        ALL,
        "",
        "done",
        _MIGRATED,
        ids,
        None,
        None,
        None,
        None,
        through[1],
        through[1],
    )


@dataclass(frozen=True)
class Migration:
    """One numbered change of the schema. ``makes``: the tables it creates (DDL only, safe to
    apply again): a table missing from a warehouse whose version says it was made (dropped by
    hand) is made again by applying its migration again."""

    number: int
    what: str
    apply: Callable[[duckdb.DuckDBPyConnection], None]
    makes: tuple[str, ...] = ()


MIGRATIONS = (
    Migration(
        1,
        "the ingest ledger, validation results and events",
        _base,
        ("ingest_ledger", "validation_result", "pipeline_event"),
    ),
    Migration(
        2, "ledger: attribution, deleted_at; escaped paths; environment retries", _attribution
    ),
    Migration(
        3, "pipeline steps (a build recorded as an event carried over)", _steps, ("pipeline_step",)
    ),
    Migration(4, "build scope and file spans", _scope, ("build_scope", "build_file_spans")),
    Migration(5, "ledger: parser_print, the parser code that read each file", _parser_print),
)
LATEST = MIGRATIONS[-1].number


def table_exists(con: duckdb.DuckDBPyConnection, schema: str, name: str) -> bool:
    """Whether ``schema.name`` exists (a table or a view).

    Example:
        table_exists(con, "meta", "pipeline_step")  # True
    """
    # A relation of that name binds in well under a millisecond; the catalog functions take
    # about 5 ms (duckdb_tables() sizes every table) and a no-change run asks about six
    # times. Anything else than a plain yes (no such name, a view that no longer binds)
    # is answered by the catalog, as before.
    quoted = ".".join('"' + part.replace('"', '""') + '"' for part in (schema, name))
    try:
        con.table(quoted)
        return True
    except duckdb.Error:
        pass
    # (DuckDB's own catalog functions: about half the time of information_schema.tables)
    return bool(
        con.execute(
            """select 1 from duckdb_tables() where schema_name = ? and table_name = ?
               union all
               select 1 from duckdb_views() where schema_name = ? and view_name = ?""",
            [schema, name, schema, name],
        ).fetchall()
    )


def _meta_tables(con: duckdb.DuckDBPyConnection) -> set[str]:
    return {
        r[0]
        for r in con.execute(
            "select table_name from information_schema.tables where table_schema = ?", [META]
        ).fetchall()
    }


def version(con: duckdb.DuckDBPyConnection) -> int:
    """The number of the last migration this warehouse has (0: none recorded).

    Example:
        version(con)  # 4
    """
    if "ledger_version" not in _meta_tables(con):
        return 0
    row = con.execute(f"select max(version) from {VERSION}").fetchone()
    return int(row[0]) if row and row[0] is not None else 0


def ensure_meta(con: duckdb.DuckDBPyConnection) -> list[int]:
    """Apply the migrations this warehouse lacks (by its version, and for any table it should
    have and has not), all in one transaction: the schema reaches the latest version or stays
    as it was. Returns their numbers; cheap when there is nothing to do (two queries).

    Example:
        ensure_meta(con)  # [] on an up-to-date warehouse
    """
    existing = _meta_tables(con)
    done = version(con) if "ledger_version" in existing else 0
    todo = [
        m for m in MIGRATIONS if m.number > done or any(table not in existing for table in m.makes)
    ]
    if not todo:
        return []
    con.begin()
    try:
        con.execute(f"create schema if not exists {META}")
        con.execute(f"create table if not exists {VERSION} (version integer)")
        for migration in todo:
            migration.apply(con)
        if todo[-1].number > done:
            con.execute(f"insert into {VERSION} values (?)", [todo[-1].number])
        con.commit()
    except BaseException:
        # A failed commit already ended the transaction: its error, not rollback's, is raised.
        with suppress(duckdb.TransactionException):
            con.rollback()
        raise
    return [m.number for m in todo]


def ensure(con: duckdb.DuckDBPyConnection) -> None:
    """Every table this mqcap needs: the landing tables of every parser (``warehouse``) and the
    ``meta`` schema (:func:`ensure_meta`).

    Example:
        with warehouse.connect(settings.warehouse) as con:
            ensure(con)
    """
    warehouse.ensure_landing(con)
    ensure_meta(con)
