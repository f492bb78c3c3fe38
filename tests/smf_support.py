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


# -- dumps for the parts of one dump (mqcap.parsers.smf.binary.split) -------------------------


def mixed_records(intervals: int = 3, corrupt_at: int | None = None) -> list[bytes]:
    """SMF records (no RDW) of two queue managers over ``intervals`` statistics intervals: each
    interval a 115.2 statistics record per queue manager, then the real sample dumps' records
    (accounting, channel, spanned records), then each queue manager's storage-manager records,
    which take the interval of their statistics record, far before them. ``corrupt_at``: that
    interval's statistics record of QMA declares more QLST entries than it holds."""
    import struct
    from datetime import timedelta

    from mqcap.parsers.base import ParseContext
    from mqcap.parsers.smf.reader import read_records
    from mqcap.parsers.smf.records import HEADER_LEN
    from mqcap.parsers.smf.structures import STRUCTURES
    from mqcap.synth.smf_mq import Ident, record_115, record_115_storage

    real = [
        r.data
        for d in DUMPS
        for r in read_records(ParseContext(path=SMF / f"{d}.dat", source_file=d))
    ]
    qlst = STRUCTURES["QLST"]
    recs: list[bytes] = []
    for k in range(intervals):
        start = datetime(2024, 5, 6, 9, 0) + timedelta(minutes=30 * k)
        idents = [
            Ident(
                start + timedelta(minutes=30),
                "MPX1",
                qmgr,
                "946",  # MQ 10: storage-manager records then have a header (and take intervals)
                interval_start_utc=start + timedelta(seconds=j),
                interval_us=1_800_000_123 + j,
                qsg="QSG1",
                release="A00001",
            )
            for j, qmgr in enumerate(("QMA", "QMB"))
        ]
        for j, ident in enumerate(idents):
            rec = record_115(ident, 2, {4: (qlst, [{"get_lock_requests": 10 * k + j}])})
            if k == corrupt_at and j == 0:
                off = HEADER_LEN + 8 * 4
                o, ln, _ = struct.unpack_from(">IHH", rec, off)
                rec = rec[:off] + struct.pack(">IHH", o, ln, 40) + rec[off + 8 :]
            recs.append(rec)
        recs.extend(real)
        for ident in reversed(idents):
            recs.append(record_115_storage(ident, 5, [{"current_size": 4096 + k, "name": "P"}]))
            recs.append(record_115_storage(ident, 7, [{"gmb_latch": 100 + k}]))
    return recs


def write_layout(path: Path, records: list[bytes], layout: str) -> Path:
    """The records as a dump with RDWs (``rdw``), with blocks of RDW segments (``bdw``: up to
    32,760 bytes a block, a spanned record's segments may fall in different blocks) or without
    RDWs (``nordw``)."""
    import struct

    from mqcap.synth.smf_mq import with_rdw

    if layout == "nordw":
        path.write_bytes(b"".join(records))
        return path
    segments = []
    for rec in records:
        data = with_rdw(rec)
        at = 0
        while at < len(data):
            n = struct.unpack_from(">H", data, at)[0]
            segments.append(data[at : at + n])
            at += n
    if layout == "rdw":
        path.write_bytes(b"".join(segments))
        return path
    blocks, block = [], b""
    for seg in segments:
        if block and 4 + len(block) + len(seg) > 32760:
            blocks.append(struct.pack(">HH", 4 + len(block), 0) + block)
            block = b""
        block += seg
    blocks.append(struct.pack(">HH", 4 + len(block), 0) + block)
    path.write_bytes(b"".join(blocks))
    return path
