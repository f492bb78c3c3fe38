"""Altair charts of report cells (shown with ``mqcap.render.display.chart``).

Example:
    from mqcap.report import charts as c, queries as q
    c.cost_chart(q.address_space_costs("attls"), q.config_colors("attls"), "Figure 1: ...")
"""

from __future__ import annotations

import math

import pandas as pd

from mqcap.report.labels import ROLES, size_label
from mqcap.report.text import caption_lines

# Shades of one configuration's colour tell the address spaces of a stacked bar apart, so the
# colour itself keeps meaning "configuration" everywhere in a report.
_ROLE_OPACITY = [1.0, 0.72, 0.48, 0.3, 0.85, 0.6]
_LABEL_LIMIT = 330


def _series_order(df: pd.DataFrame, colors: dict[str, str]) -> list[str]:
    # Variants side by side (System SSL next to AT-TLS for one cipher), configurations in
    # their colour order within a variant.
    rank = {c: k for k, c in enumerate(colors)}
    keys = df.assign(_rank=df["configuration"].astype(str).map(rank).fillna(len(rank)))
    keys = keys.sort_values(["detail", "_rank", "series"])
    return list(dict.fromkeys(keys["series"]))


def color_scale(colors: dict[str, str]):
    """The Altair scale mapping each configuration to its report colour.

    Example:
        alt.Color("configuration:N", scale=color_scale(config_colors("attls")))
    """
    import altair as alt

    return alt.Scale(domain=list(colors), range=list(colors.values()))


def _config_color(colors: dict[str, str], legend_top: bool = False):
    # One colour per configuration, legend in the study's order; above the panels where a row
    # of small multiples already fills the page width.
    import altair as alt

    return alt.Color(
        "configuration:N",
        scale=color_scale(colors),
        sort=list(colors),
        title="Configuration",
        legend=alt.Legend(orient="top", direction="horizontal") if legend_top else alt.Legend(),
    )


def _titled(chart, caption: str):
    import altair as alt

    return chart.properties(
        title=alt.TitleParams(
            caption_lines(caption),
            orient="bottom",
            anchor="start",
            fontSize=11,
            fontWeight="normal",
            offset=10,
        )
    )


def spans_decades(values: pd.Series, ratio: float = 10.0) -> bool:
    """Whether positive values span at least ``ratio`` (then a log scale reads better).

    Example:
        >>> spans_decades(pd.Series([2, 30, 900]))
        True
    """
    v = values[values > 0].dropna()
    return bool(not v.empty and v.max() / v.min() >= ratio)


def cost_chart(costs: pd.DataFrame, colors: dict[str, str], caption: str):
    """Stacked bars of CPU per transaction by address space, one panel per message size.

    Bars are coloured by configuration and shaded by address space. Each message size gets
    its own panel and x scale; a panel whose bars span a decade or more is drawn on a log
    scale, as MP16 does.

    Example:
        chart(cost_chart(address_space_costs("attls"), config_colors("attls"), "Figure 1: ..."))
    """
    import altair as alt

    df = costs[costs["cpu_us_per_txn"] > 0].copy()
    roles = [r for r in ROLES if r in set(df["role"])]
    df["configuration"] = df["configuration"].astype(str)
    df["role_order"] = df["role"].map(roles.index)
    panels = []
    for size, part in df.groupby("message_bytes", sort=True):
        totals = part.groupby("series")["cpu_us_per_txn"].sum()
        log = spans_decades(totals)
        x_scale = alt.Scale(type="log") if log else alt.Scale(zero=True)
        title = f"{size_label(size)}" + (" (log scale)" if log else "")
        base = alt.Chart(part).encode(
            y=alt.Y(
                "series:N",
                title=None,
                sort=_series_order(part, colors),
                axis=alt.Axis(labelLimit=_LABEL_LIMIT),
            ),
            color=alt.Color("configuration:N", scale=color_scale(colors), title="Configuration"),
            # Ordinal with an explicit order: Vega-Lite warns about opacity on an unsorted
            # nominal field.
            opacity=alt.Opacity(
                "role:O",
                sort=roles,
                scale=alt.Scale(domain=roles, range=_ROLE_OPACITY[: len(roles)]),
                title="Address space",
            ),
            order=alt.Order("role_order:Q"),
            tooltip=[
                "run_id",
                "series",
                "role",
                alt.Tooltip("cpu_us_per_txn:Q", format=",.1f", title="CPU µs/txn"),
            ],
        )
        if log:
            # Stacked segments on a log axis start at the previous segment's end, never at 0.
            part = part.sort_values(["series", "role_order"])
            part["x_end"] = part.groupby("series")["cpu_us_per_txn"].cumsum()
            floor = 10 ** math.floor(math.log10(part["cpu_us_per_txn"].min()))
            part["x_start"] = (part["x_end"] - part["cpu_us_per_txn"]).clip(lower=floor)
            x_scale = alt.Scale(type="log", domainMin=floor)
            bars = (
                base.properties(data=part)
                .mark_bar(stroke="white", strokeWidth=0.5)
                .encode(
                    x=alt.X("x_start:Q", scale=x_scale, title="CPU µs per transaction"),
                    x2="x_end:Q",
                )
            )
        else:
            bars = base.mark_bar(stroke="white", strokeWidth=0.5).encode(
                x=alt.X(
                    "sum(cpu_us_per_txn):Q",
                    scale=x_scale,
                    title="CPU µs per transaction",
                    stack="zero",
                ),
            )
        panels.append(bars.properties(width=260, height=alt.Step(16), title=title))
    chart = alt.vconcat(*panels).resolve_scale(x="independent")
    return _titled(chart, caption)


