"""The local clock of a run: run.yaml / study.yaml ``utc_offset`` or ``timezone``, validated with
file, line and field; interval timestamps written with an offset state it too. (Attribution of
UTC-stamped amqsrua rows by these clocks: tests/test_marts_distributed.py.)"""

from __future__ import annotations

from pathlib import Path

import pytest

from mqcap.errors import InputError
from mqcap.parsers import _clock, manifest, study
from mqcap.parsers.base import ParseContext

from helpers import parse_file

RUN = """\
study: clocks
run: r1
interval:
  start: {start}
  end: {end}
{extra}"""


def _run(tmp_path: Path, extra: str = "", start="2024-03-05T13:15:00", end="2024-03-05T13:25:00"):
    path = tmp_path / "run.yaml"
    path.write_text(RUN.format(start=start, end=end, extra=extra))
    return manifest.load(ParseContext(path=path, source_file="clocks/r1/run.yaml"))


def _run_error(tmp_path: Path, extra: str = "", **times) -> InputError:
    with pytest.raises(InputError) as info:
        _run(tmp_path, extra, **times)
    return info.value


@pytest.mark.parametrize(
    ("written", "minutes"),
    [
        ("+01:00", 60),
        ("-05:00", -300),
        ("+0530", 330),
        ("-03", -180),
        ("Z", 0),
        ("UTC", 0),
        ("+14:00", 840),
        (0, 0),
    ],
)
def test_offsets_are_read_as_minutes_east_of_utc(written, minutes):
    assert _clock.parse_offset(written) == minutes


@pytest.mark.parametrize("written", ["+15:00", "+14:30", "+01:60", "1", "EST", "+1:00", 60, True])
def test_what_is_not_an_offset_is_refused(written):
    assert _clock.parse_offset(written) is None


def test_run_states_a_fixed_offset(tmp_path):
    m = _run(tmp_path, 'utc_offset: "-05:00"\n')
    assert (m["utc_offset_minutes"], m["timezone"]) == (-300, None)
    assert m["interval_start"].isoformat() == "2024-03-05T13:15:00"


def test_run_states_an_iana_zone(tmp_path):
    m = _run(tmp_path, "timezone: Europe/Berlin\n")
    assert (m["utc_offset_minutes"], m["timezone"]) == (None, "Europe/Berlin")


def test_no_clock_stated_leaves_both_empty(tmp_path):
    m = _run(tmp_path)
    assert (m["utc_offset_minutes"], m["timezone"]) == (None, None)


def test_interval_written_with_an_offset_keeps_local_time_and_states_the_offset(tmp_path):
    m = _run(tmp_path, start="2024-03-05T19:15:00+01:00", end="2024-03-05T19:25:00+01:00")
    # Local wall-clock time, as every interval is; not turned into UTC (18:15).
    assert m["interval_start"].isoformat() == "2024-03-05T19:15:00"
    assert m["interval_end"].isoformat() == "2024-03-05T19:25:00"
    assert m["utc_offset_minutes"] == 60


def test_interval_offset_agreeing_with_utc_offset_is_accepted(tmp_path):
    m = _run(
        tmp_path,
        'utc_offset: "+01:00"\n',
        start="2024-03-05T19:15:00+01:00",
        end="2024-03-05T19:25:00+01:00",
    )
    assert m["utc_offset_minutes"] == 60


def test_unquoted_offset_read_by_yaml_as_a_number_is_refused_with_the_hint(tmp_path):
    err = _run_error(tmp_path, "utc_offset: +10:00\n")  # YAML 1.1: 10*60 = 600
    assert err.line == 6 and err.field == "utc_offset"
    assert str(err) == (
        "clocks/r1/run.yaml line 6: field utc_offset: expected a UTC offset in quotes like "
        "'+01:00' or '-05:00' (or Z): the local clock's offset from UTC (unquoted, YAML reads "
        "+10:00 as the number 600), got 600"
    )


@pytest.mark.parametrize(
    ("extra", "line", "field", "got"),
    [
        ('utc_offset: "+25:00"\n', 6, "utc_offset", "'+25:00'"),
        ("timezone: Mars/Olympus\n", 6, "timezone", "'Mars/Olympus'"),
        ("timezone: ../../etc/passwd\n", 6, "timezone", "'../../etc/passwd'"),
        ('utc_offset: "+01:00"\ntimezone: Europe/Berlin\n', 7, "timezone", "'Europe/Berlin'"),
    ],
)
def test_bad_clock_names_line_and_field(tmp_path, extra, line, field, got):
    err = _run_error(tmp_path, extra)
    assert (err.file, err.line, err.field) == ("clocks/r1/run.yaml", line, field)
    assert str(err).endswith(f"got {got}")


def test_interval_offset_contradicting_utc_offset_is_an_error(tmp_path):
    err = _run_error(
        tmp_path,
        'utc_offset: "-05:00"\n',
        start="2024-03-05T19:15:00+01:00",
        end="2024-03-05T19:25:00+01:00",
    )
    assert (err.line, err.field) == (5, "interval.end")
    assert "no offset, or the one utc_offset states" in str(err)


def test_offset_on_one_end_only_is_an_error(tmp_path):
    err = _run_error(tmp_path, start="2024-03-05T19:15:00+01:00", end="2024-03-05T19:25:00")
    assert (err.line, err.field) == (4, "interval.start")
    assert "the same UTC offset on start and end" in str(err)


def test_manifest_lands_the_clock_columns(tmp_path):
    path = tmp_path / "run.yaml"
    path.write_text(RUN.format(start="2024-03-05T13:15:00", end="2024-03-05T13:25", extra=""))
    path.write_text(path.read_text() + "timezone: America/New_York\n")
    parsed = parse_file(manifest.PARSER, path, "clocks/r1/run.yaml")
    row = parsed["run_manifest"].to_dicts()[0]
    assert (row["utc_offset_minutes"], row["timezone"]) == (None, "America/New_York")


def _study(tmp_path: Path, extra: str) -> Path:
    folder = tmp_path / "clocks"
    folder.mkdir(exist_ok=True)
    path = folder / "study.yaml"
    path.write_text("study: clocks\n" + extra)
    return path


def test_study_file_states_the_clock_of_its_runs(tmp_path):
    path = _study(tmp_path, 'utc_offset: "+05:30"\n')
    row = parse_file(study.PARSER, path, "clocks/study.yaml")["study_file"].to_dicts()[0]
    assert (row["utc_offset_minutes"], row["timezone"]) == (330, None)
    path = _study(tmp_path, "timezone: Asia/Kolkata\n")
    row = parse_file(study.PARSER, path, "clocks/study.yaml")["study_file"].to_dicts()[0]
    assert (row["utc_offset_minutes"], row["timezone"]) == (None, "Asia/Kolkata")


def test_study_file_bad_zone_names_line_and_field(tmp_path):
    path = _study(tmp_path, "title: t\ntimezone: Europe/Nowhere\n")
    with pytest.raises(InputError) as info:
        study.load(ParseContext(path=path, source_file="clocks/study.yaml"))
    assert (info.value.line, info.value.field) == (3, "timezone")
