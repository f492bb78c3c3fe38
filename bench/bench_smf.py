"""SMF decoding throughput: the binary decoder (``smf_mq``) on a >= 500 MB dump, against DuckDB's
own ``read_csv`` of the mq-smf-csv CSV files that describe the same records.

The dump is the three real sample dumps concatenated N times; the reference is, for every
structure file mq-smf-csv wrote for those dumps, one CSV with the header once and the rows
repeated N times (so both sides hold the same rows). Decode time includes building the typed
polars batches the ingest layer lands; it excludes the DuckDB insert, which both share.
"""

from __future__ import annotations

from pathlib import Path

from bench.common import measure, result

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "tests" / "fixtures" / "smf"
GOLDEN = ROOT / "tests" / "fixtures" / "golden" / "mq-smf-csv"
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
    out = []
    for d in DUMPS:
        for f in sorted((GOLDEN / d / "csv").glob("SMF-*.csv")):
            header, *body = f.read_bytes().splitlines(keepends=True)
            target = work / "csv" / d / f.name
            target.parent.mkdir(parents=True, exist_ok=True)
            with open(target, "wb") as fh:
                fh.write(header)
                chunk = b"".join(body)
                for _ in range(copies):
                    fh.write(chunk)
            out.append(target)
    return out


def decode(path: Path) -> int:
    from mqcap.parsers.base import ParseContext
    from mqcap.parsers.smf.binary import PARSER

    ctx = ParseContext(path=path, source_file=path.name, size=path.stat().st_size)
    return sum(df.height for _, df in PARSER.parse(ctx))


def duckdb_read(paths: list[Path]) -> int:
    import duckdb

    con = duckdb.connect()
    rows = 0
    for p in paths:
        # mq-smf-csv headers repeat names (e.g. "CFSync {...}"): let DuckDB dedupe them.
        rows += con.execute(
            f"select count(*) from (select * from read_csv('{p}', header = true, "
            "all_varchar = false))"
        ).fetchall()[0][0]
    con.close()
    return rows


def run(work: Path, quick: bool) -> list[dict]:
    one_mb = sum((SAMPLES / f"{d}.dat").stat().st_size for d in DUMPS) / 1e6
    copies = 4 if quick else int(TARGET_MB / one_mb) + 1
    dump = make_dump(work, copies)
    csvs = make_csvs(work, copies)
    size_mb = dump.stat().st_size / 1e6
    csv_mb = sum(p.stat().st_size for p in csvs) / 1e6
    t_dec, mem_dec, rows = measure(lambda: decode(dump))
    t_ref, mem_ref, ref_rows = measure(lambda: duckdb_read(csvs))
    assert rows == ref_rows, (rows, ref_rows)
    return [
        result(
            "smf",
            f"decode {size_mb:,.0f} MB SMF dump ({rows:,} rows), MB/s",
            size_mb / t_dec,
            "MB/s",
            f"duckdb read_csv of the same rows as mq-smf-csv CSV ({csv_mb:,.0f} MB), MB/s of dump",
            size_mb / t_ref,
            mem_dec,
            f"decode {t_dec:.1f}s vs read_csv {t_ref:.1f}s (time ratio {t_dec / t_ref:.2f}x); "
            f"read_csv peak RSS {mem_ref:.0f} MB",
        )
    ]


if __name__ == "__main__":
    import sys
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        for r in run(Path(tmp), quick="--quick" in sys.argv):
            print(r)
