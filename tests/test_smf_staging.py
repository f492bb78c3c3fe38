"""The SMF staging models are generated from the field tables and are up to date."""

from __future__ import annotations

from pathlib import Path

from mqcap.parsers.smf.staging import render_all
from mqcap.parsers.smf.structures import STRUCTURES

MODELS = Path(__file__).resolve().parents[1] / "models" / "staging" / "smf"


def test_committed_staging_models_match_the_field_tables():
    expected = render_all()
    present = {p.name: p.read_text() for p in MODELS.iterdir() if p.is_file()}
    assert set(present) == set(expected), "run: python -m mqcap.parsers.smf.staging"
    stale = [n for n, text in expected.items() if present[n] != text]
    assert not stale, f"stale: {stale}; run: python -m mqcap.parsers.smf.staging"


def test_one_staging_model_per_structure_with_a_tested_key():
    models = render_all()["_smf__models.yml"]
    for s in STRUCTURES.values():
        sql = render_all()[f"stg_smf__{s.name.lower()}.sql"]
        assert f"source('smf', '{s.table}')" in sql
        assert f"name: stg_smf__{s.name.lower()}" in models
    assert models.count("data_tests: [unique, not_null]") == len(STRUCTURES)


def test_placeholder_min_message_size_becomes_null():
    sql = render_all()["stg_smf__wq.sql"]
    assert "nullif(get_min_msg_size, -1) as get_min_msg_size" in sql


def test_storage_manager_columns_carry_mq_smf_csv_names():
    """QSRS columns are named as mq-smf-csv prints them (printQSRS.c), not IBM's member names."""
    sql = render_all()["stg_smf__qsrs.sql"]
    for col in ("phb_global_fixed", "gmb_total", "region_24_limit", "gmb_latch", "avail_64"):
        assert f"    {col}" in sql
    for raw in ("phbgf", "gmbt", '"limit"', "memlims"):
        assert raw not in sql
