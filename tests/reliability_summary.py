"""The reliability suite's catalogue (formats, faults, kill points) and its figures.

``tests/test_reliability_*.py`` import the catalogue and checks from here; run this file to print
the figures: ``.venv/bin/python tests/reliability_summary.py``.
"""

from __future__ import annotations

import csv
import hashlib
import json
import os
from pathlib import Path

import duckdb

from helpers import FIXTURES, PROJECT, landing_fingerprint

SAMPLE_RUN = FIXTURES / "reliability"

# format -> (file name in the raw root, real sample, run-folder file?). One sample per parser
# and per layout a parser reads differently (runmqsc vs z/OS CHSTATUS, mq-smf-csv CSV vs SQL).
FORMATS: dict[str, tuple[str, Path, bool]] = {
    "manifest": ("run.yaml", SAMPLE_RUN / "run.yaml", True),
    "study": ("study.yaml", SAMPLE_RUN / "study.yaml", False),
    "driver_csv": ("results.csv", SAMPLE_RUN / "results.csv", True),
    "driver_cph": ("cph_requester_output.txt", FIXTURES / "driver/cph_requester_output.txt", False),
    "driver_cphtestp": ("cphtestp_results.csv", FIXTURES / "driver/cphtestp_results.csv", False),
    "ascpu_csv": ("ascpu_intervals.csv", FIXTURES / "ascpu/ascpu_intervals.csv", False),
    "chstatus": ("chstatus.txt", FIXTURES / "chstatus/runmqsc_dis_chstatus_short.txt", False),
    "chstatus_zos": (
        "chstatus_zos.txt",
        FIXTURES / "chstatus/zos_csqm201i_display_chstatus.txt",
        False,
    ),
    "netstat": ("netstat.txt", FIXTURES / "netstat/netstat_all_v2r4_poll_series.txt", False),
    "rmf_crypto": ("crypto.txt", FIXTURES / "rmf/CRYPTO_PP_V2R2_S35_2017-04-26.txt", False),
    "rmf_workload": ("wlmgl.txt", FIXTURES / "rmf/WLMGL_PP_V2R2_UTCPLXCB_2015-04-21.txt", False),
    "amqsrua": ("amqsrua.txt", FIXTURES / "amqsrua/colinpaice_disk_log_2019-03-03.txt", False),
    "amqsmon": (
        "amqsmon.txt",
        FIXTURES / "amqsmon/constructed_statistics_qmgr_queue_channel.txt",
        False,
    ),
    "tcpipmon": (
        "tcpipmon.txt",
        FIXTURES / "tcpipmon/Port.md_L19-25_MONPORT_INFO_per_connection.txt",
        False,
    ),
    "smf_mq": ("mqsmf.dat", FIXTURES / "smf/TEST116.dat", False),
    "smf_csv": ("SMF-QMAC.csv", FIXTURES / "golden/mq-smf-csv/TEST116/csv/SMF-QMAC.csv", False),
    "smf_csv_sql": (
        "SMF-WTID.csv",
        FIXTURES / "golden/mq-smf-csv/TEST116/sql/SMF-WTID.csv",
        False,
    ),
}
KIND = {"chstatus_zos": "chstatus", "smf_csv_sql": "smf_csv"}


def kind_of(fmt: str) -> str:
    return KIND.get(fmt, fmt)


def rel_path(fmt: str) -> str:
    """Where the good sample of ``fmt`` lives in the base raw root."""
    name, _, in_run = FORMATS[fmt]
    return f"study1/r1/{name}" if in_run else f"loose/{name}"


def fingerprint_without(warehouse: Path, file_ids: list[int]) -> dict[str, tuple[int, str]]:
    """``helpers.landing_fingerprint`` leaving out the rows (and ledger rows) of ``file_ids``."""
    return landing_fingerprint(warehouse, without=file_ids)


