"""The study file (study.yaml): valid ones land in study_file / study_configuration; every
error names file, line, field and what was expected, like run.yaml."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mqcap.errors import InputError
from mqcap.parsers import detect, study
from mqcap.parsers.base import ParseContext

from helpers import parse_file

GOOD = """\
study: threadsweep
title: Persistent request/responder on two appliance models
purpose: What the feature costs
baseline: Feature off
group_by: [scenario, hardware_model]
configurations:
  - configuration: Feature off
    display_name: Feature off (baseline)
  - Feature on
notes:
  - Generated data.
"""


def _write(tmp_path: Path, text: str) -> Path:
    folder = tmp_path / "threadsweep"
    folder.mkdir(exist_ok=True)
    path = folder / "study.yaml"
    path.write_text(text)
    return path


def _error(tmp_path: Path, text: str) -> InputError:
    path = _write(tmp_path, text)
    with pytest.raises(InputError) as info:
        study.load(ParseContext(path=path, source_file="threadsweep/study.yaml"))
    return info.value


def test_study_file_lands_title_order_baseline_grouping_and_notes(tmp_path):
    path = _write(tmp_path, GOOD)
    assert detect(path, path.name).kind == "study"
    parsed = parse_file(study.PARSER, path, "threadsweep/study.yaml")
    row = parsed["study_file"].row(0, named=True)
    assert (row["study"], row["title"], row["baseline_configuration"]) == (
        "threadsweep", "Persistent request/responder on two appliance models", "Feature off",
    )  # fmt: skip
    assert json.loads(row["group_by_json"]) == ["scenario", "hardware_model"]
    assert json.loads(row["notes_json"]) == ["Generated data."]
    configs = parsed["study_configuration"]
    assert configs.select("configuration", "display_name", "sort_order").rows() == [
        ("Feature off", "Feature off (baseline)", 1),
        ("Feature on", "Feature on", 2),
    ]


def test_baseline_not_among_the_configurations_names_line_and_choices(tmp_path):
    err = _error(tmp_path, GOOD.replace("baseline: Feature off", "baseline: Feature of"))
    assert str(err) == (
        "threadsweep/study.yaml line 4: field baseline: expected one of the listed "
        "configurations ['Feature off', 'Feature on'], got 'Feature of'"
    )


def test_unknown_field_and_wrong_study_name_are_errors(tmp_path):
    err = _error(tmp_path, GOOD + "colour: red\n")
    assert err.field == "colour" and err.line == 12
    err = _error(tmp_path, GOOD.replace("study: threadsweep", "study: other"))
    assert err.field == "study" and "the study folder's name 'threadsweep'" in str(err)


def test_configuration_listed_twice_is_an_error(tmp_path):
    err = _error(tmp_path, GOOD.replace("  - Feature on", "  - Feature off"))
    assert err.field == "configurations[1].configuration"


def test_question_lands_its_measures_in_order_and_sets_the_grouping(tmp_path):
    text = GOOD.replace("group_by: [scenario, hardware_model]\n", "") + (
        "question:\n  measures: [single_thread_round_trip_us, max_rate_per_s]\n  by: [scenario]\n"
    )
    parsed = parse_file(study.PARSER, _write(tmp_path, text), "threadsweep/study.yaml")
    assert parsed["study_question_measure"].select("measure", "sort_order").rows() == [
        ("single_thread_round_trip_us", 1),
        ("max_rate_per_s", 2),
    ]
    assert json.loads(parsed["study_file"].row(0, named=True)["group_by_json"]) == ["scenario"]


def test_question_names_only_measures_the_marts_have(tmp_path):
    err = _error(tmp_path, GOOD + "question:\n  measures: [latency]\n")
    assert err.field == "question.measures[0]" and err.line == 13
    assert "one of max_rate_per_s, single_thread_round_trip_us, achieved_batch_size" in str(err)
    err = _error(tmp_path, GOOD + "question:\n  by: [scenario]\n")
    assert err.field == "question.by"
    assert "the same as group_by ['scenario', 'hardware_model']" in str(err)


def test_question_measures_are_the_measures_the_marts_define():
    # The parser reads the seed every measure is defined in: a measure added to
    # fct_run_measures (and so to the seed) is askable, and nothing else is.
    seed = (Path(__file__).parents[1] / "seeds" / "measures.csv").read_text()
    measures = {line.split(",")[0] for line in seed.splitlines()[1:] if line.strip()}
    assert len(measures) >= 24
    assert set(study.question_measures()) == measures | set(study.SWEEP_MEASURES)


def test_every_problem_of_a_study_file_is_named_at_once(tmp_path):
    text = (
        GOOD.replace("group_by: [scenario, hardware_model]", "group_by: [scenario, scenario]")
        .replace("  - Feature on\n", "  - Feature on\n  - Feature on\n")
        .replace("baseline: Feature off", "baseline: Feature of")
        + "colour: blue\n"
    )
    err = _error(tmp_path, text)
    assert err.line == 4 and err.field == "baseline"
    message = str(err)
    assert message.startswith("threadsweep/study.yaml line 4: 4 problems: field baseline: ")
    assert "; line 5: field group_by: expected each dimension once" in message
    assert "; line 6: field configurations[2].configuration: expected each configuration once" in (
        message
    )
    assert "; line 13: field colour: expected one of" in message