def round_trip_chart(driver: pd.DataFrame, colors: dict[str, str], caption: str):
    """Round trip by message size per series (log scales), coloured by configuration.

    Example:
        chart(round_trip_chart(driver_results("attls"), config_colors("attls"), "Figure 2"))
    """
    import altair as alt

    df = driver[driver["message_bytes"].notna() & driver["round_trip_us"].notna()].copy()
    df["configuration"] = df["configuration"].astype(str)
    df["detail"] = df["detail"].replace("", "–")
    log_x = spans_decades(df["message_bytes"])
    log_y = spans_decades(df["round_trip_us"])
    encode = dict(
        x=alt.X(
            "message_bytes:Q",
            scale=alt.Scale(type="log", nice=False) if log_x else alt.Scale(),
            title="Message size (bytes)" + (", log scale" if log_x else ""),
        ),
        y=alt.Y(
            "round_trip_us:Q",
            scale=alt.Scale(type="log") if log_y else alt.Scale(),
            title="Round trip (µs)" + (", log scale" if log_y else ""),
        ),
        color=alt.Color("configuration:N", scale=color_scale(colors), title="Configuration"),
        detail="series:N",
        tooltip=[
            "run_id",
            "series",
            alt.Tooltip("message_bytes:Q", format=","),
            alt.Tooltip("round_trip_us:Q", format=",.0f", title="Round trip µs"),
            alt.Tooltip("rate_per_s:Q", format=",.2f", title="Rate /s"),
        ],
    )
    if df["detail"].nunique() > 1:
        encode["strokeDash"] = alt.StrokeDash("detail:N", title="Variant")
    chart = alt.Chart(df).mark_line(point=True).encode(**encode)
    return _titled(chart.properties(width=440, height=260), caption)


def fit_chart(
    points: pd.DataFrame,
    lines: pd.DataFrame,
    x_name: str,
    y_title: str,
    colors: dict[str, str],
    caption: str,
):
    """Measured points and the fitted lines ``y = a * x + b``, one colour per configuration.

    Example:
        chart(fit_chart(pts, fit_lines(f), "message_bytes", "CPU µs/txn", colors, "Figure 3"))
    """
    import altair as alt

    x_title = {"message_bytes": "Message size (bytes)"}.get(x_name, x_name.replace("_", " "))
    scale = color_scale(colors)
    dots = (
        alt.Chart(points.assign(configuration=points["configuration"].astype(str)))
        .mark_point(filled=True, size=55)
        .encode(
            x=alt.X("x:Q", title=x_title),
            y=alt.Y("y:Q", title=y_title),
            color=alt.Color("configuration:N", scale=scale, title="Configuration"),
            tooltip=[
                "run_id",
                "series",
                alt.Tooltip("x:Q", format=","),
                alt.Tooltip("y:Q", format=",.1f"),
            ],
        )
    )
    fitted = (
        alt.Chart(lines)
        .mark_line(strokeWidth=1.5)
        .encode(
            x="x:Q",
            y="y:Q",
            color=alt.Color("configuration:N", scale=scale, title="Configuration"),
            detail="fit:N",
        )
    )
    return _titled((fitted + dots).properties(width=440, height=260), caption)


