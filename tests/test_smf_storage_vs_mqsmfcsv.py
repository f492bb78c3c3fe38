"""Storage-manager records (SMF 115 subtypes 5, 6, 7: QSPH, QSGM, QSRS) against IBM's decoder.

The shared dumps hold no storage-manager records, so these tests encode them
(``mqcap.synth.smf_mq``), decode them with mqcap and with IBM's mq-smf-csv compiled at
run time from its source, and compare every row and field the way ``test_smf_golden`` compares
the real dumps (same normalisation, same placeholder rules).

mq-smf-csv is EPL-1.0 and is not part of this repository: its source is looked for in
``$MQCAP_MQSMFCSV_SRC``, else in ``shared/reference/mq-smf-csv`` beside the repository or beside
any folder above it (``../shared/...`` of a clone, ``../../shared/...`` of a worktree), and
built in a temporary folder. Where the source or a C compiler and ``make`` are missing, the
comparison tests skip saying which; the tests of mqcap's own decoding below always run.
"""

from __future__ import annotations

import csv
import os
import shutil
import subprocess
from datetime import datetime
from pathlib import Path

import pytest

from mqcap.parsers.smf.binary import PARSER
from mqcap.parsers.smf.csv_loader import PARSER as CSV_PARSER
from mqcap.parsers.smf.structures import STRUCTURES
from mqcap.synth.smf_mq import Ident, record_115, record_115_storage, write_dump

from helpers import parse_file
from smf_support import compare_fields, golden_columns

REPO = Path(__file__).resolve().parents[1]
START_1 = datetime(2024, 5, 6, 9, 0, 0)
START_2 = datetime(2024, 5, 6, 9, 30, 0)
DURATION_US = 1_800_000_123  # 30 minutes and 123 microseconds

QSPH_ROWS = [
    {
        "current_size": 1048576,
        "previous_size": 917504,
        "expansion_size": -1,
        "record_size": 64,
        "records_per_segment": 1024,
        "phb_count": 3,
        "dataspace_name": "CSQDSP01",
        "name": "BUFFER POOL HEADERS",
        "attr_fixed": "Yes",
        "attr_dsp": "Yes",
    },
    {"current_size": 4096, "record_size": 32, "phb_count": 1, "name": "SMALL", "attr_64bit": "Yes"},
]
QSGM_ROWS = [
    {
        "length_total": 81920,
        "new_records": 4,
        "length_max": 32768,
        "length_min": 512,
        "requests": 12,
        "storage_class": 3,
        "csect": "CSQSTGM1",
        "csect_offset": 1288,
    },
    {"length_total": -5, "requests": 1, "storage_class": 0, "csect": "CSQJW009"},
]
QSRS_ROWS = [
    {
        "phb_global_fixed": 11,
        "phb_global_variable": 12,
        "phb_local_fixed": 13,
        "phb_local_variable": 14,
        "gmb_total": 22,
        "stack_total": 3,
        "region_24_start": 24576,
        "region_24_size": 9 * 2**20,
        "region_24_top": 1234,
        "region_24_limit": 9 * 2**20,
        "user_24_alloc": 300,
        "user_24_alloc_previous": 280,
        "system_24_alloc": 200,
        "smf_24_limit": -1,
        "region_31_start": 2**24,
        "region_31_size": 1500 * 2**20,
        "region_31_limit": 1600 * 2**20,
        "user_31_alloc": 40 * 2**20,
        "smf_31_average": 7,
        "memlimit": 2**40,
        "total_object_size": 3 * 2**30,
        "high_water_usable": 2**31,
        "object_allocated": 17,
        "memlimit_source": 2,
        "rax_frames": 900,
        "avail_31": 500 * 2**20,
        "mvs_31_reserved": 1,
        "crit_31_reserved": 2,
        "sos_31_reserved": 3,
        "avail_64": 2**39,
        "cushion_64": 2**30,
        "smds_64": 0,
        "phb_latch_global_fixed": 101,
        "phb_latch_global_variable": 102,
        "phb_latch_local_fixed": 103,
        "phb_latch_local_variable": 104,
        "gmb_latch": 105,
    }
]
QLST = STRUCTURES["QLST"]


