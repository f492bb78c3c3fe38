"""Ingest overhead: landing many small driver-results files through the ledger, against DuckDB
reading the same files with read_csv in one statement (the floor for this work)."""

from __future__ import annotations

from pathlib import Path

from bench.common import measure, result


def _make(raw: Path, files: int) -> None:
    for i in range(files):
        d = raw / "bench" / f"run{i:05d}"
        d.mkdir(parents=True)
        (d / "results.csv").write_text(
            "run_id,rate_per_s,round_trip_us,threads\n"
            + "".join(f"r{i}-{j},{1000 + j}.5,{900 + j},4\n" for j in range(20))
        )


def run(work: Path, quick: bool) -> list[dict]:
    from mqcap.ingest import ingest
    from mqcap.settings import Settings

    files = 20 if quick else 500
    raw = work / "raw"
    _make(raw, files)
    settings = Settings.load(warehouse=work / "w.duckdb", raw=raw)

    def mqcap_ingest():
        settings.warehouse.unlink(missing_ok=True)
        return ingest(settings).rows

    def duckdb_read_csv():
        import duckdb

        con = duckdb.connect(str(work / "ref.duckdb"))
        con.execute("drop table if exists t")
        con.execute(
            f"create table t as select * from read_csv('{raw}/bench/*/results.csv', filename = true)"
        )
        n = con.execute("select count(*) from t").fetchall()[0][0]
        con.close()
        return n

    t_ing, mem_ing, rows = measure(mqcap_ingest)
    t_ref, _, ref_rows = measure(duckdb_read_csv)
    assert rows == ref_rows == files * 20
    return [
        result(
            "ingest",
            f"land {files} driver CSV files ({rows} rows)",
            t_ing,
            "s",
            "duckdb read_csv of the same files",
            t_ref,
            mem_ing,
            "per-file transaction, sha256, ledger row, format detection",
        )
    ]