NETSTAT_METRICS = {
    "congestion_window_bytes": "Congestion window (bytes)",
    "smooth_trip_time_ms": "Smooth trip time (ms)",
    "send_data_queued_bytes": "Send data queued (bytes)",
}


def netstat_chart(series: pd.DataFrame, metric: str, colors: dict[str, str], caption: str):
    """A NETSTAT value against seconds into the run: one line per run and connection, one
    colour per configuration, one panel per message size.

    Example:
        chart(netstat_chart(netstat_series("attls"), "smooth_trip_time_ms", colors, "Fig. 4"))
    """
    import altair as alt

    df = series[series[metric].notna()].copy()
    df["configuration"] = df["configuration"].astype(str)
    df["size"] = df["message_bytes"].map(size_label)
    df["line"] = df["run_id"] + " " + df["connection_id"].astype(str)
    sizes = [size_label(s) for s in sorted(df["message_bytes"].dropna().unique())]
    if df["message_bytes"].isna().any():
        sizes.append("–")
    base = (
        alt.Chart(df)
        .mark_line(strokeWidth=1.2, interpolate="linear")
        .encode(
            x=alt.X("seconds_into_run:Q", title="Seconds into the run"),
            y=alt.Y(f"{metric}:Q", title=NETSTAT_METRICS.get(metric, metric)),
            color=alt.Color("configuration:N", scale=color_scale(colors), title="Configuration"),
            detail="line:N",
            tooltip=[
                "run_id",
                "series",
                "connection_id",
                "seconds_into_run",
                alt.Tooltip(f"{metric}:Q", format=","),
            ],
        )
        .properties(width=250, height=120)
    )
    chart = base.facet(
        facet=alt.Facet("size:N", sort=sizes, title=None, header=alt.Header(labelFontSize=11)),
        columns=2,
    ).resolve_scale(y="independent")
    return _titled(chart, caption)


def bar_chart(
    df: pd.DataFrame,
    value: str,
    title: str,
    colors: dict[str, str],
    caption: str,
    facet: str | None = None,
    stack_by: str | None = None,
):
    """Horizontal bars per series, coloured by configuration; optionally stacked (shaded) by
    ``stack_by`` and split into side-by-side panels by ``facet``.

    Example:
        chart(bar_chart(starts, "rate_per_s", "Channels per second", colors, "Figure 5",
                        facet="channel_operation"))
    """
    import altair as alt

    data = df[df[value].notna()].copy()
    data["configuration"] = data["configuration"].astype(str)
    order = _series_order(data, colors)
    # Every bar is labelled with its configuration; past a handful of configurations a colour
    # legend only repeats the labels (and gets cut off), so it is left out.
    legend = alt.Legend() if len(colors) <= 8 else None
    encode = dict(
        y=alt.Y("series:N", title=None, sort=order, axis=alt.Axis(labelLimit=_LABEL_LIMIT)),
        x=alt.X(f"sum({value}):Q", title=title, axis=alt.Axis(tickCount=4)),
        color=alt.Color(
            "configuration:N", scale=color_scale(colors), title="Configuration", legend=legend
        ),
        tooltip=["run_id", "series", alt.Tooltip(f"{value}:Q", format=",.1f")],
    )
    if stack_by:
        levels = list(dict.fromkeys(data[stack_by]))
        data["stack_order"] = data[stack_by].map(levels.index)
        encode["opacity"] = alt.Opacity(
            f"{stack_by}:O",
            sort=levels,
            scale=alt.Scale(domain=levels, range=_ROLE_OPACITY[: len(levels)]),
            title="Address space",
        )
        encode["order"] = alt.Order("stack_order:Q")
    base = (
        alt.Chart(data)
        .mark_bar(stroke="white", strokeWidth=0.5)
        .encode(**encode)
        .properties(width=170 if facet else 300, height=alt.Step(14))
    )
    if facet:
        base = base.facet(
            column=alt.Column(f"{facet}:N", title=None, header=alt.Header(labelFontSize=11))
        ).resolve_scale(x="independent")
    return _titled(base, caption)


# ---------------------------------------------------------------------------------------------
# Thread sweeps, rate targets and channel-initiator tasks

