"""The "Queue manager resources" section of distributed and appliance studies: reads, tables and
charts of what amqsrua publications and amqsmon statistics measured (queue manager and host CPU,
recovery-log write latency and bytes, MQPUT/MQGET rates per queue and per queue manager, channel
rates). Every number comes from a mart: per run ``fct_run_measures``, per interval
``fct_distributed_series``; this module only selects, reshapes and draws.

Example:
    from mqcap.sections import distributed as dm
    per_run = dm.run_measures("threadsweep")
    chart(dm.measures_chart(per_run, colors, "Figure 9: ...", ["scenario"]))
"""

from __future__ import annotations

import pandas as pd

from mqcap.measures import labels
from mqcap.sections import queries as q
from mqcap.sections.charts import _titled, color_scale, sweep_panels, threads_x

# The measures this section shows, in order, with their labels (unit included: the measures'
# definitions, seeds/measures.csv).
MEASURES = labels(
    [
        "qmgr_cpu_pct",
        "host_cpu_pct",
        "log_write_latency_us",
        "log_physical_bytes_per_s",
        "log_logical_bytes_per_s",
        "mqput_rate_per_s",
        "mqget_rate_per_s",
        "channel_msgs_per_s",
        "channel_net_time_avg_us",
    ]
)
# Per run (one subject each): the queue manager wide figures.
RUN_SUBJECTS = {"QMGR", "HOST", "RUN"}
# Drawn against threads and over time: what the MP-style appliance reports chart.
CHARTED = ("qmgr_cpu_pct", "log_write_latency_us", "log_physical_bytes_per_s")
_SOURCE_TEXT = {
    "amqsrua": "amqsrua resource-usage publications",
    "amqsmon": "amqsmon statistics records",
}


def run_measures(study: str) -> pd.DataFrame:
    """The section's measures per run and subject (fct_run_measures) with the run's labels.

    Example:
        run_measures("threadsweep")[["run_id", "measure", "subject", "measure_value"]]
    """
    df = q._query(
        """select r.run_id, m.measure, m.subject, m.unit, m.measure_value
           from marts.fct_run_measures m
           join marts.dim_run r on r.run_key = m.run_key
           where r.study = ? and m.measure in ({})
           order by r.run_id, m.measure, m.subject""".format(", ".join("?" * len(MEASURES))),
        [study, *MEASURES],
    )
    return q._with_runs(
        df, study, ["configuration", "threads", "message_bytes", "scenario", "hardware_model"]
    )


def series(study: str) -> pd.DataFrame:
    """The section's measures interval by interval (fct_distributed_series), with run labels.

    Example:
        series("threadsweep")[["run_id", "seconds_into_run", "measure", "measure_value"]]
    """
    df = q._mart("fct_distributed_series", study, "run_id, measure, subject, seconds_into_run")
    if df.empty:
        return df
    df = df.drop(columns=["configuration"])
    return q._with_runs(
        df, study, ["configuration", "threads", "message_bytes", "scenario", "hardware_model"]
    )


def charts_shown(study: str) -> dict[str, bool]:
    """Which of the section's charts have data: ``per_run``, a run measured one of the CHARTED
    measures (fct_run_measures), and ``latency_over_time``, fct_distributed_series has log write
    latency publications.

    Example:
        charts_shown("threadsweep")  # {'per_run': True, 'latency_over_time': True}
    """
    # Two queries: a warehouse may have one of the marts and not the other.
    per_run = q._query(
        """select 1 from marts.fct_run_measures m
           join marts.dim_run r on r.run_key = m.run_key
           where r.study = ? and m.measure in ({}) limit 1""".format(", ".join("?" * len(CHARTED))),
        [study, *CHARTED],
    )
    latency = q._query(
        """select 1 from marts.fct_distributed_series
           where study = ? and measure = 'log_write_latency_us' limit 1""",
        [study],
    )
    return {"per_run": not per_run.empty, "latency_over_time": not latency.empty}


