"""The report modules tested directly on a small hand-filled warehouse (tests/report_support):
queries read the contract marts, tables and charts shape them, text links and escapes.

No dbt build and no kernel: every expected value follows from the frames written.
"""

from __future__ import annotations

import json
import os
import re

import duckdb
import pandas as pd
import pytest

from mqcap.render import display as display_mod
from mqcap.sections import charts as ch
from mqcap.sections import labels as lb
from mqcap.sections import queries as q
from mqcap.sections import tables as tb
from mqcap.sections import text as tx

from helpers import PROJECT
from report_support import THREADS, thread_sweep_study, with_series, write_warehouse


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
    # Without dim_configuration no order is decided here: the runs keep the order they have.
    assert q.configurations("appliance") == []
    assert list(q.runs("appliance")["configuration"].cat.categories) == ["feature_off"]


def test_a_query_on_a_present_table_still_raises_on_a_real_error(sweep_wh):
    with pytest.raises(Exception, match=r"(?i)parser|syntax"):
        q._query("select from from marts.dim_run")


def test_a_report_reads_through_one_connection_closed_by_its_last_cell(
    sweep_wh, tmp_path, monkeypatch
):
    # Opening the warehouse reads its catalog (about 90 ms; a query on an open connection
    # about 7): every query of a report shares one read-only connection.
    q.runs("appliance")
    first = q._OPEN
    assert first is not None and first[0] == os.environ["MQCAP_WAREHOUSE"]
    q.thread_sweep("appliance"), q.findings("appliance"), q.study_info("appliance")
    assert q._OPEN is first
    # A failed query leaves the connection usable.
    with pytest.raises(duckdb.ParserException):
        q._query("select from from marts.dim_run")
    assert q._OPEN is first and not q.runs("appliance").empty
    # The runs are read once per connection, and each caller gets its own copy to change.
    changed = q.runs("appliance")
    changed["series"] = "changed"
    assert (q.runs("appliance")["series"] != "changed").all()
    # Closed: the file is free for a writer (DuckDB refuses a second configuration of an
    # open file in one process, so this connect fails while the report's is open).
    q.close()
    assert q._OPEN is None
    duckdb.connect(first[0]).close()
    # Another warehouse: its own connection, the first one closed.
    q.runs("appliance")
    other = write_warehouse(tmp_path / "other.duckdb", {"dim_run": sweep_wh["dim_run"].head(2)})
    monkeypatch.setenv("MQCAP_WAREHOUSE", str(other))
    assert len(q.runs("appliance")) == 2 and q._OPEN[0] == str(other)
    duckdb.connect(first[0]).close()


@pytest.mark.parametrize("name", ["study.qmd", "index.qmd"])
def test_every_report_closes_its_connection_in_its_last_cell(name):
    cells = re.findall(r"```\{python\}\n(.*?)```", (PROJECT / "reports" / name).read_text(), re.S)
    assert cells[-1].strip().splitlines()[-1] == "q.close()"


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
    # Sizes joined by a no-break space: "256 bytes" never wraps in this wide table.
    nb = "\u00a0"
    assert list(first["Size"]) == (
        [f"256{nb}bytes"] * 2 + [f"2{nb}KB"] * 2 + [f"20{nb}KB"] * 2 + [f"100{nb}KB"] * 2
    )
    on = first[(first["Size"] == f"256{nb}bytes") & (first["Configuration"] == "Feature on")].iloc[
        0
    ]
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
    assert (data.groupby("panel")["line"].nunique() == lines).all()  # one line per configuration
    # The legend follows the study's order, not the alphabet.
    assert spec["spec"]["encoding"]["color"]["scale"]["domain"] == ["Feature off", "Feature on"]
    # Rates on a linear axis from zero (saturation shows as the curve flattening); four
    # panels across, one row per scenario x model.
    y = spec["spec"]["encoding"]["y"]
    assert y.get("scale", {}).get("type") is None and y["scale"]["zero"] is True
    assert spec["columns"] == 4


def test_latency_throughput_chart_joins_points_in_thread_order(sweep_wh):
    spec = ch.latency_throughput_chart(
        q.thread_sweep("appliance"), q.config_colors("appliance"), "Figure 3: x", []
    ).to_dict()
    assert spec["spec"]["encoding"]["order"]["field"] == "threads"
    assert spec["spec"]["encoding"]["x"]["field"] == "rate_per_s"
    # Round trips span decades: a log axis labelled at 1-3-10 steps (at most two decades)
    # or powers of ten, never a label per 1-2-5 step; rates labelled 20k, zero as 0.
    y = spec["spec"]["encoding"]["y"]
    rt = q.thread_sweep("appliance")["round_trip_us"]
    assert y["scale"]["type"] == "log"
    steps = tuple(sorted({int(str(v)[0]) for v in y["axis"]["values"]}))
    assert steps in [(1,), (1, 3), (1, 2, 5)] and y["axis"]["values"] == ch.log_ticks(rt, steps)
    # As dense as the panel height allows, never so dense that labels touch.
    assert ch.panel_log_steps(1.0, 150) == (1, 2, 5)
    assert ch.panel_log_steps(2.0, 100) == (1, 3)
    assert ch.panel_log_steps(5.0, 120) == (1,)
    assert ch.log_ticks(pd.Series([250.0, 4800.0])) == [100, 300, 1000, 3000, 10000]
    assert ch.log_ticks(pd.Series([5.0, 2.0e5])) == [1, 10, 100, 1000, 10000, 100000, 1000000]
    assert ch.log_ticks(pd.Series([150.0, 90000.0])) == [100, 1000, 10000, 100000]
    assert "format(datum.value, '~s')" in spec["spec"]["encoding"]["x"]["axis"]["labelExpr"]
    assert spec["spec"]["encoding"]["color"]["legend"]["orient"] == "top"