# Past this many lines a panel is unreadable: the caller facets by more dimensions instead.
MAX_LINES_PER_PANEL = 8
_SWEEP_Y = {
    "rate_per_s": "Transactions per second",
    "round_trip_us": "Round trip (µs)",
}


def panel_label(row: pd.Series, dims: list[str]) -> str:
    """The title of one small multiple: its grouping values, sizes in binary units.

    Example:
        >>> panel_label(pd.Series({"scenario": "a", "message_bytes": 2048}), ["scenario", "message_bytes"])
        'a · 2 KB'
    """
    parts = []
    for d in dims:
        value = row[d]
        parts.append(size_label(value) if d == "message_bytes" else str(value))
    return " · ".join(parts)


def sweep_panels(df: pd.DataFrame, group_by: list[str]) -> tuple[pd.DataFrame, list[str]]:
    """Add ``panel`` (one small multiple per group x message size x persistence) and return
    the panels in numeric/alphabetical order of their dimensions.

    Example:
        data, order = sweep_panels(thread_sweep("appliance"), ["scenario", "hardware_model"])
    """
    dims = [
        d for d in [*group_by, "message_bytes", "persistence"] if d in df and df[d].nunique() > 1
    ]
    data = df.copy()
    if not dims:
        data["panel"] = ""
        return data, [""]
    data = data.sort_values(dims)
    data["panel"] = data.apply(lambda r: panel_label(r, dims), axis=1)
    return data, list(dict.fromkeys(data["panel"]))


def thread_ticks(threads: list[int], min_octaves: float = 0.9) -> list[int]:
    """Measured thread counts to label on a log-2 axis, from the largest down, skipping any
    closer than ``min_octaves`` to the last kept, so labels never print on each other.

    Example:
        >>> thread_ticks([1, 2, 4, 8, 16, 32, 64, 100, 150, 200])
        [1, 2, 4, 8, 16, 32, 100, 200]
    """
    kept: list[int] = []
    for t in sorted(threads, reverse=True):
        if not kept or math.log2(kept[-1] / t) >= min_octaves:
            kept.append(t)
    return sorted(kept)


def threads_x(threads: pd.Series):
    """The x encoding of requester threads: numeric, on a log-2 scale when the counts span a
    decade, the measured counts as ticks in numeric order (labels that would overlap, 64, 100,
    150 on a log axis, are dropped, never drawn on each other).

    Example:
        alt.Chart(df).mark_line().encode(x=threads_x(df["threads"]), y="rate_per_s:Q")
    """
    import altair as alt

    counts = sorted(int(t) for t in threads.dropna().unique())
    log = len(counts) > 2 and spans_decades(threads.dropna().astype(float))
    return alt.X(
        "threads:Q",
        title="Requester threads" + (" (log scale)" if log else ""),
        scale=alt.Scale(type="log", base=2, nice=False) if log else alt.Scale(),
        axis=alt.Axis(values=thread_ticks(counts) if log else None, format="d"),
    )


def log_ticks(values: pd.Series) -> list[float]:
    """Tick values for a log axis over ``values``: 1-3-10 steps (100, 300, 1,000 ...) when the
    values span at most two decades, else powers of ten only, so a short panel never prints
    a label per 1-2-5 step. Vega leaves out the values outside each panel's own domain.

    Example:
        >>> log_ticks(pd.Series([250.0, 4800.0]))
        [100, 300, 1000, 3000, 10000]
    """
    v = values[values > 0].dropna()
    if v.empty:
        return []
    low = math.floor(math.log10(v.min()))
    high = math.ceil(math.log10(v.max()))
    steps = (1,) if high - low > 2 else (1, 3)
    return [m * 10**e for e in range(low, high + 1) for m in steps if m * 10**e <= 10**high]


