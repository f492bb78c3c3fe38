"""``mqcap shell``: an interactive SQL session on the warehouse, in the same read-only sandbox
as ``mqcap sql`` (see :mod:`mqcap.sqlquery`).

Statements end with ``;`` and may span lines; ``.tables`` lists the tables and views,
``.help`` says what is allowed, ``.quit`` (or end of input, Ctrl-D) ends the session. An error
is printed in full and the session goes on; Ctrl-C stops the statement running (or drops the
lines typed so far) and the session goes on. Reads standard input, so it also runs a script
piped into it (there Ctrl-C while waiting for input ends the session: exit 130).
"""

from __future__ import annotations

import contextlib
import sys
from typing import TextIO

import duckdb

from mqcap.errors import UsageError
from mqcap.names import printable
from mqcap.sqlquery import SANDBOX_HELP, QueryCancelled, format_table, run_sql

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
            if command == ".tables":
                try:
                    say(format_table(run_sql(con, TABLES, warehouse)[0].frame, 10_000))
                except (UsageError, QueryCancelled) as exc:
                    say(f"error: {printable(exc) or 'cancelled'}")
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
        except QueryCancelled:
            say("cancelled (Ctrl-C): the statement was stopped; the session goes on")
        except Exception as exc:  # a result that cannot be shown: said, and the session goes on
            failures += 1
            say(f"error: {type(exc).__name__}: {printable(exc)}")
    if buffer and "".join(buffer).strip():
        say("error: the last statement has no closing ; and was not run")
        failures += 1
    return failures
