"""The dbt process mqcap starts (DuckDB engine): dbt's own command line, run by mqcap's
interpreter, after two things of mqcap's.

* It dies with mqcap (``mqcap.lifeline.die_with_parent``), first of all.
* A ``dbt build`` writes its ``manifest.json`` once, at the end. dbt writes it twice: after
  the parse, then again when the run ends (with what the run compiled), the second over the
  first. Nothing reads the first (mqcap reads ``run_results.json``); writing it took 0.34-0.48 s
  of each build on an idle VM, 0.8-1.3 s under load (serializing about 120 nodes and 600
  macros): about 2.5 % of a ten-run study's build, below the spread of two identical builds
  (four interleaved pairs of whole builds did not show it). The preparation that write does on the manifest in memory (the parent and
  child maps, the group map, the tracking metadata) is still done, so the run sees the same
  manifest. Other commands (``docs generate``, ``parse``, ``ls``) are dbt's as they are.

Example (what ``mqcap.build.dbt_executable`` runs):
    python -c "from mqcap.dbt_process import main; main()" build --project-dir ...
"""

from __future__ import annotations

import sys

from mqcap.lifeline import die_with_parent


def _prepare_only(manifest, target_path: str, which: str | None = None) -> None:
    """What ``dbt.parser.manifest.write_manifest`` does to the manifest in memory
    (``Manifest.writable_manifest``), without serializing and writing it."""
    manifest.build_parent_and_child_maps()
    manifest.build_group_map()
    manifest.fill_tracking_metadata()


def write_manifest_once() -> bool:
    """Make the post-parse ``write_manifest`` of this process prepare only; the end-of-run
    write (``dbt.task.runnable``, which holds its own reference, imported first here) stays.
    False, changing nothing, if this dbt does not have the functions this relies on.

    Example:
        >>> import dbt.parser.manifest as m
        >>> before = m.write_manifest
        >>> write_manifest_once()
        True
        >>> import dbt.task.runnable as r
        >>> r.write_manifest is before and m.write_manifest is _prepare_only
        True
        >>> m.write_manifest = before  # this doctest's process is not a dbt build
    """
    import dbt.parser.manifest as parser_manifest
    import dbt.task.runnable as runnable
    from dbt.contracts.graph.manifest import Manifest

    needed = ("build_parent_and_child_maps", "build_group_map", "fill_tracking_metadata")
    if not (
        callable(getattr(parser_manifest, "write_manifest", None))
        and getattr(runnable, "write_manifest", None) is parser_manifest.write_manifest
        and all(callable(getattr(Manifest, name, None)) for name in needed)
    ):
        return False
    parser_manifest.write_manifest = _prepare_only
    return True


def main() -> None:
    """dbt's command line (``sys.argv[1:]``), as its ``dbt`` script runs it."""
    die_with_parent()
    if sys.argv[1:2] == ["build"]:
        write_manifest_once()
    from dbt.cli.main import cli

    sys.argv[0] = "dbt"
    sys.exit(cli())
