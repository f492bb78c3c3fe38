"""One row per variant replicate set x measure x subject: Welch comparison with its baseline set.

The baseline set of a variant set is the set holding the baseline runs its runs' manifests name
(when they name two or more sets, the comparison is undecided and left out), else, when its
runs name no other run, the set of its configuration's baseline configuration
(dim_configuration.baseline_configuration) at the same workload point and history label. Arithmetic
(mqcap.noise.compare_summaries): difference of the means, Welch's 95% interval with the
Welch-Satterthwaite degrees of freedom, % change and its interval relative to the baseline mean,
the two-sided Welch p-value and the verdict (better / worse / no significant change; "one run:
no interval" when a side has one run) with the study's min_change_pct.
"""

import pandas as pd

from mqcap.noise import Summary, compare_summaries, model_frame, to_pandas

COLUMNS = {
    "comparison_key": "string",
    "study": "string",
    "set_key": "string",
    "baseline_set_key": "string",
    "baseline_source": "string",
    "configuration": "string",
    "baseline_configuration": "string",
    "workload_point": "string",
    "point_labels": "string",
    "history_label": "string",
    "measure": "string",
    "subject": "string",
    "unit": "string",
    "better_when": "string",
    "baseline_n": "Int64",
    "baseline_mean": "float64",
    "baseline_sd": "float64",
    "variant_n": "Int64",
    "variant_mean": "float64",
    "variant_sd": "float64",
    "difference": "float64",
    "pct_change": "float64",
    "welch_df": "float64",
    "t_critical_95": "float64",
    "diff_ci95_low": "float64",
    "diff_ci95_high": "float64",
    "pct_ci95_low": "float64",
    "pct_ci95_high": "float64",
    "p_value": "float64",
    "verdict": "string",
    "min_change_pct": "float64",
    "threshold": "string",
}


def _none(value):
    return None if pd.isna(value) else value


def _baseline_sets(runs: pd.DataFrame, configs: pd.DataFrame) -> dict[str, tuple[str, str]]:
    """set_key -> (baseline set_key, how it was chosen).

    The set the set's runs name with ``baseline:`` (one set: the declared pair; two or more:
    undecided, no comparison); a set whose runs name none is compared with the set of its
    configuration's baseline configuration (dim_configuration.baseline_configuration) at the
    same point and history label.
    """
    set_of = dict(zip(runs["run_key"], runs["set_key"], strict=True))
    named = runs[~runs["is_baseline"]].assign(
        baseline_set=lambda f: f["baseline_run_key"].map(set_of)
    )
    named = named[named["baseline_set"].notna() & (named["baseline_set"] != named["set_key"])]
    out: dict[str, tuple[str, str]] = {}
    undecided: set[str] = set()
    for set_key, g in named.groupby("set_key"):
        named_sets = g["baseline_set"].unique()
        if len(named_sets) == 1:
            out[set_key] = (named_sets[0], "manifest baseline runs")
        else:
            undecided.add(set_key)
    compared_with = {
        (r.study, r.configuration): r.baseline_configuration
        for r in configs.itertuples()
        if not pd.isna(r.baseline_configuration)
    }
    by_point = {
        (r.study, r.configuration, r.point_key, _none(r.history_label)): r.set_key
        for r in runs.itertuples()
    }
    for r in runs.drop_duplicates("set_key").itertuples():
        if r.set_key in out or r.set_key in undecided:
            continue
        base = compared_with.get((r.study, r.configuration))
        if base is None:
            continue
        match = by_point.get((r.study, base, r.point_key, _none(r.history_label)))
        if match is not None and match != r.set_key:
            out[r.set_key] = (match, "baseline configuration")
    return out


def model(dbt, session):
    dbt.config(materialized="table", file_format="parquet")
    sets = to_pandas(dbt.ref("int_run_sets"))
    baselines = to_pandas(dbt.ref("int_runs"))
    runs = sets.merge(baselines[["run_key", "is_baseline", "baseline_run_key"]], on="run_key")
    configs = to_pandas(dbt.ref("int_configurations"))
    stats = to_pandas(dbt.ref("int_replicate_stats"))
    settings = to_pandas(dbt.ref("int_noise_settings")).set_index("study")
    pairs = _baseline_sets(runs, configs)
    stat = {(r.set_key, r.measure, r.subject): r for r in stats.itertuples()}
    out = []
    for r in stats.itertuples():
        if r.set_key not in pairs:
            continue
        base_key, source = pairs[r.set_key]
        b = stat.get((base_key, r.measure, r.subject))
        if b is None:
            continue
        min_pct = float(settings.loc[r.study, "min_change_pct"])
        c = compare_summaries(
            Summary(int(b.n_runs), b.mean_value, _none(b.sd_value), None, None),
            Summary(int(r.n_runs), r.mean_value, _none(r.sd_value), None, None),
            _none(r.better_when),
            min_pct,
        )
        out.append(
            {
                "comparison_key": r.replicate_stat_key,
                "study": r.study,
                "set_key": r.set_key,
                "baseline_set_key": base_key,
                "baseline_source": source,
                "configuration": r.configuration,
                "baseline_configuration": b.configuration,
                "workload_point": r.workload_point,
                "point_labels": _none(r.point_labels),
                "history_label": _none(r.history_label),
                "measure": r.measure,
                "subject": r.subject,
                "unit": r.unit,
                "better_when": _none(r.better_when),
                "baseline_n": int(b.n_runs),
                "baseline_mean": b.mean_value,
                "baseline_sd": _none(b.sd_value),
                "variant_n": int(r.n_runs),
                "variant_mean": r.mean_value,
                "variant_sd": _none(r.sd_value),
                "difference": c.difference,
                "pct_change": c.pct_change,
                "welch_df": c.welch_df,
                "t_critical_95": c.t_critical,
                "diff_ci95_low": c.diff_ci_low,
                "diff_ci95_high": c.diff_ci_high,
                "pct_ci95_low": c.pct_ci_low,
                "pct_ci95_high": c.pct_ci_high,
                "p_value": c.p_value,
                "verdict": c.verdict,
                "min_change_pct": min_pct,
                "threshold": c.threshold,
            }
        )
    return model_frame(session, out, COLUMNS)
