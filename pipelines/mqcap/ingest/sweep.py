"""Deletions follow the raw folder: a ledger file whose raw file is gone leaves landing.

Every ingest sweeps before it reads anything (so a file set aside as the copy of one deleted
now lands in the same ingest). A file is gone when it was deleted, replaced by a folder, or is
now a link leading out of the raw root (rows read through it must not stay); a folder that
cannot be entered is not a deletion, and neither is an empty raw root (more likely an unmounted
share than a wipe: the ledger is kept and the user told). The rows leave through
``FileLedger.delete``, one transaction per file.

Example:
    gone(raw_path(root, "attls/r1/results.csv"), root)  # 'deleted from the raw folder', or None
"""

from __future__ import annotations

import os
import stat as stat_mod
from collections.abc import Sequence
from pathlib import Path

from mqcap.ingest.report import FileOutcome, IngestReport
from mqcap.ledger.files import FileLedger
from mqcap.names import printable, raw_path
from mqcap.progress import Progress

OUTSIDE_REASON = "now a link leading outside the raw root (its target is not read)"


def gone(path: Path, root: Path | None = None) -> str | None:
    """Why the raw file of a ledger entry no longer exists, or None (it does, or we cannot
    tell: a folder we may not enter is not a deletion). A path that now leads outside ``root``
    (a link re-pointed) is gone from the raw root: rows read through it must not stay."""
    if root is not None and not Path(os.path.realpath(path)).is_relative_to(root):
        return OUTSIDE_REASON
    try:
        st = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return "deleted from the raw folder"
    except OSError:
        return None
    if stat_mod.S_ISDIR(st.st_mode):
        return "replaced by a folder in the raw folder"
    return None


def sweep_deleted(
    ledger: FileLedger,
    root: Path,
    files: Sequence[str | os.PathLike],
    seen: set[str],
    progress: Progress,
    report: IngestReport,
) -> None:
    """Deletions follow the raw folder: entries whose file is gone leave landing.

    ``root``: the raw root, resolved; ``seen``: the stored names of ``files`` (just listed, so
    not gone: no stat for them).

    An empty raw root is more likely an unmounted share than a deliberate wipe: then
    nothing is deleted and the user is told.
    """
    known = ledger.current_paths()
    if not known:
        return
    if not files and not any(not e.name.startswith(".") for e in os.scandir(root)):
        note = (
            f"the raw root {root} is empty: {len(known)} ledger file(s) kept "
            "(an unmounted folder is not a deletion; delete the warehouse to start over)"
        )
        progress.log(printable(note))
        report.notes.append(note)
        return
    unlisted = known.difference(seen)  # (one set operation: most files are listed)
    if not unlisted:
        return
    current = ledger.entries()
    entries = [current[path] for path in unlisted]
    for entry in sorted(entries, key=lambda e: e.file_id):  # (in the order they landed)
        why = gone(raw_path(root, entry.path), root)
        if why is None:
            continue
        removed = ledger.delete(entry, why)
        tables = tuple(sorted(removed)) if entry.status == "loaded" else ()
        if entry.status == "loaded":
            progress.log(printable(f"deleted {entry.path}: {why}"))
        report.outcomes.append(
            FileOutcome(
                entry.path,
                "deleted",
                entry.kind,
                sum(removed.values()),
                why,
                None,
                entry.file_id,
                entry.study,
                entry.run_id,
                tables,
            )
        )
