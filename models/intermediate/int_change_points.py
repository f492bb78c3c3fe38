"""One row per change point of a history series x measure x subject (Apache Otava).

A history series is the runs of one configuration at one workload point that carry a history
label (build, else version), in history order (a label's earliest run start, then its name;
within a label, run start then run id), over two or more labels. mqcap.noise.change_points runs
Otava's E-divisive split and t-test merge with the study's change_point_pvalue and
min_change_pct (int_noise_settings). Each change point gives the history labels on both sides,
the runs and means of the stretches before and after it (up to the neighbouring change points),
the % change, the p-value and the verdict by the measure's direction.
"""

import pandas as pd

from mqcap.noise import change_points, model_frame, to_pandas

COLUMNS = {
    "change_point_key": "string",
    "study": "string",
    "series_key": "string",
    "configuration": "string",
    "workload_point": "string",
    "point_labels": "string",
    "measure": "string",
    "subject": "string",
    "unit": "string",
    "better_when": "string",
    "change_index": "Int64",
    "history_label_before": "string",
    "history_label_after": "string",
    "history_order_after": "Int64",
    "within_label": "boolean",
    "runs_before": "Int64",
    "runs_after": "Int64",
    "run_ids_before": "string",
    "run_ids_after": "string",
    "mean_before": "float64",
    "mean_after": "float64",
    "pct_change": "float64",
    "p_value": "float64",
    "verdict": "string",
    "change_point_pvalue": "float64",
    "min_change_pct": "float64",
}


def _verdict(pct, better_when):
    up = pct > 0
    if better_when not in ("higher", "lower"):
        return "higher" if up else "lower"
    return "better" if up == (better_when == "higher") else "worse"


def model(dbt, session):
    dbt.config(materialized="table", file_format="parquet")
    runs = to_pandas(dbt.ref("int_run_sets"))
    runs = runs[runs["history_label"].notna()]
    measures = to_pandas(dbt.ref("int_run_measures"))
    direction = to_pandas(dbt.ref("measures"))[["measure", "better_when"]]
    settings = to_pandas(dbt.ref("int_noise_settings")).set_index("study")
    rows = measures.merge(runs, on="run_key").merge(direction, on="measure", how="left")
    rows = rows.sort_values(["history_order", "run_start_local", "run_id"], na_position="last")
    out = []
    for (series_key, measure, subject), g in rows.groupby(
        ["series_key", "measure", "subject"], sort=True
    ):
        if g["history_label"].nunique() < 2:
            continue
        first = g.iloc[0]
        pvalue = float(settings.loc[first["study"], "change_point_pvalue"])
        min_pct = float(settings.loc[first["study"], "min_change_pct"])
        found = change_points(list(g["measure_value"]), pvalue, min_pct)
        bounds = [0, *(cp.index for cp in found), len(g)]
        labels = list(g["history_label"])
        orders = list(g["history_order"])
        run_ids = list(g["run_id"])
        better = None if pd.isna(first["better_when"]) else first["better_when"]
        for i, cp in enumerate(found):
            before = run_ids[bounds[i] : cp.index]
            after = run_ids[cp.index : bounds[i + 2]]
            out.append(
                {
                    "change_point_key": f"{series_key}|{measure}|{subject}|{cp.index}",
                    "study": first["study"],
                    "series_key": series_key,
                    "configuration": first["configuration"],
                    "workload_point": first["workload_point"],
                    "point_labels": None
                    if pd.isna(first["point_labels"])
                    else first["point_labels"],
                    "measure": measure,
                    "subject": subject,
                    "unit": first["unit"],
                    "better_when": better,
                    "change_index": cp.index,
                    "history_label_before": labels[cp.index - 1],
                    "history_label_after": labels[cp.index],
                    "history_order_after": orders[cp.index],
                    "within_label": labels[cp.index - 1] == labels[cp.index],
                    "runs_before": len(before),
                    "runs_after": len(after),
                    "run_ids_before": ", ".join(before),
                    "run_ids_after": ", ".join(after),
                    "mean_before": cp.mean_before,
                    "mean_after": cp.mean_after,
                    "pct_change": cp.pct_change,
                    "p_value": cp.p_value,
                    "verdict": None if cp.pct_change is None else _verdict(cp.pct_change, better),
                    "change_point_pvalue": pvalue,
                    "min_change_pct": min_pct,
                }
            )
    return model_frame(session, out, COLUMNS)
