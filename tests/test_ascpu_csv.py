"""Address-space CPU CSV parser (interval, system, jobname, CPU seconds)."""

from __future__ import annotations

from datetime import datetime

import pytest

from mqcap.errors import InputError
from mqcap.parsers import ascpu_csv, driver_csv

from helpers import FIXTURES, parse_file

CSV = FIXTURES / "ascpu" / "ascpu_intervals.csv"
HEADER = "interval_start,interval_end,system,jobname,cpu_seconds"


def test_rows_with_optional_srb_and_ziip():
    df = parse_file(ascpu_csv.PARSER, CSV)["ascpu_interval"]
    assert df.height == 5
    chin = df.row(1, named=True)
    assert (chin["jobname"], chin["system_id"], chin["cpu_s"], chin["srb_s"], chin["ziip_s"]) == (
        "CSQ1CHIN", "MV41", 41.532, 3.107, 0.0,
    )  # fmt: skip
    assert chin["interval_start"] == datetime(2024, 3, 1, 10, 0)
    assert chin["interval_end"] == datetime(2024, 3, 1, 10, 15)
    assert chin["source_line"] == 4
    assert df["cpu_source"].unique().to_list() == ["csv"]
    last = df.row(4, named=True)
    assert last["interval_start"] == datetime(2024, 3, 1, 10, 15) and last["ziip_s"] is None
    assert df["cpu_s"].sum() == pytest.approx(117.684)


def test_minimal_header_and_extra_columns(tmp_path):
    f = tmp_path / "cpu.csv"
    f.write_text(
        f"{HEADER},Service Class\n2024-03-01 10:00,2024-03-01 10:15,MV41,CSQ1MSTR,1.5,STCHI\n"
    )
    row = parse_file(ascpu_csv.PARSER, f)["ascpu_interval"].row(0, named=True)
    assert (row["cpu_s"], row["srb_s"], row["extra"]) == (1.5, None, '{"service_class": "STCHI"}')


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ("2024-03-01 10:00,2024-03-01 10:15,MV41,CSQ1MSTR,-1", "not a CPU time"),
        ("2024-03-01 10:00,2024-03-01 10:15,MV41,CSQ1MSTR,lots", "expected a number"),
        ("2024-03-01 10:15,2024-03-01 10:00,MV41,CSQ1MSTR,1", "before interval_start"),
        ("01/03/2024,2024-03-01 10:15,MV41,CSQ1MSTR,1", "ISO timestamp"),
        ("2024-03-01 10:00,2024-03-01 10:15,MV41,CSQ1MSTR", "expected 5 fields"),
        ("2024-03-01 10:00,2024-03-01 10:15,MV41,,1", "jobname is empty"),
    ],
)
def test_bad_rows_name_the_line(tmp_path, data, message):
    f = tmp_path / "cpu.csv"
    f.write_text(f"{HEADER}\n2024-03-01 10:00,2024-03-01 10:15,MV41,TCPIP,2\n{data}\n")
    with pytest.raises(InputError) as err:
        parse_file(ascpu_csv.PARSER, f)
    assert err.value.line == 3 and message in err.value.reason


def test_missing_required_column_is_an_error(tmp_path):
    f = tmp_path / "cpu.csv"
    f.write_text("interval_start,interval_end,system,jobname\n")
    with pytest.raises(InputError, match="cpu_seconds"):
        parse_file(ascpu_csv.PARSER, f)


def test_sniff_is_specific_and_before_the_generic_csv():
    head = CSV.read_bytes()
    assert ascpu_csv.PARSER.sniff(head, CSV.name)
    assert not driver_csv.PARSER.sniff(head, CSV.name)
    assert not ascpu_csv.PARSER.sniff(b"rate_per_s,round_trip_us\n1,2\n", "r.csv")
    assert not ascpu_csv.PARSER.sniff(b"\x00\x01\x02", "x.bin")
    assert ascpu_csv.PARSER.priority < driver_csv.PARSER.priority
