"""``mqcap shell``: an interactive SQL session on the warehouse, in the same read-only sandbox
as ``mqcap sql`` (see :mod:`mqcap.sqlquery`).

Statements end with ``;`` and may span lines. Dot commands (``.help`` lists them): ``.tables``
(the tables and views, by schema), ``.schema`` (the schemas; with a name, its columns as a
``create``), ``.describe NAME`` (columns, types, nulls and the row count), ``.quit`` (or end of
input, Ctrl-D) ends the session. An error
is printed in full and the session goes on; Ctrl-C stops the statement running (or drops the
lines typed so far) and the session goes on. Reads standard input, so it also runs a script
piped into it (there Ctrl-C while waiting for input ends the session: exit 130).
"""

from __future__ import annotations

import contextlib
import sys
import textwrap
from typing import TextIO

import duckdb

from mqcap.errors import UsageError
from mqcap.names import error_text, printable
from mqcap.sqlquery import SANDBOX_HELP, QueryCancelled, format_table, run_sql

TABLES = """select table_schema, table_name, lower(table_type) as kind
            from information_schema.tables where table_catalog = current_database()
            order by table_schema, table_name"""

COMMANDS = """commands (a statement is SQL ending with ;, over as many lines as it takes):
  .tables [SCHEMA]     the tables and views, grouped by schema (or those of SCHEMA)
  .schema [NAME]       the schemas and what they hold; with a table or view name, its columns
  .describe NAME       a table's or view's columns, types, nulls and row count
  .help                this list, and what the sandbox allows
  .quit                end the session (also .exit, .q, or Ctrl-D)
Ctrl-C stops the statement running (or drops the lines typed) and the session goes on.
Names may leave the schema out when only one schema has them: .describe fct_fit"""

# What each of mqcap's schemas holds (shown by .schema).
SCHEMAS = {
    "landing": "rows as parsed from the raw files, each with its source file and position",
    "staging": "dbt views: landing typed and renamed, one per landing table",
    "intermediate": "dbt views: runs, attribution of rows to runs, pivots",
    "marts": "the tables the reports read: dimensions (dim_*) and facts (fct_*)",
    "meta": "the ledger of files and steps, check results",
    "reference": "dbt seeds: the measures, t critical values, the report's sections",
    "main": "DuckDB's default schema",
}


def session(
    con: duckdb.DuckDBPyConnection,
    warehouse,
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
    max_rows: int = 100,
) -> int:
    """Read statements from ``stdin`` until ``.quit`` or its end; answer each on ``stdout``.

    Returns the number of statements that failed.

    Example:
        with warehouse.connect(s.warehouse, read_only=True) as con:
            sandbox(con)
            session(con, s.warehouse)
    """
    stdin = stdin or sys.stdin
    stdout = stdout or sys.stdout
    tty = stdin.isatty()
    if tty:
        with contextlib.suppress(ImportError):
            import readline  # noqa: F401  (line editing and history for input())
    failures = 0
    say = lambda text: print(text, file=stdout, flush=True)  # noqa: E731
    say(
        f"mqcap shell on {warehouse} (read-only). End statements with ;  "
        ".help  .tables  .schema  .describe NAME  .quit"
    )
    buffer: list[str] = []
    while True:
        prompt = "   ...> " if buffer else "mqcap> "
        try:
            if tty:
                line = input(prompt)
            else:
                line = stdin.readline()
                if not line:
                    break
                line = line.rstrip("\n")
        except EOFError:
            break
        except KeyboardInterrupt:
            if not tty:
                raise
            say("^C (the lines typed are dropped; .quit or Ctrl-D ends)")
            buffer = []
            continue
        command = line.strip()
        if not buffer and command.startswith("."):
            if command in (".quit", ".exit", ".q"):
                break
            try:
                say(dot_command(con, warehouse, command))
            except (UsageError, QueryCancelled) as exc:
                failures += 1
                say(f"error: {printable(exc) or 'cancelled'}")
            continue
        buffer.append(line)
        if not command.endswith(";"):
            continue
        text, buffer = "\n".join(buffer), []
        try:
            for result in run_sql(con, text, warehouse):
                if result.frame is not None:
                    say(format_table(result.frame, max_rows))
        except UsageError as exc:
            failures += 1
            say(f"error: {error_text(exc)}")
        except QueryCancelled:
            say("cancelled (Ctrl-C): the statement was stopped; the session goes on")
        except Exception as exc:  # a result that cannot be shown: said, and the session goes on
            failures += 1
            say(f"error: {type(exc).__name__}: {printable(exc)}")
    if buffer and "".join(buffer).strip():
        say("error: the last statement has no closing ; and was not run")
        failures += 1
    return failures


