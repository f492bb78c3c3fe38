"""Ingest: the per-file fixed cost and the parallel speed-up.

- Many small driver-results files landed through the ledger (500, and 10,000 tiny ones),
  against DuckDB reading the same files with read_csv in one statement (the floor for this
  work). mqcap runs with its default ``jobs`` (the cores), into a fresh warehouse (its schema
  is created inside the measured time); mqcap and DuckDB are imported before timing.
- A multi-file drop (the attls scenario generated at scale 40: SMF dumps, RMF reports,
  CHSTATUS and NETSTAT captures, driver CSVs, manifests) landed with ``--jobs 2`` against the
  same drop with ``--jobs 1``, each into a fresh warehouse (the ratio is the speed-up; the
  machine is shared, so the notes give the load average while it ran).
"""

from __future__ import annotations

import os
from pathlib import Path

from bench.common import measure, result

ROOT = Path(__file__).resolve().parents[1]
SCENARIO = ROOT / "data" / "scenarios" / "attls.yaml"


def _make(raw: Path, files: int, rows: int = 20) -> None:
    for i in range(files):
        d = raw / "bench" / f"run{i:05d}"
        d.mkdir(parents=True)
        (d / "results.csv").write_text(
            "run_id,rate_per_s,round_trip_us,threads\n"
            + "".join(f"r{i}-{j},{1000 + j}.5,{900 + j},4\n" for j in range(rows))
        )


def _ingest(work: Path, raw: Path, name: str, jobs: int | None = None):
    from mqcap.settings import Settings

    settings = Settings.load(warehouse=work / f"{name}.duckdb", raw=raw)
    if jobs is not None:
        settings = settings.with_(jobs=jobs)

    def go():
        import time

        from mqcap import ingest as ingest_mod
        from mqcap.ingest import parsing

        # Time spent preparing files (hash, sniff, parse) in this process: all of it with
        # --jobs 1, the part a worker pool can take off the writer.
        spent = [0.0]
        real = parsing.prepare

        def timed(*args, **kwargs):
            t = time.perf_counter()
            try:
                return real(*args, **kwargs)
            finally:
                spent[0] += time.perf_counter() - t

        parsing.prepare = timed
        settings.warehouse.unlink(missing_ok=True)
        report = ingest_mod.ingest(settings)
        return report.rows, len(report.landed), len(report.set_aside), settings.jobs, spent[0]

    return go


def _read_csv(work: Path, raw: Path):
    def go():
        import duckdb

        con = duckdb.connect(str(work / "ref.duckdb"))
        con.execute("drop table if exists t")
        con.execute(
            f"create table t as select * from read_csv('{raw}/bench/*/results.csv', filename = true)"
        )
        n = con.execute("select count(*) from t").fetchall()[0][0]
        con.close()
        return n

    return go


def _load() -> str:
    one, five, _ = os.getloadavg()
    return f"load average {one:.1f} / {five:.1f} (1 / 5 min)"


def small_files(work: Path, files: int, rows: int) -> dict:
    raw = work / f"raw{files}"
    _make(raw, files, rows)
    t_ing, mem_ing, (landed_rows, landed, _, jobs, _) = measure(
        _ingest(work, raw, f"w{files}"), repeat=3 if files <= 1000 else 1
    )
    t_ref, _, ref_rows = measure(_read_csv(work, raw), repeat=3)
    assert landed_rows == ref_rows == files * rows and landed == files
    return result(
        "ingest",
        f"land {files:,} driver CSV files ({landed_rows:,} rows)",
        t_ing,
        "s",
        "duckdb read_csv of the same files",
        t_ref,
        mem_ing,
        f"best of {3 if files <= 1000 else 1}; "
        f"--jobs {jobs} (default: the cores); batched ledger writes and transactions, one "
        f"sniff per file; {t_ing / files * 1000:.2f} ms per file; {_load()}",
        higher_is_better=False,
    )


def multi_file_drop(work: Path, scale: float) -> dict:
    from mqcap.generate import generate, load_scenario

    raw = work / "drop"
    files = generate(load_scenario(SCENARIO), raw, scale=scale)
    size = sum(f.stat().st_size for f in files)
    before = _load()
    t1, _, one = measure(_ingest(work, raw, "serial", jobs=1))
    t2, mem2, two = measure(_ingest(work, raw, "parallel", jobs=2))
    assert one[:3] == two[:3], (one, two)
    # Amdahl on two cores: the writer's part (landing) stays serial, the preparing is shared.
    prep, writer = one[4], t1 - one[4]
    bound = t1 / max(writer, t1 / 2)
    return result(
        "ingest",
        f"multi-file drop, --jobs 2 vs --jobs 1 (attls x{scale:g}: {len(files):,} files, "
        f"{size / 1e6:.0f} MB, {one[0]:,} rows)",
        t1 / t2,
        "x speed-up",
        "the same drop with --jobs 1 (s)",
        t1,
        mem2,
        f"--jobs 2 took {t2:.2f}s; goal >= 1.7x. With --jobs 1, preparing files (hash, "
        f"sniff, parse: what workers take over) was {prep:.1f}s and the writer's part "
        f"{writer:.1f}s, so two idle cores can give at most {bound:.2f}x. Machine shared with "
        f"other sessions: {before} before, {_load()} after",
    )


def run(work: Path, quick: bool) -> list[dict]:
    # Imported once before forking the measured calls (as bench_validate does for GX): the
    # imports cost the same whatever the drop, they are not per-file cost.
    import duckdb  # noqa: F401

    import mqcap.ingest  # noqa: F401
    from mqcap.parsers import all_parsers

    all_parsers()
    out = [small_files(work, 20 if quick else 500, 20)]
    out.append(small_files(work, 200 if quick else 10_000, 1))
    out.append(multi_file_drop(work, 1 if quick else 40))
    return out
