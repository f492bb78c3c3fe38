"""Marts to Parquet for other tools, partitioned by study (``<out>/<mart>/study=<s>/*.parquet``).

``mqcap export`` owns only what it wrote: the files of each export are listed in a manifest of
its own, ``<out>/.mqcap-export.json``, and the next export of a mart removes exactly those (never
a file of the user's beside them; a mart folder holding files mqcap did not write is refused). A
mart with no rows writes nothing (no empty folder).
"""

from __future__ import annotations

import json
import os
import shutil
import uuid
from pathlib import Path

from mqcap import warehouse
from mqcap.errors import UsageError, os_problem
from mqcap.settings import Settings

MANIFEST = ".mqcap-export.json"


def marts(settings: Settings) -> list[str]:
    with warehouse.connect(settings.warehouse, read_only=True) as con:
        rows = con.execute(
            "select table_name from information_schema.tables "
            "where table_schema = 'marts' order by 1"
        ).fetchall()
    return [r[0] for r in rows]


def _read_manifest(out_dir: Path) -> dict[str, list[str]]:
    """Mart -> the files (relative to ``out_dir``) the last export wrote for it."""
    path = out_dir / MANIFEST
    if path.is_symlink():
        raise UsageError(f"{path} is a symlink: mqcap does not follow it; remove it")
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (ValueError, UnicodeDecodeError):
        raise UsageError(
            f"{path} is not the manifest mqcap writes: move it aside to export here"
        ) from None
    marts_ = doc.get("marts") if isinstance(doc, dict) else None
    if not isinstance(marts_, dict) or not all(
        isinstance(v, list) and all(isinstance(f, str) for f in v) for v in marts_.values()
    ):
        raise UsageError(f"{path} is not the manifest mqcap writes: move it aside to export here")
    return marts_


def _write_manifest(out_dir: Path, owned: dict[str, list[str]]) -> None:
    tmp = out_dir / f"{MANIFEST}.{uuid.uuid4().hex}.tmp"
    tmp.write_text(json.dumps({"marts": owned}, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    os.replace(tmp, out_dir / MANIFEST)


def _files_under(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.is_file() or p.is_symlink())


def _check_mart_folder(out_dir: Path, name: str, mine: set[str]) -> None:
    """``out_dir/name`` holds only files the manifest says mqcap wrote (else: refused)."""
    target = out_dir / name
    if target.is_symlink() or (target.exists() and not target.is_dir()):
        raise UsageError(
            f"{target} is not a folder mqcap export wrote: move it aside or export elsewhere"
        )
    if not target.exists():
        return
    foreign = [p for p in _files_under(target) if p.relative_to(out_dir).as_posix() not in mine]
    if foreign:
        raise UsageError(
            f"{target} holds {len(foreign)} file(s) mqcap export did not write (first: "
            f"{foreign[0]}): move them aside or export elsewhere"
        )


def _remove_owned(out_dir: Path, name: str, files: list[str]) -> None:
    """Remove the files of the last export of ``name`` and the folders they leave empty."""
    for rel in files:
        path = out_dir / rel
        path.unlink(missing_ok=True)
        folder = path.parent
        while folder != out_dir and folder.is_dir() and not any(folder.iterdir()):
            folder.rmdir()
            folder = folder.parent


def export_marts(
    settings: Settings, out_dir: Path, only: list[str] | None = None
) -> dict[str, Path | None]:
    """Write each mart as Parquet; marts with a ``study`` column are partitioned by it.

    Returns mart -> its folder (None for a mart with no rows: nothing written).

    Example:
        export_marts(Settings.load(), Path("data/export"))
    """
    names = marts(settings)
    if not names:
        raise UsageError(f"no marts in {settings.warehouse}: run `mqcap build` first")
    unknown = sorted(set(only or []) - set(names))
    if unknown:
        raise UsageError(f"unknown mart(s) {', '.join(unknown)}; known: {', '.join(names)}")
    try:
        return _export(settings, out_dir, list(dict.fromkeys(only or names)))
    except OSError as exc:
        raise os_problem(exc, "write") from None


def _export(settings: Settings, out_dir: Path, chosen: list[str]) -> dict[str, Path | None]:
    if out_dir.exists() and not out_dir.is_dir():
        raise UsageError(f"{out_dir} is a file: give a folder to export into")
    out_dir.mkdir(parents=True, exist_ok=True)
    owned = _read_manifest(out_dir)
    for name in chosen:
        _check_mart_folder(out_dir, name, set(owned.get(name, [])))
    written: dict[str, Path | None] = {}
    work = out_dir / f".mqcap-export-{uuid.uuid4().hex}.tmp"
    work.mkdir()
    try:
        with warehouse.connect(settings.warehouse, read_only=True) as con:
            for name in chosen:
                cols = {
                    r[0]
                    for r in con.execute(
                        "select column_name from information_schema.columns "
                        "where table_schema = 'marts' and table_name = ?",
                        [name],
                    ).fetchall()
                }
                staged = work / name
                path = str(staged).replace("'", "''")
                table = 'marts."' + name.replace('"', '""') + '"'
                (rows,) = con.execute(f"select count(*) from {table}").fetchone()
                if rows and "study" in cols:
                    con.execute(
                        f"copy (select * from {table}) to '{path}' "
                        "(format parquet, partition_by (study))"
                    )
                elif rows:
                    staged.mkdir(parents=True)
                    con.execute(
                        f"copy (select * from {table}) to '{path}/data.parquet' (format parquet)"
                    )
                # Out with the files of the last export, in with these; the user's stay.
                _remove_owned(out_dir, name, owned.pop(name, []))
                files = []
                for src in _files_under(staged) if staged.exists() else []:
                    rel = (Path(name) / src.relative_to(staged)).as_posix()
                    (out_dir / rel).parent.mkdir(parents=True, exist_ok=True)
                    os.replace(src, out_dir / rel)
                    files.append(rel)
                if files:
                    owned[name] = files
                _write_manifest(out_dir, owned)
                written[name] = out_dir / name if files else None
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return written