def dot_command(con: duckdb.DuckDBPyConnection, warehouse, command: str) -> str:
    """The answer to one dot command (``.tables``, ``.schema``, ``.describe``, ``.help``).

    Example:
        print(dot_command(con, s.warehouse, ".describe fct_fit"))
    """
    word, _, arg = command.partition(" ")
    arg = arg.strip()
    if word == ".help":
        return COMMANDS + "\n\n" + SANDBOX_HELP.format(warehouse=warehouse)
    if word == ".tables":
        return _tables_text(_catalog(con, warehouse), arg)
    if word == ".schema":
        if not arg:
            return _schemas_text(_catalog(con, warehouse))
        schema, name = _resolve(_catalog(con, warehouse), arg)
        return _create_text(schema, name, _columns(con, warehouse, schema, name))
    if word == ".describe":
        if not arg:
            raise UsageError(".describe needs a table or view name, e.g. .describe marts.dim_run")
        catalog = _catalog(con, warehouse)
        schema, name = _resolve(catalog, arg)
        columns = _columns(con, warehouse, schema, name)
        rows = run_sql(con, f"select count(*) as n from {_ident(schema)}.{_ident(name)}", warehouse)
        count = rows[0].frame.item()
        kind = catalog[(schema, name)]
        head = f"{schema}.{name}: {kind}, {len(columns)} columns, {count:,} rows"
        return head + "\n" + format_table(columns, 10_000)
    raise UsageError(f"unknown command {word}: .help lists the commands")


def _catalog(con: duckdb.DuckDBPyConnection, warehouse) -> dict[tuple[str, str], str]:
    frame = run_sql(con, TABLES, warehouse)[0].frame
    return {
        (schema, name): "view" if kind == "view" else "table"
        for schema, name, kind in frame.iter_rows()
    }


def _tables_text(catalog: dict[tuple[str, str], str], schema: str = "") -> str:
    if schema:
        names = [(s, n, k) for (s, n), k in catalog.items() if s == schema]
        if not names:
            known = ", ".join(sorted({s for s, _ in catalog}))
            raise UsageError(f"no schema {schema!r} (schemas: {known})")
        return "\n".join(f"{s}.{n}  ({k})" for s, n, k in names)
    by_schema: dict[str, list[str]] = {}
    for s, n in catalog:
        by_schema.setdefault(s, []).append(n)
    out = []
    for s, names in by_schema.items():
        out.append(f"{s} ({len(names)}):")
        out.extend(textwrap.wrap(", ".join(names), 96, initial_indent="  ", subsequent_indent="  "))
    return "\n".join(out) if out else "(no tables)"


def _schemas_text(catalog: dict[tuple[str, str], str]) -> str:
    counts: dict[str, list[int]] = {}
    for (s, _), kind in catalog.items():
        counts.setdefault(s, [0, 0])[0 if kind == "table" else 1] += 1
    width = max((len(s) for s in counts), default=0)
    return "\n".join(
        f"{s:<{width}}  {t:>3} tables {v:>3} views  {SCHEMAS.get(s, '')}".rstrip()
        for s, (t, v) in counts.items()
    )


def _resolve(catalog: dict[tuple[str, str], str], name: str) -> tuple[str, str]:
    """``schema.name`` or ``name`` (when one schema has it) -> (schema, name)."""
    schema, _, table = name.rpartition(".")
    found = [k for k in catalog if k[1] == table and (not schema or k[0] == schema)]
    if len(found) == 1:
        return found[0]
    if not found:
        raise UsageError(f"no table or view {name!r} (.tables lists them)")
    choices = ", ".join(f"{s}.{n}" for s, n in found)
    raise UsageError(f"{name!r} is in more than one schema: {choices}; name one")


def _ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _columns(con: duckdb.DuckDBPyConnection, warehouse, schema: str, name: str):
    sql = (
        "select column_name as column, data_type as type, is_nullable as nullable "
        "from information_schema.columns "
        f"where table_schema = {_literal(schema)} and table_name = {_literal(name)} "
        "order by ordinal_position"
    )
    return run_sql(con, sql, warehouse)[0].frame


def _create_text(schema: str, name: str, columns) -> str:
    width = max((len(c) for c in columns["column"]), default=0)
    lines = [
        f"    {_ident(c) if not c.isidentifier() else c:<{width}}  {t}"
        + ("" if nullable == "YES" else " not null")
        for c, t, nullable in columns.iter_rows()
    ]
    return f"create table {schema}.{name} (\n" + ",\n".join(lines) + "\n);"
