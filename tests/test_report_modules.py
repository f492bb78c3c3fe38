"""The report modules tested directly on a small hand-filled warehouse (tests/report_support):
queries read the contract marts, tables and charts shape them, text links and escapes.

No dbt build and no kernel: every expected value follows from the frames written.
"""

from __future__ import annotations

import json

import pandas as pd
import pytest

from mqcap.report import charts as ch
from mqcap.report import labels as lb
from mqcap.report import queries as q
from mqcap.report import tables as tb
from mqcap.report import text as tx

from report_support import thread_sweep_study, write_warehouse


@pytest.fixture
def sweep_wh(tmp_path, monkeypatch):
    frames = thread_sweep_study()
    monkeypatch.setenv("MQCAP_WAREHOUSE", str(write_warehouse(tmp_path / "w.duckdb", frames)))
    return frames


@pytest.fixture
def bare_wh(tmp_path, monkeypatch):
    # Only dim_run: a warehouse built before the contract marts existed.
    frames = {"dim_run": thread_sweep_study()["dim_run"].head(4)}
    monkeypatch.setenv("MQCAP_WAREHOUSE", str(write_warehouse(tmp_path / "b.duckdb", frames)))
    return frames


def test_missing_marts_read_as_empty_frames_not_errors(bare_wh):
    assert q.study_info("appliance") == {}
    assert q.study_shapes("appliance") == []
    for frame in (
        q.findings("appliance"),
        q.thread_sweep("appliance"),
        q.sweep_summary("appliance"),
        q.rate_targets("appliance"),
        q.cost_deltas("appliance"),
        q.chinit_task_stack("appliance"),
        q.fits("appliance"),
        q.comparisons("appliance"),
        q.run_files("appliance"),
    ):
        assert frame.empty
    # Without dim_configuration the baseline's configuration comes first.
    assert q.configurations("appliance") == ["feature_off"]


def test_a_query_on_a_present_table_still_raises_on_a_real_error(sweep_wh):
    with pytest.raises(Exception, match=r"(?i)parser|syntax"):
        q._query("select from from marts.dim_run")


def test_display_names_and_order_come_from_dim_configuration(sweep_wh):
    assert q.configurations("appliance") == ["Feature off", "Feature on"]
    runs = q.runs("appliance")
    assert list(runs["configuration"].cat.categories) == ["Feature off", "Feature on"]
    assert runs["series"].str.startswith("Feature ").all()
    sweep = q.thread_sweep("appliance")
    assert set(sweep["configuration"].astype(str)) == {"Feature off", "Feature on"}
    assert q.config_colors("appliance") == {"Feature off": "#4e79a7", "Feature on": "#f28e2b"}


def test_study_info_decodes_group_by_and_counts(sweep_wh):
    info = q.study_info("appliance")
    assert info["group_by"] == ["scenario", "hardware_model"]
    assert info["shapes"] == ["thread_sweep"]
    assert info["notes"] == ["Generated for the tests: a saturating curve."]
    assert info["configuration_count"] == 2 and info["run_count"] == 640
    assert q.study_shapes("appliance") == ["thread_sweep"]


def test_sweep_summary_table_states_max_rate_and_single_thread_change(sweep_wh):
    summary = q.sweep_summary("appliance")
    rows = tb.sweep_summary_table(summary, ["scenario", "hardware_model"])
    assert len(rows) == 32  # 2 scenarios x 2 models x 4 sizes x 2 configurations
    assert list(rows.columns[:4]) == ["Scenario", "Model", "Size", "Configuration"]
    # Sizes in numeric order within a group, baseline first within a size.
    first = rows[(rows["Scenario"] == "fire_and_forget") & (rows["Model"] == "M2002A")]
    assert list(first["Size"]) == ["256 bytes"] * 2 + ["2 KB"] * 2 + ["20 KB"] * 2 + ["100 KB"] * 2
    on = first[(first["Size"] == "256 bytes") & (first["Configuration"] == "Feature on")].iloc[0]
    frame = summary[
        (summary["scenario"] == "fire_and_forget")
        & (summary["hardware_model"] == "M2002A")
        & (summary["message_bytes"] == 256)
        & (summary["configuration"] == "Feature on")
    ].iloc[0]
    assert on["Max rate /s"] == f"{frame['max_rate_per_s']:,.1f}"
    assert on["Max rate vs baseline"] == "-10.0%"
    assert on["Threads at max"] == "200"
    expected = frame["single_thread_round_trip_pct_change"]
    assert on["1-thread vs baseline"] == f"{expected:+.1f}%" == "+11.1%"


