"""The binary decoder agrees with IBM's mq-smf-csv on every row and every field.

The comparison is driven by the golden file's header, so it works on any dump mq-smf-csv has
formatted. Only presentation is normalised: ``="..."`` wrappers, padding blanks, split
``(S)/(US)`` durations and ``(DATE)/(TIME)`` timestamps, and mq-smf-csv's lossy EBCDIC table
(it prints '.' for characters outside a small set, so our text is passed through that table).
Placeholders (``-1``, ``.....``, empty or 1970-01-01 timestamps) are accepted only where our
value is NULL; NULL anywhere else fails.

Fields not compared: none. Columns of ours that mq-smf-csv does not print (lineage, SMF
type/subtype, the exact ``interval_duration_us``) have no golden counterpart.
"""

from __future__ import annotations

import csv
import re

import pytest

from mqcap.parsers.smf.csv_loader import sql_headings
from mqcap.parsers.smf.structures import STRUCTURES

from smf_support import DUMPS, GOLDEN, compare_fields, decoded, golden_columns, golden_files

CASES = [(d, p.name) for d in DUMPS for p in golden_files(d, "csv")]


@pytest.mark.parametrize(("dump", "name"), CASES)
def test_every_row_and_field_matches_mq_smf_csv(dump, name):
    path = GOLDEN / dump / "csv" / name
    with open(path, newline="", encoding="latin-1") as fh:
        lines = list(csv.reader(fh))
    header, body = lines[0], [r for r in lines[1:] if r]
    table = "smf_" + name[4:-4].lower()
    frame = decoded(dump)[table]
    assert frame.height == len(body), f"{table}: {frame.height} rows, golden {len(body)}"
    # The shared dumps carry no queue-sharing group: qsg is NULL beside mq-smf-csv's blank.
    compared, mismatches = compare_fields(header, body, frame, uncounted_nulls=("qsg",))
    assert not mismatches, f"{len(mismatches)} mismatches, first: {mismatches[:5]}"
    columns = golden_columns([h for h in header if h.strip()])
    assert compared == len(body) * (len(columns) - 1)


def ddl_columns(ddl: str) -> dict[str, list[str]]:
    out = {}
    for m in re.finditer(r"CREATE TABLE MQSMF\.(\w+) \((.*?)\);", ddl, re.S):
        out[m.group(1)] = re.findall(r'"(\w+)"', m.group(2))
    return out


@pytest.mark.parametrize("dump", DUMPS)
def test_field_tables_name_every_column_of_the_ddl_in_order(dump):
    tables = ddl_columns((GOLDEN / dump / "sql" / "SMF-MQTABLES.ddl").read_text())
    assert tables
    for name, cols in tables.items():
        s = STRUCTURES[name]
        with_interval = "INTERVAL_START_DATE" in cols
        assert sql_headings(s, with_interval) == cols, name
