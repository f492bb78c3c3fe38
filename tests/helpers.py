"""Test helpers shared by the test modules."""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

import duckdb
import polars as pl

from mqcap.errors import InputError
from mqcap.parsers.base import ParseContext, Parser
from mqcap.settings import find_project_root

FIXTURES = Path(__file__).parent / "fixtures"
PROJECT = find_project_root(Path(__file__).parent)


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


def query(settings, sql: str, params: list | None = None) -> list[tuple]:
    """Rows of ``sql`` on the warehouse of ``settings``, read-only (closed at once: no lock kept).

    Example:
        query(settings, "select count(*) from landing.driver_results")  # [(10,)]
    """
    con = duckdb.connect(str(settings.warehouse), read_only=True)
    try:
        return con.execute(sql, params or []).fetchall()
    finally:
        con.close()


def landing_fingerprint(
    warehouse: Path, without: list[int] | tuple[int, ...] = ()
) -> dict[str, tuple[int, str]]:
    """Rows and an order-independent checksum of every landing table (and the loaded ledger),
    leaving out the rows (and ledger rows) of the files ``without``: then it equals the
    fingerprint taken before those files landed.

    Example:
        before = landing_fingerprint(settings.warehouse)
    """
    skip = ",".join(str(int(i)) for i in without) or "-1"
    con = duckdb.connect(str(warehouse), read_only=True)
    try:
        names = [
            r[0]
            for r in con.execute(
                "select table_name from information_schema.tables "
                "where table_schema = 'landing' order by 1"
            ).fetchall()
        ]
        # The sum of the rows' hashes: every value of every row, in any order, summed in DuckDB
        # (a repeated row counts twice; fetching the rows into Python cost 88 ms a call on the
        # fault-injection warehouse). One query for every table: a query per table cost three
        # times as much on the mini study's 45 landing tables (0.12 s against 0.04 s).
        out = {n: (0, "0") for n in names}
        if names:
            parts = [
                f"""select '{n}', count(*), coalesce(sum(hash(t)::hugeint), 0)::varchar
                    from landing."{n}" as t where file_id not in ({skip})"""
                for n in names
            ]
            for n, rows, digest in con.execute(" union all ".join(parts)).fetchall():
                out[n] = (rows, digest)
        loaded = con.execute(
            "select path, sha256, rows_landed from meta.ingest_ledger "
            f"where status = 'loaded' and file_id not in ({skip}) order by path"
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


def check_parse_property(
    parser: Parser, name: str, data: bytes, *, must_land: bool = False
) -> None:
    """The fuzzing property every parser keeps, on the bytes ``data`` saved as ``name``.

    Either an :class:`InputError` naming this file and a position inside the input (a line from
    1 to the number of lines for text formats, a byte offset within the data for binary ones), or
    rows that fit the declared tables exactly, each naming this file and a position inside the
    input; ``key``/``name`` columns are never NULL; with ``must_land`` a success lands rows.

    Example:
        check_parse_property(chstatus.PARSER, "chstatus.txt", mutated_bytes, must_land=True)
    """
    text = parser.mode == "text"
    n_lines = data.count(b"\n") + 1
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / name
        path.write_bytes(data)
        try:
            parsed = parse_file(parser, path)
        except InputError as err:
            assert err.file == name
            if text:
                assert err.line is not None and 1 <= err.line <= n_lines, err
            else:
                assert err.offset is not None and 0 <= err.offset <= len(data), err
            return
    if must_land:
        assert parsed.tables, "a parse that succeeds lands something"
    lineage, low, high = ("source_line", 1, n_lines) if text else ("source_offset", 0, len(data))
    for table, frame in parsed.tables.items():
        assert set(frame.columns) == set(parser.table(table).columns)
        if not frame.height:
            continue
        assert frame["source_file"].unique().to_list() == [name]
        if lineage in frame.columns:
            assert frame[lineage].null_count() == 0, table
            assert low <= frame[lineage].min() and frame[lineage].max() <= high, table
        for key in ("key", "name"):
            if key in frame.columns:
                assert frame[key].null_count() == 0, (table, key)


def copy_warehouse(src: Path, dest: Path) -> Path:
    """A copy of the warehouse file ``src`` (e.g. the session's ``sample_warehouse``) at
    ``dest``, a file path; returns ``dest``."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(src, dest)
    return dest


def copy_run(src: Path, dest: Path) -> Path:
    """A copy of a whole mqcap state laid out as the ``settings`` fixture lays it out (``raw/``,
    ``wh/warehouse.duckdb`` with its ``wh/warehouse.mqcap/``, ``reports/``) from ``src`` into
    ``dest``: the raw files keep their times, so mqcap finds the copy up to date (nothing new
    to land, build, check or render). Returns ``dest``."""
    for part in ("raw", "wh", "reports"):
        if (src / part).exists():
            shutil.copytree(src / part, dest / part, symlinks=True, dirs_exist_ok=True)
    return dest


def layout_settings(root: Path):
    """Settings laid out under ``root`` as the ``settings`` fixture lays them out: raw root
    ``raw/``, warehouse ``wh/warehouse.duckdb``, reports ``reports/``; the checkout's project."""
    from mqcap.settings import Settings

    return Settings.load(
        warehouse=root / "wh" / "warehouse.duckdb",
        raw=root / "raw",
        reports_out=root / "reports",
        project_root=PROJECT,
    )


DBT_PROFILE = """\
m:
  target: dev
  outputs:
    dev:
      type: duckdb
      path: "{path}"
      threads: 1
"""


def dbt_in(project: Path, *args: str):
    """``dbt <args>`` in a small dbt project of a test's own (its profiles.yml beside its
    dbt_project.yml), as mqcap runs it: a subprocess, not measured by a coverage run."""
    import os
    import subprocess

    from mqcap.build import dbt_executable

    env = {k: v for k, v in os.environ.items() if not k.startswith("COVERAGE_PROCESS")}
    cmd = [*dbt_executable(), *args, "--project-dir", str(project), "--profiles-dir", str(project)]
    return subprocess.run(cmd, cwd=project, env=env, capture_output=True, text=True)


def duckdb_rows(path: Path, sql: str) -> list[tuple]:
    """The rows of ``sql`` in the DuckDB file ``path``, opened read-only."""
    with duckdb.connect(str(path), read_only=True) as con:
        return con.execute(sql).fetchall()


def group_alive(pgid: int) -> list[str]:
    """The command lines of the live processes of process group ``pgid`` (a zombie, dead and
    waiting to be reaped, is not live).

    Example:
        assert group_alive(proc.pid) == []  # proc started with start_new_session=True
    """
    alive = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if os.getpgid(int(entry.name)) != pgid:
                continue
            if "\nState:\tZ" in (entry / "status").read_text():
                continue
            alive.append((entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()[:160])
        except (ProcessLookupError, FileNotFoundError, PermissionError):
            continue
    return alive
