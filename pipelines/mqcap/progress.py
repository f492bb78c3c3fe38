"""Progress for long work: a rich progress bar on a terminal, plain log lines otherwise.

``--quiet`` silences both. Library functions take a :class:`Progress` and never print.
"""

from __future__ import annotations

import sys
import time
from contextlib import AbstractContextManager

from mqcap import environment


def shorten(text: str, width: int) -> str:
    """The end of ``text`` in at most ``width`` characters, cut between words, never inside one.

    The end is kept because that is where a path's file name or a dbt line's model name is.

    Example:
        >>> shorten("12 of 68 OK created sql view model staging.stg_driver_results", 40)
        '… view model staging.stg_driver_results'
    """
    text = " ".join(text.split())
    if len(text) <= width:
        return text
    words = text.split(" ")
    kept: list[str] = []
    for word in reversed(words):
        if len(" ".join([word, *kept])) + 2 > width:
            break
        kept.insert(0, word)
    if not kept:  # one word longer than the room: show it whole rather than a fragment
        return words[-1]
    return "… " + " ".join(kept)


def count(n: float) -> str:
    """A count as a whole number (never ``1.55189e+08``); a fraction keeps one decimal.

    Example:
        >>> count(155189000.0), count(3), count(2.5)
        ('155189000', '3', '2.5')
    """
    if float(n).is_integer():
        return str(int(n))
    return f"{n:.1f}"


class Progress(AbstractContextManager):
    """No-op progress; the base for the others.

    Example:
        with make_progress(quiet=False) as p:
            p.start("ingest", total=3, unit="files")
            p.advance(1, "a.csv")
    """

    def start(self, task: str, total: float | None = None, unit: str = "") -> None: ...

    def advance(self, n: float = 1, detail: str = "") -> None: ...

    def update(self, completed: float, detail: str = "") -> None: ...

    def working(self, detail: str) -> None:
        """What the current step is doing (a file's bytes read, say): the count stays."""

    def set_total(self, total: float) -> None:
        """The total, once known after the start (dbt says how many nodes it will run)."""

    def log(self, message: str) -> None: ...

    def __exit__(self, *exc) -> None:
        return None


class PlainProgress(Progress):
    """Line-oriented progress for logs and pipes: at most one line every few seconds per task.

    Lines are written whole (a pipe or log has no width to fit); only whitespace is collapsed.
    """

    def __init__(self, stream=None, every_s: float = 5.0) -> None:
        self.stream = stream or sys.stderr
        self.every_s = every_s
        self.task = ""
        self.total: float | None = None
        self.done = 0.0
        self.last = 0.0

    def start(self, task: str, total: float | None = None, unit: str = "") -> None:
        self.task, self.total, self.unit, self.done = task, total, unit, 0.0
        self.last = time.monotonic()
        self.log(f"{task}..." + (f" ({count(total)} {unit})" if total else ""))

    def _maybe(self, detail: str) -> None:
        now = time.monotonic()
        if now - self.last >= self.every_s:
            self.last = now
            of = f" of {count(self.total)}" if self.total else ""
            detail = " ".join(detail.split())
            detail = f" ({detail})" if detail else ""
            self.log(f"  {self.task}: {count(self.done)}{of} {self.unit}{detail}".rstrip())

    def advance(self, n: float = 1, detail: str = "") -> None:
        self.done += n
        self._maybe(detail)

    def update(self, completed: float, detail: str = "") -> None:
        self.done = completed
        self._maybe(detail)

    def working(self, detail: str) -> None:
        self._maybe(detail)

    def set_total(self, total: float) -> None:
        self.total = total

    def log(self, message: str) -> None:
        print(message, file=self.stream, flush=True)


class RichProgress(Progress):
    """A live progress bar (terminal only)."""

    def __init__(self) -> None:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )
        from rich.progress import Progress as _P

        self.console = Console(stderr=True)
        self.bar = _P(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TimeRemainingColumn(),
            TextColumn("{task.fields[detail]}"),
            console=self.console,
            transient=False,
        )
        self.bar.start()
        self.task_id = None

    def start(self, task: str, total: float | None = None, unit: str = "") -> None:
        if self.task_id is not None:
            self.bar.update(self.task_id, visible=True)
        self.task_id = self.bar.add_task(task, total=total, detail="")

    def advance(self, n: float = 1, detail: str = "") -> None:
        if self.task_id is not None:
            self.bar.update(self.task_id, advance=n, detail=shorten(detail, 40))

    def update(self, completed: float, detail: str = "") -> None:
        if self.task_id is not None:
            self.bar.update(self.task_id, completed=completed, detail=shorten(detail, 40))

    def working(self, detail: str) -> None:
        if self.task_id is not None:
            self.bar.update(self.task_id, detail=shorten(detail, 40))

    def set_total(self, total: float) -> None:
        if self.task_id is not None:
            self.bar.update(self.task_id, total=total)

    def log(self, message: str) -> None:
        self.bar.console.print(message, markup=False, highlight=False)

    def __exit__(self, *exc) -> None:
        self.bar.stop()


def plain_every_s(default: float = 5.0) -> float:
    """Seconds between plain progress lines: ``MQCAP_PROGRESS_EVERY_S`` or ``default``.

    ``0`` writes a line for every step (every file of an ingest), for logs that must show each.
    """
    if not environment.is_set("MQCAP_PROGRESS_EVERY_S"):
        return default
    return environment.seconds("MQCAP_PROGRESS_EVERY_S")


def make_progress(quiet: bool = False) -> Progress:
    """Rich bar on a terminal, plain lines when piped, nothing when quiet."""
    if quiet:
        return Progress()
    if sys.stderr.isatty():
        return RichProgress()
    return PlainProgress(every_s=plain_every_s())
