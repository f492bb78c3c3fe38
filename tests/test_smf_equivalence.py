"""Decoding a dump and loading mq-smf-csv's output of the same dump land the same rows.

Both CSV forms are checked (default ``csv/`` with header, ``-f SQL`` without). Ignored, with
reason: lineage columns (byte offset vs line number); ``interval_duration_us`` (the CSV forms
carry whole seconds only, which both sources land in ``interval_duration_s``); ``smf_subtype``
(QPST, WQ and WTID come from two subtypes each and a CSV row does not say which). Text is
compared as mq-smf-csv prints it: its EBCDIC table turns characters such as ``\\`` into '.',
so the CSV can only carry that lossy form.
"""

from __future__ import annotations

import pytest

from mqcap.parsers.smf.convert import as_mqsmfcsv_prints
from mqcap.parsers.smf.tables import LINEAGE

from smf_support import DUMPS, decoded, golden_files, loaded

IGNORED = {*LINEAGE, "interval_duration_us", "smf_subtype"}
CASES = [(d, form, p) for d in DUMPS for form in ("csv", "sql") for p in golden_files(d, form)]


def lossy(v):
    if isinstance(v, str):
        v = as_mqsmfcsv_prints(v).rstrip()
        return None if not v or set(v) == {"."} else v
    return v


@pytest.mark.parametrize(("dump", "form", "path"), CASES, ids=lambda x: getattr(x, "name", x))
def test_csv_load_lands_the_same_rows_as_the_binary_decode(dump, form, path):
    from_csv = loaded(path)
    [(table, frame)] = from_csv.tables.items()
    binary = decoded(dump)[table]
    assert frame.columns == binary.columns
    assert frame.height == binary.height > 0
    differing = {}
    for col in frame.columns:
        if col in IGNORED:
            continue
        a = [lossy(v) for v in binary[col].to_list()]
        b = [lossy(v) for v in frame[col].to_list()]
        if a != b:
            differing[col] = next((x, y) for x, y in zip(a, b, strict=True) if x != y)
    assert not differing
    assert from_csv.ctx.unknown_lines == {}


def test_csv_and_sql_forms_agree_on_source_lines_and_values():
    a = loaded(golden_files("TESTCHL", "csv")[2])  # SMF-QCST.csv
    b = loaded(golden_files("TESTCHL", "sql")[2])
    qa, qb = a["smf_qcst"], b["smf_qcst"]
    assert qa["source_line"].to_list() == [n + 1 for n in qb["source_line"].to_list()]
    assert qa.drop("source_file", "source_line").equals(qb.drop("source_file", "source_line"))