def sources_text(per_interval: pd.DataFrame) -> str:
    """Which sources the study's figures come from, as a sentence part.

    Example:
        sources_text(series("threadsweep"))  # 'amqsrua resource-usage publications and ...'
    """
    found = [s for s in _SOURCE_TEXT if s in set(per_interval.get("measure_source", []))]
    return " and ".join(_SOURCE_TEXT[s] for s in found) or "no distributed-MQ source"


def run_table(per_run: pd.DataFrame) -> pd.DataFrame:
    """One row per run: configuration, threads, size and the queue manager wide measures.

    Example:
        table(run_table(run_measures("threadsweep")))
    """
    rows = per_run[per_run["subject"].isin(RUN_SUBJECTS)]
    if rows.empty:
        return pd.DataFrame()
    # Pivot on the run alone (a label may be empty), then the run's labels in the study's order.
    wide = rows.pivot_table(
        index="run_id", columns="measure", values="measure_value", aggfunc="first"
    ).reset_index()
    wide = _labels(per_run).merge(wide, on="run_id")
    shown = [m for m in MEASURES if m in wide]
    out = wide[["series", "run_id", "threads", "message_bytes", *shown]].copy()
    out["message_bytes"] = out["message_bytes"].map(_size)
    # Log bytes in MB/s (10^6 bytes): "14.8" reads where "14,786,065" does not.
    labels = dict(MEASURES)
    for m in [m for m in shown if m.endswith("_bytes_per_s")]:
        out[m] = out[m] / 1e6
        labels[m] = MEASURES[m].replace("bytes/s", "MB/s")
    return out.rename(columns={"series": "Configuration", "run_id": "Run", "threads": "Threads",
                               "message_bytes": "Size", **labels})  # fmt: skip


def object_table(per_run: pd.DataFrame) -> pd.DataFrame:
    """One row per run and queue or channel: its MQPUT/MQGET or message rates, network time.

    Example:
        table(object_table(run_measures("threadsweep")))
    """
    rows = per_run[~per_run["subject"].isin(RUN_SUBJECTS)]
    if rows.empty:
        return pd.DataFrame()
    wide = rows.pivot_table(
        index=["run_id", "subject"], columns="measure", values="measure_value", aggfunc="first"
    ).reset_index()
    wide = _labels(per_run).merge(wide, on="run_id")
    shown = [m for m in MEASURES if m in wide]
    out = wide[["series", "run_id", "threads", "subject", *shown]]
    return out.rename(columns={"series": "Configuration", "run_id": "Run", "threads": "Threads",
                               "subject": "Queue or channel", **MEASURES})  # fmt: skip


def formats(frame: pd.DataFrame) -> dict[str, str]:
    """Number formats of a table of this section: percentages 2 decimals, the rest whole.

    Example:
        table(t, formats=formats(t))
    """
    out = {}
    for col in frame.columns:
        if col.endswith("%"):
            out[col] = ",.2f"
        elif col in MEASURES.values() or col == "Threads":
            out[col] = ",.0f"
    return out