def ledger_landing_disagreements(warehouse: Path) -> list[str]:
    """Where ledger and landing disagree; [] when consistent.

    Every 'loaded' file's rows_by_table equals its rows per table, and no landing row carries
    a file_id that is not 'loaded'.
    """
    con = duckdb.connect(str(warehouse), read_only=True)
    try:
        tables = [
            r[0]
            for r in con.execute(
                "select table_name from information_schema.tables where table_schema = 'landing'"
            ).fetchall()
        ]
        actual: dict[int, dict[str, int]] = {}
        counts = " union all ".join(
            f"select '{t}', file_id, count(*) from landing.\"{t}\" group by file_id" for t in tables
        )
        for t, fid, n in con.execute(counts).fetchall() if tables else []:
            actual.setdefault(fid, {})[t] = n
        ledger = con.execute(
            "select file_id, status, rows_by_table, rows_landed from meta.ingest_ledger"
        ).fetchall()
    finally:
        con.close()
    problems = []
    loaded = {}
    for fid, status, by_table, rows_landed in ledger:
        if status == "loaded":
            loaded[fid] = json.loads(by_table or "{}")
            if sum(loaded[fid].values()) != rows_landed:
                problems.append(f"file {fid}: rows_landed {rows_landed} != {loaded[fid]}")
    for fid, expected in loaded.items():
        if actual.get(fid, {}) != expected:
            problems.append(f"file {fid}: ledger says {expected}, landing has {actual.get(fid)}")
    for fid in actual:
        if fid not in loaded:
            problems.append(f"file {fid}: rows {actual[fid]} but the file is not 'loaded'")
    return problems


# ------------------------------------------------------------------------------ faults
LONG_LINE = 10 << 20  # 10 MB without a newline
# PyYAML's pure-Python scanner needs ~1 s per MB; the manifest's over-long line is 1 MB.
LONG_LINE_YAML = 1 << 20
TEXT_FAULTS = (
    "truncated",
    "corrupted",
    "empty",
    "ebcdic",
    "utf16",
    "latin1",
    "long_line",
    "binary_in_text",
    "duplicate",
    "changed_good",
    "changed_bad",
)
BINARY_FAULTS = (
    "truncated",
    "corrupted",
    "empty",
    "text_as_binary",
    "long_line",
    "duplicate",
    "changed_good",
    "changed_bad",
)


def faults_of(fmt: str) -> tuple[str, ...]:
    return BINARY_FAULTS if fmt == "smf_mq" else TEXT_FAULTS


def _noise(n: int, seed: int) -> bytes:
    # Deterministic bytes with NULs and high bytes, the way a damaged transfer looks.
    out = b""
    block = seed.to_bytes(4, "big")
    while len(out) < n:
        block = hashlib.sha256(block).digest()
        out += block
    return out[:n]


