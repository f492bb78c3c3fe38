"""Incremental build equals full build: after each change of the raw files, the marts an
incremental `mqcap run` leaves are, row for row, those a full `dbt build` of the same landing
rows makes (README "Incremental build").

The full side is a copy of the incremental warehouse file rebuilt with `mqcap build --full`:
the same landing rows and file ids (a second ingest would number files differently, and file
ids are part of some keys and decide which copy of a record counts).
"""

from __future__ import annotations

import json
import math
import os
import re
import shutil
from pathlib import Path

import duckdb
import pytest

from mqcap.build import build
from mqcap.pipeline import run
from mqcap.settings import Settings

from helpers import PROJECT

# MQCAP_INCREMENTAL_STEPS: how many of the six steps run (the Makefile: all six under CI=true,
# 13 dbt builds of two sample studies; 1 in `make test`, 3 builds). One test either way: the
# six steps begin with the first, so CI does not build the first step twice.
STEPS = int(os.environ.get("MQCAP_INCREMENTAL_STEPS", "1"))

# About 2 minutes of one worker for the first step, 10 for all six (the scheduling weight).
pytestmark = [pytest.mark.e2e, pytest.mark.slow(minutes=2 if STEPS == 1 else 10)]

SAMPLE = PROJECT / "data" / "sample"
HELD_BACK = "tls13-4k"  # a streaming run added in the first incremental step


def _marts(path: Path) -> dict[str, list[tuple]]:
    con = duckdb.connect(str(path), read_only=True)
    try:
        tables = [
            r[0]
            for r in con.execute(
                "select table_name from information_schema.tables "
                "where table_schema = 'marts' order by 1"
            ).fetchall()
        ]
        return {
            t: con.execute(f'select * from marts."{t}" order by all').fetchall() for t in tables
        }
    finally:
        con.close()


def _same(a: object, b: object) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        return math.isclose(a, b, rel_tol=1e-9)
    return a == b


def _differences(incremental: dict, full: dict) -> list[str]:
    out = []
    if incremental.keys() != full.keys():
        out.append(f"tables: {sorted(incremental.keys() ^ full.keys())}")
    for table in sorted(incremental.keys() & full.keys()):
        inc, ful = incremental[table], full[table]
        if len(inc) != len(ful):
            out.append(f"{table}: {len(inc)} rows incremental, {len(ful)} full")
            continue
        for i, (x, y) in enumerate(zip(inc, ful, strict=True)):
            if len(x) != len(y) or not all(_same(p, q) for p, q in zip(x, y, strict=True)):
                out.append(f"{table} row {i}: incremental {x} != full {y}")
                break
    return out


def _runs(path: Path) -> int:
    con = duckdb.connect(str(path), read_only=True)
    try:
        return con.execute("select count(*) from marts.dim_run").fetchall()[0][0]
    finally:
        con.close()


def _nodes_run(settings: Settings) -> tuple[set[str], dict[str, str]]:
    """(materialisations of the models the last dbt build ran, the SQL of each model's row
    checks it ran, from dbt's log: macros/row_checks.sql, a statement of the model's node)."""
    manifest = json.loads((settings.dbt_target / "manifest.json").read_text())["nodes"]
    results = json.loads((settings.dbt_target / "run_results.json").read_text())["results"]
    kinds = {
        manifest[r["unique_id"]]["config"]["materialized"]
        for r in results
        if r["unique_id"].startswith("model.")
    }
    last = (settings.dbt_logs / "dbt.log").read_text().split("Running with dbt=")[-1]
    statement = re.compile(
        r"On (model\.mqcap\.\w+): /\*[^\n]*?\*/\s*(select error\('row checks of .*?)"
        r"(?=^\d\d:\d\d:\d\d\.\d+ \[)",
        re.S | re.M,
    )
    checks = {m.group(1): m.group(2) for m in statement.finditer(last)}
    return kinds, checks


def _models_run_unchecked(settings: Settings) -> set[str]:
    """Models the last dbt build ran, with a primary_key test in the manifest, whose row checks
    it did not run."""
    manifest = json.loads((settings.dbt_target / "manifest.json").read_text())["nodes"]
    results = json.loads((settings.dbt_target / "run_results.json").read_text())["results"]
    ran = {r["unique_id"] for r in results}
    _, checks = _nodes_run(settings)
    return {
        node["attached_node"]
        for node in manifest.values()
        if node.get("resource_type") == "test"
        and node.get("attached_node", "").startswith("model.")
        and node["attached_node"] in ran
        and node["attached_node"] not in checks
    }


