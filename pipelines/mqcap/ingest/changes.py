"""What needs work: a raw file's stat, then its sha256, against the ledger's entry for its name.

Most files of a large raw folder are as the ledger has them on every run, so the cheap answer
comes first: :meth:`Changes.settled` decides from the stat alone (size and mtime as recorded:
no hashing, no reading) and is asked for the whole batch before the parse workers start, so
they only get the files that may need work. :meth:`Changes.needs_work` then hashes the rest that
have a version to compare with (a new file is hashed as it is parsed): a file touched but not
changed (same sha256) only has its new mtime remembered. A file set aside
for good stays settled, except a duplicate whose original (a loaded file of its run with the
same content) is gone: it lands now.

Nothing here writes rows; the ledger's answers come from ``mqcap.ledger.files``.

Example:
    changes = Changes(ledger, sha256=lambda path, st: sha256_of(path))
    work, sha, prior, st = changes.needs_work(path, "attls/r1/results.csv")
"""

from __future__ import annotations

import os
import stat as stat_mod
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from mqcap.ingest.report import FileOutcome
from mqcap.ledger.files import Entry, FileLedger, folder_of, stale

# The set-aside reason of a copy; a reason that starts so marks a file to land once its
# original is gone.
DUPLICATE_REASON = "duplicate of {} (same content already loaded)"


def unchanged_outcomes(names: Sequence[str], rels: Mapping[str, str], rows: Mapping) -> list:
    """The outcomes of files :meth:`Changes.settled_in_bulk` settled (``rows``: its answer), in
    the order of ``names``: each as :func:`unchanged` makes it of its loaded entry.

    Example:
        unchanged_outcomes(["/raw/s/a.csv"], {"/raw/s/a.csv": "s/a.csv"}, settled)
        # [FileOutcome('s/a.csv', 'unchanged', 'driver_csv', 0, None, None, 3, 's', 'r1')]
    """
    return [
        FileOutcome(rels[n], "unchanged", r[3], 0, None, None, r[4], r[5], r[6])
        for n in names
        for r in (rows[n],)
    ]


def unchanged(rel: str, prior: Entry) -> FileOutcome:
    """The outcome of a file that is as the ledger has it (loaded, or set aside for good)."""
    set_aside = prior.status == "set_aside"
    return FileOutcome(
        rel,
        "set_aside" if set_aside else "unchanged",
        prior.kind,
        0,
        prior.reason if set_aside else None,
        prior.position if set_aside else None,
        prior.file_id,
        prior.study,
        prior.run_id,
    )


