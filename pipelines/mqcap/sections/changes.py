"""The "What changed" report section: replicate comparisons, change points and build series.

Reads marts only (``fct_replicate_comparison``, ``fct_change_points``, ``fct_replicate_stats``,
``dim_run_set``); shapes their rows into tables and Altair charts, computing nothing: the %
changes, intervals, verdicts and thresholds are the marts'. A mart not built reads as an empty
frame (queries._query), and the section is then left out.

Example:
    from mqcap.sections import changes as chg
    data = chg.load("history")
    if chg.has_data(data): chg.comparison_rows(data.comparisons)
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from mqcap.sections.charts import _titled, color_scale
from mqcap.sections.queries import _query

SIGNIFICANT = ("worse", "better", "higher", "lower")
# At most this many series charts: the series with change points, most significant first.
MAX_CHARTS = 8


@dataclass
class Changes:
    comparisons: pd.DataFrame
    change_points: pd.DataFrame
    history: pd.DataFrame
    settings: pd.DataFrame


def load(study: str) -> Changes:
    """The study's rows of the four marts behind the section.

    Example:
        load("history").change_points[["measure", "history_label_after", "pct_change"]]
    """
    return Changes(
        comparisons=_query(
            "select * from marts.fct_replicate_comparison where study = ? "
            "order by verdict not in ('worse', 'better', 'higher', 'lower'), "
            "abs(pct_change) desc nulls last, comparison_key",
            [study],
        ),
        change_points=_query(
            "select * from marts.fct_change_points where study = ? "
            "order by p_value, change_point_key",
            [study],
        ),
        history=_query(
            "select * from marts.fct_replicate_stats where study = ? "
            "and history_label is not null order by series_key, measure, subject, history_order",
            [study],
        ),
        settings=_query(
            "select distinct min_change_pct, change_point_pvalue from marts.dim_run_set "
            "where study = ?",
            [study],
        ),
    )


def has_data(c: Changes) -> bool:
    """Whether the study has replicates to compare (2+ runs on both sides) or a history."""
    replicated = (
        not c.comparisons.empty
        and ((c.comparisons["baseline_n"] >= 2) & (c.comparisons["variant_n"] >= 2)).any()
    )
    histories = not c.history.empty and c.history["history_label"].nunique() >= 2
    return bool(replicated or histories)


def intro(c: Changes) -> str:
    """The section's text: how replicates, intervals, verdicts and change points are made."""
    s = c.settings.iloc[0] if not c.settings.empty else None
    min_pct = "1" if s is None else f"{s['min_change_pct']:g}"
    pvalue = "0.001" if s is None else f"{s['change_point_pvalue']:g}"
    return (
        "Runs of one configuration at one workload point and build are replicates: each "
        "comparison with the baseline uses their mean, and the 95% interval of the % change is "
        "Welch's. A change is *better* or *worse* only when that interval excludes 0 and the "
        f"change is at least {min_pct}%; otherwise it is *no significant change* (inside the "
        "noise). A side measured once has no interval. Over builds, change points are found "
        f"by E-divisive (Apache Otava) at p < {pvalue} and at least {min_pct}%."
    )


def _pct(v: object) -> str:
    return "–" if v is None or pd.isna(v) else f"{v:+.2f}%"


def _interval(low: object, high: object, note: str) -> str:
    if low is None or pd.isna(low):
        return note
    return f"[{low:+.2f}%, {high:+.2f}%]"


def _point(row) -> str:
    labels = row.get("point_labels")
    return row["workload_point"] + (f" [{labels}]" if isinstance(labels, str) else "")


def comparison_rows(comparisons: pd.DataFrame, significant: bool | None = None) -> pd.DataFrame:
    """One row per comparison in the mart's order (largest change first); ``significant``
    True keeps the better / worse ones, False the others, None all."""
    df = comparisons
    if significant is not None:
        df = df[df["verdict"].isin(SIGNIFICANT) == significant]
    rows = [
        {
            "Configuration": r["configuration"],
            "Point": _point(r),
            "Build": r["history_label"] if isinstance(r["history_label"], str) else "–",
            "Measure": r["measure"],
            "Subject": r["subject"],
            "Runs": f"{r['variant_n']} vs {r['baseline_n']}",
            "Change": _pct(r["pct_change"]),
            "95% interval": _interval(r["pct_ci95_low"], r["pct_ci95_high"], r["verdict"]),
            "Verdict": r["verdict"],
        }
        for _, r in df.iterrows()
    ]
    return pd.DataFrame(rows, columns=[
        "Configuration", "Point", "Build", "Measure", "Subject", "Runs", "Change",
        "95% interval", "Verdict",
    ])  # fmt: skip


