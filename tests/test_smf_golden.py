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
from datetime import datetime

import pytest

from mqcap.parsers.smf.convert import as_mqsmfcsv_prints
from mqcap.parsers.smf.csv_loader import sql_headings
from mqcap.parsers.smf.structures import STRUCTURES

from smf_support import DUMPS, GOLDEN, decoded, golden_files

IDENTITY = {
    "lpar": "system_id",
    "qmgr": "qmgr",
    "qsg": "qsg",
    "mq_version": "mq_version",
    "interval_duration": "interval_duration_s",
    "date": "record_time_local",
}
CASES = [(d, p.name) for d in DUMPS for p in golden_files(d, "csv")]


def snake(h: str) -> str:
    return re.sub(r"[^0-9a-z]+", "_", h.strip().lower()).strip("_")


def golden_columns(header: list[str]) -> list[tuple[str, list[int], str]]:
    """(landing column, positions, how) from the golden header."""
    out, seen = [], {}
    for pos, h in enumerate(header):
        m = re.fullmatch(r"(.*?)\s*\((DATE|TIME|S|US)\)", h.strip())
        base, part = (m.group(1), m.group(2)) if m else (h, "")
        key = snake(base)
        if key == "time" and not part:  # SMF header time goes with Date
            seen["record_time_local"][1].append(pos)
            continue
        if part in ("DATE", "TIME"):
            col, how = ("interval_start_utc" if key == "interval_start" else key + "_utc"), "ts"
        elif part in ("S", "US"):
            col, how = key + "_us", "us"
        else:
            col, how = IDENTITY.get(key, key), ("ts" if key == "date" else "v")
        if col in seen:
            seen[col][1].append(pos)
        else:
            seen[col] = (col, [pos], how)
            out.append(seen[col])
    return out


def unwrap(v: str) -> str:
    return v[2:-1] if v.startswith('="') and v.endswith('"') else v


def golden_value(cells: list[str], pos: list[int], how: str):
    vals = [unwrap(cells[p]) for p in pos]
    if how == "ts":
        d, t = vals[0].strip(), vals[1].strip()
        if not d or d.startswith("1970"):
            return None
        return datetime.strptime(f"{d} {t}", "%Y/%m/%d %H:%M:%S,%f")
    if how == "us":
        s, us = int(vals[0]), int(vals[1])
        return -1 if s < 0 else s * 1_000_000 + us
    return vals[0].rstrip()


def placeholder(g) -> bool:
    return g is None or g in (-1, "-1", "") or (isinstance(g, str) and set(g) == {"."})


def ours(v):
    if isinstance(v, str):
        v = as_mqsmfcsv_prints(v).rstrip()
    return v


def comparable(col: str, mine, g):
    """Numbers are printed as text: read them in the base mq-smf-csv used."""
    if isinstance(mine, int) and isinstance(g, str):
        return mine, int(g, 16 if col == "ssl_ciphersuite" else 10)
    return mine, g


@pytest.mark.parametrize(("dump", "name"), CASES)
def test_every_row_and_field_matches_mq_smf_csv(dump, name):
    path = GOLDEN / dump / "csv" / name
    with open(path, newline="", encoding="latin-1") as fh:
        lines = list(csv.reader(fh))
    header, body = lines[0], [r for r in lines[1:] if r]
    table = "smf_" + name[4:-4].lower()
    frame = decoded(dump)[table]
    assert frame.height == len(body), f"{table}: {frame.height} rows, golden {len(body)}"
    columns = golden_columns([h for h in header if h.strip()])
    missing = [c for c, _, _ in columns if c not in frame.columns]
    assert not missing, f"golden columns without a landing column: {missing}"
    mismatches = []
    compared = 0
    for i, (cells, row) in enumerate(zip(body, frame.iter_rows(named=True), strict=True)):
        for col, pos, how in columns:
            g = golden_value(cells, pos, how)
            mine = ours(row[col])
            if col == "qsg" and mine is None:
                assert placeholder(g)
                continue
            if mine is None:
                ok = placeholder(g)
            else:
                mine, g = comparable(col, mine, g)
                ok = mine == g
            compared += 1
            if not ok:
                mismatches.append((i + 2, col, mine, g))
    assert not mismatches, f"{len(mismatches)} mismatches, first: {mismatches[:5]}"
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