def faulty(fmt: str, fault: str) -> bytes:
    """The bytes of ``fmt``'s good sample with ``fault`` applied."""
    data = FORMATS[fmt][1].read_bytes()
    binary = fmt == "smf_mq"
    lines = data.split(b"\n")
    mid = len(lines) // 2
    if fault == "truncated":
        if binary:
            return data[:-37]  # cut inside the last record
        # Cut in the middle of the last line that has content (no final newline).
        last = max(i for i, line in enumerate(lines) if line.strip())
        keep = sum(len(x) + 1 for x in lines[:last]) + max(1, len(lines[last]) // 2)
        return data[:keep]
    if fault == "corrupted":
        if binary:
            # The second record's RDW says 3 bytes: impossible, the dump is damaged.
            first = int.from_bytes(data[0:2], "big")
            return data[:first] + b"\x00\x03" + data[first + 2 :]
        at = len(data) // 2
        return data[:at] + _noise(48, 7) + data[at + 48 :]
    if fault == "empty":
        return b""
    if fault == "ebcdic":
        # errors="replace": a sample with characters EBCDIC lacks (dashes) still transfers.
        return data.decode("utf-8").encode("cp500", errors="replace")
    if fault == "utf16":
        return data.decode("utf-8").encode("utf-16")
    if fault == "latin1":
        lines[mid] = lines[mid] + " Kühlhaus".encode("latin-1")
        return b"\n".join(lines)
    if fault == "long_line":
        if binary:
            return data + b"\xee" * LONG_LINE
        n = LONG_LINE_YAML if fmt == "manifest" else LONG_LINE
        return b"\n".join([*lines[:mid], b"x" * n, *lines[mid:]])
    if fault == "binary_in_text":
        return b"\n".join(lines[:2]) + b"\n" + _noise(4096, 11)
    if fault == "text_as_binary":
        return b"This is not an SMF dump.\nNotes typed on a PC, saved as .dat.\n" * 20
    if fault == "changed_good":
        # A benign edit: same records, different bytes (a trailing newline / record appended).
        return data + data[: int.from_bytes(data[0:2], "big")] if binary else data + b"\n"
    if fault == "changed_bad":
        return faulty(fmt, "truncated" if binary else "binary_in_text")
    raise ValueError(fault)


# How each (format, fault) must end. "aside": set aside with a position ("aside-nopos": the
# parser lost the position, see the report); "loaded": the damage is legitimately readable
# (a header-only or cut file, a report read as Latin-1) and lands as a new file; "replaced".
def expected(fmt: str, fault: str) -> str:
    if fault == "duplicate":
        return "duplicate"
    if fault == "changed_good":
        return "replaced"
    if fault == "changed_bad":
        return "aside-kept"
    return LOADS.get((fmt, fault), "aside")


LOADS = {
    # Cut mid-line, the last line still parses: the cut value lands (no final newline is the
    # only hint; reported as a finding).
    ("driver_cph", "truncated"): "loaded",
    ("netstat", "truncated"): "loaded",
    ("chstatus", "truncated"): "loaded",
    ("rmf_crypto", "truncated"): "loaded",
    ("rmf_workload", "truncated"): "loaded",
    ("amqsrua", "truncated"): "loaded",
    ("amqsmon", "truncated"): "loaded",
    # RMF reports are read as Latin-1 (EBCDIC transfers differ): any byte is a character.
    ("rmf_crypto", "corrupted"): "loaded",
    ("rmf_workload", "corrupted"): "loaded",
    ("rmf_workload", "latin1"): "loaded",
    # Tolerant text parsers count an unknown 10 MB line and keep going.
    ("driver_cph", "long_line"): "loaded",
    ("driver_cphtestp", "long_line"): "loaded",
    ("chstatus", "long_line"): "loaded",
    ("chstatus_zos", "long_line"): "loaded",
    ("netstat", "long_line"): "loaded",
    ("rmf_crypto", "long_line"): "loaded",
    ("rmf_workload", "long_line"): "loaded",
    ("amqsrua", "long_line"): "loaded",
    ("amqsmon", "long_line"): "loaded",
    # csv.Error "field larger than field limit": parser bug, no position (see the report).
    # TCPIPMonitor print-outs are read as Latin-1 by a tolerant parser: a cut last line still
    # parses, noise and a 10 MB line are unknown lines (counted), a Latin-1 word is a value.
    ("tcpipmon", "truncated"): "loaded",
    ("tcpipmon", "corrupted"): "loaded",
    ("tcpipmon", "latin1"): "loaded",
    ("tcpipmon", "long_line"): "loaded",
}

# Each kind of manifest error: (name, run.yaml text, field or problem named in the reason).
_GOOD_MANIFEST = """study: study2
run: r9
description: first run of the study
configuration: MQ + AT-TLS
interval:
  start: 2021-06-01T10:00:00
  end: 2021-06-01T10:05:00
system: MPX1
workload:
  type: request_reply
  message_bytes: 2048
jobs:
  QML1CHIN: CHIN
"""
MANIFEST_ERRORS: dict[str, tuple[str, str, str]] = {
    "unknown_field": (_GOOD_MANIFEST + "colour: blue\n", "line 14", "field colour"),
    "missing_study": (_GOOD_MANIFEST.replace("study: study2\n", ""), "line 1", "field study"),
    "missing_run": (_GOOD_MANIFEST.replace("run: r9\n", ""), "line 1", "field run"),
    "bad_name": (_GOOD_MANIFEST.replace("run: r9", "run: ../r9"), "line 2", "field run"),
    "wrong_type": (
        _GOOD_MANIFEST.replace("message_bytes: 2048", "message_bytes: big"),
        "line 11",
        "field workload.message_bytes: expected a positive whole number, got 'big'",
    ),
    "negative_number": (
        _GOOD_MANIFEST.replace("message_bytes: 2048", "message_bytes: -1"),
        "line 11",
        "field workload.message_bytes",
    ),
    "end_before_start": (
        _GOOD_MANIFEST.replace("end: 2021-06-01T10:05:00", "end: 2021-06-01T09:00:00"),
        "line 7",
        "field interval.end: expected a time after interval.start",
    ),
    "bad_timestamp": (
        _GOOD_MANIFEST.replace("start: 2021-06-01T10:00:00", "start: yesterday"),
        "line 6",
        "field interval.start",
    ),
    "bad_role": (
        _GOOD_MANIFEST.replace("QML1CHIN: CHIN", "QML1CHIN: BOSS"),
        "line 13",
        "field jobs.QML1CHIN: expected a role",
    ),
    "bad_system": (_GOOD_MANIFEST.replace("MPX1", "TOOLONG"), "line 8", "field system"),
    "bad_workload_type": (
        _GOOD_MANIFEST.replace("type: request_reply", "type: lunch"),
        "line 10",
        "field workload.type",
    ),
    "unknown_baseline": (_GOOD_MANIFEST + "baseline: r404\n", "line 14", "field baseline"),
    "duplicate_run_id": (
        _GOOD_MANIFEST.replace("study: study2", "study: attls").replace(
            "run: r9", "run: ssl-chacha-2k"
        ),
        None,
        "run ssl-chacha-2k of study attls is already defined by study1/r1/run.yaml",
    ),
    "duplicate_key": (_GOOD_MANIFEST + "run: r10\n", "line 14", "duplicate key 'run'"),
    "invalid_yaml": (_GOOD_MANIFEST + "labels: {a: [\n", "line 15", "not valid YAML"),
    "not_a_mapping": ("- study: study2\n- run: r9\n", "line 1", "must be a YAML mapping"),
    "bad_label_name": (
        _GOOD_MANIFEST + "labels:\n  9lives: yes\n",
        "line 15",
        "field labels.9lives",
    ),
}


def fault_cases(matrix: str | None = None) -> list[tuple[str, str]]:
    """The (format, fault) cases run: all of them with ``MQCAP_FAULT_MATRIX=full`` (CI), else
    a cover of them (``cover``)."""
    cases = [(fmt, fault) for fmt in FORMATS for fault in faults_of(fmt)]
    return _matrix(cases, 3, matrix)


def _matrix(cases: list[tuple[str, str]], per_format: int, matrix: str | None):
    matrix = matrix or os.environ.get("MQCAP_FAULT_MATRIX", "cover")
    if matrix not in ("full", "cover"):
        raise ValueError(f"MQCAP_FAULT_MATRIX={matrix!r}: full or cover")
    return cases if matrix == "full" else cover(cases, per_format)


def cover(cases: list[tuple[str, str]], per_format: int) -> list[tuple[str, str]]:
    """``per_format`` faults of each format, the i-th format's taken from its i * per_format-th
    fault on (rotating, so that the formats share the faults out), then the first case of any
    fault still left out; in the matrix's order. ``make test`` runs this part of the matrix
    (every format and every fault checked), CI all of it (Makefile ``FAULT_MATRIX``).

    Example:
        >>> cover([("a", "x"), ("a", "y"), ("b", "x"), ("b", "y"), ("b", "z")], 1)
        [('a', 'x'), ('b', 'y'), ('b', 'z')]
    """
    formats: dict[str, list[str]] = {}
    for fmt, fault in cases:
        formats.setdefault(fmt, []).append(fault)
    chosen = set()
    for i, (fmt, faults) in enumerate(formats.items()):
        for k in range(min(per_format, len(faults))):
            chosen.add((fmt, faults[(i * per_format + k) % len(faults)]))
    for case in cases:
        if case[1] not in {fault for _, fault in chosen}:
            chosen.add(case)
    return [case for case in cases if case in chosen]


# Environment faults hit a changed good version of a loaded file: the file is not set aside,
# the loaded version stays, and once the fault is gone the next ingest replaces it.
ENV_FAULTS = ("unreadable", "vanished", "now_a_folder", "disk_full")


def env_fault_cases(matrix: str | None = None) -> list[tuple[str, str]]:
    """The (format, environment fault) cases run: all, or a cover (as ``fault_cases``)."""
    return _matrix([(fmt, fault) for fmt in FORMATS for fault in ENV_FAULTS], 1, matrix)


# ------------------------------------------------------------------------------ crashes
CRASH_SEED = 20261121
KILL_POINTS = (
    "ingest +random 1",
    "ingest +random 2",
    "ingest +random 3",
    "ingest +random 4",
    "run (ingest or build) +random",
    "build right after marts.dim_run is written",
    "build +random",
)


# ------------------------------------------------------------------------------ hostile text
HOSTILE = (
    "<script>alert(1)</script>",
    '"><img src=x onerror=alert(1)>',
    "'; drop table x; --",
    "../../../etc/passwd",
)


# ------------------------------------------------------------------------------ parser bugs
# Non-InputError exceptions fuzzing found in parsers, now fixed: each must raise the parser's
# InputError naming the position (type it used to raise, text that must stay in the message,
# reproducer as (file name, bytes)).
_M = b"study: s1\nrun: r1\n"
_LONG = b"rate_per_s,round_trip_us\n1," + b"9" * 200_000 + b"\n"
FIXED_PARSER_BUGS: list[tuple[type, str, tuple[str, bytes]]] = [
    # manifest.load: PyYAML builds datetimes for timestamp-looking values and raises ValueError
    # on impossible dates; fix: also catch (ValueError, TypeError, RecursionError) around
    # yaml.load and raise ctx.error(f"not valid YAML: {exc}", line=1).
    (ValueError, "day is out of range for month", ("run.yaml", _M + b"labels: {a: 2021-02-30}\n")),
    (ValueError, "must be in 1..12", ("run.yaml", _M + b"labels: {a: 2021-13-01}\n")),
    (TypeError, "unhashable type", ("run.yaml", _M + b"? [a]\n: b\n")),
    (RecursionError, "maximum recursion depth", ("run.yaml", _M + b"labels: " + b"[" * 1500)),
    # driver_csv, ascpu_csv, smf_csv: csv.reader raises csv.Error on a field over 131072
    # characters and on a lone CR inside a line; fix: catch csv.Error per line and raise
    # ctx.error(str(exc), line=lineno).
    (csv.Error, "field larger than field limit", ("results.csv", _LONG)),
    (
        csv.Error,
        "new-line character seen in unquoted field",
        ("SMF-QMAC.csv", b"Date,Time,LPAR,QMgr,\n2021/01/01,\r10:00:00,A,B,\n"),
    ),
]


# ------------------------------------------------------------------------------ figures
FUZZ_EXAMPLES = {  # hypothesis max_examples per property in test_reliability_fuzz.py
    "manifest": 150,
    "driver_csv": 150,
    "smf_csv": 150,
    "smf_mq (binary)": 150,
    "detect + parse, every fixture": 250,
    "ingest batch never stops": 25,
}


def figures() -> dict:
    """The suite's figures: cases per format, kill points, rows verified unchanged per case."""
    import shutil
    import tempfile

    from mqcap.ingest import ingest
    from mqcap.settings import Settings

    per_format = {fmt: len(faults_of(fmt)) for fmt in FORMATS}
    per_format["manifest"] += len(MANIFEST_ERRORS)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for fmt, (_name, src, _in_run) in FORMATS.items():
            dest = root / "raw" / rel_path(fmt)
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest)
        settings = Settings.load(
            warehouse=root / "wh" / "w.duckdb", raw=root / "raw", project_root=PROJECT
        )
        report = ingest(settings)
        base_rows = report.rows + len(report.landed)  # landing rows + loaded ledger rows
    cases = sum(per_format.values())
    return {
        "fault_cases_per_format": per_format,
        "fault_cases": cases,
        "environment_fault_cases": len(env_fault_cases("full")),
        "rows_verified_unchanged_per_case": base_rows,
        "rows_verified_unchanged": base_rows * cases,
        "kill_points": len(KILL_POINTS),
        "kill_seed": CRASH_SEED,
        "hostile_values": len(HOSTILE),
        "fuzz_examples_per_run": FUZZ_EXAMPLES,
        "parser_bugs_found_and_fixed": [
            f"{k.__module__.replace('builtins', '').strip('_')}.{k.__name__}: {n}".lstrip(".")
            for k, n, _ in FIXED_PARSER_BUGS
        ],
    }


if __name__ == "__main__":
    print(json.dumps(figures(), indent=2))