def test_round_trip_against_threads_is_on_a_log_axis(sweep_wh):
    # The single-thread round trip is a fraction of the saturated one: on a linear axis the
    # difference between configurations at one thread is a pixel; on a log axis it shows.
    sweep = q.thread_sweep("appliance")
    colors = q.config_colors("appliance")
    spec = ch.sweep_chart(sweep, "round_trip_us", colors, "F", ["scenario", "hardware_model"])
    spec = spec.to_dict()
    y = spec["spec"]["encoding"]["y"]
    assert y["field"] == "round_trip_us" and y["scale"]["type"] == "log"
    assert spec["spec"]["encoding"]["x"]["scale"] == {"type": "log", "base": 2, "nice": False}
    assert "log scale" in spec["facet"]["title"]


def _sixteen_configurations(sweep: pd.DataFrame) -> tuple[pd.DataFrame, dict[str, str]]:
    base = sweep[sweep["configuration"].astype(str) == "Feature off"]
    names = [f"Configuration number {k:02d} with a long display name" for k in range(16)]
    frames = [
        base.assign(configuration=name, rate_per_s=base["rate_per_s"] * (1 + k / 20))
        for k, name in enumerate(names)
    ]
    return pd.concat(frames), {n: lb.PALETTE[k % 20] for k, n in enumerate(names)}


def test_sixteen_configurations_get_panels_of_at_most_eight_lines_and_a_whole_legend(sweep_wh):
    sweep, colors = _sixteen_configurations(q.thread_sweep("appliance"))
    group_by = ["scenario", "hardware_model"]
    data, panels = ch.sweep_panels(sweep, group_by, colors)
    lines = data.groupby("panel")["line"].nunique()
    assert lines.max() <= ch.MAX_LINES_PER_PANEL
    # Split evenly, the baseline in every panel so each compares with it.
    assert set(lines) == {6}
    baseline = next(iter(colors))
    assert data.groupby("panel")["configuration"].apply(lambda c: baseline in set(c)).all()
    assert (data.groupby(["panel", "configuration"])["threads"].nunique() == 10).all()
    chart = ch.sweep_chart(sweep, "rate_per_s", colors, "F", group_by)
    spec = chart.to_dict()
    # Only combinations with data get a panel.
    assert spec["facet"]["sort"] == panels and set(panels) == set(data["panel"])
    legend = spec["spec"]["encoding"]["color"]["legend"]
    assert legend["values"] == list(colors)  # every entry, none cut off
    longest = max(ch.text_px(n) for n in colors)
    assert legend["labelLimit"] >= longest
    assert legend["symbolLimit"] > len(colors)
    assert legend["columns"] * (longest + 30) <= ch.TEXT_WIDTH
    assert ch.drawn_width(chart) <= ch.TEXT_WIDTH


def test_a_label_that_varies_within_a_configuration_gets_its_own_panels(sweep_wh):
    # group_by not declared: the scenarios and models still never join into one zigzag line.
    data, panels = ch.sweep_panels(q.thread_sweep("appliance"), [])
    assert len(panels) == 16
    assert (data.groupby(["panel", "configuration"])["threads"].count() == 10).all()


def _costs_over_decades() -> tuple[pd.DataFrame, dict[str, str]]:
    # fct_series_cost rows: totals from ~50 µs (1 KB) to ~60,000 µs (1 MB); the 4 KB size has
    # one series only. BATCH stands for a role the chart has no colour reserved for.
    rows = []
    spaces = {
        "No TLS": {"MSTR": 10.0, "CHIN": 30.0, "TCPIP": 8.0},
        "TLS": {"MSTR": 10.0, "CHIN": 200.0, "TCPIP": 40.0, "AMSM": 15.0, "APP": 5.0},
    }
    order = {r: k for k, r in enumerate(["MSTR", "CHIN", "MQ", "TCPIP", "AMSM", "APP", "OTHER"])}
    for size, factor in [(1024, 1), (4096, 2), (1 << 20, 240)]:
        for config, roles in spaces.items():
            if size == 4096 and config == "TLS":
                continue
            parts = {r: us * factor for r, us in {**roles, "OTHER": 3.0, "BATCH": 2.0}.items()}
            total = sum(parts.values())
            for role, us in {**parts, "TOTAL": total}.items():
                rows.append(
                    {
                        "configuration": config,
                        "message_bytes": size,
                        "series": config,
                        "detail": "",
                        "role": role,
                        "role_order": order.get(role, 8),
                        "is_subtotal": role == "TOTAL",
                        "cpu_us_per_txn": us,
                        "series_total_us_per_txn": total,
                        "runs": 1,
                    }
                )
    return pd.DataFrame(rows), {"No TLS": "#4e79a7", "TLS": "#f28e2b"}


def test_cost_chart_stacks_on_a_linear_axis_one_panel_per_size(sweep_wh):
    costs, colors = _costs_over_decades()
    spec = ch.cost_chart(costs, colors, "Figure 1: x").to_dict()
    # Stacked segments only mean something from zero on a linear axis: no log scale at all.
    assert '"log"' not in json.dumps(spec)
    panels = spec["vconcat"]
    assert [p["title"] for p in panels] == ["1 KB", "4 KB", "1 MB"]
    datasets = spec["datasets"]
    for panel, size in zip(panels, [1024, 4096, 1 << 20], strict=True):
        bars, totals = panel["layer"]
        x = bars["encoding"]["x"]
        assert x["stack"] == "zero" and x["scale"] == {"type": "linear", "zero": True}
        values = pd.DataFrame(datasets[bars["data"]["name"]])
        assert set(values["message_bytes"]) == {size}
        # Only the series measured at that size get a bar (4 KB: No TLS alone).
        assert bars["encoding"]["y"]["sort"] == list(dict.fromkeys(values["series"]))
        labels = pd.DataFrame(datasets[totals["data"]["name"]]).set_index("series")
        # The bar's end is the series' TOTAL row of the mart.
        at_size = costs[(costs["message_bytes"] == size) & (costs["role"] == "TOTAL")]
        assert (
            labels["total_us"].to_dict() == at_size.set_index("series")["cpu_us_per_txn"].to_dict()
        )
        assert "TOTAL" not in set(values["role"])
    assert spec["resolve"]["scale"]["x"] == "independent"