def _sweep_facets(
    df: pd.DataFrame,
    x: object,
    y: object,
    colors: dict[str, str],
    caption: str,
    group_by: list[str],
    tooltip: list,
    resolve_x: str = "shared",
    columns: int = 4,
):
    # The small multiples of a thread sweep: one line per configuration (points joined in
    # thread order), one panel per grouping value x message size (x persistence).
    import altair as alt

    data = df.copy()
    data["configuration"] = data["configuration"].astype(str)
    data, panels = sweep_panels(data, group_by)
    base = (
        alt.Chart(data)
        .mark_line(point=alt.OverlayMarkDef(size=18), strokeWidth=1.4)
        .encode(
            x=x,
            y=y,
            color=_config_color(colors, legend_top=True),
            order=alt.Order("threads:Q"),
            tooltip=["configuration", "panel", alt.Tooltip("threads:Q", format="d"), *tooltip],
        )
        .properties(width=190, height=130)
    )
    chart = base.facet(
        facet=alt.Facet("panel:N", sort=panels, title=None, header=alt.Header(labelFontSize=10)),
        columns=columns,
    ).resolve_scale(x=resolve_x, y="independent")
    return _titled(chart, caption)


def sweep_chart(
    sweep: pd.DataFrame,
    measure: str,
    colors: dict[str, str],
    caption: str,
    group_by: list[str],
    columns: int = 4,
):
    """``measure`` against requester threads, one line per configuration, one small multiple
    per grouping value x message size (x persistence where it varies).

    Threads are a numeric axis on a log-2 scale (1, 2, 4 ... 200 in numeric order, never as
    text); the legend follows the study's configuration order.

    Example:
        chart(sweep_chart(thread_sweep(s), "rate_per_s", config_colors(s), "Figure 4", ["scenario"]))
    """
    import altair as alt

    df = sweep[sweep[measure].notna() & sweep["threads"].notna()]
    x = threads_x(df["threads"])
    # A linear y axis from zero: saturation shows as the curve flattening.
    y = alt.Y(
        f"{measure}:Q",
        title=_SWEEP_Y.get(measure, measure),
        scale=alt.Scale(zero=True),
        axis=alt.Axis(tickCount=4),
    )
    tooltip = [alt.Tooltip(f"{measure}:Q", format=",.1f")]
    return _sweep_facets(df, x, y, colors, caption, group_by, tooltip, columns=columns)


def latency_throughput_chart(
    sweep: pd.DataFrame, colors: dict[str, str], caption: str, group_by: list[str]
):
    """Round trip against rate along each sweep (points joined in thread order): where the
    latency turns up as throughput stops growing.

    A round trip spanning a decade or more is drawn on a log axis labelled 1-3-10
    (:func:`log_ticks`); rates are labelled in thousands (20k), a few per panel.

    Example:
        chart(latency_throughput_chart(thread_sweep(s), config_colors(s), "Figure 6", []))
    """
    import altair as alt

    df = sweep[sweep["rate_per_s"].notna() & sweep["round_trip_us"].notna()]
    y_log = spans_decades(df["round_trip_us"])
    x = alt.X(
        "rate_per_s:Q",
        title="Transactions per second",
        # 20k, not 20,000 (and 0, not "0k"): four labels fit a narrow panel.
        axis=alt.Axis(tickCount=4, labelExpr="datum.value == 0 ? '0' : format(datum.value, '~s')"),
    )
    y = alt.Y(
        "round_trip_us:Q",
        title="Round trip (µs)" + (", log scale" if y_log else ""),
        scale=alt.Scale(type="log") if y_log else alt.Scale(zero=True),
        axis=alt.Axis(values=log_ticks(df["round_trip_us"]), format=",")
        if y_log
        else alt.Axis(tickCount=4),
    )
    tooltip = [
        alt.Tooltip("rate_per_s:Q", format=",.1f"),
        alt.Tooltip("round_trip_us:Q", format=",.0f"),
    ]
    return _sweep_facets(df, x, y, colors, caption, group_by, tooltip, resolve_x="independent")