def measures_chart(per_run: pd.DataFrame, colors: dict[str, str], caption: str, group_by):
    """Queue manager CPU, log write latency and log bytes per run: against requester threads
    (one line per configuration and group) when the runs sweep threads, else one bar per run.

    Example:
        chart(measures_chart(run_measures(s), config_colors(s), "Figure 9", ["scenario"]))
    """
    import altair as alt

    df = per_run[per_run["measure"].isin(CHARTED) & per_run["subject"].isin(RUN_SUBJECTS)]
    df = df.assign(
        configuration=df["configuration"].astype(str),
        what=df["measure"].map(MEASURES),
    )
    df, _ = sweep_panels(df, list(group_by))
    df["line"] = df["configuration"] + " " + df["panel"]
    order = [MEASURES[m] for m in CHARTED]
    color = alt.Color(
        "configuration:N", scale=color_scale(colors), sort=list(colors), title="Configuration"
    )
    if df["threads"].nunique() > 1:
        base = (
            alt.Chart(df)
            .mark_line(point=alt.OverlayMarkDef(size=18), strokeWidth=1.4)
            .encode(
                x=threads_x(df["threads"]),
                y=alt.Y("measure_value:Q", title=None, scale=alt.Scale(zero=True)),
                color=color,
                detail="line:N",
                order=alt.Order("threads:Q"),
                tooltip=[
                    "run_id",
                    "series",
                    "panel",
                    alt.Tooltip("measure_value:Q", format=",.2f"),
                ],
            )
        )
    else:
        base = (
            alt.Chart(df)
            .mark_bar()
            .encode(
                x=alt.X("run_id:N", title=None, sort=list(dict.fromkeys(df["run_id"]))),
                y=alt.Y("measure_value:Q", title=None),
                color=color,
                tooltip=["run_id", "series", alt.Tooltip("measure_value:Q", format=",.2f")],
            )
        )
    chart = (
        base.properties(width=210, height=130)
        .facet(
            facet=alt.Facet("what:N", sort=order, title=None, header=alt.Header(labelFontSize=11)),
            columns=3,
        )
        .resolve_scale(y="independent")
    )
    return _titled(chart, caption)


def over_time_chart(per_interval: pd.DataFrame, measure: str, colors: dict[str, str], caption: str):
    """``measure`` interval by interval against seconds into the run: one line per run, one
    colour per configuration, one panel per thread count (per run when threads do not vary).

    Example:
        chart(over_time_chart(series(s), "log_write_latency_us", config_colors(s), "Figure 10"))
    """
    import altair as alt

    df = per_interval[
        (per_interval["measure"] == measure) & per_interval["subject"].isin(RUN_SUBJECTS)
    ].copy()
    df["configuration"] = df["configuration"].astype(str)
    if df["threads"].nunique() > 1:
        df = df.sort_values("threads")
        df["panel"] = df["threads"].map(lambda t: f"{int(t)} thread" + ("s" if t != 1 else ""))
    else:
        df["panel"] = df["run_id"]
    panels = list(dict.fromkeys(df["panel"]))
    base = (
        alt.Chart(df)
        .mark_line(point=alt.OverlayMarkDef(size=12), strokeWidth=1.2)
        .encode(
            x=alt.X("seconds_into_run:Q", title="Seconds into the run"),
            y=alt.Y("measure_value:Q", title=MEASURES.get(measure, measure)),
            color=alt.Color(
                "configuration:N", scale=color_scale(colors), sort=list(colors),
                title="Configuration",
            ),
            detail="run_id:N",
            tooltip=[
                "run_id",
                "measure_source",
                alt.Tooltip("interval_end_local:T", title="Interval end (local)",
                            format="%Y-%m-%d %H:%M:%S"),
                alt.Tooltip("measure_value:Q", format=",.2f"),
            ],
        )
        .properties(width=150, height=90)
    )  # fmt: skip
    chart = base.facet(
        facet=alt.Facet("panel:N", sort=panels, title=None, header=alt.Header(labelFontSize=10)),
        columns=5,
    )
    return _titled(chart, caption)


def _labels(per_run: pd.DataFrame) -> pd.DataFrame:
    """One row per run with its labels, in the study's configuration order, sizes and thread
    counts in numeric order (1, 2, 16, 100; never as text)."""
    keys = ["configuration", "message_bytes", "threads", "run_id"]
    cols = ["run_id", "series", "threads", "message_bytes", "configuration"]
    return per_run.drop_duplicates("run_id")[cols].sort_values(keys, na_position="last")


def _size(value) -> str:
    from mqcap.sections.labels import size_label

    return "–" if pd.isna(value) else size_label(value)
