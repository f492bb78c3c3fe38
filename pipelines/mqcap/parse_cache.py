"""dbt's parse, kept per kind of invocation so that dbt parses the project in full only when it
changed.

dbt saves its parse as ``<target>/partial_parse.msgpack`` and reuses it when nothing it
depends on changed: the project's files (checksums), dbt's version, the ``--vars`` given, the
target and the profile's connection values. mqcap calls dbt with different ``--vars`` (a full
build, an incremental one, the views-only pass of the Spark engine), and each change of vars
makes dbt throw the saved parse away and parse all again (about 6 s of CPU on this project,
against about 2.5 s reusing it). So each variant's parse is kept under
``<warehouse stem>.mqcap/dbt/parse/<variant>.msgpack`` and put back before dbt runs with the
same variant.

``MQCAP_DBT_PARSE_CACHE`` (a folder) also shares the parses between warehouses: a new
warehouse's first build starts from another's. The DuckDB engine runs dbt in the warehouse's
folder with the file's bare name as its path, so that the profile's connection values (which
dbt hashes) are the same for every warehouse of the same file name.

Nothing is assumed: dbt checks a restored parse against the project as it is and parses again
when anything differs (then the new parse is kept). A parse that cannot be read or written
here only costs time, so copy failures are ignored.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path

from mqcap import environment
from mqcap.settings import Settings

PARSE_FILE = "partial_parse.msgpack"


def variant(settings: Settings, args: list[str]) -> str:
    """A short name for what dbt's saved parse depends on besides the project's files: the
    project folder, the engine, the warehouse's file name and the ``--vars`` of ``args``.

    Example:
        >>> s = Settings.load(warehouse=Path("/d/warehouse.duckdb"), project_root=Path("/p"))
        >>> variant(s, ["build"]) == variant(s, ["docs", "generate"])
        True
        >>> variant(s, ["build", "--vars", "{mqcap_incremental: true}"]) == variant(s, ["build"])
        False
    """
    given = [args[i + 1] for i, a in enumerate(args[:-1]) if a == "--vars"]
    text = "\x00".join(
        [str(settings.project_root), settings.engine, settings.warehouse.name, *given]
    )
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _stores(settings: Settings) -> list[Path]:
    """Where parses are kept: the warehouse's own folder, then the shared one if set."""
    stores = [settings.outputs / "dbt" / "parse"]
    shared = environment.text("MQCAP_DBT_PARSE_CACHE")
    if shared:
        stores.append(Path(shared))
    return stores


def _copy(src: Path, dest: Path) -> None:
    """Copy ``src`` over ``dest`` atomically (a reader never sees half a file)."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_name(f".{dest.name}.{os.getpid()}.tmp")
    try:
        shutil.copyfile(src, tmp)
        os.replace(tmp, dest)
    finally:
        tmp.unlink(missing_ok=True)


def restore(settings: Settings, target: Path, key: str) -> Path | None:
    """Put the kept parse of variant ``key`` in dbt's ``target`` folder; the store it came from,
    or None when none is kept (dbt then parses in full)."""
    for store in _stores(settings):
        kept = store / f"{key}.msgpack"
        try:
            if kept.is_file():
                _copy(kept, target / PARSE_FILE)
                return store
        except OSError:
            continue
    return None


def keep(settings: Settings, target: Path, key: str) -> None:
    """Keep the parse dbt left in ``target`` as variant ``key`` in every store."""
    saved = target / PARSE_FILE
    if not saved.is_file():
        return
    for store in _stores(settings):
        try:
            _copy(saved, store / f"{key}.msgpack")
        except OSError:
            continue