def test_sweep_chart_has_numeric_threads_and_at_most_eight_lines_per_panel(sweep_wh):
    sweep = q.thread_sweep("appliance")
    colors = q.config_colors("appliance")
    spec = ch.sweep_chart(
        sweep, "rate_per_s", colors, "Figure 1: x", ["scenario", "hardware_model"]
    ).to_dict()
    x = spec["spec"]["encoding"]["x"]
    assert x["field"] == "threads" and x["type"] == "quantitative"
    assert x["scale"]["type"] == "log"
    # Measured counts, numeric order, thinned where labels would collide on the log axis.
    assert x["axis"]["values"] == [1, 2, 4, 8, 16, 32, 100, 200]
    assert spec["facet"]["field"] == "panel"
    panels = spec["facet"]["sort"]
    assert len(panels) == 16 and panels[0] == "fire_and_forget · M2002A · 256 bytes"
    assert panels[:4] == [
        f"fire_and_forget · M2002A · {s}" for s in ("256 bytes", "2 KB", "20 KB", "100 KB")
    ]
    data, _ = ch.sweep_panels(sweep, ["scenario", "hardware_model"])
    lines = data.groupby("panel")["configuration"].nunique()
    assert lines.max() <= ch.MAX_LINES_PER_PANEL
    # The legend follows the study's order, not the alphabet.
    assert spec["spec"]["encoding"]["color"]["scale"]["domain"] == ["Feature off", "Feature on"]


def test_latency_throughput_chart_joins_points_in_thread_order(sweep_wh):
    spec = ch.latency_throughput_chart(
        q.thread_sweep("appliance"), q.config_colors("appliance"), "Figure 3: x", []
    ).to_dict()
    assert spec["spec"]["encoding"]["order"]["field"] == "threads"
    assert spec["spec"]["encoding"]["x"]["field"] == "rate_per_s"


def _small_frames() -> dict[str, pd.DataFrame]:
    runs = pd.DataFrame(
        {
            "run_key": [1, 2, 3],
            "run_id": ["base", "fast", "slow"],
            "study": "stream",
            "configuration": ["plain", "plain", "ams"],
            "workload_type": "streaming",
            "message_bytes": [2048, 2048, 2048],
            "threads": None,
            "is_baseline": [True, False, False],
            "baseline_run_id": [None, "base", "base"],
            "labels_json": "{}",
            "interval_start": pd.to_datetime(["2026-03-01 10:00", None, "2026-03-01 11:00"]),
            "interval_end": pd.to_datetime(["2026-03-01 10:05", None, "2026-03-01 11:05"]),
            "interval_s": [300, None, 300],
            "platform": ["zos", "zos", "zos"],
            "host": None,
            "hardware_model": None,
            "system_id": ["SYSA"] * 3,
            "qmgr": ["QML1"] * 3,
            "cipher": None,
            "recipients": None,
            "key_strength": None,
            "sslrkeyc": None,
            "persistence": None,
        }
    )
    targets = pd.DataFrame(
        {
            "study": "stream",
            "run_id": ["base", "fast", "slow"],
            "configuration": ["plain", "plain", "ams"],
            "message_bytes": 2048,
            "target_rate_per_s": [5000.0, 10000.0, 10000.0],
            "achieved_rate_per_s": [4990.0, 9950.0, 7200.0],
            "achieved_pct": [99.8, 99.5, 72.0],
            "sustained": [True, True, False],
            "sustained_threshold_pct": 98.0,
            "xqtime_p95_us": [120.0, 150.0, 91000.0],
            "backlog_growing": [False, False, True],
        }
    )
    deltas = pd.DataFrame(
        {
            "study": "stream",
            "run_id": ["base"] * 3 + ["slow"] * 3,
            "configuration": ["plain"] * 3 + ["ams"] * 3,
            "message_bytes": 2048,
            "role": ["MSTR", "CHIN", "MQ"] * 2,
            "cpu_us_per_txn": [10.0, 20.0, 30.0, 12.0, 33.0, 45.0],
            "baseline_cpu_us_per_txn": [10.0, 20.0, 30.0] * 2,
            "is_baseline": [True] * 3 + [False] * 3,
            # The baseline run compared with itself: zero, and float noise that must not print
            # as -0.0.
            "delta_us_per_txn": [0.0, -1e-14, 0.0, 2.0, 13.0, 15.0],
            "pct_change": [0.0, -5e-14, 0.0, 20.0, 65.0, 50.0],
        }
    )
    stack = pd.DataFrame(
        {
            "study": "stream",
            "run_id": ["base", "base", "slow", "slow"],
            "configuration": ["plain", "plain", "ams", "ams"],
            "task_type": ["ADAPTER", "DISPATCHER"] * 2,
            "cpu_us_per_request": [3.0, 5.0, 4.0, 9.0],
            "wait_us_per_request": [30.0, 2.0, 55.0, 3.0],
        }
    )
    return {
        "dim_run": runs,
        "fct_rate_target": targets,
        "fct_cost_delta": deltas,
        "fct_chinit_task_stack": stack,
    }