def _check_step(settings: Settings, full: Settings, what: str) -> None:
    """`mqcap run` incrementally, then compare every mart row with a full build of a copy."""
    result = run(settings, reports=False)
    assert result.build is not None, what
    # The build really was incremental (a full build would make this test prove nothing).
    m = re.match(r"(\d+) run\(s\) recomputed", result.build.scope)
    assert m, f"{what}: {result.build.scope}"
    assert int(m.group(1)) < _runs(settings.warehouse), f"{what}: {result.build.scope}"
    # Every model run checked its rows in its own node; those of the run-keyed marts on the
    # runs rebuilt, the views (made again when selected) on every row.
    kinds, checks = _nodes_run(settings)
    assert "view" in kinds, f"{what}: {kinds}"
    scoped = {m for m, sql in checks.items() if "meta.build_scope" in sql}
    assert "model.mqcap.fct_run_measures" in scoped, what
    assert not any("stg_" in m for m in scoped), f"{what}: staging checks read every row"
    assert any("stg_" in m for m in checks), what
    assert _models_run_unchecked(settings) == set(), what
    shutil.copyfile(settings.warehouse, full.warehouse)
    done = build(full, full=True)
    assert done.scope.startswith("full build"), done.scope
    diff = _differences(_marts(settings.warehouse), _marts(full.warehouse))
    assert not diff, f"after {what}: " + "; ".join(diff[:5])


def test_incremental_build_equals_full_build_after_each_change(
    settings: Settings, tmp_path: Path
) -> None:
    assert 1 <= STEPS <= 6, f"MQCAP_INCREMENTAL_STEPS={STEPS}: 1 to 6"
    steps = STEPS
    raw = settings.raw_root
    shutil.copytree(SAMPLE / "protection", raw / "protection")
    shutil.copytree(
        SAMPLE / "streaming", raw / "streaming", ignore=shutil.ignore_patterns(HELD_BACK)
    )
    full = settings.with_(warehouse=tmp_path / "full" / "warehouse.duckdb")
    full.warehouse.parent.mkdir(parents=True)
    first = run(settings, reports=False)
    assert first.build is not None and first.build.scope.startswith("full build")

    # 1: a new run lands; a results file changes (a new version of the file).
    shutil.copytree(SAMPLE / "streaming" / HELD_BACK, raw / "streaming" / HELD_BACK)
    results = raw / "protection" / "none-1000b" / "results.csv"
    results.write_text(results.read_text().replace("2380.952,420", "2390.5,415"))
    _check_step(settings, full, "a run added and a results file changed")
    if steps == 1:
        return

    # 2: a file deleted; a run renamed in its run.yaml (its files are re-attributed); a
    # baseline run's results changed (the runs compared with it change too).
    (raw / "streaming" / "tls12-1m" / "rmf_workload.txt").unlink()
    manifest = raw / "streaming" / "tls13-64k" / "run.yaml"
    manifest.write_text(manifest.read_text().replace("run: tls13-64k", "run: tls13-64k-b"))
    baseline = raw / "streaming" / "notls-64k" / "results.csv"
    text = baseline.read_text()
    assert "streaming,notls-64k,4000," in text
    baseline.write_text(text.replace("streaming,notls-64k,4000,", "streaming,notls-64k,3950,"))
    _check_step(settings, full, "a file deleted, a run renamed, a baseline's results changed")
    if steps == 2:
        return

    # 3: an SMF dump moved out of its run folder: its records now reach runs by their time.
    loose = raw / "loose"
    loose.mkdir()
    shutil.move(raw / "streaming" / "tls13-1m" / "mqsmf.bin", loose / "mqsmf.bin")
    _check_step(settings, full, "an SMF dump moved out of its run folder")
    if steps == 3:
        return

    # 4: that dump deleted; a run's interval shortened in its run.yaml (its by-time rows change).
    (loose / "mqsmf.bin").unlink()
    manifest = raw / "streaming" / "tls12-4k" / "run.yaml"
    text = manifest.read_text()
    assert "  end: 2026-02-10T09:09:35" in text
    manifest.write_text(text.replace("  end: 2026-02-10T09:09:35", "  end: 2026-02-10T09:08:50"))
    _check_step(settings, full, "an SMF dump deleted and a run's interval edited")
    if steps == 4:
        return

    # 5: a view dropped from the warehouse by hand: the next build makes the views again.
    _drop_view(settings, "intermediate.int_run_sets")
    results.write_text(results.read_text().replace("2390.5,415", "2391.5,415"))
    _check_step(settings, full, "a view dropped and a results file changed")
    if steps == 5:
        return

    # 6: a view the build scope is read through dropped: a full build, which makes it again.
    _drop_view(settings, "staging.stg_driver__results")
    results.write_text(results.read_text().replace("2391.5,415", "2392.5,415"))
    again = run(settings, reports=False)
    assert again.build is not None
    assert again.build.scope.startswith("full build (a view of the last build cannot be read")
    shutil.copyfile(settings.warehouse, full.warehouse)
    build(full, full=True)
    diff = _differences(_marts(settings.warehouse), _marts(full.warehouse))
    assert not diff, "after a view the scope reads was dropped: " + "; ".join(diff[:5])


def _drop_view(settings: Settings, name: str) -> None:
    con = duckdb.connect(str(settings.warehouse))
    try:
        con.execute(f"drop view {name}")
    finally:
        con.close()
