"""Exceptions the CLI maps to clean messages and exit codes.

Exit codes: 0 ok, 1 data problems found or the pipeline could not complete (a file set aside,
a failed check or dbt build, an unattributed file, a busy or damaged warehouse), 2 usage
error, 3 environment problem (disk full, warehouse not writable: nothing set aside, run
again), 130 interrupted (Ctrl-C).
"""

from __future__ import annotations


class MqcapError(Exception):
    """Base class; ``exit_code`` tells the CLI how to end. ``multiline`` errors (a query's
    failure with the engine's hint and caret lines) print line by line, each line made safe;
    every other message prints as one line (a hostile file name cannot start a line of its own).
    """

    exit_code = 1
    multiline = False


class UsageError(MqcapError):
    """The user asked for something that cannot be done as asked (bad option, unknown study)."""

    exit_code = 2


class DataError(MqcapError):
    """Input data is wrong; the message names the file and the position."""

    exit_code = 1


class InputError(DataError):
    """Bad input in one file, at one position (line number for text, byte offset for binary).

    Example:
        >>> str(InputError("truncated record", file="smf/a.dat", offset=4096))
        'smf/a.dat at byte 4096: truncated record'
    """

    def __init__(
        self,
        message: str,
        *,
        file: str,
        line: int | None = None,
        offset: int | None = None,
        field: str | None = None,
    ) -> None:
        self.reason = message
        self.file = file
        self.line = line
        self.offset = offset
        self.field = field
        super().__init__(f"{self.where()}: {message}")

    def where(self) -> str:
        if self.line is not None:
            return f"{self.file} line {self.line}"
        if self.offset is not None:
            return f"{self.file} at byte {self.offset}"
        return self.file

    @property
    def position(self) -> str:
        if self.line is not None:
            return f"line {self.line}"
        if self.offset is not None:
            return f"byte {self.offset}"
        return ""


class WarehouseBusyError(MqcapError):
    """Another process holds the DuckDB warehouse for writing."""

    exit_code = 1


class EnvironmentProblem(MqcapError):
    """The machine, not the data: disk full, the warehouse not writable. Nothing was set aside;
    what was committed before stays, and running the command again retries the rest."""

    exit_code = 3


class WarehouseDamagedError(MqcapError):
    """The warehouse file is truncated, corrupted or not a DuckDB file."""

    exit_code = 1


# errno values that say the machine is the problem (run again once it is fixed), not the request.
_ENVIRONMENT_ERRNOS = {"EACCES", "EPERM", "ENOSPC", "EDQUOT", "EROFS", "EIO", "EMFILE", "ENFILE"}


def os_problem(exc: OSError, doing: str = "") -> MqcapError:
    """An ``OSError`` as one line and its exit code: 3 when the machine is the problem (no
    permission, disk full, read-only file system, I/O error), else 2 (no such file, a file where
    a folder is needed, a name too long, a symlink loop...).

    Example:
        >>> e = os_problem(OSError(28, "No space left on device", "/dev/full"), "write")
        >>> str(e), e.exit_code
        ('cannot write /dev/full: No space left on device', 3)
    """
    import errno

    name = errno.errorcode.get(exc.errno or 0, "")
    where = f" {exc.filename}" if exc.filename is not None else ""
    if exc.filename2 is not None:
        where += f" -> {exc.filename2}"
    reason = exc.strerror or str(exc) or type(exc).__name__
    text = f"cannot {doing or 'use'}{where}: {reason}"
    return EnvironmentProblem(text) if name in _ENVIRONMENT_ERRNOS else UsageError(text)
