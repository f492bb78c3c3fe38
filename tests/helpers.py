"""Test helpers shared by the test modules."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

import duckdb
import polars as pl

from mqcap.parsers.base import ParseContext, Parser

FIXTURES = Path(__file__).parent / "fixtures"


@dataclass
class Parsed:
    tables: dict[str, pl.DataFrame]
    ctx: ParseContext

    def __getitem__(self, table: str) -> pl.DataFrame:
        return self.tables[table]


def parse_file(parser: Parser, path: Path, name: str | None = None) -> Parsed:
    """Run ``parser`` on ``path`` the way ingest does; one typed DataFrame per landing table.

    Example:
        parsed = parse_file(driver_csv.PARSER, FIXTURES / "driver" / "results.csv")
        parsed["driver_results"].height
    """
    ctx = ParseContext(path=path, source_file=name or path.name, size=path.stat().st_size)
    frames: dict[str, list[pl.DataFrame]] = {}
    for table_name, rows in parser.parse(ctx):
        frames.setdefault(table_name, []).append(parser.table(table_name).frame(rows))
    return Parsed({t: pl.concat(fs) for t, fs in frames.items()}, ctx)


def landing_fingerprint(warehouse: Path) -> dict[str, tuple[int, str]]:
    """Rows and an order-independent checksum of every landing table (and the loaded ledger).

    Example:
        before = landing_fingerprint(settings.warehouse)
    """
    con = duckdb.connect(str(warehouse), read_only=True)
    try:
        names = [
            r[0]
            for r in con.execute(
                "select table_name from information_schema.tables "
                "where table_schema = 'landing' order by 1"
            ).fetchall()
        ]
        out = {}
        for n in names:
            rows = con.execute(f'select * from landing."{n}"').fetchall()
            digest = hashlib.sha256("\n".join(sorted(repr(r) for r in rows)).encode()).hexdigest()
            out[n] = (len(rows), digest)
        loaded = con.execute(
            "select path, sha256, rows_landed from meta.ingest_ledger "
            "where status = 'loaded' order by path"
        ).fetchall()
        out["meta.ingest_ledger(loaded)"] = (len(loaded), repr(loaded))
        return out
    finally:
        con.close()


def tree_hashes(root: Path) -> dict[str, str]:
    """sha256 of every file under root: raw files must never change."""
    return {
        p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }
