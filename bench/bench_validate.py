"""Validation time (every GX suite in expectations/, landing and marts) on the sample study and on
a study generated 10x larger, against a plain DuckDB scan of the same tables: ``count(*)`` and
min/max of every column the suites check, in one statement per table (the floor: reading the
values once, no verdicts). And the landing pass of a drop (what `mqcap run` checks before dbt:
only the new rows, only the tables they fed) against the same scan of those rows.

Warehouses are built with the real ingest and ``dbt build`` (not timed). GX is imported before
timing in the parent process (each measured call forks from it): its import costs seconds once
per process and is not part of validating more data. Data Docs are not written (they are
rendering, measured apart when asked for).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from bench.common import measure, result

ROOT = Path(__file__).resolve().parents[1]


def _settings(work: Path, name: str):
    from mqcap.settings import Settings

    raw = work / name / "raw"
    raw.mkdir(parents=True, exist_ok=True)
    return Settings.load(
        warehouse=work / name / "wh" / "warehouse.duckdb",
        raw=raw,
        reports_out=work / name / "reports",
        project_root=ROOT,
    )


def _build(settings, scale: float) -> None:
    from mqcap.build import build
    from mqcap.ingest import ingest

    sample = ROOT / "data" / "sample"
    if scale == 1:
        for study in sample.iterdir():
            shutil.copytree(study, settings.raw_root / study.name)
    else:
        from mqcap.generate import generate, load_scenario

        for path in sorted((ROOT / "data" / "scenarios").glob("*.yaml")):
            doc = load_scenario(path)
            if (sample / str(doc["study"])).exists():
                generate(doc, settings.raw_root, scale=scale)
    ingest(settings)
    build(settings)


def _columns(suite: dict) -> list[str]:
    cols = []
    for e in suite["expectations"]:
        for k in ("column", "column_A", "column_B"):
            c = e["kwargs"].get(k)
            if c and c not in cols:
                cols.append(c)
    return cols


def duckdb_scan(settings) -> int:
    """count(*) plus min/max of each checked column of every suite's table; returns rows read."""
    import duckdb

    from mqcap.validate import load_suites

    rows = 0
    con = duckdb.connect(str(settings.warehouse), read_only=True)
    try:
        for suite in load_suites(settings):
            table = suite["meta"]["mqcap"]["table"]
            aggs = ", ".join(f'min("{c}"), max("{c}")' for c in _columns(suite))
            sql = f"select count(*){', ' + aggs if aggs else ''} from {table}"
            rows += con.execute(sql).fetchone()[0]
    finally:
        con.close()
    return rows


def mqcap_validate(settings) -> tuple[int, list[str]]:
    """Rows validated and the failures (a failed check costs a second, complete pass)."""
    from mqcap.validate import validate

    report = validate(settings, "all", docs=False)
    return sum(r.rows for r in report.results), [f.message() for f in report.failures]


def drop_scan(settings, file_ids: list[int]) -> int:
    """count(*) plus min/max of each checked column of the landing suites, over the rows of
    ``file_ids`` only (what the landing pass validates); returns rows read."""
    import duckdb

    from mqcap.validate import load_suites

    rows = 0
    con = duckdb.connect(str(settings.warehouse), read_only=True)
    try:
        for suite in load_suites(settings):
            table = suite["meta"]["mqcap"]["table"]
            if not table.startswith("landing."):
                continue
            cols = [c for c in _columns(suite) if not c.startswith("_")]
            aggs = ", ".join(f'min("{c}"), max("{c}")' for c in cols)
            sql = (
                f"select count(*){', ' + aggs if aggs else ''} from {table} "
                "where file_id in (select unnest(?::bigint[]))"
            )
            rows += con.execute(sql, [file_ids]).fetchone()[0]
    finally:
        con.close()
    return rows


def validate_drop(settings, file_ids: list[int]) -> tuple[int, int, int, list[str]]:
    """The landing pass of `mqcap run` over the files just landed: (rows, suites, checks,
    failures)."""
    from mqcap.validate import validate

    report = validate(settings, "landing", file_ids=file_ids, docs=False)
    return (
        sum(r.rows for r in report.results),
        len(report.results),
        report.checks,
        [f.message() for f in report.failures],
    )


def drops(work: Path, quick: bool) -> list[dict]:
    """Landing validation of a drop (the whole sample; then one more run on top of it)
    against a DuckDB scan of the same new rows."""
    from mqcap.ingest import ingest

    settings = _settings(work, "drop")
    sample = ROOT / "data" / "sample"
    studies = sorted(p for p in sample.iterdir() if p.is_dir())
    held_back = None
    for study in studies:
        shutil.copytree(study, settings.raw_root / study.name)
    # One run folder of the first study comes later, as a small second drop.
    runs = sorted(p for p in (settings.raw_root / studies[0].name).iterdir() if p.is_dir())
    held_back = runs[-1]
    parked = work / "drop" / "parked"
    shutil.move(str(held_back), parked)
    out = []
    for name in ("sample drop", "one more run"):
        if name == "one more run":
            shutil.move(str(parked), held_back)
        report = ingest(settings)
        ids = report.new_file_ids
        seconds, peak, (rows, suites, checks, failed) = measure(
            lambda ids=ids: validate_drop(settings, ids), repeat=1 if quick else 3
        )
        ref_s, _, ref_rows = measure(lambda ids=ids: drop_scan(settings, ids), repeat=3)
        if rows != ref_rows:
            raise RuntimeError(f"validated {rows} rows but the scan read {ref_rows}")
        out.append(
            result(
                "validate",
                f"landing checks of a drop: {name} ({len(ids)} files, {rows:,} rows, "
                f"{suites} suites, {checks} checks)",
                seconds,
                "s",
                "DuckDB count/min/max scan of the same new rows",
                ref_s,
                peak_rss_mb=peak,
                notes=f"{len(failed)} check(s) failed; goal <= 5x. GX costs per expectation "
                f"(about {seconds / max(1, checks) * 1000:.0f} ms each here), "
                "not per row",
                higher_is_better=False,
            )
        )
    return out


def run(work: Path, quick: bool) -> list[dict]:
    from mqcap.validate import _gx_context

    _gx_context()  # import GX once, before forking the measured calls
    out = drops(work, quick)
    cases = [("sample", 1.0)] + ([] if quick else [("10x", 10.0)])
    for name, scale in cases:
        settings = _settings(work, name)
        _build(settings, scale)
        seconds, peak, (rows, failed) = measure(
            lambda s=settings: mqcap_validate(s), repeat=1 if quick else 2
        )
        ref_s, _, ref_rows = measure(lambda s=settings: duckdb_scan(s), repeat=3)
        if rows != ref_rows:
            raise RuntimeError(f"validated {rows} rows but the scan read {ref_rows}")
        suites = len(list((ROOT / "expectations").glob("*.json")))
        checks = sum(
            len(json.loads(p.read_text())["expectations"])
            for p in (ROOT / "expectations").glob("*.json")
        )
        out.append(
            result(
                "validate",
                f"GX validation, all {suites} suites ({checks} checks), {name} study",
                seconds,
                "s",
                "DuckDB count/min/max scan of the same columns",
                ref_s,
                peak_rss_mb=peak,
                notes=f"{rows} rows validated, {len(failed)} check(s) failed"
                + (f" (first: {failed[0][:160]})" if failed else ""),
                higher_is_better=False,
            )
        )
    return out
