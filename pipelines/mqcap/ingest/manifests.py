"""Run manifests (``run.yaml``) as the batch sees them: read once, checked against the ledger.

A manifest names its study and run; the files of its folder are attributed to that run. Before
one lands, :meth:`Manifests.check_manifest` asks: is the run id free in its study (a manifest
whose folder moved frees its old id: a rename, not a conflict), and does its baseline exist
(in the ledger, or among the manifests this batch lands: :meth:`Manifests.batch_run_ids` reads
those first, once, and keeps each reading)? A problem comes back as a set-aside reason with its
position; environment errors are raised, never turned into a reason.

Example:
    manifests = Manifests(ledger, names)
    manifests.batch_runs = manifests.batch_run_ids(todo)
    problem, (study, run) = manifests.check_manifest(path, "attls/r1/run.yaml")
"""

from __future__ import annotations

from pathlib import Path

from mqcap import faults
from mqcap.errors import InputError
from mqcap.ingest.discovery import RawNames
from mqcap.ingest.landing import reraise_environment
from mqcap.ingest.sweep import gone
from mqcap.ledger.files import FileLedger
from mqcap.names import raw_path
from mqcap.parsers import manifest as manifest_mod
from mqcap.parsers.base import ParseContext, open_input


class Manifests:
    """The manifests of one ingest: each reading kept (per size and mtime), run ids checked."""

    def __init__(self, ledger: FileLedger, names: RawNames) -> None:
        self.ledger = ledger
        self.names = names
        self.batch_runs: dict[str, set[str]] = {}
        self.manifests: dict[Path, tuple[tuple[int, int], dict | BaseException]] = {}

    def check_manifest(
        self,
        path: Path,
        rel: str,
        queued: dict[str, tuple[str | None, str | None]] | None = None,
    ) -> tuple[tuple[str, str | None, bool] | None, tuple[str | None, str | None]]:
        """(problem or None, (study, run)): run ids unique per study, baselines must exist.

        ``queued``: manifest path -> (study, run) of the manifests this batch lands that are not
        committed yet (``Writer.queued_runs``): a loaded manifest queued in a new version
        declares what the new version does, and a queued one is taken as loaded after the
        loaded ones."""
        queued = queued or {}
        try:
            m = self._manifest(path, rel)
        except InputError as exc:
            return (exc.reason, exc.position or None, False), (None, None)
        except Exception as exc:  # a YAML value the loader chokes on (e.g. 2021-02-30)
            reraise_environment(exc)
            return (f"not a valid manifest ({type(exc).__name__}: {exc})", None, False), (
                None,
                None,
            )
        declared = (m["study"], m["run"])
        other = self.ledger.run_defined_by(m["study"], m["run"], rel, queued)
        if other is not None:
            # A moved run folder: the old manifest is gone, so this is a rename, not a conflict.
            why = gone(raw_path(self.names.root(), other), self.names.root())
            entry = self.ledger.current(other)
            if why is not None and entry is not None:
                self.ledger.delete(entry, why)
                other = None
        if other is None:
            other = next((p for p, r in queued.items() if r == declared and p != rel), None)
        if other is not None:
            problem = f"run {m['run']} of study {m['study']} is already defined by {other}"
            return (problem, None, False), declared
        if m["baseline"] and m["baseline"] != m["run"]:
            known = self.ledger.run_defined_by(m["study"], m["baseline"])
            if known is None and m["baseline"] not in self.batch_runs.get(m["study"], set()):
                problem = (
                    f"field baseline: expected a run of study {m['study']}, "
                    f"got {m['baseline']!r} (no such run)"
                )
                return (problem, "line " + str(_line_of(path, "baseline")), True), declared
        return None, declared

    def _manifest(self, path: Path, rel: str) -> dict:
        """A manifest read and validated, once per ingest (the batch's run ids are read first,
        see :meth:`batch_run_ids`); read again if the file changed since."""
        st = path.stat()
        key = (st.st_size, st.st_mtime_ns)
        known = self.manifests.get(path)
        if known is not None and known[0] == key:
            if isinstance(known[1], BaseException):
                raise known[1]
            return known[1]
        m = manifest_mod.load(ParseContext(path=path, source_file=rel))
        self.manifests[path] = (key, m)
        return m

    def batch_run_ids(self, files: list[Path]) -> dict[str, set[str]]:
        """Study -> run ids declared by the manifests among ``files`` (the batch's unsettled
        files: baselines may be among them); each reading is kept for :meth:`check_manifest`."""
        runs: dict[str, set[str]] = {}
        for p in files:
            if p.name.lower() not in manifest_mod.MANIFEST_NAMES:
                continue
            try:
                st = p.stat()
                m = manifest_mod.load(ParseContext(path=p, source_file=self.names.rel(p)))
            except Exception as exc:  # reported with its reason when the manifest is processed
                if not (faults.is_raw_file_problem(exc) or faults.is_warehouse_problem(exc)):
                    self.manifests[p] = ((st.st_size, st.st_mtime_ns), exc)
                continue
            self.manifests[p] = ((st.st_size, st.st_mtime_ns), m)
            runs.setdefault(m["study"], set()).add(m["run"])
        return runs


def _line_of(path: Path, key: str) -> int:
    with open_input(path, path.name) as fh:  # (beneath the raw root, like every raw read)
        text = fh.read(manifest_mod.MAX_MANIFEST_BYTES).decode(errors="replace")
    for n, line in enumerate(text.splitlines(), start=1):
        if line.startswith(f"{key}:"):
            return n
    return 1
