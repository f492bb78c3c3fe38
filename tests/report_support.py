"""A small warehouse holding only the marts the report modules read, filled by hand.

Unit tests of ``mqcap.sections`` (queries, tables, charts) and the render test of a study of
hundreds of runs use it: no dbt build, so the tests stay fast and every value is known. The
columns follow the issue-15 contract between reports-data and reports-view
(/work/wt/COORDINATION.md); a mart left out reads as an empty frame, as in an older warehouse.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import duckdb
import pandas as pd

from mqcap.series import label_series

THREADS = [1, 2, 4, 8, 16, 32, 64, 100, 150, 200]
SIZES = [256, 2048, 20480, 102400]
SCENARIOS = ["request_responder", "fire_and_forget"]
MODELS = ["M2002A", "M2002B"]
CONFIGS = {"feature_off": "Feature off", "feature_on": "Feature on"}


def sweep_rate(config: str, threads: int, size: int) -> float:
    """A saturating curve: rate rises with threads then flattens; the feature costs 10%.

    Example:
        round(sweep_rate("feature_off", 1, 256))  # 975
    """
    top = 40000.0 / (1 + size / 20480)
    rate = top * threads / (threads + 40 * top / 40000.0)
    rate = min(rate, 1000.0 * threads) if threads == 1 else rate
    return rate * (0.9 if config == "feature_on" else 1.0)


def with_series(runs: pd.DataFrame, names: dict[str, str] | None = None) -> pd.DataFrame:
    """dim_run's ``detail`` and ``series`` columns, made as the model int_run_series makes them
    (mqcap.series.label_series over the configurations' display names).

    Example:
        with_series(runs, {"feature_off": "Feature off"})["series"]
    """
    shown = runs.assign(configuration=runs["configuration"].map(lambda c: (names or {}).get(c, c)))
    labelled = label_series(shown, within=("study", "configuration"))
    return runs.assign(detail=labelled["detail"], series=labelled["series"])


def thread_sweep_study(study: str = "appliance") -> dict[str, pd.DataFrame]:
    """The marts of a distributed thread-sweep study: 2 configurations x 2 scenarios x 2
    models x 4 sizes x 10 thread counts = 320 sweep points, 2 runs each (640 runs).

    Example:
        frames = thread_sweep_study(); len(frames["dim_run"])  # 640
    """
    runs, sweep = [], []
    key = itertools.count(1)
    for config, scenario, model, size, threads in itertools.product(
        CONFIGS, SCENARIOS, MODELS, SIZES, THREADS
    ):
        rate = sweep_rate(config, threads, size)
        rt = threads / rate * 1e6
        for rep in (1, 2):
            run_id = f"{config}-{scenario[:4]}-{model[-1]}-{size}-{threads}t-r{rep}"
            runs.append(
                {
                    "run_key": next(key),
                    "run_id": run_id,
                    "study": study,
                    "configuration": config,
                    "workload_type": "request_reply",
                    "message_bytes": size,
                    "threads": threads,
                    "persistence": "persistent",
                    "scenario": scenario,
                    "hardware_model": model,
                    "platform": "appliance",
                    "host": f"mqa-{model[-1].lower()}",
                    "system_id": None,
                    "qmgr": "QM1",
                    "is_baseline": config == "feature_off",
                    "baseline_run_id": None,
                    "labels_json": json.dumps({"scenario": scenario, "model": model}),
                    "interval_start": None,
                    "interval_end": None,
                    "interval_s": None,
                    "recipients": None,
                    "cipher": None,
                    "key_strength": None,
                    "sslrkeyc": None,
                    "key_bits": None,
                    "is_message_workload": True,
                }
            )
        sweep.append(
            {
                "study": study,
                "configuration": config,
                "scenario": scenario,
                "hardware_model": model,
                "message_bytes": size,
                "persistence": "persistent",
                "threads": threads,
                "rate_per_s": rate,
                "round_trip_us": rt,
                "runs": 2,
            }
        )
    sweep_df = pd.DataFrame(sweep)
    summary = []
    keys = ["scenario", "hardware_model", "message_bytes", "persistence"]
    for group_key, group in sweep_df.groupby(keys):
        base = group[group["configuration"] == "feature_off"]
        base_max = base["rate_per_s"].max()
        base_rt1 = base.loc[base["threads"] == 1, "round_trip_us"].iloc[0]
        base_key = "|".join([study, "feature_off", *(str(k) for k in group_key)])
        for config, part in group.groupby("configuration"):
            best = part.loc[part["rate_per_s"].idxmax()]
            rt1 = part.loc[part["threads"] == 1, "round_trip_us"].iloc[0]
            # As fct_sweep_summary: the baseline series is compared with nothing (no "+0.0%").
            is_base = config == "feature_off"
            summary.append(
                dict(zip(keys, group_key, strict=True))
                | {
                    "series_key": "|".join([study, config, *(str(k) for k in group_key)]),
                    "study": study,
                    "configuration": config,
                    "display_name": CONFIGS[config],
                    "is_baseline": is_base,
                    "max_rate_per_s": best["rate_per_s"],
                    "threads_at_max": best["threads"],
                    "single_thread_round_trip_us": rt1,
                    "baseline_series_key": None if is_base else base_key,
                    "baseline_source": None if is_base else "run_baselines",
                    "baseline_note": None,
                    "baseline_configuration": None if is_base else "feature_off",
                    "baseline_max_rate_per_s": None if is_base else base_max,
                    "baseline_single_thread_round_trip_us": None if is_base else base_rt1,
                    "max_rate_pct_change": None
                    if is_base
                    else (best["rate_per_s"] - base_max) / base_max * 100,
                    "single_thread_round_trip_pct_change": None
                    if is_base
                    else (rt1 - base_rt1) / base_rt1 * 100,
                    "saturates": True,
                }
            )
    summary_df = pd.DataFrame(summary)
    top = (
        summary_df[summary_df["configuration"] == "feature_on"]
        .sort_values("max_rate_pct_change")
        .iloc[0]
    )
    findings = pd.DataFrame(
        [
            {
                "study": study,
                "finding_rank": 1,
                "kind": "max_rate_change",
                "sentence": (
                    f"Feature on reaches {top['max_rate_pct_change']:+.1f}% of the baseline's "
                    f"maximum rate ({top['scenario']}, {top['hardware_model']}, "
                    f"{int(top['message_bytes'])} bytes)."
                ),
                "value": top["max_rate_pct_change"],
                "unit": "%",
                "magnitude": 10.0,
                "certainty": "measured",
                "section_anchor": "sec-thread-sweep",
                "configuration": "feature_on",
                "measure": "max_rate_per_s",
                "subject": "RUN",
            },
            {
                "study": study,
                "finding_rank": 2,
                "kind": "saturation",
                "sentence": "Throughput stops growing past 100 threads <everywhere>.",
                "value": 100.0,
                "unit": "threads",
                "magnitude": 1.0,
                "certainty": "measured",
                "section_anchor": "sec-not-in-this-report",
                "configuration": None,
                "measure": "rate_per_s",
                "subject": "RUN",
            },
        ]
    )
    tasks, profile = _chinit_tasks(pd.DataFrame(runs))
    return {
        "fct_chinit_tasks": tasks,
        "fct_chinit_task_profile": profile,
        "dim_run": with_series(pd.DataFrame(runs), CONFIGS),
        "dim_configuration": pd.DataFrame(
            [
                {
                    "study": study,
                    "configuration": c,
                    "display_name": n,
                    "sort_order": i,
                    "is_baseline": c == "feature_off",
                    # What the environment section's configurations table shows.
                    "run_count": 320,
                    "workload_types": "request_reply",
                    "message_sizes": "256 bytes, 2 KB, 20 KB, 100 KB",
                    "variant_summary": (
                        "scenario: fire_and_forget, request_responder; hardware model: M2002A, "
                        "M2002B; threads: 1, 2, 4, 8, 16, 32, 64, 100, 150, 200"
                    ),
                    "shared_labels": None,
                }
                for i, (c, n) in enumerate(CONFIGS.items())
            ]
        ),
        "dim_study": pd.DataFrame(
            [
                {
                    "study": study,
                    "title": "Appliance feature sweep",
                    "purpose": "What switching the feature on costs at every thread count.",
                    "baseline_configuration": "feature_off",
                    "notes_json": json.dumps(["Generated for the tests: a saturating curve."]),
                    "group_by_json": json.dumps(["scenario", "hardware_model"]),
                    "run_count": len(runs),
                    "configuration_count": 2,
                    "run_summary": (
                        "640 request/reply runs over 2 configurations, 2 scenarios, "
                        "2 hardware models, 4 message sizes and 10 thread counts"
                    ),
                    "shapes_json": json.dumps(["thread_sweep"]),
                    "systems_measured": (
                        "MQ Appliance, host mqa-a, model M2002A, queue manager QM1 (320 runs); "
                        "MQ Appliance, host mqa-b, model M2002B, queue manager QM1 (320 runs)"
                    ),
                    "first_run_start_local": None,
                    "last_run_end_local": None,
                    "runs_without_interval": len(runs),
                    "shared_labels": None,
                }
            ]
        ),
        "fct_study_shape": pd.DataFrame([{"study": study, "shape": "thread_sweep"}]),
        "fct_thread_sweep": sweep_df,
        "fct_sweep_summary": summary_df,
        "fct_findings": findings,
    }


def _chinit_tasks(runs: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    # Channel-initiator tasks of every run (two task types; CPU per request grows with the
    # size, wait with the threads) and their pooled profile: per configuration x scenario x
    # model (the variant) x size x task type, request-weighted over the ten thread counts and
    # both repeats, as fct_chinit_task_profile computes it.
    rows = []
    for r in runs.itertuples():
        for order, task in enumerate(("dispatcher", "adapter"), start=1):
            requests = 1000 * r.threads
            cpu = (2.0 + r.message_bytes / 4096) * order
            wait = 0.5 * r.threads
            rows.append(
                {
                    "study": r.study,
                    "run_id": r.run_id,
                    "configuration": r.configuration,
                    "message_bytes": r.message_bytes,
                    "scenario": r.scenario,
                    "hardware_model": r.hardware_model,
                    "task_type": task,
                    "stack_order": order,
                    "requests": requests,
                    "cpu_us_per_request": cpu,
                    "wait_us_per_request": wait,
                    "busy_pct": None,
                }
            )
    tasks = pd.DataFrame(rows)
    weighted = tasks.assign(
        cpu_us=tasks["cpu_us_per_request"] * tasks["requests"],
        wait_us=tasks["wait_us_per_request"] * tasks["requests"],
        variant=tasks["scenario"] + ", " + tasks["hardware_model"],
    )
    keys = ["study", "configuration", "variant", "message_bytes", "task_type", "stack_order"]
    profile = (
        weighted.groupby(keys)
        .agg(
            runs=("run_id", "count"),
            requests=("requests", "sum"),
            cpu_us=("cpu_us", "sum"),
            wait_us=("wait_us", "sum"),
        )
        .reset_index()
    )
    profile["cpu_us_per_request"] = profile.pop("cpu_us") / profile["requests"]
    profile["wait_us_per_request"] = profile.pop("wait_us") / profile["requests"]
    names = {"feature_off": (0, "Feature off"), "feature_on": (1, "Feature on")}
    profile["sort_order"] = profile["configuration"].map(lambda c: names[c][0])
    profile["bar_label"] = [
        f"{names[c][1]} · {v}"
        for c, v in zip(profile["configuration"], profile["variant"], strict=True)
    ]
    return tasks.drop(columns=["scenario", "hardware_model"]), profile


def write_warehouse(path: Path, frames: dict[str, pd.DataFrame]) -> Path:
    """Write each frame as ``marts.<name>`` of a new DuckDB file.

    Example:
        write_warehouse(tmp_path / "w.duckdb", thread_sweep_study())
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    con = duckdb.connect(str(path))
    try:
        con.execute("create schema if not exists marts")
        for name, frame in frames.items():
            con.register("frame", frame)
            con.execute(f"create table marts.{name} as select * from frame")
            con.unregister("frame")
    finally:
        con.close()
    return path
