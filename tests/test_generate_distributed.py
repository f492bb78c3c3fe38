"""Generated amqsrua and amqsmon output (generate/distributed.py): the runs a scenario's
``monitoring`` section selects get both files, in the real formats, UTC publications at the
study's offset, amqsmon counts equal to the publications' sums."""

from __future__ import annotations

import copy
from datetime import timedelta

import pytest

from mqcap.generate import expand, generate, load_scenario
from mqcap.generate.scenario import ScenarioError
from mqcap.parsers import amqsmon, amqsrua, detect

from helpers import PROJECT, parse_file

SCENARIO = load_scenario(PROJECT / "data" / "scenarios" / "threadsweep.yaml")


def _small(**monitoring) -> dict:
    doc = copy.deepcopy(SCENARIO)
    sweep = doc["thread_sweep"]
    sweep["threads"] = [1, 64]
    sweep["monitoring"].update(monitoring)
    return doc


def test_only_the_selected_runs_are_monitored():
    plans = list(expand(_small()))
    monitored = sorted(p.run_id for p in plans if p.monitoring)
    assert monitored == [
        "local-m2002a-off-2k-t1",
        "local-m2002a-off-2k-t64",
        "local-m2002a-on-2k-t1",
        "local-m2002a-on-2k-t64",
    ]
    # 2 scenarios x 2 models x 2 features x 4 sizes x 2 thread counts
    assert len(plans) == 64 and all(
        p.monitoring["utc_offset_minutes"] == 60 for p in plans if p.monitoring
    )


def test_files_parse_and_the_two_sources_agree(tmp_path):
    written = generate(_small(), tmp_path)
    rua = sorted(p for p in written if p.name == "amqsrua.txt")
    mon = sorted(p for p in written if p.name == "amqsmon.txt")
    assert len(rua) == len(mon) == 4
    plan = next(p for p in expand(_small()) if p.run_id == "local-m2002a-on-2k-t64")
    folder = tmp_path / "threadsweep" / plan.run_id
    assert detect(folder / "amqsrua.txt").kind == "amqsrua"
    assert detect(folder / "amqsmon.txt").kind == "amqsmon"
    r = parse_file(amqsrua.PARSER, folder / "amqsrua.txt")["amqsrua_value"]
    m = parse_file(amqsmon.PARSER, folder / "amqsmon.txt")["amqsmon_value"]
    # Six 10-second publications of 18 elements, every element a documented one.
    assert r.height == 6 * 18 and r["metric_class"].null_count() == 0
    # Publications in UTC: the run starts 1 h later on its local clock (utc_offset +01:00).
    puts = sorted(set(r["put_time_utc"].to_list()))
    assert puts[0] == plan.start - timedelta(hours=1) + timedelta(seconds=10, milliseconds=130)
    assert puts[-1] - puts[0] == timedelta(seconds=50)
    # amqsmon's one MQI record over the run, local time: its puts are amqsrua's summed.
    mqi = m.filter((m["monitoring_type"] == "MQIStatistics") & (m["name"] == "PutCount"))
    assert mqi["interval_start_local"].to_list()[0] == plan.start
    assert mqi["interval_end_local"].to_list()[0] == plan.start + timedelta(seconds=60)
    statmqi = r.filter(r["description"] == "Interval total MQPUT/MQPUT1 count")["value"].sum()
    assert mqi["value_number"].sum() == statmqi
    per_queue = m.filter((m["group_name"] == "QueueStatistics") & (m["name"] == "PutCount"))
    assert sorted(per_queue["object_name"].unique().to_list()) == ["CPH.REPLY", "CPH.REQUEST"]
    assert per_queue["value_number"].sum() == statmqi


def test_printed_rates_are_amqsruas_arithmetic(tmp_path):
    generate(_small(), tmp_path)
    folder = tmp_path / "threadsweep" / "local-m2002a-off-2k-t1"
    r = parse_file(amqsrua.PARSER, folder / "amqsrua.txt")["amqsrua_value"]
    counters = r.filter(r["rate_per_s"].is_not_null())
    for value, rate, interval in counters.select("value", "rate_per_s", "interval_us").iter_rows():
        assert rate == (int(value) * 1_000_000 + interval // 2) // interval


def test_a_study_offset_that_is_not_one_is_a_scenario_error():
    doc = _small()
    doc["study_file"]["utc_offset"] = "CET"
    with pytest.raises(ScenarioError, match=r"study_file\.utc_offset: 'CET' is not a UTC offset"):
        list(expand(doc))
