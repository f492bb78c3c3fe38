"""The mq-smf-csv loader: older column names and layouts, detection, bad rows."""

from __future__ import annotations

import pytest

from mqcap.errors import InputError
from mqcap.parsers import detect
from mqcap.parsers.smf.csv_loader import PARSER

from helpers import parse_file
from smf_support import GOLDEN, loaded

QCST_CSV = GOLDEN / "TESTCHL" / "csv" / "SMF-QCST.csv"
DSP_CSV = GOLDEN / "TESTCHL" / "csv" / "SMF-QCTDSP.csv"
DSP_SQL = GOLDEN / "TESTCHL" / "sql" / "SMF-QCTDSP.csv"


def test_both_forms_are_detected_by_content_and_name():
    assert detect(QCST_CSV) is PARSER
    assert detect(DSP_SQL) is PARSER


def test_older_column_names_land_in_the_current_columns(tmp_path):
    text = QCST_CSV.read_text(encoding="latin-1")
    old = text.replace("Remote_QMgr_Or_App", "Remote_QMgr", 1).replace(
        "Dispatcher_Number", "Dispatcher_Numer", 1
    )
    path = tmp_path / "SMF-QCST.csv"
    path.write_text(old, encoding="latin-1")
    a, b = loaded(QCST_CSV)["smf_qcst"], parse_file(PARSER, path)["smf_qcst"]
    assert b["remote_qmgr_or_app"].to_list() == a["remote_qmgr_or_app"].to_list()
    assert b["dispatcher_number"].to_list() == a["dispatcher_number"].to_list() == [1] * 23


def test_header_without_task_index_loads_and_leaves_it_null(tmp_path):
    lines = DSP_CSV.read_text().splitlines()
    cut = lines[0].split(",").index("Task_Index")
    path = tmp_path / "SMF-QCTDSP.csv"
    path.write_text(
        "\n".join(",".join(c for i, c in enumerate(ln.split(",")) if i != cut) for ln in lines)
    )
    got = parse_file(PARSER, path)["smf_qctdsp"]
    assert got.height == 80
    assert got["task_index"].null_count() == 80
    assert (
        got["request_count"].to_list() == loaded(DSP_CSV)["smf_qctdsp"]["request_count"].to_list()
    )


def test_sql_form_from_before_task_index_is_recognised_by_its_column_count(tmp_path):
    rows = DSP_SQL.read_text().splitlines()
    # Split on commas, cell 12 is Task_Index (both time cells hold a comma of their own).
    path = tmp_path / "SMF-QCTDSP.csv"
    path.write_text("\n".join(",".join(r.split(",")[:12] + r.split(",")[13:]) for r in rows))
    got = parse_file(PARSER, path)["smf_qctdsp"]
    want = loaded(DSP_SQL)["smf_qctdsp"]
    assert got["task_index"].null_count() == 80
    assert got.drop("task_index", "source_file").equals(want.drop("task_index", "source_file"))


def test_placeholders_of_fields_newer_than_the_record_land_as_null():
    qcct = loaded(GOLDEN / "TESTCHL" / "csv" / "SMF-QCCT.csv")["smf_qcct"]
    assert qcct["storage_usage_64"].null_count() == qcct.height  # printed -1 for MQ 8.0
    assert qcct["storage_usage_31"].to_list()[0] == 14


def test_a_bad_number_names_the_line(tmp_path):
    lines = QCST_CSV.read_text(encoding="latin-1").splitlines()
    col = lines[0].split(",").index("Msg_All_Count")
    cells = lines[3].split(",")
    cells[col + 1] = "1x5"  # +1: the Time cell holds a comma
    lines[3] = ",".join(cells)
    path = tmp_path / "SMF-QCST.csv"
    path.write_text("\n".join(lines), encoding="latin-1")
    with pytest.raises(InputError) as exc:
        parse_file(PARSER, path)
    assert exc.value.line == 4 and "QCST" in str(exc.value)


def test_header_less_file_without_a_structure_name_is_refused(tmp_path):
    path = tmp_path / "export.csv"
    path.write_text(DSP_SQL.read_text())
    with pytest.raises(InputError) as exc:
        parse_file(PARSER, path)
    assert exc.value.line == 1 and "SMF-<STRUCT>.csv" in str(exc.value)
