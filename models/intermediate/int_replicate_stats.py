"""One row per replicate set x measure x subject: n, mean, sd, 95% interval of the mean.

A replicate set is the runs of one configuration at one workload point with one history label
(int_run_sets). Arithmetic (mqcap.noise.summarise): mean, sample standard deviation (n - 1),
mean +- t(0.975, n - 1) x sd / sqrt(n); one run gives no sd and no interval and says so.
A Python model because the t quantile comes from scipy.
"""


from mqcap.noise import ONE_RUN, model_frame, summarise, to_pandas

COLUMNS = {
    "replicate_stat_key": "string",
    "study": "string",
    "set_key": "string",
    "series_key": "string",
    "point_key": "string",
    "configuration": "string",
    "workload_point": "string",
    "point_labels": "string",
    "history_label": "string",
    "history_order": "Int64",
    "measure": "string",
    "subject": "string",
    "unit": "string",
    "better_when": "string",
    "n_runs": "Int64",
    "mean_value": "float64",
    "sd_value": "float64",
    "cv_pct": "float64",
    "ci95_low": "float64",
    "ci95_high": "float64",
    "ci95_half_width_pct": "float64",
    "interval_note": "string",
    "run_ids": "string",
}


def model(dbt, session):
    dbt.config(materialized="table", file_format="parquet")
    runs = to_pandas(dbt.ref("int_run_sets"))
    measures = to_pandas(dbt.ref("int_run_measures"))
    direction = to_pandas(dbt.ref("measures"))[["measure", "better_when"]]
    rows = measures.merge(runs, on="run_key").merge(direction, on="measure", how="left")
    out = []
    keys = ["set_key", "measure", "subject"]
    for (set_key, measure, subject), g in rows.sort_values("run_id").groupby(keys, sort=True):
        first = g.iloc[0]
        s = summarise(list(g["measure_value"]))
        half = None if s.ci_high is None else s.ci_high - s.mean
        out.append(
            {
                "replicate_stat_key": f"{set_key}|{measure}|{subject}",
                "study": first["study"],
                "set_key": set_key,
                "series_key": first["series_key"],
                "point_key": first["point_key"],
                "configuration": first["configuration"],
                "workload_point": first["workload_point"],
                "point_labels": first["point_labels"],
                "history_label": first["history_label"],
                "history_order": first["history_order"],
                "measure": measure,
                "subject": subject,
                "unit": first["unit"],
                "better_when": first["better_when"],
                "n_runs": s.n,
                "mean_value": s.mean,
                "sd_value": s.sd,
                "cv_pct": None if s.sd is None or s.mean == 0 else s.sd / abs(s.mean) * 100,
                "ci95_low": s.ci_low,
                "ci95_high": s.ci_high,
                "ci95_half_width_pct": None
                if half is None or s.mean == 0
                else half / abs(s.mean) * 100,
                "interval_note": ONE_RUN if s.n < 2 else f"{s.n} runs: 95% t interval",
                "run_ids": ", ".join(g["run_id"]),
            }
        )
    return model_frame(session, out, COLUMNS)
