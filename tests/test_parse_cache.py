"""dbt's saved parse kept per variant and shared between warehouses (mqcap.parse_cache): a
warehouse's dbt run with other ``--vars`` than its last, or a new warehouse's first, reuses a
kept parse instead of parsing the project in full, and a kept parse never hides a change of
the project (dbt checks it; the changed file is parsed again).

Real dbt: ``dbt parse`` through ``run_dbt``, read back from dbt's own log."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from mqcap import parse_cache
from mqcap.build import run_dbt
from mqcap.settings import Settings

from helpers import PROJECT

FULL = "Unable to do partial parsing"
REUSED = "Partial parsing enabled"


def _settings(folder: Path, project: Path = PROJECT) -> Settings:
    folder.mkdir(parents=True, exist_ok=True)
    return Settings.load(warehouse=folder / "warehouse.duckdb", raw=folder, project_root=project)


def _parse(settings: Settings, *args: str) -> str:
    """``dbt parse`` on ``settings``; the lines of dbt's log this run wrote about parsing."""
    log = settings.dbt_logs / "dbt.log"
    before = log.stat().st_size if log.exists() else 0
    proc = run_dbt(settings, ["parse", *args])
    assert proc.returncode == 0, proc.stdout[-2000:]
    with open(log, "rb") as f:
        f.seek(before)
        text = f.read().decode(errors="replace")
    return "\n".join(ln for ln in text.splitlines() if "partial pars" in ln.lower())


@pytest.fixture
def shared(tmp_path, monkeypatch) -> Path:
    folder = tmp_path / "shared-parse"
    monkeypatch.setenv("MQCAP_DBT_PARSE_CACHE", str(folder))
    return folder


def test_each_variant_of_vars_keeps_its_own_parse(tmp_path, monkeypatch):
    monkeypatch.delenv("MQCAP_DBT_PARSE_CACHE", raising=False)
    s = _settings(tmp_path / "a")
    incremental = ("--vars", "{mqcap_incremental: true}")
    assert FULL in _parse(s)  # nothing kept yet
    assert FULL in _parse(s, *incremental)  # other vars: dbt cannot reuse the last parse
    # Each variant's parse was kept: switching back and forth parses nothing in full.
    for args in [(), incremental, ()]:
        log = _parse(s, *args)
        assert REUSED in log and FULL not in log, log
    kept = sorted(p.name for p in (s.outputs / "dbt" / "parse").iterdir())
    assert kept == sorted(
        f"{parse_cache.variant(s, list(a))}.msgpack" for a in [["parse"], ["parse", *incremental]]
    )


def test_a_new_warehouse_starts_from_a_shared_parse(tmp_path, shared):
    first, second = _settings(tmp_path / "first"), _settings(tmp_path / "second")
    assert FULL in _parse(first)
    assert (shared / f"{parse_cache.variant(first, ['build'])}.msgpack").is_file()
    log = _parse(second)  # another folder, the same file name: the shared parse fits
    assert REUSED in log and FULL not in log, log
    # A warehouse of another name has other connection values: dbt parses in full, safely.
    other = Settings.load(warehouse=tmp_path / "third" / "other.duckdb", project_root=PROJECT)
    (tmp_path / "third").mkdir()
    assert FULL in _parse(other)


def test_a_kept_parse_never_hides_a_change_of_the_project(tmp_path, shared):
    project = tmp_path / "project"
    shutil.copytree(
        PROJECT,
        project,
        ignore=lambda folder, names: [
            n for n in names if Path(folder) == PROJECT and n not in _DBT_PROJECT
        ],
    )
    first = _settings(tmp_path / "first", project)
    _parse(first)
    model = project / "models" / "marts" / "dim_study.sql"
    model.write_text(model.read_text() + "\n-- edited after the parse was kept\n")
    second = _settings(tmp_path / "second", project)
    log = _parse(second)
    assert "1 files changed" in log, log
    manifest = (second.dbt_target / "manifest.json").read_text()
    assert "edited after the parse was kept" in manifest


# What a copy of the project needs for dbt to parse it.
_DBT_PROJECT = {"dbt_project.yml", "profiles.yml", "models", "macros", "seeds", "data-tests"}
