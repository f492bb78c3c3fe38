"""The SMF staging models generated from the field tables (staleness: tests/test_codegen.py)."""

from __future__ import annotations

from mqcap.codegen.smf_staging import STAGED, render_all, render_sql
from mqcap.parsers.smf.structures import STRUCTURES


def test_one_staging_model_per_structure_read_downstream_with_a_tested_key():
    files = render_all()
    models = files["_smf__models.yml"]
    assert sorted(files) == sorted(
        ["_smf__models.yml", "_smf__sources.yml"] + [f"stg_smf__{n.lower()}.sql" for n in STAGED]
    )
    for name in STAGED:
        sql = files[f"stg_smf__{name.lower()}.sql"]
        assert f"source('smf', '{STRUCTURES[name].table}')" in sql
        assert f"name: stg_smf__{name.lower()}" in models
    assert models.count("- primary_key:") == len(STAGED) == 5
    assert models.count("required: [file_id, record_time_local, qmgr_name]") == len(STAGED)


def test_every_smf_landing_table_is_a_declared_source():
    """Unstaged structures stay sources: record copies and incremental builds read them all."""
    sources = render_all()["_smf__sources.yml"]
    assert sources.count("      - name: smf_") == len(STRUCTURES) == 24


def test_placeholder_min_message_size_becomes_null():
    sql = render_sql(STRUCTURES["WQ"])
    assert "nullif(get_min_msg_size, -1) as get_min_msg_size" in sql


def test_storage_manager_columns_carry_mq_smf_csv_names():
    """QSRS columns are named as mq-smf-csv prints them (printQSRS.c), not IBM's member names."""
    sql = render_sql(STRUCTURES["QSRS"])
    for col in ("phb_global_fixed", "gmb_total", "region_24_limit", "gmb_latch", "avail_64"):
        assert f"    {col}" in sql
    for raw in ("phbgf", "gmbt", '"limit"', "memlims"):
        assert raw not in sql


def test_microsecond_counts_carry_their_unit_in_staging():
    """QCST's exit, DNS and network times are integer microseconds: staging names the unit."""
    sql = render_all()["stg_smf__qcst.sql"]
    for col in ("net_time_avg", "net_time_min", "net_time_max", "exit_time_avg"):
        assert f"    {col} as {col}_us," in sql
    assert "    dns_resolution_time as dns_resolution_time_us," in sql
    assert "    batches," in sql  # a count keeps its name