@pytest.fixture
def stream_wh(tmp_path, monkeypatch):
    frames = _small_frames()
    monkeypatch.setenv("MQCAP_WAREHOUSE", str(write_warehouse(tmp_path / "s.duckdb", frames)))
    return frames


def test_rate_target_table_flags_the_unsustained_run(stream_wh):
    rows = tb.rate_target_table(q.rate_targets("stream")).set_index("Run")
    assert rows.loc["ams", "Sustained"] == "NOT sustained"
    assert rows.loc["ams", "Achieved %"] == "72.0"
    assert rows.loc["ams", "XQTIME p95 µs"] == "91,000"
    assert rows.loc["ams", "XQTIME backlog"] == "growing"
    assert set(rows.loc[rows.index != "ams", "Sustained"]) == {"yes"}
    spec = ch.rate_target_chart(q.rate_targets("stream"), q.config_colors("stream"), "F").to_dict()
    assert spec["spec"]["layer"][1]["encoding"]["x"]["field"] == "target_rate_per_s"
    assert spec["facet"]["row"]["field"] == "size"


def test_cost_delta_table_has_mq_subtotal_and_delta_rows(stream_wh):
    rows = tb.cost_delta_table(q.cost_deltas("stream"))
    assert list(rows.columns) == ["Size", "Run", "Row", "MSTR", "CHIN", "MQ"]
    assert list(rows["Row"]) == ["µs/txn", "µs/txn", "Δ vs baseline"]  # baseline has no Δ row
    assert rows.iloc[1]["MQ"] == "45.0"
    assert rows.iloc[2]["MQ"] == "+15.0 (+50.0%)" and rows.iloc[2]["CHIN"] == "+13.0 (+65.0%)"
    assert tb._pct(-5e-14) == "+0.0%"  # float noise never prints as -0.0


def test_task_stack_chart_stacks_cpu_then_wait_per_task_type(stream_wh):
    spec = ch.task_stack_chart(
        q.chinit_task_stack("stream"), q.config_colors("stream"), "F"
    ).to_dict()
    assert spec["facet"]["column"]["field"] == "task_type"
    assert spec["spec"]["encoding"]["opacity"]["scale"]["domain"] == ["CPU", "Wait"]
    values = spec["datasets"][next(iter(spec["datasets"]))]
    adapter = {
        (v["run_id"], v["part"]): v["us_per_request"] for v in values if v["task_type"] == "ADAPTER"
    }
    assert adapter == {
        ("base", "CPU"): 3.0,
        ("base", "Wait"): 30.0,
        ("slow", "CPU"): 4.0,
        ("slow", "Wait"): 55.0,
    }


def test_where_measured_names_platform_and_never_prints_a_missing_system(sweep_wh, stream_wh):
    appliance = tb.where_measured(thread_sweep_study()["dim_run"])
    assert appliance == [
        "MQ Appliance, host mqa-a, model M2002A, queue manager QM1 (320 runs)",
        "MQ Appliance, host mqa-b, model M2002B, queue manager QM1 (320 runs)",
    ]
    assert tb.where_measured(_small_frames()["dim_run"]) == [
        "z/OS, system SYSA, queue manager QML1 (3 runs)"
    ]


def test_interval_span_is_local_time_and_counts_runs_without_one():
    first, last, missing = tb.interval_span(_small_frames()["dim_run"])
    assert tx.local_time(first) == "2026-03-01 10:00" and tx.local_time(last) == "2026-03-01 11:05"
    assert missing == 1
    assert tx.local_time(pd.NaT) == "not recorded"
    local = _small_frames()["dim_run"].assign(
        interval_start_local=pd.to_datetime(["2026-03-01 12:00"] * 3),
        interval_end_local=pd.to_datetime(["2026-03-01 12:05"] * 3),
    )
    assert tx.local_time(tb.interval_span(local)[0]) == "2026-03-01 12:00"


def test_findings_link_only_to_sections_in_the_report_and_escape_text(sweep_wh):
    found = q.findings("appliance")
    lines = tx.finding_lines(found, {"sec-thread-sweep"})
    assert lines[0].startswith("- Feature on reaches \\-10\\.0% of the baseline")
    assert lines[0].endswith("([details](#sec-thread-sweep))")
    assert "&lt;everywhere&gt;" in lines[1] and "details" not in lines[1]


def test_natural_order_of_variant_labels():
    assert lb.natural_sorted(["100 threads", "1 thread", "16 threads", "2 threads"]) == [
        "1 thread",
        "2 threads",
        "16 threads",
        "100 threads",
    ]
    assert json.loads(json.dumps(lb.natural_sorted([]))) == []
