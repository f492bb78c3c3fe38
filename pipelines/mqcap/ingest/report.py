"""What one ingest did, file by file: the outcomes ``mqcap ingest`` prints and the pipeline reads.

One :class:`FileOutcome` per file the ingest considered (landed, unchanged, set aside, skipped,
deleted), gathered in an :class:`IngestReport` in the batch's order. Nothing here reads the raw
folder or the warehouse: the CLI, the pipeline and the tests read a report without any of the
machinery that made it.

Example:
    report = IngestReport([FileOutcome("s/r1/results.csv", "loaded", "driver_results", 12)])
    report.summary()  # '1 file(s) landed (12 rows), 0 unchanged, 0 set aside'
"""

from __future__ import annotations

from dataclasses import dataclass, field

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


@dataclass
class IngestReport:
    outcomes: list[FileOutcome] = field(default_factory=list)
    # (path, reason) of every loaded file no run can claim (whole warehouse, not only this batch)
    unattributed: list[tuple[str, str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def by_status(self, *statuses: str) -> list[FileOutcome]:
        return [o for o in self.outcomes if o.status in statuses]

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
            f"{len(self.by_status('unchanged'))} unchanged, {len(self.set_aside)} set aside"
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
