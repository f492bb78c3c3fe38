"""Shared bits of the SMF tests: fixture paths and parsed dumps (cached per test session)."""

from __future__ import annotations

import re
from datetime import datetime
from functools import cache
from pathlib import Path

from mqcap.parsers.smf.binary import PARSER as BINARY
from mqcap.parsers.smf.convert import as_mqsmfcsv_prints
from mqcap.parsers.smf.csv_loader import PARSER as CSV

from helpers import FIXTURES, Parsed, parse_file

DUMPS = ("TESTCHL", "TEST115", "TEST116")
SMF = FIXTURES / "smf"
GOLDEN = FIXTURES / "golden" / "mq-smf-csv"


@cache
def decoded(dump: str) -> Parsed:
    return parse_file(BINARY, SMF / f"{dump}.dat")


def golden_files(dump: str, form: str) -> list[Path]:
    return sorted((GOLDEN / dump / form).glob("SMF-*.csv"))


@cache
def loaded(path: Path) -> Parsed:
    return parse_file(CSV, path)


# -- comparing with mq-smf-csv's CSV (IBM's reference decoder) -----------------------------------
IDENTITY = {
    "lpar": "system_id",
    "qmgr": "qmgr",
    "qsg": "qsg",
    "mq_version": "mq_version",
    "interval_duration": "interval_duration_s",
    "date": "record_time_local",
}


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


def compare_fields(header: list[str], body: list[list[str]], frame, uncounted_nulls=()):
    """(fields compared, mismatches) between mq-smf-csv's CSV rows and a landed frame.

    Driven by the CSV header; a NULL of ours matches only a placeholder. Columns in
    ``uncounted_nulls`` whose value is NULL next to a placeholder are not counted (a field
    the dump does not carry). Mismatches are (CSV line, column, ours, golden).
    """
    assert frame.height == len(body), f"{frame.height} rows, mq-smf-csv {len(body)}"
    columns = golden_columns([h for h in header if h.strip()])
    missing = [c for c, _, _ in columns if c not in frame.columns]
    assert not missing, f"mq-smf-csv columns without a landing column: {missing}"
    compared, bad = 0, []
    for i, (cells, row) in enumerate(zip(body, frame.iter_rows(named=True), strict=True)):
        for col, pos, how in columns:
            g = golden_value(cells, pos, how)
            mine = ours(row[col])
            if col in uncounted_nulls and mine is None:
                assert placeholder(g), (i + 2, col, g)
                continue
            if mine is None:
                ok = placeholder(g)
            else:
                mine, g = comparable(col, mine, g)
                ok = mine == g
            compared += 1
            if not ok:
                bad.append((i + 2, col, mine, g))
    return compared, bad