def _ident(start: datetime, *, mq10: bool) -> Ident:
    written = start.replace(minute=start.minute + 30) if start.minute < 30 else start
    return Ident(
        written,
        "MPX1",
        "QML1",
        "946" if mq10 else "930",
        interval_start_utc=start,
        interval_us=DURATION_US,
        qsg="QSG1" if mq10 else None,
        release="A00001" if mq10 else None,
    )


def storage_dump(path: Path, *, mq10: bool) -> Path:
    """Two statistics intervals, each a 115.2 record (QLST) then the three storage records."""
    recs = []
    for k, start in enumerate((START_1, START_2)):
        ident = _ident(start, mq10=mq10)
        recs.append(record_115(ident, 2, {4: (QLST, [{"get_lock_requests": 5 + k}])}))
        recs.append(record_115_storage(ident, 5, QSPH_ROWS))
        recs.append(record_115_storage(ident, 6, QSGM_ROWS))
        recs.append(record_115_storage(ident, 7, QSRS_ROWS[:1] if k else QSRS_ROWS))
    return write_dump(path, recs)


# ----------------------------------------------------------------- mqcap alone (always runs)


def test_storage_records_carry_the_interval_of_the_statistics_record_before_them(tmp_path):
    parsed = parse_file(PARSER, storage_dump(tmp_path / "mq10.dat", mq10=True))
    for table, per in (("smf_qsph", 2), ("smf_qsgm", 2), ("smf_qsrs", 1)):
        df = parsed[table]
        assert df.height == 2 * per
        assert df["interval_start_utc"].to_list() == [START_1] * per + [START_2] * per
        assert df["interval_duration_s"].to_list() == [1800] * (2 * per)
        assert df["interval_duration_us"].to_list() == [DURATION_US] * (2 * per)
        assert df["mq_version"].to_list() == ["A00001"] * (2 * per)
        assert df["qsg"].to_list() == ["QSG1"] * (2 * per)
    qsrs = parsed["smf_qsrs"].row(0, named=True)
    assert qsrs["phb_global_fixed"] == 11
    assert qsrs["region_24_limit"] == 9 * 2**20
    assert qsrs["memlimit"] == 2**40
    assert qsrs["gmb_latch"] == 105
    assert parsed["smf_qsgm"]["csect"].to_list() == ["CSQSTGM1", "CSQJW009"] * 2


def test_storage_records_without_the_mq10_header_have_no_interval(tmp_path):
    parsed = parse_file(PARSER, storage_dump(tmp_path / "mq9.dat", mq10=False))
    for table in ("smf_qsph", "smf_qsgm", "smf_qsrs"):
        df = parsed[table]
        assert df.height > 0
        assert df["interval_start_utc"].null_count() == df.height
        assert df["interval_duration_s"].null_count() == df.height
    assert parsed["smf_qlst"]["interval_duration_s"].to_list() == [1800, 1800]


# ----------------------------------------------------------------- against IBM's mq-smf-csv


def mqsmfcsv_source() -> Path | None:
    env = os.environ.get("MQCAP_MQSMFCSV_SRC")
    if env:
        return Path(env) if (Path(env) / "src" / "Makefile.unix").is_file() else None
    for folder in REPO.parents:
        cand = folder / "shared" / "reference" / "mq-smf-csv"
        if (cand / "src" / "Makefile.unix").is_file():
            return cand
    return None