def rate_target_chart(targets: pd.DataFrame, colors: dict[str, str], caption: str):
    """Achieved rate as a bar per run, the target as a black tick on it, one panel per
    message size (targets differ by orders of magnitude between sizes); bars coloured by
    configuration, unsustained runs drawn pale.

    Example:
        chart(rate_target_chart(rate_targets("streaming"), config_colors("streaming"), "Fig. 7"))
    """
    import altair as alt

    df = targets[targets["achieved_rate_per_s"].notna()].copy()
    df["configuration"] = df["configuration"].astype(str)
    df["Target"] = df["sustained"].map({True: "sustained", False: "not sustained"})
    df["Target"] = df["Target"].fillna("unknown")
    sizes = [size_label(v) for v in sorted(df["message_bytes"].dropna().unique())]
    df["size"] = df["message_bytes"].map(size_label)
    order = _series_order(df, colors)
    y = alt.Y("series:N", title=None, sort=order, axis=alt.Axis(labelLimit=_LABEL_LIMIT))
    bars = (
        alt.Chart()
        .mark_bar(stroke="black", strokeWidth=0.4)
        .encode(
            y=y,
            x=alt.X("achieved_rate_per_s:Q", title="Messages per second"),
            color=_config_color(colors),
            opacity=alt.Opacity(
                "Target:N",
                scale=alt.Scale(
                    domain=["sustained", "not sustained", "unknown"], range=[1.0, 0.3, 0.6]
                ),
                title="Target",
            ),
            tooltip=[
                "run_id",
                "series",
                "size",
                alt.Tooltip("target_rate_per_s:Q", format=",.0f", title="Target /s"),
                alt.Tooltip("achieved_rate_per_s:Q", format=",.0f", title="Achieved /s"),
                alt.Tooltip("achieved_pct:Q", format=".1f", title="Achieved %"),
            ],
        )
    )
    ticks = alt.Chart().mark_tick(color="black", thickness=2).encode(y=y, x="target_rate_per_s:Q")
    chart = (
        alt.layer(bars, ticks, data=df)
        .properties(width=380, height=alt.Step(16))
        .facet(row=alt.Row("size:N", sort=sizes, title=None, header=alt.Header(labelFontSize=11)))
        .resolve_scale(x="independent")
    )
    return _titled(chart, caption)


def task_stack_chart(profile: pd.DataFrame, colors: dict[str, str], caption: str):
    """MP16's channel-initiator chart: CPU and wait µs per request stacked, one bar per
    configuration and variant (fct_chinit_task_profile: runs at other thread counts or
    repeated are pooled), one row of panels per message size, one column per task type, so
    a panel holds a few bars whatever the run count.

    Example:
        chart(task_stack_chart(chinit_task_profile("attls"), config_colors("attls"), "Fig. 8"))
    """
    import altair as alt

    long = profile.melt(
        id_vars=["bar_label", "configuration", "message_bytes", "task_type", "runs"],
        value_vars=["cpu_us_per_request", "wait_us_per_request"],
        var_name="part",
        value_name="us_per_request",
    ).dropna(subset=["us_per_request"])
    long["part"] = long["part"].map({"cpu_us_per_request": "CPU", "wait_us_per_request": "Wait"})
    long["configuration"] = long["configuration"].astype(str)
    long["part_order"] = long["part"].map({"CPU": 0, "Wait": 1})
    long["size"] = long["message_bytes"].map(size_label)
    # The query's order: configurations in the study's order, then variant; sizes numeric;
    # task types in the mart's stack order (dispatcher, adapter, SSL, DNS).
    bars = list(dict.fromkeys(profile["bar_label"]))
    sizes = list(dict.fromkeys(long.sort_values("message_bytes")["size"]))
    tasks = list(dict.fromkeys(profile.sort_values("stack_order")["task_type"].astype(str)))
    chart = (
        alt.Chart(long)
        .mark_bar(stroke="white", strokeWidth=0.5)
        .encode(
            y=alt.Y("bar_label:N", title=None, sort=bars, axis=alt.Axis(labelLimit=_LABEL_LIMIT)),
            x=alt.X(
                "us_per_request:Q",
                title="µs per request",
                stack="zero",
                axis=alt.Axis(tickCount=3),
            ),
            color=_config_color(colors),
            opacity=alt.Opacity(
                "part:O",
                sort=["CPU", "Wait"],
                scale=alt.Scale(domain=["CPU", "Wait"], range=[1.0, 0.4]),
                title="Part",
            ),
            order=alt.Order("part_order:Q"),
            tooltip=[
                "bar_label",
                "size",
                "task_type",
                "part",
                alt.Tooltip("runs:Q", title="Runs pooled"),
                alt.Tooltip("us_per_request:Q", format=",.1f"),
            ],
        )
        .properties(width=170, height=alt.Step(11))
        .facet(
            row=alt.Row("size:N", sort=sizes, title=None, header=alt.Header(labelFontSize=11)),
            column=alt.Column(
                "task_type:N", sort=tasks, title=None, header=alt.Header(labelFontSize=11)
            ),
        )
        .resolve_scale(x="independent")
    )
    return _titled(chart, caption)
