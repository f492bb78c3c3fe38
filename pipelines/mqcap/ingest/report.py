"""What one ingest did, file by file: the outcomes ``mqcap ingest`` prints and the pipeline reads.

One :class:`FileOutcome` per file the ingest considered (landed, unchanged, set aside, skipped,
deleted), gathered in an :class:`IngestReport` in the batch's order (the files settled
unchanged in bulk counted, their outcomes made when read: :class:`UnchangedFiles`). Nothing here
reads the raw folder or the warehouse: the CLI, the pipeline and the tests read a report without
any of the machinery that made it.

Example:
    report = IngestReport([FileOutcome("s/r1/results.csv", "loaded", "driver_results", 12)])
    report.summary()  # '1 file(s) landed (12 rows), 0 unchanged, 0 set aside'
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from mqcap.names import printable


@dataclass
class FileOutcome:
    path: str
    status: str  # loaded | replaced | unchanged | set_aside | skipped | deleted
    kind: str | None = None
    rows: int = 0
    reason: str | None = None
    position: str | None = None
    file_id: int | None = None
    study: str | None = None
    run_id: str | None = None
    tables: tuple[str, ...] = ()  # landing tables whose rows changed (added, replaced, removed)


@dataclass(frozen=True)
class UnchangedFiles:
    """Files an ingest found as the ledger has them, in the batch's order: counted, their
    :class:`FileOutcome` objects made only when someone reads them (``make()``: the list).

    A no-change run over 30,000 files reports 30,000 unchanged files; its summary needs only
    how many.
    """

    count: int
    make: Callable[[], list[FileOutcome]]
    status: str = "unchanged"


class IngestReport:
    """Every file's outcome, in the batch's order (``outcomes``); files settled unchanged in
    bulk are held as :class:`UnchangedFiles` until ``outcomes`` is read (their count is
    known without it). ``unattributed``: (path, reason) of every loaded file no run can
    claim (whole warehouse, not only this batch).

    Example:
        report = IngestReport()
        report.add_unchanged(UnchangedFiles(2, lambda: [FileOutcome("a", "unchanged")] * 2))
        report.count("unchanged"), len(report.outcomes)  # (2, 2)
    """

    def __init__(
        self,
        outcomes: list[FileOutcome] | None = None,
        unattributed: list[tuple[str, str]] | None = None,
        notes: list[str] | None = None,
    ) -> None:
        self._items: list = list(outcomes or [])
        self._held = 0  # UnchangedFiles in _items
        self.unattributed = unattributed if unattributed is not None else []
        self.notes = notes if notes is not None else []

    @property
    def outcomes(self) -> list[FileOutcome]:
        if self._held:
            self._items[:] = [
                o
                for item in self._items
                for o in (item.make() if isinstance(item, UnchangedFiles) else (item,))
            ]
            self._held = 0
        return self._items

    @outcomes.setter
    def outcomes(self, outcomes: list[FileOutcome]) -> None:
        self._items, self._held = outcomes, 0

    def add_unchanged(self, files: UnchangedFiles) -> None:
        """Files found unchanged, next in the batch's order (their outcomes made when read)."""
        if files.count:
            self._items.append(files)
            self._held += 1

    def count(self, status: str) -> int:
        """How many files have the outcome ``status`` (unchanged ones counted, not made).

        Example:
            IngestReport([FileOutcome("a", "loaded", rows=3)]).count("loaded")  # 1
        """
        return sum(getattr(o, "count", 1) for o in self._items if o.status == status)

    def by_status(self, *statuses: str) -> list[FileOutcome]:
        items = self.outcomes if "unchanged" in statuses else self._items
        return [o for o in items if o.status in statuses]

    @property
    def landed(self) -> list[FileOutcome]:
        return self.by_status("loaded", "replaced")

    @property
    def set_aside(self) -> list[FileOutcome]:
        return self.by_status("set_aside")

    @property
    def skipped(self) -> list[FileOutcome]:
        """Files not read for an environment reason; the next ingest retries them."""
        return self.by_status("skipped")

    @property
    def deleted(self) -> list[FileOutcome]:
        return self.by_status("deleted")

    @property
    def rows(self) -> int:
        return sum(o.rows for o in self.landed)

    @property
    def new_file_ids(self) -> list[int]:
        return [o.file_id for o in self.landed if o.file_id is not None]

    def summary(self) -> str:
        extra = [
            f"{len(items)} {what}"
            for items, what in (
                (self.deleted, "deleted"),
                (self.skipped, "skipped (retried next time)"),
                (self.unattributed, "unattributed"),
            )
            if items
        ]
        return (
            f"{len(self.landed)} file(s) landed ({self.rows} rows), "
            f"{self.count('unchanged')} unchanged, {len(self.set_aside)} set aside"
            + "".join(f", {e}" for e in extra)
        )

    def problem_lines(self) -> list[str]:
        """One printable line per file that needs the user's attention."""
        lines = []
        for o in self.set_aside:
            where = f" ({o.position})" if o.position else ""
            lines.append(f"set aside: {o.path}{where}: {o.reason}")
        for o in self.skipped:
            lines.append(f"skipped: {o.path}: {o.reason}")
        for path, reason in self.unattributed:
            lines.append(f"unattributed: {path}: {reason}")
        return [printable(line) for line in lines]
