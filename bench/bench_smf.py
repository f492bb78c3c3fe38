"""SMF decoding: a binary dump (>= 500 MB) to landing tables, against IBM's C decoder
mq-smf-csv plus DuckDB ``read_csv`` of the CSV files it writes, side by side on the same dump.

The dump is the three real sample dumps concatenated N times. Our side: ``smf_mq`` decodes the
dump into typed polars batches and lands them in DuckDB tables (in memory). The reference:
mq-smf-csv, compiled from ../shared/reference/mq-smf-csv (outside the tree, see its SOURCES.md)
into a temporary folder, writes its ``-f SQL`` CSV files (one per structure) for the same dump,
then DuckDB lands each with ``create table ... as select * from read_csv(...)``. Both sides land
into a DuckDB file (as the warehouse is) and hold the same rows (asserted). Goal (issue 18): our
time <= 0.5x the reference's. Where no C compiler is present the reference falls back to DuckDB's
read_csv of the golden CSV files repeated N times, and the notes say so.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from bench.common import measure, result

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "tests" / "fixtures" / "smf"
GOLDEN = ROOT / "tests" / "fixtures" / "golden" / "mq-smf-csv"
REFERENCE_SRC = ROOT.parent / "shared" / "reference" / "mq-smf-csv" / "src"
DUMPS = ("TESTCHL", "TEST115", "TEST116")
TARGET_MB = 500


def make_dump(work: Path, copies: int) -> Path:
    one = b"".join((SAMPLES / f"{d}.dat").read_bytes() for d in DUMPS)
    path = work / "smf_bench.dat"
    with open(path, "wb") as fh:
        for _ in range(copies):
            fh.write(one)
    return path


def make_csvs(work: Path, copies: int) -> list[Path]:
    """The golden CSV files with their rows repeated ``copies`` times (no-compiler fallback)."""
    out = []
    for d in DUMPS:
        for f in sorted((GOLDEN / d / "sql").glob("SMF-*.csv")):
            target = work / "csv" / d / f.name
            target.parent.mkdir(parents=True, exist_ok=True)
            with open(target, "wb") as fh:
                body = f.read_bytes()
                for _ in range(copies):
                    fh.write(body)
            out.append(target)
    return out


def build_reference(work: Path) -> Path | None:
    """mq-smf-csv compiled in a temporary folder outside the tree, or None (no compiler)."""
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None or not (REFERENCE_SRC / "Makefile.unix").exists():
        return None
    build = Path(tempfile.mkdtemp(prefix="mq-smf-csv-", dir=work))
    shutil.copytree(REFERENCE_SRC, build, dirs_exist_ok=True)
    proc = subprocess.run(
        ["make", "-s", "-C", str(build), "-f", "Makefile.unix", f"CC={cc}", "mqsmfcsv"],
        capture_output=True,
        text=True,
    )
    exe = build / "mqsmfcsv"
    return exe if proc.returncode == 0 and exe.exists() else None


def decode_and_land(path: Path) -> int:
    import duckdb

    from mqcap.parsers.base import ParseContext
    from mqcap.parsers.smf.binary import PARSER

    db = path.with_suffix(".ours.duckdb")
    db.unlink(missing_ok=True)
    con = duckdb.connect(str(db))
    made: set[str] = set()
    ctx = ParseContext(path=path, source_file=path.name, size=path.stat().st_size)
    for table, df in PARSER.parse(ctx):
        frame = PARSER.table(table).frame(df)
        con.register("batch", frame)
        if table in made:
            con.execute(f"insert into {table} select * from batch")
        else:
            con.execute(f"create table {table} as select * from batch")
            made.add(table)
        con.unregister("batch")
    rows = sum(con.execute(f"select count(*) from {t}").fetchone()[0] for t in made)
    con.close()
    db.unlink()
    return rows


def ingest_dump(path: Path, jobs: int) -> int:
    """``mqcap ingest --jobs N`` of the dump (in a raw folder of its own) into a new warehouse
    file: hashing, the ledger and, with N > 1, the dump parsed in parts by N workers while the
    writer lands the parts as they finish. Returns the rows landed."""
    import os

    from mqcap.ingest import ingest
    from mqcap.settings import Settings

    work = path.parent / f"ingest-{jobs}"
    shutil.rmtree(work, ignore_errors=True)
    (work / "raw" / "day").mkdir(parents=True)
    os.link(path, work / "raw" / "day" / path.name)
    settings = Settings.load(
        warehouse=work / "w.duckdb", raw=work / "raw", jobs=jobs, project_root=ROOT, quiet=True
    )
    report = ingest(settings)
    rows = sum(o.rows for o in report.outcomes)
    shutil.rmtree(work)
    return rows


def decode_only(path: Path) -> int:
    from mqcap.parsers.base import ParseContext
    from mqcap.parsers.smf.binary import PARSER

    ctx = ParseContext(path=path, source_file=path.name, size=path.stat().st_size)
    return sum(PARSER.table(t).frame(df).height for t, df in PARSER.parse(ctx))


def land_csvs(paths: list[Path]) -> int:
    import duckdb

    db = paths[0].parent / "reference.duckdb"
    db.unlink(missing_ok=True)
    con = duckdb.connect(str(db))
    rows = 0
    for i, p in enumerate(paths):
        con.execute(f"create table t{i} as select * from read_csv('{p}', header = false)")
        rows += con.execute(f"select count(*) from t{i}").fetchone()[0]
    con.close()
    db.unlink()
    return rows


def reference(exe: Path, dump: Path, out: Path) -> tuple[int, float, float]:
    """(rows, seconds of mq-smf-csv, seconds of read_csv) for the dump."""
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    t0 = time.perf_counter()
    subprocess.run(
        [str(exe), "-g", "yes", "-f", "SQL", "-i", str(dump), "-o", f"{out}/"],
        check=True,
        capture_output=True,
        cwd=out,
    )
    t1 = time.perf_counter()
    rows = land_csvs(sorted(out.glob("SMF-*.csv")))
    return rows, t1 - t0, time.perf_counter() - t1


def run(work: Path, quick: bool) -> list[dict]:
    one_mb = sum((SAMPLES / f"{d}.dat").stat().st_size for d in DUMPS) / 1e6
    copies = 4 if quick else int(TARGET_MB / one_mb) + 1
    dump = make_dump(work, copies)
    size_mb = dump.stat().st_size / 1e6
    exe = build_reference(work)
    # The two sides take turns, best of two each: a shared machine's load then falls on both.
    t_dec = t_only = t_c = t_csv = t_j1 = t_j2 = float("inf")
    for _ in range(2):
        t, mem_dec, rows = measure(lambda: decode_and_land(dump))
        t_dec = min(t_dec, t)
        t_only = min(t_only, measure(lambda: decode_only(dump))[0])
        t, mem_j1, rows_j1 = measure(lambda: ingest_dump(dump, 1))
        t_j1 = min(t_j1, t)
        t, mem_j2, rows_j2 = measure(lambda: ingest_dump(dump, 2))
        t_j2 = min(t_j2, t)
        if exe is not None:
            _, mem_ref, (ref_rows, c, r) = measure(lambda: reference(exe, dump, work / "ref"))
            if c + r < t_c + t_csv:
                t_c, t_csv = c, r
    if exe is not None:
        ref_name = "mq-smf-csv (C, -O2) -f SQL + DuckDB read_csv of its CSV into tables"
        note = f"mq-smf-csv {t_c:.1f}s + read_csv {t_csv:.1f}s"
    else:
        csvs = make_csvs(work, copies)
        t_csv, mem_ref, ref_rows = measure(lambda: land_csvs(csvs), repeat=2)
        t_c = 0.0
        ref_name = "DuckDB read_csv of the golden mq-smf-csv CSV (no C compiler: C part skipped)"
        note = f"NO C COMPILER: reference is read_csv {t_csv:.1f}s alone"
    assert rows == ref_rows == rows_j1 == rows_j2, (rows, ref_rows, rows_j1, rows_j2)
    t_ref = t_c + t_csv
    # Peak memory of the ingest against the dump's size: the same ingest of a dump 3x as large.
    big = work / "smf_bench_x3.dat"
    with open(big, "wb") as fh:
        for _ in range(3):
            with open(dump, "rb") as src:
                shutil.copyfileobj(src, fh, 1 << 24)
    t_big, mem_big, rows_big = measure(lambda: ingest_dump(big, 2))
    big_mb = big.stat().st_size / 1e6
    big.unlink()
    assert rows_big == 3 * rows, (rows_big, rows)
    return [
        result(
            "smf",
            f"peak RSS of mqcap ingest --jobs 2, {big_mb:,.0f} MB dump (the writer)",
            mem_big,
            "MB",
            f"the same for the {size_mb:,.0f} MB dump",
            mem_j2,
            mem_big,
            f"{rows_big:,} rows in {t_big:.1f}s; ratio ~1 = memory flat in the dump's size; goal "
            "< 1,024 MB. The writer process (DuckDB limited to 512 MB while ingesting, a file's "
            "spooled batches streamed into one insert per table); each of the 2 workers parses "
            "one part at a time (the parser rows above: flat, 150-300 MB)",
            higher_is_better=False,
        ),
        result(
            "smf",
            f"mqcap ingest --jobs 2 of the dump, {size_mb:,.0f} MB ({rows:,} rows), seconds",
            t_j2,
            "s",
            ref_name,
            t_ref,
            mem_j2,
            "the dump parsed in parts by 2 workers, each table landed in one streamed insert: "
            f"{size_mb / t_j2:.0f}"
            f" MB/s vs {note} (time ratio {t_j2 / t_ref:.2f}x, goal <= 0.5x)",
            higher_is_better=False,
        ),
        result(
            "smf",
            f"mqcap ingest of the dump, --jobs 2 vs --jobs 1 ({size_mb:,.0f} MB), seconds",
            t_j2,
            "s",
            "mqcap ingest --jobs 1 of the same dump",
            t_j1,
            mem_j2,
            f"--jobs 1 {t_j1:.1f}s (peak {mem_j1:.0f} MB), --jobs 2 {t_j2:.1f}s: speed-up "
            f"{t_j1 / t_j2:.2f}x (goal >= 1.7x for a drop; the split pass and the hash are "
            "serial, the writer shares the 2 cores with the 2 workers)",
            higher_is_better=False,
        ),
        result(
            "smf",
            f"dump -> landing tables, {size_mb:,.0f} MB ({rows:,} rows), seconds",
            t_dec,
            "s",
            ref_name,
            t_ref,
            mem_dec,
            f"decode+land {t_dec:.1f}s = {size_mb / t_dec:.0f} MB/s (decode alone {t_only:.1f}s, "
            f"so DuckDB's write of the rows ~{max(t_dec - t_only, 0):.1f}s) vs {note} "
            f"(time ratio {t_dec / t_ref:.2f}x, goal <= 0.5x); reference peak RSS {mem_ref:.0f} MB",
            higher_is_better=False,
        ),
    ]


if __name__ == "__main__":
    import sys

    with tempfile.TemporaryDirectory() as tmp:
        for r in run(Path(tmp), quick="--quick" in sys.argv):
            print(r)