def test_address_spaces_get_distinct_colours_and_a_legend_that_shows_them(sweep_wh):
    costs, colors = _costs_over_decades()
    chart = ch.cost_chart(costs, colors, "Figure 1: x")
    spec = chart.to_dict()
    color = spec["vconcat"][0]["layer"][0]["encoding"]["color"]
    assert color["field"] == "role"
    roles = ["MSTR", "CHIN", "TCPIP", "AMSM", "APP", "OTHER", "BATCH"]
    assert color["legend"]["values"] == roles  # MP16's stacking order, extra roles after
    assert color["legend"]["labelLimit"] > max(ch.text_px(r) for r in roles)
    # One colour per role, the same in every chart: MP16's roles first in a fixed domain.
    assert color["scale"]["domain"][:6] == lb.ROLES and len(set(color["scale"]["domain"])) == 7
    assert color["scale"]["scheme"] and "opacity" not in spec["vconcat"][0]["layer"][0]["encoding"]
    # Drawn: seven distinct fills, none of them black or grey.
    import vl_convert as vlc

    svg = vlc.vegalite_to_svg(spec)
    fills = {f.lower() for f in re.findall(r'fill="(#[0-9a-fA-F]{6})"', svg)}
    coloured = {f for f in fills if len({f[1:3], f[3:5], f[5:7]}) > 1}
    assert len(coloured) >= 7
    # The channel start CPU chart stacks roles the same way.
    starts = pd.DataFrame(
        {
            "run_id": ["a", "a", "b", "b"],
            "series": ["No TLS", "No TLS", "TLS", "TLS"],
            "detail": "",
            "configuration": ["No TLS", "No TLS", "TLS", "TLS"],
            "role": ["CHIN", "TCPIP"] * 2,
            "cpu_us": [600.0, 20.0, 700.0, 300.0],
        }
    )
    bars = ch.bar_chart(starts, "cpu_us", "CPU", colors, "F", stack_by="role").to_dict()
    assert bars["encoding"]["color"]["field"] == "role"
    assert bars["encoding"]["color"]["legend"]["values"] == ["CHIN", "TCPIP"]


