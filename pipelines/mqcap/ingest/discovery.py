"""Which raw files an ingest considers, in which order, and the names they are stored under.

Reading directory listings only (never a file's bytes, never the ledger):

- :func:`discover` walks the given paths beneath the raw root, refuses paths outside it, skips
  hidden files and folders, notes folders it cannot list (their files are kept, not taken as
  deleted) and links leading out of the root (never read);
- :func:`order_key` is the order the batch takes them in, manifests first (the files of a
  run folder are attributed through theirs), then path by path, whatever ``--jobs`` is;
- :class:`RawNames` is the raw root resolved once per ingest and each file's stored name.

Example:
    files = discover(settings, ["data/raw/attls"])  # [.../run.yaml, .../results.csv, ...]
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from operator import methodcaller
from pathlib import Path

from mqcap.errors import UsageError
from mqcap.names import printable, relative_name
from mqcap.parsers import manifest as manifest_mod
from mqcap.settings import Settings


def _walk(
    folder: Path, root: Path, unreadable: list[Path] | None, outside: list[Path] | None = None
) -> Iterable[str]:
    """Files under ``folder`` that are not hidden (``.name``, folders pruned) and, when a
    symlink, point inside ``root``; folders that cannot be listed are noted in ``unreadable``
    (their files are neither read nor taken as deleted), links to a file outside ``root`` in
    ``outside`` (never read: ingest says so).

    ``os.scandir`` answers "file or folder" from the directory listing itself, so a walk over
    thousands of files makes no system call per file (only symlinks are resolved); the paths
    stay strings until the batch is sorted (a no-change run over 30,000 files is mostly this).
    """
    stack = [str(folder)]
    while stack:
        here = stack.pop()
        try:
            with os.scandir(here) as it:
                listing = list(it)
        except FileNotFoundError:
            continue
        except OSError as exc:
            if unreadable is not None:
                unreadable.append(Path(exc.filename) if exc.filename else Path(here))
            continue
        for entry in listing:
            if entry.name.startswith("."):
                continue
            try:
                if entry.is_file(follow_symlinks=False):  # (a plain file: one call, no stat)
                    yield entry.path
                elif entry.is_dir(follow_symlinks=False):
                    stack.append(entry.path)
                elif entry.is_file():  # (not a socket, fifo, dangling or folder symlink)
                    if not entry.is_symlink() or Path(entry.path).resolve().is_relative_to(root):
                        yield entry.path
                    elif outside is not None:
                        outside.append(Path(entry.path))
            except OSError:
                continue


def discover(
    settings: Settings,
    paths: Iterable[str | os.PathLike] | None = None,
    unreadable: list[Path] | None = None,
    outside: list[Path] | None = None,
) -> list[Path]:
    """Files to consider: everything under the given paths (default: the raw root).

    Paths outside the raw root (also through symlinks or ``..``) are refused: mqcap reads only
    what was dropped there. Hidden files and folders (``.name``) are ignored. Folders that
    cannot be listed are appended to ``unreadable``, links in the root to a file outside it
    to ``outside``.
    """
    return [Path(p) for p in discover_names(settings, paths, unreadable, outside)]


def discover_names(
    settings: Settings,
    paths: Iterable[str | os.PathLike] | None = None,
    unreadable: list[Path] | None = None,
    outside: list[Path] | None = None,
) -> list[str]:
    """:func:`discover` as path strings, in the same order: what an ingest takes, which makes
    ``Path`` objects only of the files it must read (a no-change run over 30,000 files spent a
    fifth of its time building them)."""
    root = settings.raw_root.resolve()
    targets = [Path(p) for p in paths] if paths else [root]
    found: set[str] = set()
    for target in targets:
        full = (target if target.is_absolute() else Path.cwd() / target).resolve()
        if not full.is_relative_to(root):
            raise UsageError(
                f"{printable(target)} is outside the raw root {root}; copy it under the raw root "
                "(or point --raw / MQCAP_RAW at its folder)"
            )
        if not full.exists():
            raise UsageError(f"{printable(target)} does not exist")
        if any(part.startswith(".") for part in full.relative_to(root).parts):
            continue  # hidden, or under a hidden folder
        if full.is_file():
            found.add(str(full))
        else:
            found.update(_walk(full, root, unreadable, outside))
    manifests, data = split_manifests(found)
    return sorted(manifests, key=_components) + sorted(data, key=_components)


# order_key's second part without a Python call per path
_components = methodcaller("replace", "/", "\0")


def is_manifest(path: str) -> bool:
    """Whether the file ``path`` names is a run manifest (by its name, any case)."""
    return path.rpartition("/")[2].lower() in manifest_mod.MANIFEST_NAMES


def split_manifests(paths: Iterable[str]) -> tuple[list[str], list[str]]:
    """(the manifests, the other files) of ``paths``, each in the given order: what
    :func:`is_manifest` says of each, without a call per path (30,000 paths in a no-change run).

    Example:
        >>> split_manifests(["/r/s/r1/a.csv", "/r/s/r1/RUN.yaml", "/r/b.csv"])
        (['/r/s/r1/RUN.yaml'], ['/r/s/r1/a.csv', '/r/b.csv'])
    """
    names = manifest_mod.MANIFEST_NAMES
    manifests: list[str] = []
    data: list[str] = []
    for path in paths:
        (manifests if path.rpartition("/")[2].lower() in names else data).append(path)
    return manifests, data


def order_key(path: str) -> tuple[bool, str]:
    """Manifests first, then by path component by component, as ``Path`` orders paths.

    Joining the components with NUL (which no name holds, and which sorts before every other
    character) makes plain string order the components' order: ``a/x`` before ``a-b/x``, as
    ``Path`` has it, where the strings themselves sort the other way ('-' < '/').
    """
    return (not is_manifest(path), path.replace("/", "\0"))


class RawNames:
    """The raw root, resolved once per ingest, and the stored name of each raw file.

    A no-change run names thousands of files, several times each (discovery, the deletion
    sweep, the manifests' run ids, the outcomes): both are computed once and kept.

    Example:
        names = RawNames(settings.raw_root)
        names.rel(names.root() / "attls" / "r1" / "results.csv")  # 'attls/r1/results.csv'

    Paths may be given as ``Path`` or as ``str`` (an ingest names the files it only stats by
    their strings); both give the same stored name.
    """

    def __init__(self, raw_root: Path) -> None:
        self._raw_root = raw_root
        self._resolved_root: Path | None = None
        self._rels: dict[Path, str] = {}

    def root(self) -> Path:
        """The raw root, resolved once per ingest (a no-change run names thousands of files)."""
        if self._resolved_root is None:
            self._resolved_root = self._raw_root.resolve()
        return self._resolved_root

    def rels(self, names: list[str]) -> dict[str, str]:
        """The stored names of many files given as path strings, in one pass: a file under the
        root whose name needs no escaping (ASCII, no backslash) is its path less the root's,
        as :func:`~mqcap.names.relative_name` has it; any other goes through :meth:`rel`.

        Example:
            names = RawNames(Path("/raw"))
            names.rels(["/raw/a/r1/results.csv"])  # {'/raw/a/r1/results.csv': 'a/r1/results.csv'}
        """
        base = str(self.root()) + "/"
        cut = len(base)
        out = {
            n: n[cut:] if n.startswith(base) and n.isascii() and "\\" not in n else self.rel(n)
            for n in names
        }
        self._rels.update(out)
        return out

    def rel(self, path: Path | str) -> str:
        """The stored name of a raw file (computed once per path per ingest)."""
        name = self._rels.get(path)
        if name is None:
            name = self._rels[path] = relative_name(self.root(), path)
        return name
