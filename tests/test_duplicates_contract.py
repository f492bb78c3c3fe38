"""Every source declared to carry its own identity is counted once in dbt by the same rule."""

from __future__ import annotations

import re

from mqcap.duplicates import identity_columns, identity_tables

from helpers import PROJECT

MODELS = PROJECT / "models"
COPIES = (MODELS / "staging" / "meta" / "stg_meta__record_copies.sql").read_text()


def _staging_sql_reading(table: str) -> str:
    for path in (MODELS / "staging").rglob("stg_*.sql"):
        text = path.read_text()
        if re.search(rf"source\('\w+', '{table}'\)", text) and "record_copies" not in path.name:
            return text
    raise AssertionError(f"no staging model reads {table}")


def test_every_identity_table_is_read_through_first_copy_and_listed_in_record_copies():
    tables = identity_tables()
    assert {"smf_qcst", "smf_wtas", "rmf_crypto", "rmf_workload", "ascpu_interval"} <= set(tables)
    assert {"netstat_conn", "chstatus_attr", "chstatus_snapshot"} <= set(tables)
    for name in tables:
        assert "first_copy(" in _staging_sql_reading(name), name
        assert f"'{name}'" in COPIES, name


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
        assert spelled in _staging_sql_reading(name), (name, spelled)
        assert spelled in re.sub(r"\s+", " ", COPIES), (name, spelled)