def test_every_chart_is_as_wide_as_the_text(sweep_wh):
    sweep = q.thread_sweep("appliance")
    colors = q.config_colors("appliance")
    group_by = ["scenario", "hardware_model"]
    costs, cost_colors = _costs_over_decades()
    charts = {
        "rate": ch.sweep_chart(sweep, "rate_per_s", colors, "F", group_by),
        "round trip": ch.sweep_chart(sweep, "round_trip_us", colors, "F", group_by),
        "knee": ch.latency_throughput_chart(sweep, colors, "F", group_by),
        "tasks": ch.task_stack_chart(q.chinit_task_profile("appliance"), colors, "F"),
        "cost": ch.cost_chart(costs, cost_colors, "Figure 1: " + "a long caption " * 30),
    }
    for name, chart in charts.items():
        width = ch.drawn_width(chart)
        assert ch.TEXT_WIDTH - 8 <= width <= ch.TEXT_WIDTH, (name, width)


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
            "sort_order": [0, 0, 1],
            "message_bytes": 2048,
            "target_rate_per_s": [5000.0, 10000.0, 10000.0],
            "achieved_rate_per_s": [4990.0, 9950.0, 7200.0],
            "achieved_pct": [99.8, 99.5, 72.0],
            "sustained": [True, True, False],
            "sustained_threshold_pct": 98.0,
            # "fast" had no CHSTATUS: its backlog is unknown, never "no".
            "xqtime_p95_us": [120.0, None, 91000.0],
            "backlog_growing": [False, None, True],
            "backlog": ["not growing", "unknown: no XQTIME", "growing"],
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
    profile = pd.DataFrame(
        {
            "study": "stream",
            "configuration": ["plain", "plain", "ams", "ams"],
            "sort_order": [0, 0, 1, 1],
            "variant": "",
            "bar_label": ["plain", "plain", "ams", "ams"],
            "message_bytes": 2048,
            "task_type": ["adapter", "dispatcher"] * 2,
            "stack_order": [2, 1] * 2,
            "runs": [2, 2, 1, 1],
            "cpu_us_per_request": [3.0, 5.0, 4.0, 9.0],
            "wait_us_per_request": [30.0, 2.0, 55.0, 3.0],
        }
    )
    fits = pd.DataFrame(
        {
            "study": "stream",
            "fit_key": ["k1", "k2", "k3"],
            "configuration": ["plain", "ams", "ams"],
            "x_name": "message_bytes",
            "held_constant": ["cipher=-", "cipher=A", "cipher=B"],
            "fit_label": ["no cipher", "A", "B"],
            "measure": "cpu_us_per_txn",
            "subject": "TOTAL",
            "n_points": [3, 3, 4],
            "distinct_x": [3, 3, 3],
            "pools_variants": [False, False, True],
            "slope_a": [0.5, 0.25, 0.125],
            "intercept_b": [10.0, 20.0, 30.0],
            "slope_a_ci95_low": [0.4, None, 0.1],
            "slope_a_ci95_high": [0.6, None, 0.15],
            "intercept_b_ci95_low": [9.0, None, 29.0],
            "intercept_b_ci95_high": [11.0, None, 31.0],
            "r_squared": [0.99, 1.0, 0.95],
            "min_x": 1024.0,
            "max_x": 4096.0,
        }
    )
    # dim_configuration's order without a study file: by first run (plain 10:00, ams 11:00).
    configurations = pd.DataFrame(
        {
            "study": "stream",
            "configuration": ["plain", "ams"],
            "display_name": ["plain", "ams"],
            "sort_order": [1, 2],
            "is_baseline": [True, False],
        }
    )
    return {
        "dim_run": with_series(runs),
        "dim_configuration": configurations,
        "fct_fit": fits,
        "fct_chinit_task_profile": profile,
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
    # 91,000 µs, scaled to the unit that reads
    assert rows.loc["ams", "XQTIME p95"] == "91.0 ms"
    assert rows.loc["ams", "XQTIME backlog"] == "growing"
    # No XQTIME captured: the mart says unknown, the table prints what the mart says.
    fast = rows.iloc[1]  # run "fast": configuration order, size, then run id
    assert (fast["XQTIME backlog"], fast["XQTIME p95"]) == ("unknown: no XQTIME", "–")
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


def test_cost_delta_table_is_empty_when_nothing_is_compared(stream_wh):
    """Only baseline runs (a study of one run, say): no table "against the baseline" that
    would only repeat the cost table."""
    deltas = q.cost_deltas("stream")
    baselines = deltas[deltas["is_baseline"].fillna(False).astype(bool)]
    assert not baselines.empty and len(baselines) < len(deltas)
    assert tb.cost_delta_table(baselines).empty


def _task_rows(spec: dict) -> list[dict]:
    # The task chart: one faceted row of panels per message size (one row alone, or a vconcat).
    return spec.get("vconcat", [spec])


def test_task_stack_chart_stacks_cpu_then_wait_per_task_type(stream_wh):
    spec = ch.task_stack_chart(
        q.chinit_task_profile("stream"), q.config_colors("stream"), "F"
    ).to_dict()
    (row,) = _task_rows(spec)  # one message size: one row of panels
    assert row["facet"]["column"]["field"] == "task_type"
    assert row["facet"]["column"]["sort"] == ["dispatcher", "adapter"]  # mart's stack order
    assert row["facet"]["column"]["title"] == "2 KB"
    assert row["spec"]["encoding"]["opacity"]["scale"]["domain"] == ["CPU", "Wait"]
    assert row["spec"]["encoding"]["y"]["field"] == "bar_label"
    values = spec["datasets"][next(iter(spec["datasets"]))]
    adapter = {
        (v["bar_label"], v["part"]): v["us_per_request"]
        for v in values
        if v["task_type"] == "adapter"
    }
    assert adapter == {
        ("plain", "CPU"): 3.0,
        ("plain", "Wait"): 30.0,
        ("ams", "CPU"): 4.0,
        ("ams", "Wait"): 55.0,
    }


def test_task_chart_of_640_runs_draws_at_most_eight_bars_per_panel(sweep_wh):
    profile = q.chinit_task_profile("appliance")
    # 2 configurations x 4 variants (scenario, model) x 4 sizes x 2 task types; 20 runs each.
    assert len(profile) == 64 and set(profile["runs"]) == {20}
    spec = ch.task_stack_chart(profile, q.config_colors("appliance"), "F").to_dict()
    values = pd.concat(pd.DataFrame(v) for v in spec["datasets"].values())
    bars = values.groupby(["size", "task_type"])["bar_label"].nunique()
    assert len(bars) == 8 and bars.max() == 8 <= ch.MAX_LINES_PER_PANEL
    rows = _task_rows(spec)
    assert [r["facet"]["column"]["title"] for r in rows] == ["256 bytes", "2 KB", "20 KB", "100 KB"]
    # Bars in the study's configuration order: Feature off's four variants first.
    assert rows[0]["spec"]["encoding"]["y"]["sort"][:4] == [
        "Feature off · fire_and_forget, M2002A",
        "Feature off · fire_and_forget, M2002B",
        "Feature off · request_responder, M2002A",
        "Feature off · request_responder, M2002B",
    ]
    # The pooled figure is request-weighted: dispatcher CPU of feature_off at 2 KB is
    # (2 + 2048 / 4096) x 1 for every run, wait 0.5 x threads weighted by 1000 x threads.
    frames = thread_sweep_study()
    tasks = frames["fct_chinit_tasks"]
    mine = tasks[
        (tasks["configuration"] == "feature_off")
        & (tasks["message_bytes"] == 2048)
        & (tasks["task_type"] == "dispatcher")
        & tasks["run_id"].str.contains("-fire-A-")
    ]
    row = profile[
        (profile["bar_label"] == "Feature off · fire_and_forget, M2002A")
        & (profile["message_bytes"] == 2048)
        & (profile["task_type"] == "dispatcher")
    ]
    assert row["cpu_us_per_request"].item() == pytest.approx(2.5)
    expected_wait = (mine["wait_us_per_request"] * mine["requests"]).sum() / mine["requests"].sum()
    assert row["wait_us_per_request"].item() == pytest.approx(expected_wait)
    assert expected_wait == pytest.approx(0.5 * sum(t * t for t in THREADS) / sum(THREADS))


def test_fit_table_labels_fits_by_the_marts_fit_label(stream_wh):
    rows = tb.fit_table(q.fits("stream"))
    assert list(rows.columns) == ["Configuration", "Held constant", "x", "a", "b", "r_squared", "n"]
    assert list(zip(rows["Configuration"], rows["Held constant"], strict=True)) == [
        ("plain", "no cipher"),
        ("ams", "A"),
        ("ams", "B"),
    ]
    assert rows.iloc[0]["a"] == "0.50000 (0.40000 – 0.60000)" and rows.iloc[1]["b"] == "20.0"
    assert list(q.fits("stream")["pools_variants"]) == [False, False, True]
    # Nothing tells the fits apart: no column for it.
    alone = tb.fit_table(q.fits("stream").assign(fit_label=""))
    assert "Held constant" not in alone


def test_comparison_tables_keep_only_message_workloads(stream_wh):
    comps = pd.DataFrame(
        {
            "measure": "rate_per_s",
            "baseline_series": "plain",
            "series": ["plain · fast", "start"],
            "message_bytes": [2048, 2048],
            "baseline_value": [100.0, 100.0],
            "variant_value": [110.0, 5.0],
            "pct_change": [10.0, -95.0],
            "workload_type": ["streaming", "channel_start"],
            "is_message_workload": [True, False],
        }
    )
    tables = tb.comparison_tables(comps, comps, "rate_per_s", "% change")
    assert len(tables) == 1
    assert list(tables[0][1]["Configuration"]) == ["plain", "plain · fast", "% change"]
    assert list(tables[0][1]["2 KB"]) == ["100", "110", "+10.00"]


def test_comparison_tables_say_when_the_baseline_is_at_another_size():
    """A run named against a run of its own configuration at another size: the baseline row's
    cell is that run's value and says its size (not shown as if measured at the column's)."""
    comps = pd.DataFrame(
        {
            "measure": "round_trip_us",
            "baseline_series": "Integrity",
            "series": ["Integrity"],
            "message_bytes": [100000],
            "baseline_message_bytes": [1000],
            "baseline_value": [3100.0],
            "variant_value": [14300.0],
            "pct_change": [361.29],
            "workload_type": ["put_get"],
            "is_message_workload": [True],
        }
    )
    ((_, rows),) = tb.comparison_tables(comps, comps, "round_trip_us", "% increase")
    column = tb.size_label(100000)
    assert list(rows[column]) == [f"3,100 (at {tb.size_label(1000)})", "14,300", "+361.29"]


def test_local_time_says_when_a_time_is_not_recorded():
    # Where and when the study ran are dim_study's (systems_measured, first_run_start_local):
    # tests/test_report_environment.py; the report only formats the times.
    assert tx.local_time(pd.Timestamp("2026-03-01 10:00")) == "2026-03-01 10:00"
    assert tx.local_time(pd.NaT) == "not recorded"


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


def test_cost_table_lays_out_the_marts_rows_and_says_how_many_runs():
    # fct_series_cost rows (the mart averages repeats: its unit test): two repeats of "base"
    # (MSTR 15, CHIN 42: means) and a single run of "tls", with the MQ and TOTAL subtotals.
    def rows(config, mstr, chin, runs):
        parts = {"MSTR": (1, mstr), "CHIN": (2, chin), "MQ": (3, mstr + chin)}
        parts["TOTAL"] = (8, mstr + chin)
        return [
            {"configuration": config, "workload_type": "request_reply", "message_bytes": 2048,
             "series": config, "detail": "", "role": role, "role_order": order,
             "is_subtotal": role in ("MQ", "TOTAL"), "cpu_us_per_txn": us, "runs": runs}
            for role, (order, us) in parts.items()
        ]  # fmt: skip

    costs = pd.DataFrame(rows("base", 15.0, 42.0, 2) + rows("tls", 20.0, 50.0, 1))
    table = tb.cost_table(costs)
    # MQ = MSTR + CHIN, right after its parts; the total counts each address space once.
    assert list(table.columns) == ["Size", "Configuration", "MSTR", "CHIN", "MQ", "Total", "Runs"]
    assert table[["Configuration", "MSTR", "CHIN", "MQ", "Total", "Runs"]].to_dict("records") == [
        {"Configuration": "base", "MSTR": 15.0, "CHIN": 42.0, "MQ": 57.0, "Total": 57.0, "Runs": 2},
        {"Configuration": "tls", "MSTR": 20.0, "CHIN": 50.0, "MQ": 70.0, "Total": 70.0, "Runs": 1},
    ]
    single = tb.cost_table(costs.assign(runs=1))
    assert "Runs" not in single.columns
    # A second workload type gets its own rows and a column saying which.
    both = tb.cost_table(pd.concat([costs, costs.assign(workload_type="streaming")]))
    assert list(both["Workload"]) == ["request_reply", "streaming"] * 2


def test_start_time_table_lays_out_the_marts_rows_and_computes_nothing():
    # fct_channel_start_strength_steps rows, as the query returns them; one prefix lacks a step.
    steps = pd.DataFrame(
        {
            "tls_version": ["1.2", "1.2", "1.2", "1.3"],
            "cipher_prefix": ["TLS_RSA", "TLS_RSA", "TLS_ECDHE_RSA", "TLS13"],
            "from_key_strength": ["high", "medium", "medium", "high"],
            "to_key_strength": ["very_high", "high", "high", "very_high"],
            "from_key_bits": [2048, 1024, 1024, 256],
            "time_increase_up_to_pct": [125.0, 25.0, 10.0, 100.0],
        }
    )
    out = tb.start_time_increase(steps)
    assert list(out.columns) == ["TLS", "Cipher prefix", "Medium → high %", "High → very high %"]
    cells = {
        (r["TLS"], r["Cipher prefix"], step): r[step]
        for r in out.to_dict("records")
        for step in out.columns[2:]
        if pd.notna(r[step])
    }
    # Every mart value in its cell, and nothing else.
    assert cells == {
        ("TLS 1.2", "TLS_RSA", "High → very high %"): 125.0,
        ("TLS 1.2", "TLS_RSA", "Medium → high %"): 25.0,
        ("TLS 1.2", "TLS_ECDHE_RSA", "Medium → high %"): 10.0,
        ("TLS 1.3", "TLS13", "High → very high %"): 100.0,
    }
    assert tb.start_time_increase(steps.iloc[0:0]).empty


def test_crypto_table_lays_out_the_marts_rows_and_computes_nothing():
    rows = pd.DataFrame(
        {
            "tls_version": ["1.2", "1.2", "1.3"],
            "cipher_prefix": ["TLS_RSA", "TLS_RSA", None],
            "key_strength": ["very_high", "medium", "high"],
            "util_up_to_pct": [25.0, 1.4, 4.6],
        }
    )
    out = tb.crypto_by_strength(rows)
    # Weaker strengths first, whatever order the rows come in.
    assert list(out.columns) == ["TLS", "Cipher prefix", "Medium %", "High %", "Very high %"]
    cells = {
        (r["TLS"], r["Cipher prefix"], c): r[c]
        for r in out.to_dict("records")
        for c in out.columns[2:]
        if pd.notna(r[c])
    }
    assert cells == {
        ("TLS 1.2", "TLS_RSA", "Very high %"): 25.0,
        ("TLS 1.2", "TLS_RSA", "Medium %"): 1.4,
        ("TLS 1.3", "–", "High %"): 4.6,
    }
    assert tb.crypto_by_strength(rows.iloc[0:0]).empty


def test_threads_on_a_linear_axis_when_they_span_less_than_a_decade():
    # Two thread counts (1 and 64, a distributed study's runs): a linear axis with Vega's own
    # ticks; Altair refused the None tick list this used to pass (the dist report failed).
    x = ch.threads_x(pd.Series([1, 64, 1, 64])).to_dict()
    assert x["scale"] == {} and x["axis"] == {"format": "d"}
    swept = ch.threads_x(pd.Series(THREADS)).to_dict()
    assert swept["scale"]["type"] == "log" and swept["axis"]["values"] == ch.thread_ticks(THREADS)


def test_tcpip_table_lays_out_the_marts_rows():
    rows = pd.DataFrame(
        {
            "series": ["c", "c"],
            "run_id": ["r1", "r2"],
            "message_bytes": [2048, None],
            "subject_kind": ["connection", "interface"],
            "subject": ["2001:7::3:43736", "TAP0"],
            "samples": [2, 10],
            "in_bytes": [780, 348],
            "out_bytes": [4184, 348],
            "out_segments": [34, None],
            "retransmits": [0, None],
            "in_bytes_per_s_mean": [38.5, 3.78],
            "in_bytes_per_s_max": [62, 34],
            "out_bytes_per_s_mean": [209.0, 3.78],
            "out_bytes_per_s_max": [302, 34],
            "tcpip_throughput_key": ["k1", "k2"],
        }
    )
    table = tb.tcpip_table(rows)
    assert list(table.columns[:5]) == [
        "Configuration",
        "Run",
        "Size",
        "Kind",
        "Connection or interface",
    ]
    assert table["Size"].tolist() == ["2 KB", "–"]
    assert table["Bytes out"].tolist() == [4184, 348]
    assert "tcpip_throughput_key" not in table
    assert tb.tcpip_table(rows.iloc[0:0]).empty


def _fact_frames() -> dict[str, pd.DataFrame]:
    """The small study with what the sections decide on: a round-trip fit and the fits' points,
    driver results, channel-initiator tasks, channels, channel starts, NETSTAT polls, an
    undecided sweep and distributed-MQ measures."""
    frames = _small_frames()
    # "slow" is a channel-start run: no message workload.
    frames["dim_run"] = frames["dim_run"].assign(is_message_workload=[True, True, False])
    cost = frames["fct_fit"].assign(fitted_y_at_min_x=10.0, fitted_y_at_max_x=40.0)
    frames["fct_fit"] = pd.concat(
        [
            cost,
            cost.head(1).assign(fit_key="k4", measure="round_trip_us", subject="RUN"),
            cost.iloc[[2]].assign(fit_key="k5", x_name="key_bits", pools_variants=True),
        ]
    )
    frames["fct_fit_points"] = pd.DataFrame(
        {
            "study": "stream",
            "run_key": [1, 2, 3, 1],
            "configuration": ["plain", "plain", "ams", "plain"],
            "x_name": "message_bytes",
            "held_constant": ["cipher=-", "cipher=-", "cipher=B", "cipher=-"],
            "measure": ["cpu_us_per_txn"] * 3 + ["round_trip_us"],
            "subject": ["TOTAL"] * 3 + ["RUN"],
            "x_value": [1024.0, 4096.0, 2048.0, 1024.0],
            "y_value": [11.0, 12.0, 31.0, 500.0],
        }
    )
    frames["fct_driver_results"] = pd.DataFrame(
        {
            "run_key": [1, 2, 3],
            "study": "stream",
            "run_id": ["base", "fast", "slow"],
            "configuration": ["plain", "plain", "ams"],
            # Two sizes only counting the channel-start run, which is no message workload.
            "message_bytes": [2048, 2048, 4096],
            "round_trip_us": [None, 800.0, 900.0],
        }
    )
    frames["fct_chinit_tasks"] = pd.DataFrame(
        {
            "study": "stream",
            "run_id": ["base", "base", "slow"],
            "task_type": ["adapter", "dispatcher", "adapter"],
            "busy_pct": [None, 5.0, None],
        }
    )
    frames["fct_channel_network"] = pd.DataFrame(
        {
            "channel_network_key": ["n1", "n2", "n3"],
            "study": "stream",
            "run_id": ["base", "fast", "fast"],
            "message_bytes": 2048,
            "channel_name": ["TO.B", "TO.A", "FROM.A"],
            "is_sending": [True, True, False],
            "achieved_batch_size": [50.0, 40.0, None],
            "xbatchsz_short_p50": [50.0, None, None],
            "nettime_avg_us": [1500.0, 2500.0, None],
            "nettime_min_us": [1000.0, None, None],
            "nettime_max_us": [2250.0, 4000.0, None],
            "nettime_short_p50_us": [1400.0, None, None],
        }
    )
    frames["fct_channel_starts"] = pd.DataFrame(
        {"study": "stream", "run_id": ["slow"], "channel_operation": ["start"]}
    )
    frames["fct_netstat_series"] = pd.DataFrame(
        {
            "study": "stream",
            "run_id": "base",
            "congestion_window_bytes": [None, None],
            "smooth_trip_time_ms": [None, 3.0],
            "send_data_queued_bytes": [0.0, None],
        }
    )
    frames["fct_sweep_summary"] = pd.DataFrame(
        {
            "series_key": ["s1", "s2", "s3", "s4"],
            "study": "stream",
            "configuration": ["plain", "ams", "ams", "plain"],
            "message_bytes": [4096, 2048, 4096, 2048],
            "baseline_source": ["undecided", "undecided", "undecided", "run_baselines"],
            "baseline_note": ["runs name z", "runs name y", "runs name z", None],
        }
    )
    frames["fct_run_measures"] = pd.DataFrame(
        {"run_key": [1], "measure": ["host_cpu_pct"], "subject": ["HOST"], "measure_value": [1.0]}
    )
    frames["fct_findings"] = pd.DataFrame(
        {
            "finding_key": ["f3", "f1", "f2"],
            "study": "stream",
            "finding_rank": [3, 1, 2],
            "sentence": ["third", "first", "second"],
            # As the mart makes it for a headline count of two.
            "is_headline": [False, True, True],
        }
    )
    frames["fct_distributed_series"] = pd.DataFrame(
        {"study": "stream", "run_id": ["base"], "measure": ["log_write_latency_us"]}
    )
    return frames


@pytest.fixture
def facts_wh(tmp_path, monkeypatch):
    frames = _fact_frames()
    monkeypatch.setenv("MQCAP_WAREHOUSE", str(write_warehouse(tmp_path / "f.duckdb", frames)))
    return frames


def test_the_fits_section_reads_its_fits_points_and_pooled_configurations(facts_wh):
    cost = q.cost_fits("stream")
    assert list(cost["fit_key"]) == ["k5", "k1", "k2", "k3"]  # key_bits first, then by config
    assert list(q.round_trip_fits("stream")["fit_key"]) == ["k4"]
    assert list(q.fits("stream")["fit_key"]) == ["k5", "k1", "k2", "k3", "k4"]
    assert q.pooled_cost_fits("stream") == {"key_bits": ["ams"], "message_bytes": ["ams"]}
    points = q.cost_fit_points("stream")
    assert list(zip(points["fit_key"], points["run_id"], strict=True)) == [
        ("k1", "base"),
        ("k1", "fast"),
        ("k3", "slow"),
    ]
    # The chart draws the points of the fits it is given, nothing else.
    spec = ch.fit_chart(
        points, cost[cost["fit_key"] == "k3"], "message_bytes", "y", q.config_colors("stream"), "F"
    ).to_dict()
    drawn = [v for values in spec["datasets"].values() for v in values if "run_id" in v]
    assert [v["run_id"] for v in drawn] == ["slow"]


def test_fits_table_names_the_measure_and_one_x_in_the_caption(facts_wh):
    parts = [("Cost", q.cost_fits("stream")), ("Round trip", q.round_trip_fits("stream"))]
    rows, only_x = tb.fits_table(parts)
    assert only_x is None and list(rows["x"]) == ["key bits"] + ["message bytes"] * 4
    assert list(rows["Measure"]) == ["Cost"] * 4 + ["Round trip"]
    # A part without fits adds no rows; the one fit left names its x in the caption.
    rows, only_x = tb.fits_table(
        [("Round trip", q.round_trip_fits("stream")), ("No", pd.DataFrame())]
    )
    assert only_x == "message bytes" and "x" not in rows
    assert list(rows.columns[:2]) == ["Configuration", "Measure"]


def test_sections_read_their_counts_and_decisions_from_the_marts(facts_wh):
    assert q.rate_target_counts("stream") == {
        "runs": 3,
        "not_sustained": 1,
        "threshold_pct": 98.0,
    }
    assert q.sweep_undecided_notes("stream") == ["runs name y", "runs name z"]
    assert q.round_trip_by_size("stream") is False  # one size among the message workloads
    assert q.chinit_task_counts("stream") == {"runs": 2, "busy_rows": 1}
    assert q.sending_channels("stream") == {"names": ["TO.A", "TO.B"], "one_per_run": True}
    assert q.channel_operation_count("stream") == 1
    assert q.netstat_metrics("stream") == ["smooth_trip_time_ms", "send_data_queued_bytes"]
    from mqcap.sections import distributed as dm

    assert dm.charts_shown("stream") == {"per_run": False, "latency_over_time": True}


def test_section_decisions_on_a_warehouse_without_their_marts(bare_wh):
    assert q.rate_target_counts("appliance") == {
        "runs": 0,
        "not_sustained": 0,
        "threshold_pct": None,
    }
    assert q.sweep_undecided_notes("appliance") == []
    assert q.round_trip_by_size("appliance") is False
    assert q.chinit_task_counts("appliance") == {"runs": 0, "busy_rows": 0}
    assert q.sending_channels("appliance") == {"names": [], "one_per_run": False}
    assert q.channel_operation_count("appliance") == 0
    assert q.netstat_metrics("appliance") == []
    assert q.pooled_cost_fits("appliance") == {}
    assert q.cost_fits("appliance").empty and q.cost_fit_points("appliance").empty


def test_comparison_and_channels_sections_read_only_their_rows(facts_wh):
    driver = q.message_driver_results("stream")
    assert list(driver["run_id"]) == ["base", "fast"]  # "slow" starts channels
    sending = q.sending_channel_network("stream")
    assert list(sending["channel_name"]) == ["TO.B", "TO.A"]  # by run, then channel
    rows = tb.channel_table(sending, channel_column=False)
    assert list(rows.columns) == [
        "series",
        "Size",
        "achieved_batch_size",
        "xbatchsz_short_p50",
        "avg_ms",
        "range_ms",
        "p50_ms",
    ]
    assert list(rows["avg_ms"]) == [1.5, 2.5]
    assert list(rows["range_ms"]) == ["1.0–2.2", "–"]  # no minimum: no range
    assert rows["p50_ms"].iloc[0] == 1.4 and pd.isna(rows["p50_ms"].iloc[1])
    assert list(tb.channel_table(sending, channel_column=True).columns[:3]) == [
        "series",
        "Size",
        "channel_name",
    ]


def test_findings_split_into_headline_and_further_by_the_mart(facts_wh, tmp_path, monkeypatch):
    assert list(q.headline_findings("stream")["sentence"]) == ["first", "second"]
    assert list(q.further_findings("stream")["sentence"]) == ["third"]
    # A mart built before is_headline: its first eight ranks lead.
    older = {"fct_findings": _fact_frames()["fct_findings"].drop(columns="is_headline")}
    monkeypatch.setenv("MQCAP_WAREHOUSE", str(write_warehouse(tmp_path / "o.duckdb", older)))
    q.close()
    assert list(q.headline_findings("stream")["sentence"]) == ["first", "second", "third"]
    assert q.further_findings("stream").empty


def test_a_studys_netstat_charts_draw_from_one_dataset():
    """The three NETSTAT charts of a study carry the same rows and columns (Altair names one
    dataset, which the page holds once); each draws its own metric, joins the polls that have
    it, and shows all three in its tooltip."""
    rows = []
    for run in range(4):
        for poll in range(6):
            rows.append(
                {
                    "run_id": f"r{run}",
                    "connection_id": "1",
                    "configuration": ["MQ + AT-TLS", "MQ + System SSL"][run % 2],
                    "message_bytes": 2048,
                    "seconds_into_run": poll * 5.0,
                    "congestion_window_bytes": 65536.0 + run * 100 + poll,
                    # A poll without the trip time: that line joins the polls on either side.
                    "smooth_trip_time_ms": None if (run, poll) == (1, 2) else 1.0 + poll / 10,
                    "send_data_queued_bytes": float(poll * 10),
                    "series": f"s{run}",
                    "unused": "x",
                }
            )
    frame = pd.DataFrame(rows)
    colors = {"MQ + AT-TLS": "#1b9e77", "MQ + System SSL": "#d95f02"}
    specs = [
        display_mod.chart_spec(ch.netstat_chart(frame, metric, colors, f"Figure {i}"))
        for i, metric in enumerate(ch.NETSTAT_METRICS, 1)
    ]
    datasets = [s["datasets"] for s in specs]
    assert len({json.dumps(d, sort_keys=True) for d in datasets}) == 1
    (data,) = datasets[0].values()
    assert len(data) == 24 and "unused" not in data[0]
    for spec, metric in zip(specs, ch.NETSTAT_METRICS, strict=True):
        encoding = spec["spec"]["encoding"]
        assert encoding["y"]["field"] == metric
        assert {t["field"] for t in encoding["tooltip"]} >= set(ch.NETSTAT_METRICS)
        assert spec["spec"]["mark"]["invalid"] == "filter"


def test_a_large_line_chart_is_measured_on_a_sample_that_draws_as_wide_as_all_its_rows(
    monkeypatch,
):
    """The width fitting draws a NETSTAT-like chart of many rows on the rows that fix its
    scales (per series: each numeric column's extremes); the width is the one all rows give,
    with and without facets and a legend, and a stacked bar chart is never sampled."""
    import random

    rng = random.Random(7)
    rows = []
    for run in range(60):
        for poll in range(80):
            rows.append(
                {
                    "run_id": f"r{run:03d}",
                    "connection_id": str(run % 3),
                    "configuration": ["MQ + AT-TLS", "MQ + System SSL"][run % 2],
                    "message_bytes": [2048, 16384, 65536][run % 3],
                    "seconds_into_run": poll * 5.0 + rng.random(),
                    "smooth_trip_time_ms": rng.lognormvariate(0, 1) * (1 + run),
                    "series": f"s{run % 4}",
                }
            )
    frame = pd.DataFrame(rows)
    colors = {"MQ + AT-TLS": "#1b9e77", "MQ + System SSL": "#d95f02"}
    chart = ch.netstat_chart(frame, "smooth_trip_time_ms", colors, "Figure 1: trip time")
    spec = chart.to_dict(validate=False)
    (full,) = spec["datasets"].values()
    sampled = ch.width_sample(json.loads(json.dumps(spec)))
    (kept,) = sampled["datasets"].values()
    assert len(full) == 4800 and len(kept) < len(full) / 4
    # Only what is drawn: the lines are told apart by run and connection, not a joined copy.
    assert set(full[0]) == {
        "seconds_into_run", "smooth_trip_time_ms", "configuration", "size", "run_id", "series",
        "connection_id",
    }  # fmt: skip
    sampling = ch.drawn_width(chart)
    monkeypatch.setattr(ch, "width_sample", lambda s: s)
    assert sampling == ch.drawn_width(chart)
    # A stacked bar's axis is a sum of rows: measured on all of them.
    import altair as alt

    bars = (
        alt.Chart(frame)
        .mark_bar()
        .encode(y="run_id:N", x="smooth_trip_time_ms:Q", color="series:N")
    )
    bar_spec = bars.to_dict(validate=False)
    (bar_rows,) = ch.width_sample(bar_spec)["datasets"].values()
    assert len(bar_rows) == 4800
