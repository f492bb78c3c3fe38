"""Marts to Parquet for other tools, partitioned by study (``<out>/<mart>/study=<s>/*.parquet``)."""

from __future__ import annotations

import shutil
from pathlib import Path

from mqcap import warehouse
from mqcap.errors import UsageError
from mqcap.settings import Settings


def marts(settings: Settings) -> list[str]:
    with warehouse.connect(settings.warehouse, read_only=True) as con:
        rows = con.execute(
            "select table_name from information_schema.tables "
            "where table_schema = 'marts' order by 1"
        ).fetchall()
    return [r[0] for r in rows]


def export_marts(
    settings: Settings, out_dir: Path, only: list[str] | None = None
) -> dict[str, Path]:
    """Write each mart as Parquet; marts with a ``study`` column are partitioned by it.

    Example:
        export_marts(Settings.load(), Path("data/export"))
    """
    names = marts(settings)
    if not names:
        raise UsageError(f"no marts in {settings.warehouse}: run `mqcap build` first")
    unknown = sorted(set(only or []) - set(names))
    if unknown:
        raise UsageError(f"unknown mart(s) {', '.join(unknown)}; known: {', '.join(names)}")
    out_dir.mkdir(parents=True, exist_ok=True)
    written: dict[str, Path] = {}
    with warehouse.connect(settings.warehouse, read_only=True) as con:
        for name in only or names:
            cols = {
                r[0]
                for r in con.execute(
                    "select column_name from information_schema.columns "
                    "where table_schema = 'marts' and table_name = ?",
                    [name],
                ).fetchall()
            }
            target = out_dir / name
            if target.exists():
                shutil.rmtree(target) if target.is_dir() else target.unlink()
            path = str(target).replace("'", "''")
            if "study" in cols:
                con.execute(
                    f"copy (select * from marts.\"{name}\") to '{path}' "
                    "(format parquet, partition_by (study))"
                )
            else:
                target.mkdir(parents=True)
                con.execute(
                    f"copy (select * from marts.\"{name}\") to '{path}/data.parquet' (format parquet)"
                )
            written[name] = target
    return written