@pytest.fixture(scope="module")
def mqsmfcsv(tmp_path_factory) -> Path:
    """IBM's mq-smf-csv built from its source in a temporary folder (never in the repository)."""
    src = mqsmfcsv_source()
    if src is None:
        pytest.skip(
            "IBM mq-smf-csv source not found: set MQCAP_MQSMFCSV_SRC to its folder (with src/) "
            "or put it at ../shared/reference/mq-smf-csv beside the repository"
        )
    cc = os.environ.get("CC", "cc")
    if shutil.which(cc) is None or shutil.which("make") is None:
        pytest.skip(f"no C compiler ({cc}) or make on PATH to build IBM mq-smf-csv")
    build = tmp_path_factory.mktemp("mqsmfcsv-build")
    shutil.copytree(src / "src", build, dirs_exist_ok=True)
    done = subprocess.run(
        ["make", "-f", "Makefile.unix", f"CC={cc}", "mqsmfcsv"],
        cwd=build,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, f"mq-smf-csv did not build:\n{done.stdout}\n{done.stderr}"
    return build / "mqsmfcsv"


def run_mqsmfcsv(exe: Path, dump: Path, out: Path, form: str = "csv") -> dict[str, list[list[str]]]:
    out.mkdir()
    fmt = ["-f", "SQL"] if form == "sql" else []
    done = subprocess.run(
        [str(exe), *fmt, "-i", str(dump), "-o", f"{out}/"], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    files = {}
    for p in sorted(out.glob("SMF-*.csv")):
        with open(p, newline="", encoding="latin-1") as fh:
            files["smf_" + p.name[4:-4].lower()] = [r for r in csv.reader(fh) if r]
    return files


@pytest.mark.parametrize("mq10", [True, False], ids=["mq10-header", "short-header"])
def test_storage_records_agree_with_mq_smf_csv_field_for_field(mqsmfcsv, tmp_path, mq10):
    dump = storage_dump(tmp_path / "storage.dat", mq10=mq10)
    golden = run_mqsmfcsv(mqsmfcsv, dump, tmp_path / "out")
    parsed = parse_file(PARSER, dump)
    assert set(golden) == {"smf_qlst", "smf_qsph", "smf_qsgm", "smf_qsrs"}
    for table, lines in golden.items():
        compared, bad = compare_fields(lines[0], lines[1:], parsed[table])
        assert not bad, f"{table}: {len(bad)} mismatches, first: {bad[:5]}"
        header = lines[0]
        # Every printed field was compared (one 'Time' column goes with 'Date').
        width = len(golden_columns([h for h in header if h.strip()]))
        assert compared == (len(lines) - 1) * width
        # The interval is printed exactly when mqcap lands one (MQ 10 storage records carry
        # the statistics interval; the short header has none).
        has_interval = "Interval_Duration" in header
        assert has_interval == (mq10 or table == "smf_qlst")
        if has_interval:
            assert {r[header.index("Interval_Duration")] for r in lines[1:]} == {"1800"}


@pytest.mark.parametrize("form", ["csv", "sql"])
@pytest.mark.parametrize("mq10", [True, False], ids=["mq10-header", "short-header"])
def test_mq_smf_csv_output_of_storage_records_loads_as_the_dump_decodes(
    mqsmfcsv, tmp_path, form, mq10
):
    """mq-smf-csv's own output of these records (CSV with headings, header-less -f SQL rows,
    with or without the interval columns) loads with every column known and equal to ours."""
    dump = storage_dump(tmp_path / "storage.dat", mq10=mq10)
    run_mqsmfcsv(mqsmfcsv, dump, tmp_path / "out", form)
    binary = parse_file(PARSER, dump)
    for name in ("QSPH", "QSGM", "QSRS"):
        table = f"smf_{name.lower()}"
        loaded = parse_file(CSV_PARSER, tmp_path / "out" / f"SMF-{name}.csv")
        unknown = loaded.ctx.unknown_lines
        assert not unknown, f"{name}: columns the loader does not know: {unknown}"
        skip = ("interval_duration_us", "smf_subtype", "smf_type", "qsg")
        cols = [c for c in binary[table].columns if not c.startswith("source_") and c not in skip]
        mine = binary[table].select(cols)
        theirs = loaded[table].select(cols)
        text = [c for c, t in zip(cols, mine.dtypes, strict=True) if str(t) == "String"]
        # mq-smf-csv prints unprintable EBCDIC as '.' and pads text: compare what it can show.
        assert mine.drop(text).to_dicts() == theirs.drop(text).to_dicts()
        assert theirs["interval_duration_s"].to_list() == (
            [1800] * theirs.height if mq10 else [None] * theirs.height
        )