def verdict_summary(study: str) -> tuple[dict[str, int], list[str]]:
    """The sentence above the comparisons, from fct_replicate_comparison: how many of the
    study's comparisons got each verdict (the most first, then by name) and the study's
    thresholds (each distinct rule once, by name: one when every comparison used the same).

    Example:
        verdict_summary("history")
        # ({'no significant change': 40, 'worse': 2}, ['95% Welch interval ... >= 1%'])
    """
    counts = _query(
        "select verdict, count(*) as n from marts.fct_replicate_comparison where study = ? "
        "group by verdict order by n desc, verdict",
        [study],
    )
    thresholds = _query(
        "select distinct threshold from marts.fct_replicate_comparison "
        "where study = ? and threshold is not null order by threshold",
        [study],
    )
    return (
        {str(r.verdict): int(r.n) for r in counts.itertuples()},
        [str(t) for t in thresholds.get("threshold", [])],
    )


def change_point_rows(cps: pd.DataFrame) -> pd.DataFrame:
    """One row per change point: where it came in, the means and runs on each side."""
    rows = [
        {
            "Configuration": r["configuration"],
            "Point": _point(r),
            "Measure": r["measure"],
            "Subject": r["subject"],
            "From build": r["history_label_after"]
            + (" (inside the build)" if r["within_label"] else ""),
            "Before": r["mean_before"],
            "After": r["mean_after"],
            "Change": _pct(r["pct_change"]),
            "Runs before / after": f"{r['runs_before']} / {r['runs_after']}",
            "p": r["p_value"],
            "Verdict": r["verdict"],
        }
        for _, r in cps.iterrows()
    ]
    return pd.DataFrame(rows, columns=[
        "Configuration", "Point", "Measure", "Subject", "From build", "Before", "After",
        "Change", "Runs before / after", "p", "Verdict",
    ])  # fmt: skip


def chart_series(c: Changes) -> list[tuple[str, str]]:
    """(measure, subject) pairs to chart: those with change points, most significant first;
    without change points, the history's first measures."""
    if not c.change_points.empty:
        pairs = c.change_points[["measure", "subject"]].drop_duplicates()
    elif not c.history.empty:
        pairs = c.history[["measure", "subject"]].drop_duplicates()
    else:
        return []
    return [(m, s) for m, s in pairs.itertuples(index=False)][:MAX_CHARTS]


def series_chart(c: Changes, measure: str, subject: str, colors: dict[str, str], caption: str):
    """Mean per build with its 95% interval, one line per configuration and point; change
    points as dashed rules at the first build after them."""
    import altair as alt

    h = c.history[(c.history["measure"] == measure) & (c.history["subject"] == subject)].copy()
    h["point"] = [_point(r) for _, r in h.iterrows()]
    h["series"] = h["configuration"] + " · " + h["point"]
    order = list(dict.fromkeys(h.sort_values("history_order")["history_label"]))
    unit = h["unit"].iloc[0] if not h.empty else ""
    x = alt.X("history_label:O", scale=alt.Scale(domain=order), title="Build")
    color = alt.Color("configuration:N", scale=color_scale(colors), title="Configuration")
    base = alt.Chart(h)
    line = base.mark_line(point=True).encode(
        x=x,
        y=alt.Y("mean_value:Q", title=f"{measure} ({unit})", scale=alt.Scale(zero=False)),
        color=color,
        detail="series:N",
        tooltip=["configuration", "point", "history_label", "n_runs", "mean_value",
                 "ci95_low", "ci95_high"],
    )  # fmt: skip
    bars = base.mark_errorbar().encode(
        x=x, y=alt.Y("ci95_low:Q", title=""), y2="ci95_high:Q", color=color, detail="series:N"
    )
    layers = [bars, line]
    cps = c.change_points[
        (c.change_points["measure"] == measure) & (c.change_points["subject"] == subject)
    ]
    if not cps.empty:
        rules = alt.Chart(cps).mark_rule(strokeDash=[6, 4], strokeWidth=2).encode(
            x=alt.X("history_label_after:O", scale=alt.Scale(domain=order), title="Build"),
            color=color,
            tooltip=["configuration", "history_label_after", "mean_before", "mean_after",
                     "pct_change", "p_value", "verdict"],
        )  # fmt: skip
        layers.append(rules)
    chart = alt.layer(*layers).properties(width=560, height=220)
    return _titled(chart, caption)
