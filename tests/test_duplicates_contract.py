"""Every source declared to carry its own identity is counted once in dbt by the same rule."""

from __future__ import annotations

import re

from mqcap.duplicates import identity_columns, identity_tables

from helpers import PROJECT

MODELS = PROJECT / "models"
COPIES = (MODELS / "intermediate" / "int_record_copies.sql").read_text()


def _models_reading(table: str) -> list[tuple[str, str]]:
    """(model, SQL) of the models other than the record copies that read ``landing.<table>``."""
    return [
        (path.stem, path.read_text())
        for path in MODELS.rglob("*.sql")
        if re.search(rf"source\('\w+', '{table}'\)", path.read_text())
        and "record_copies" not in path.name
    ]


def _staging_sql_reading(table: str) -> str:
    readers = _models_reading(table)
    if not readers:
        return ""  # no model counts its rows (SMF structures no model reads, e.g. smf_qmst)
    assert [m for m, _ in readers if not m.startswith("stg_")] == [], table
    return "\n".join(sql for _, sql in readers)


def test_every_identity_table_is_read_through_first_copy_and_listed_in_record_copies():
    tables = identity_tables()
    assert {"smf_qcst", "smf_wtas", "rmf_crypto", "rmf_workload", "ascpu_interval"} <= set(tables)
    assert {"netstat_conn", "chstatus_attr", "chstatus_snapshot"} <= set(tables)
    read = [name for name in tables if _models_reading(name)]
    # Only staging reads a source; what no model reads is counted nowhere, so never twice.
    assert {"smf_qcst", "smf_qctadp", "rmf_crypto", "netstat_conn", "chstatus_attr"} <= set(read)
    for name in tables:
        if name in read:
            assert "first_copy(" in _staging_sql_reading(name), name
        assert f"'{name}'" in COPIES, name  # every copy is listed (fct_duplicate_records)


def test_declared_identity_columns_are_the_ones_dbt_compares():
    """A tuple identity on the parser's Table is spelled the same in the dbt models."""
    for name, table in identity_tables().items():
        if table.identity is True:
            continue
        cols, _ = identity_columns(table)
        spelled = ", ".join(f"'{c}'" for c in cols)
        flat = re.sub(r"\s+", " ", COPIES + _staging_sql_reading(name)).replace("[ ", "[")
        flat = flat.replace(", ]", "]").replace(",]", "]")
        assert re.sub(r"\s+", " ", spelled) in flat, (name, spelled)


def test_lineage_never_decides_a_copy():
    for table in identity_tables().values():
        cols, _ = identity_columns(table)
        assert not {"file_id", "source_file", "source_line", "source_offset"} & set(cols)


def test_whole_row_identity_is_identified_by_the_same_time_column_in_dbt():
    for name, table in identity_tables().items():
        if table.identity is not True:
            continue
        _, when = identity_columns(table)
        spelled = "when='" + when.replace('"', "") + "'"
        if _models_reading(name):
            assert spelled in _staging_sql_reading(name), (name, spelled)
        assert spelled in re.sub(r"\s+", " ", COPIES), (name, spelled)
