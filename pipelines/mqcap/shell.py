"""``mqcap shell``: an interactive SQL session on the warehouse, in the same read-only sandbox
as ``mqcap sql`` (see :mod:`mqcap.sqlquery`).

Statements end with ``;`` and may span lines; ``.tables`` lists the tables and views,
``.help`` says what is allowed, ``.quit`` (or end of input, Ctrl-D) ends the session. An error
is printed in full and the session goes on. Reads standard input, so it also runs a script
piped into it.
"""

from __future__ import annotations

import contextlib
import sys
from typing import TextIO

import duckdb

from mqcap.errors import UsageError
from mqcap.sqlquery import SANDBOX_HELP, format_table, run_sql

TABLES = """select table_schema || '.' || table_name as name, lower(table_type) as kind
            from information_schema.tables where table_catalog = current_database()
            order by table_schema, table_name"""


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
    say(f"mqcap shell on {warehouse} (read-only). End statements with ;  .help  .tables  .quit")
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
        command = line.strip()
        if not buffer and command.startswith("."):
            if command in (".quit", ".exit", ".q"):
                break
            if command == ".tables":
                say(format_table(con.sql(TABLES).pl(), 10_000))
            elif command == ".help":
                say(SANDBOX_HELP.format(warehouse=warehouse))
            else:
                say(f"unknown command {command}: .help .tables .quit")
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
            say(f"error: {exc}")
    if buffer and "".join(buffer).strip():
        say("error: the last statement has no closing ; and was not run")
        failures += 1
    return failures
