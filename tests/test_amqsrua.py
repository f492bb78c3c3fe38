"""amqsrua resource-usage output: every element lands with its publication's time and interval."""

from __future__ import annotations

from datetime import datetime

import pytest

from mqcap.errors import InputError
from mqcap.parsers import amqsrua as mod
from mqcap.parsers import detect

from helpers import FIXTURES, parse_file

DIR = FIXTURES / "amqsrua"
REAL = DIR / "colinpaice_disk_log_2019-03-03.txt"
BUILT = DIR / "constructed_cpu_statq_statmqi_log.txt"


def _frame(path):
    parsed = parse_file(mod.PARSER, path)
    return parsed, parsed["amqsrua_value"]


@pytest.mark.parametrize("path", [REAL, BUILT], ids=["real", "constructed"])
def test_amqsrua_output_is_recognised_from_its_content(path):
    assert detect(path, "capture.log").kind == "amqsrua"


def test_real_disk_log_publication_lands_every_element_with_its_value():
    parsed, df = _frame(REAL)
    assert df.height == 8 and not parsed.ctx.unknown_lines
    got = {
        d: (v, u, r)
        for d, v, u, r in df.select("description", "value", "unit", "rate_per_s").rows()
    }
    assert got == {
        "Log - bytes in use": (50331648.0, None, None),
        "Log - bytes max": (83886080.0, None, None),
        "Log file system - bytes in use": (16434135040.0, None, None),
        "Log file system - bytes max": (19549782016.0, None, None),
        "Log - physical bytes written": (33718272.0, None, 3371827.0),
        "Log - logical bytes written": (5418954.0, None, 541895.0),
        "Log - write latency": (994.0, "uSec", None),
        "Log - write size": (4099.0, None, None),
    }
    assert set(df["metric_class"]) == {"DISK"} and set(df["metric_type"]) == {"Log"}
    assert df["object_name"].null_count() == 8
    assert df["source_line"].to_list() == list(range(2, 10))
    assert set(df["publication_line"]) == {1}


def test_real_publication_time_is_the_put_time_and_the_interval_ends_there():
    _, df = _frame(REAL)
    row = df.row(0, named=True)
    assert row["put_time_utc"] == datetime(2019, 3, 3, 18, 20, 10, 130000)
    assert row["interval_us"] == 10_000_000
    assert row["interval_start_utc"] == datetime(2019, 3, 3, 18, 20, 0, 130000)


def test_real_rates_are_the_counters_over_the_interval():
    """amqsrua prints round((value * 1e6) / interval): the landed interval reproduces them."""
    _, df = _frame(REAL)
    counters = df.filter(df["rate_per_s"].is_not_null())
    for value, rate, us in counters.select("value", "rate_per_s", "interval_us").rows():
        assert (int(value) * 1_000_000 + us // 2) // us == rate


def test_statq_lines_carry_their_queue_and_the_cpu_lines_their_class():
    _, df = _frame(BUILT)
    assert df.height == 26
    puts = df.filter(df["description"] == "MQPUT/MQPUT1 count").row(0, named=True)
    assert (puts["object_name"], puts["metric_class"], puts["metric_type"]) == (
        "APP.REQUEST",
        "STATQ",
        "PUT",
    )
    assert (puts["value"], puts["rate_per_s"]) == (50020.0, 5001.0)
    qm = df.filter(df["description"] == "User CPU time - percentage estimate for queue manager")
    assert qm.select("metric_class", "metric_type", "value", "unit").row(0) == (
        "CPU",
        "QMgrSummary",
        7.4,
        "%",
    )
    mqi = df.filter(df["description"] == "Persistent message MQPUT count").row(0, named=True)
    assert (mqi["metric_class"], mqi["object_name"]) == ("STATMQI", None)
    # A zero counter prints no rate: the rate is NULL, not 0.
    zero = df.filter(df["description"] == "MQPUT non-persistent message count").row(0, named=True)
    assert (zero["value"], zero["rate_per_s"]) == (0.0, None)


def test_long_intervals_are_read_with_their_minutes():
    _, df = _frame(BUILT)
    log = df.filter(df["description"] == "Log - write latency").row(0, named=True)
    assert log["interval_us"] == 303_250_000
    assert log["interval_start_utc"] == datetime(2024, 5, 6, 9, 0, 5, 890000)


@pytest.mark.parametrize(
    ("text", "us"),
    [
        ("10.000 seconds", 10_000_000),
        ("4 minutes,39.684 seconds", 279_684_000),
        ("1 hours,0 minutes,5.250 seconds", 3_605_250_000),
        ("2 days,1 hours,0 minutes,0.001 seconds", 176_400_001_000),
    ],
)
def test_interval_text_in_microseconds(text, us):
    assert mod.interval_us(text) == us


def test_object_printed_with_one_blank_is_split_by_the_known_description():
    assert mod.split_object("Q1 MQGET count") == ("Q1", "MQGET count")
    assert mod.split_object("MQOPEN count") == (None, "MQOPEN count")
    assert mod.split_object("A.B" + " " * 45 + "some future element") == (
        "A.B",
        "some future element",
    )


def test_unknown_elements_land_without_class_and_lines_outside_publications_are_counted(tmp_path):
    f = tmp_path / "rua.txt"
    f.write_text(
        "Sample AMQSRUA start\n"
        "Publication received PutDate:20240506 PutTime:09000000 Interval:10.000 seconds\n"
        "Some element added in a later release 42\n"
    )
    parsed, df = _frame(f)
    assert parsed.ctx.unknown_lines["line"] == 1
    row = df.row(0, named=True)
    assert (row["description"], row["value"], row["metric_class"]) == (
        "Some element added in a later release",
        42.0,
        None,
    )


@pytest.mark.parametrize(
    ("text", "line", "what"),
    [
        ("nothing here\n", 1, "no 'Publication received'"),
        (
            "Publication received PutDate:20241399 PutTime:09000000 Interval:10.000 seconds\n",
            1,
            "not a date",
        ),
        (
            "Publication received PutDate:20240506 PutTime:09000000 Interval:10.000 seconds\n"
            "Log - write latency 5 uSec\n"
            "Publication received PutDate:20240506 PutTime:09001000 Interval:ten seconds\n",
            3,
            "interval",
        ),
    ],
)
def test_bad_input_names_the_line(tmp_path, text, line, what):
    f = tmp_path / "rua.txt"
    f.write_text(text)
    with pytest.raises(InputError) as exc:
        parse_file(mod.PARSER, f)
    assert exc.value.line == line and what in str(exc.value)