class Changes:
    """The ledger's view of each raw file of one ingest: settled by its stat, or hashed.

    ``sha256(path, st)``: the file's hash (a worker may have hashed it already).
    """

    def __init__(self, ledger: FileLedger, sha256: Callable[[Path, os.stat_result], str]) -> None:
        self.ledger = ledger
        self._sha256 = sha256
        # path string -> (its stat, the entry that stands for it)
        self._settled_stat: dict[str, tuple[os.stat_result, Entry]] = {}
        self._folders: dict | None = None  # run folders, for the duplicates set aside
        self.reread: set[str] = set()  # files read again: their parser changed since

    def settled(self, path: str, rel: str) -> bool:
        """True when the stat alone says the file is as the ledger has it (no work, no hashing);
        a file that cannot be stat'ed is left to ``Ingestor.process`` (it says why). A file set
        aside as a duplicate is settled only while a loaded file of its run still has its
        content: when that one is deleted (swept before this), the duplicate lands."""
        prior = self.ledger.current(rel)
        if prior is None or (prior.status != "loaded" and prior.retry):
            return False
        if prior.status == "set_aside" and self._original_gone(rel, prior):
            return False
        if self.stale(prior):
            return False
        try:
            st = os.stat(path)
        except OSError:
            return True
        if prior.bytes == st.st_size and prior.mtime_ns == st.st_mtime_ns:
            self._settled_stat[path] = (st, prior)  # process() takes it (one stat per file)
            return True
        aside = self._standing_aside(rel, prior)
        if aside is not None and aside.bytes == st.st_size and aside.mtime_ns == st.st_mtime_ns:
            self._settled_stat[path] = (st, aside)
            return True
        return False

    def settled_in_bulk(self, names: Sequence[str], rels: Mapping[str, str]) -> dict[str, tuple]:
        """The files of ``names`` (path strings; ``rels``: their stored names) that
        :meth:`settled` settles by their loaded version's stat, in one pass over the listing:
        path -> the file's row of ``FileLedger.loaded_as_read`` (what its unchanged outcome
        is made of). A file loaded by the parser code of now whose size and mtime are the
        ledger's; every other file (new, changed, set aside, read by other parser code, not
        stat'able) is left out, for :meth:`settled` to decide one by one as before.

        One ``os.stat`` and two look-ups a file, no ``Entry`` (a no-change run over 30,000
        files is mostly this).

        Example:
            names = ["/raw/s/r1/results.csv"]
            changes.settled_in_bulk(names, {names[0]: "s/r1/results.csv"})
            # {'/raw/s/r1/results.csv': ('s/r1/results.csv', 812, 1700000000000000000, ...)}
        """
        known = self.ledger.loaded_as_read()
        found: dict[str, tuple] = {}
        stat = os.stat
        for name in names:
            row = known.get(rels[name])
            if row is None or not row[7]:
                continue
            try:
                st = stat(name)
            except OSError:
                continue
            if row[1] == st.st_size and row[2] == st.st_mtime_ns:
                found[name] = row
        return found

    def take_settled(self, path: str) -> Entry | None:
        """The entry that stands for ``path`` when :meth:`settled` stat'ed it as the ledger has
        it (answered once): its loaded version, or the verdict on the bytes there now."""
        taken = self._settled_stat.pop(path, None)
        return taken[1] if taken is not None else None

    def needs_work(
        self, path: Path, rel: str
    ) -> tuple[bool, str | None, Entry | None, os.stat_result]:
        """(work needed, sha256, current ledger entry, stat of the file). The sha256 is None
        for a file with no version to compare it with (new, or waiting for a retry): it is
        hashed once, as it is parsed (``ingest_pool.prepare``), not here as well."""
        prior = self.ledger.current(rel)
        taken = self._settled_stat.pop(os.fspath(path), None)
        st = taken[0] if taken is not None else path.stat()
        if stat_mod.S_ISDIR(st.st_mode):
            raise IsADirectoryError(21, "Is a directory", str(path))
        settled = prior is not None and (prior.status == "loaded" or not prior.retry)
        if settled and prior.status == "set_aside" and self._original_gone(rel, prior):
            settled = False
        if settled and self.stale(prior):
            settled = False
        if settled and prior.bytes == st.st_size and prior.mtime_ns == st.st_mtime_ns:
            return False, prior.sha256, prior, st
        aside = self._standing_aside(rel, prior) if settled else None
        if aside is not None and aside.bytes == st.st_size and aside.mtime_ns == st.st_mtime_ns:
            return False, aside.sha256, aside, st
        if not settled and aside is None:
            return True, None, prior, st
        sha = self._sha256(path, st)
        for known in (prior if settled else None, aside):
            if known is not None and known.sha256 == sha:
                if known.mtime_ns != st.st_mtime_ns:  # touched, not changed: the new mtime
                    self.ledger.touch(known, st.st_mtime_ns)
                return False, sha, known, st
        return True, sha, prior, st

    def _standing_aside(self, rel: str, prior: Entry) -> Entry | None:
        """The verdict on a newer version of the loaded file ``rel`` (``FileLedger.aside``)
        when it still stands for those bytes: not waiting for a retry, not given by other
        parser code, not a duplicate whose original is gone."""
        if prior.status != "loaded":
            return None
        aside = self.ledger.aside(rel)
        if aside is None or aside.retry or self._original_gone(rel, aside) or self.stale(aside):
            return None
        return aside

    def stale(self, prior: Entry) -> bool:
        """``prior`` was read by other parser code than its parser's now (``ledger.files.stale``):
        read again, its rows replaced (a verdict of bad input given again). Counted in
        ``reread``."""
        if not stale(prior):
            return False
        self.reread.add(prior.path)
        return True

    def _original_gone(self, rel: str, prior: Entry) -> bool:
        """``prior`` was set aside as a duplicate, and no loaded file of its run (see
        ``FileLedger.loaded_with_sha``) has its content any more."""
        if not (prior.reason or "").startswith(DUPLICATE_REASON.partition("{")[0]):
            return False
        if self._folders is None:
            self._folders = self.ledger.run_folders()
        folder = folder_of(rel, self._folders)
        run = self._folders[folder] if folder is not None else (None, None)
        return self.ledger.loaded_with_sha(prior.sha256, rel, run) is None
