"""Altair charts of report cells (shown with ``mqcap.render.display.chart``).

Every chart is drawn at the report's text width (:data:`TEXT_WIDTH`): the panel width of a
faceted or concatenated chart is computed so that the whole chart, axes and legends included,
fits it. Legends sit above the panels, laid out in as many columns as fit, so each shows every
entry it has; a panel holds at most :data:`MAX_LINES_PER_PANEL` series, and only combinations
that have data get a panel.

Example:
    from mqcap.sections import charts as c, queries as q
    c.cost_chart(q.series_costs("attls"), q.config_colors("attls"), "Figure 1: ...")
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable

import pandas as pd

from mqcap.sections.labels import ROLES, size_label
from mqcap.sections.text import caption_lines
from mqcap.series import DETAIL_COLUMNS
from mqcap.untraced import untraced

# The width, in CSS pixels, every chart is drawn at, axes and legends included. The HTML body
# is 72rem (1,152 px, render/report.css) wide, so a chart takes its text width with room for
# a wider screen font; the PDF scales the chart's vector image to its 470 pt text width
# (render/pdf.py), which is why the fonts below are a little larger than Vega's defaults.
TEXT_WIDTH = 1000
# Past this many series a panel is unreadable: the chart facets by more dimensions instead.
MAX_LINES_PER_PANEL = 8
_FONT = 12
_TITLE_FONT = 13
_PANEL_TITLE_FONT = 11
_LABEL_LIMIT = 360
_PANEL_SPACING = 14

# Address spaces keep one colour each, whatever the study (a named categorical scheme, in the
# order of ROLES; roles a manifest adds past those follow). Configuration colours are not used
# for them: a stacked bar's segments are address spaces, its label names the configuration.
_ROLE_SCHEME = "dark2"
_ROLE_SCHEME_SIZE = 8


# ---------------------------------------------------------------------------------------------
# Layout: text widths, legends, fitting a chart to the text width


# Advance widths (1/1000 em) of Arial/Helvetica/Liberation Sans; other characters count as
# the widest lower-case letters. Only used to lay out legend columns before drawing.
_CHAR_WIDTHS = {
    **dict.fromkeys("ijl'|", 222),
    **dict.fromkeys(" ftI.,:;!/[]()-·", 300),
    **dict.fromkeys('r"', 333),
    **dict.fromkeys("Jcksvxyz", 500),
    **dict.fromkeys("abdeghnopqu0123456789_#$?", 556),
    **dict.fromkeys("FTZL", 611),
    **dict.fromkeys("ABEKPSVXY+=<>~", 667),
    **dict.fromkeys("CDHNRUw", 722),
    **dict.fromkeys("GOQ", 778),
    **dict.fromkeys("mM%", 833),
    **dict.fromkeys("W@", 944),
}


def text_px(text: object, size: float = _FONT) -> float:
    """About how many pixels ``text`` takes at ``size`` px in a sans-serif font (a little
    more than Arial, so a wider screen font still fits).

    Example:
        >>> round(text_px("MSTR", 12))
        36
    """
    em = sum(_CHAR_WIDTHS.get(ch, 600) for ch in str(text))
    return em / 1000 * size * 1.05


def _legend_layout(labels: list[str], title: str | None, room: float) -> tuple[int, float]:
    # Columns of a legend laid out in ``room`` px, and the width it then takes.
    entry = max((text_px(v) for v in labels), default=0) + 16 + 14  # symbol and gap
    columns = max(1, min(len(labels), int(room // entry)))
    return columns, max(columns * entry, text_px(title or "", _FONT) + 4)


def legend_px(labels, title: str | None) -> float:
    """The width a legend of ``labels`` takes above a chart (entries in one row when they fit
    the text width).

    Example:
        >>> round(legend_px(["CPU", "Wait"], "Part"))
        113
    """
    return _legend_layout([str(v) for v in labels], title, TEXT_WIDTH - 10)[1]


def _legend(labels: list[str], title: str | None, reserve: float = 0, left: float = 0, **extra):
    # Above the panels, in as many columns as fit the text width, labels never cut: every
    # entry the legend has is shown. Vega starts a top legend where the plots start, so the
    # room is the text width less the y labels' width (``left``) and ``reserve`` px taken by
    # another legend beside it.
    import altair as alt

    labels = [str(v) for v in labels]
    room = TEXT_WIDTH - 10 - left - (reserve + 24 if reserve else 0)
    columns, _ = _legend_layout(labels, title, room)
    return alt.Legend(
        title=title,
        orient="top",
        direction="horizontal",
        columns=columns,
        labelLimit=int(room),
        symbolLimit=len(labels) + 1,
        values=labels,
        titleAnchor="start",
        **extra,
    )


def labels_px(labels, limit: float = _LABEL_LIMIT) -> float:
    """The width of a band axis showing ``labels`` (cut at ``limit``), ticks included.

    Example:
        >>> round(labels_px(["MQ + AT-TLS"]))
        94
    """
    return min(limit, max((text_px(v) for v in labels), default=0)) + 14


# A numeric y axis: labels such as 100,000 (and its title, when it has one).
_NUMBER_AXIS_PX = 62
_AXIS_TITLE_PX = 20


# Compact numbers on an axis: 20k, 1.5M, and 0 (not "0k": Vega formats all of an axis' ticks
# with one SI prefix).
_SI_LABELS = "datum.value == 0 ? '0' : format(datum.value, '~s')"


def _vl_version() -> str | None:
    import altair as alt
    import vl_convert as vlc

    major_minor = ".".join(alt.SCHEMA_VERSION.lstrip("v").split(".")[:2])
    return major_minor if major_minor in vlc.get_vegalite_versions() else None


_SVG_WIDTH = re.compile(r'<svg[^>]*?\swidth="([0-9.]+)')


def drawn_width(chart, caption: bool = True) -> float | None:
    """The width in pixels Vega draws ``chart`` at, axes, legends and caption included
    (the caption left out with ``caption=False``; ``None`` when it cannot be drawn here).

    Example:
        drawn_width(cost_chart(costs, colors, "Figure 1")) <= TEXT_WIDTH
    """
    import altair as alt

    from mqcap.render.display import prune_datasets

    try:
        import vl_convert as vlc

        with alt.data_transformers.enable("default", max_rows=None):
            # Only measured here: the chart shown is validated once, when it is displayed
            # (render/display.py); validating each trial width too was a third of the fitting.
            spec = untraced(chart.to_dict, validate=False)
        prune_datasets(spec)  # (as the chart shown is: columns it does not name are not drawn)
        width_sample(spec)
        if not caption:
            spec.pop("title", None)
        svg = vlc.vegalite_to_svg(spec, vl_version=_vl_version())
    except Exception:  # a chart Vega cannot draw here keeps its first width
        return None
    match = _SVG_WIDTH.search(svg[:3000])
    return float(match.group(1)) if match else None


# Marks whose scales span their rows' values one by one (no stacking or binning of rows).
_UNSTACKED_MARKS = frozenset({"line", "point", "circle", "square", "tick", "rule", "text", "trail"})
# Spec keys under which rows are combined before a scale sees them.
_COMBINES_ROWS = ('"aggregate"', '"stack"', '"transform"', '"bin"', '"timeUnit"', '"impute"')
WIDTH_SAMPLE_ROWS = 2000


def width_sample(spec: dict) -> dict:
    """``spec`` with each large dataset cut to rows that give every scale the same domain, for
    measuring the drawn width only (:func:`drawn_width`): per combination of the non-numeric
    values (each series, panel, colour, label), the rows holding each numeric column's least
    and greatest value. Axes, legends and panel headers, hence the width, are then those of the
    whole data; a 1,000-run NETSTAT chart is measured on about 2,000 rows, not 44,000.

    Only for charts whose marks draw rows one by one (lines, points, ticks, rules, text) and
    that combine no rows (no aggregate, stack, bin, time unit, impute or transform): anything
    else is measured on all of its rows.

    Example:
        >>> spec = {"mark": "line", "datasets": {"d": [
        ...     {"s": "a", "x": 1, "y": 5}, {"s": "a", "x": 2, "y": 9}, {"s": "a", "x": 3, "y": 7}]}}
        >>> import mqcap.sections.charts as c; c.WIDTH_SAMPLE_ROWS = 1
        >>> [r["x"] for r in width_sample(spec)["datasets"]["d"]]
        [1, 2, 3]
        >>> spec["datasets"]["d"].append({"s": "a", "x": 2.5, "y": 8})
        >>> [r["x"] for r in width_sample(spec)["datasets"]["d"]]
        [1, 2, 3]
        >>> c.WIDTH_SAMPLE_ROWS = 2000
    """
    import json

    datasets = spec.get("datasets")
    if not isinstance(datasets, dict):
        return spec
    rest = {k: v for k, v in spec.items() if k not in ("datasets", "config")}
    marks = _marks(rest)
    text = json.dumps(rest)
    if not marks or not marks <= _UNSTACKED_MARKS or any(k in text for k in _COMBINES_ROWS):
        return spec
    for name, rows in datasets.items():
        if not isinstance(rows, list) or len(rows) <= WIDTH_SAMPLE_ROWS:
            continue
        if not all(isinstance(r, dict) for r in rows):
            continue
        columns = list(dict.fromkeys(c for r in rows for c in r))
        numeric = [
            c
            for c in columns
            if all(
                isinstance(r.get(c), int | float) and not isinstance(r.get(c), bool)
                for r in rows
                if r.get(c) is not None
            )
        ]
        others = [c for c in columns if c not in numeric]
        best: dict[tuple, dict[str, list[int]]] = {}
        for i, row in enumerate(rows):
            slot = best.get(key := tuple(repr(row.get(c)) for c in others))
            if slot is None:  # (the first row of each combination: every label is kept)
                slot = best[key] = {"": [i, i]}
            for c in numeric:
                v = row.get(c)
                if v is None:
                    continue
                low_high = slot.get(c)
                if low_high is None:
                    slot[c] = [i, i]
                elif v < rows[low_high[0]][c]:
                    low_high[0] = i
                elif v > rows[low_high[1]][c]:
                    low_high[1] = i
        keep = sorted({i for slot in best.values() for pair in slot.values() for i in pair})
        keep = keep or [0]
        datasets[name] = [rows[i] for i in keep]
    return spec


def _marks(node: object) -> set[str]:
    """Every mark type of a spec (its layers, facets and concatenations), ``"?"`` for a mark
    given in a form not recognised (which then never counts as drawing rows one by one)."""
    found: set[str] = set()
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "mark":
                kind = value.get("type") if isinstance(value, dict) else value
                found.add(kind if isinstance(kind, str) else "?")
            else:
                found |= _marks(value)
    elif isinstance(node, list):
        for item in node:
            found |= _marks(item)
    return found


def _fit_width(build: Callable[[int], object], across: int, guess: float):
    """The chart ``build(panel_width)`` with the panel width that makes it as wide as the
    text: drawn at ``guess``, the rest of the chart (labels, legends, spacing) measured, and
    the ``across`` panels of a row given what is left; the widest that fits is kept."""
    width = max(60, int(guess))
    best = None
    chart = build(width)
    tried = set()
    for _ in range(5):
        tried.add(width)
        # The caption is already wrapped to the text width: the rest is what gets fitted.
        drawn = drawn_width(chart, caption=False)
        if drawn is None:
            return chart
        if drawn <= TEXT_WIDTH and (best is None or drawn > best[0]):
            best = (drawn, chart)
        if TEXT_WIDTH - 6 <= drawn <= TEXT_WIDTH:
            return chart
        step = (TEXT_WIDTH - drawn) / max(1, across)
        new = max(60, width + (math.floor(step) if step > 0 else -math.ceil(-step)))
        while new in tried and new > 60:
            new -= 1  # labels that jump with the width: try a little narrower
        if new in tried:
            break
        width = new
        chart = build(width)
    # A panel never gets narrower than 60 px: a chart of very many labels may run wider.
    return best[1] if best is not None else chart


def _titled(chart, caption: str):
    # The caption under a chart (kept for the charts of sections/distributed.py and changes.py).
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


def wrap_px(text: str, width: float, size: float = _TITLE_FONT) -> list[str]:
    """``text`` in lines of at most ``width`` px (Vega titles do not wrap by themselves).

    Example:
        >>> wrap_px("a b c", 10, 12)
        ['a', 'b', 'c']
    """
    lines: list[str] = []
    for word in str(text).split():
        if lines and text_px(lines[-1] + " " + word, size) <= width:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return lines or caption_lines(str(text))


def _finish(chart, caption: str):
    # The caption under the chart, wrapped to the text width, and the report's font sizes.
    import altair as alt

    return (
        chart.properties(
            title=alt.TitleParams(
                wrap_px(caption, TEXT_WIDTH - 12),
                orient="bottom",
                anchor="start",
                fontSize=_TITLE_FONT,
                fontWeight="normal",
                offset=10,
            )
        )
        .configure_axis(labelFontSize=_FONT, titleFontSize=_FONT)
        .configure_legend(labelFontSize=_FONT, titleFontSize=_FONT, columnPadding=14)
        .configure_header(labelFontSize=_FONT, titleFontSize=_TITLE_FONT)
        .configure_concat(spacing=_PANEL_SPACING + 6)
        .configure_facet(spacing=_PANEL_SPACING)
    )


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


def _present(colors: dict[str, str], configurations: pd.Series) -> list[str]:
    # The configurations a chart draws, in the study's colour order.
    here = set(configurations.astype(str))
    return [c for c in colors if c in here] + sorted(here - set(colors))


def _config_color(
    colors: dict[str, str],
    configurations: pd.Series | None = None,
    legend: bool = True,
    reserve: float = 0,
    left: float = _NUMBER_AXIS_PX + _AXIS_TITLE_PX,
):
    # One colour per configuration (the report's scale, so a colour means the same in every
    # chart); the legend lists the configurations this chart draws, above the panels.
    import altair as alt

    shown = list(colors) if configurations is None else _present(colors, configurations)
    return alt.Color(
        "configuration:N",
        scale=color_scale(colors),
        sort=list(colors),
        title="Configuration",
        legend=_legend(shown, "Configuration", reserve, left, symbolOpacity=1) if legend else None,
    )


def role_order(roles) -> list[str]:
    """Address-space roles in MP16's stacking order (MSTR, CHIN, TCPIP, AMSM, APP, OTHER),
    others after them alphabetically.

    Example:
        >>> role_order(["APP", "ZZZ", "MSTR"])
        ['MSTR', 'APP', 'ZZZ']
    """
    present = {str(r) for r in roles if isinstance(r, str) and r}
    return [r for r in ROLES if r in present] + sorted(present - set(ROLES))


def role_color(roles, title: str = "Address space", left: float = 0):
    """A distinct colour per address space, the same for a role in every chart; the legend
    shows the roles present, in stacking order.

    Example:
        alt.Chart(costs).mark_bar().encode(color=role_color(costs["role"]), ...)
    """
    import altair as alt

    shown = role_order(roles)
    domain = ROLES + [r for r in shown if r not in ROLES]
    scheme = _ROLE_SCHEME if len(domain) <= _ROLE_SCHEME_SIZE else "category20"
    return alt.Color(
        "role:N",
        scale=alt.Scale(domain=domain, scheme=scheme),
        sort=domain,
        title=title,
        legend=_legend(shown, title, left=left, symbolOpacity=1),
    )


def spans_decades(values: pd.Series, ratio: float = 10.0) -> bool:
    """Whether positive values span at least ``ratio`` (then a log scale reads better).

    Example:
        >>> spans_decades(pd.Series([2, 30, 900]))
        True
    """
    v = values[values > 0].dropna()
    return bool(not v.empty and v.max() / v.min() >= ratio)


# ---------------------------------------------------------------------------------------------
# Cost by address space, round trips, fits, NETSTAT, bars


def cost_chart(costs: pd.DataFrame, colors: dict[str, str], caption: str):
    """Stacked bars of CPU per transaction by address space on a linear axis, one panel per
    message size, the total at the end of each bar.

    Segments are coloured by address space (one distinct colour per role, legend above the
    panels); each bar's label names its configuration and variant. Stacked segments only
    mean something on a linear axis from zero, so costs that span decades between sizes get
    one panel per size, each with its own scale (MP16 does the same).

    Long because: one Altair spec, layer by layer.

    Example:
        chart(cost_chart(series_costs("attls"), config_colors("attls"), "Figure 1: ..."))
    """
    import altair as alt

    # The address spaces' segments (the subtotals are the bar's end, not segments of it); runs
    # of a series are averaged in fct_series_cost, so a bar is one series.
    df = costs[~costs["is_subtotal"] & (costs["cpu_us_per_txn"] > 0)].copy()
    df["configuration"] = df["configuration"].astype(str)
    df = df.rename(columns={"series_total_us_per_txn": "total_us"})
    roles = role_order(df["role"])
    df["size"] = df["message_bytes"].map(size_label)
    color = role_color(roles, left=labels_px(df["series"]))
    parts = [(s, p) for s, p in df.groupby("message_bytes", sort=True, dropna=False)]

    def build(width: int):
        panels = []
        for size, part in parts:
            y = alt.Y(
                "series:N",
                title=None,
                sort=_series_order(part, colors),
                axis=alt.Axis(labelLimit=_LABEL_LIMIT),
            )
            bars = (
                alt.Chart(part)
                .mark_bar(stroke="white", strokeWidth=0.5)
                .encode(
                    y=y,
                    x=alt.X(
                        "cpu_us_per_txn:Q",
                        stack="zero",
                        scale=alt.Scale(type="linear", zero=True),
                        title="CPU µs per transaction",
                        axis=alt.Axis(tickCount=6),
                    ),
                    color=color,
                    order=alt.Order("role_order:Q"),
                    tooltip=[
                        "series",
                        "size",
                        alt.Tooltip("role:N", title="Address space"),
                        alt.Tooltip("cpu_us_per_txn:Q", format=",.1f", title="CPU µs/txn"),
                        alt.Tooltip("total_us:Q", format=",.1f", title="Total µs/txn"),
                        alt.Tooltip("runs:Q", title="Runs"),
                    ],
                )
            )
            totals = part.drop_duplicates("series")
            labels = (
                alt.Chart(totals)
                .mark_text(align="left", baseline="middle", dx=4, fontSize=_FONT - 1)
                .encode(
                    y=y,
                    x=alt.X("total_us:Q"),
                    text=alt.Text("total_us:Q", format=",.0f"),
                )
            )
            panels.append(
                alt.layer(bars, labels).properties(
                    width=width, height=alt.Step(18), title=size_label(size)
                )
            )
        chart = alt.vconcat(*panels).resolve_scale(x="independent", y="independent")
        return _finish(chart, caption)

    return _fit_width(build, 1, TEXT_WIDTH - 420)


def _line_key(df: pd.DataFrame) -> pd.Series:
    return df["configuration"].astype(str) + " | " + df["detail"].astype(str)


def _chunk_panels(df: pd.DataFrame, panel: str, line: str, colors: dict[str, str]) -> pd.DataFrame:
    # A panel with more than MAX_LINES_PER_PANEL lines is split into panels of at most that
    # many, whole configurations together, the baseline (first configuration) in each so
    # every panel compares with it.
    rank = {c: k for k, c in enumerate(colors)}
    out = []
    for _, group in df.groupby(panel, sort=False, dropna=False):
        if group[line].nunique() <= MAX_LINES_PER_PANEL:
            out.append(group)
            continue
        configs = sorted(
            group["configuration"].astype(str).unique(), key=lambda c: (rank.get(c, len(rank)), c)
        )
        lines = {
            c: group.loc[group["configuration"].astype(str) == c, line].nunique() for c in configs
        }
        base, rest = configs[0], configs[1:]
        # As few panels as the limit allows, filled evenly (16 lines: three panels of six).
        room = max(1, MAX_LINES_PER_PANEL - lines[base])
        others = sum(lines[c] for c in rest)
        target = math.ceil(others / math.ceil(others / room))
        chunks: list[list[str]] = []
        current: list[str] = []
        used = 0
        for c in rest:
            if current and (used + lines[c] > room or used >= target):
                chunks.append(current)
                current, used = [], 0
            current.append(c)
            used += lines[c]
        chunks.append(current)
        for k, chunk in enumerate(chunks, start=1):
            keep = group["configuration"].astype(str).isin([base, *chunk])
            suffix = f"{k} of {len(chunks)}"
            part = group[keep].copy()
            part["panel_part"] = k
            part[panel] = part[panel].astype(str).map(lambda p, s=suffix: f"{p} · {s}" if p else s)
            out.append(part)
    return pd.concat(out) if out else df


def round_trip_chart(driver: pd.DataFrame, colors: dict[str, str], caption: str):
    """Round trip by message size per series (log scales), coloured by configuration, the
    variant as the dash pattern; past eight series, several panels (the baseline in each).

    Long because: one Altair spec, layer by layer.

    Example:
        chart(round_trip_chart(driver_results("attls"), config_colors("attls"), "Figure 2"))
    """
    import altair as alt

    df = driver[driver["message_bytes"].notna() & driver["round_trip_us"].notna()].copy()
    df["configuration"] = df["configuration"].astype(str)
    df["detail"] = df["detail"].replace("", "–")
    df["line"] = _line_key(df)
    df["panel"] = ""
    df = _chunk_panels(df, "panel", "line", colors)
    panels = list(dict.fromkeys(df["panel"]))
    log_x = spans_decades(df["message_bytes"])
    log_y = spans_decades(df["round_trip_us"])
    sizes = sorted(df["message_bytes"].unique())
    x = alt.X(
        "message_bytes:Q",
        scale=alt.Scale(type="log", nice=False) if log_x else alt.Scale(),
        title="Message size" + (" (log scale)" if log_x else ""),
        axis=alt.Axis(values=sizes, labelExpr=_size_label_expr(), labelOverlap="greedy"),
    )
    y = alt.Y(
        "round_trip_us:Q",
        scale=alt.Scale(type="log") if log_y else alt.Scale(zero=True),
        title="Round trip (µs)" + (", log scale" if log_y else ""),
        axis=alt.Axis(format=","),
    )
    variants = list(dict.fromkeys(df["detail"]))
    dashed = len(variants) > 1
    shown = _present(colors, df["configuration"])
    # Two legends side by side share the width left of the y axis: the variants get what
    # they need up to half, the configurations the rest.
    left = _NUMBER_AXIS_PX + _AXIS_TITLE_PX
    avail = TEXT_WIDTH - 10 - left - 24
    variant_w = min(legend_px(variants, "Variant"), avail / 2) if dashed else 0
    color = _config_color(colors, df["configuration"], reserve=variant_w, left=left)
    config_w = _legend_layout(shown, "Configuration", avail - variant_w)[1]
    tooltip = [
        "run_id",
        "series",
        alt.Tooltip("message_bytes:Q", format=","),
        alt.Tooltip("round_trip_us:Q", format=",.0f", title="Round trip µs"),
        alt.Tooltip("rate_per_s:Q", format=",.2f", title="Rate /s"),
    ]
    line_encode = dict(x=x, y=y, color=color, detail="line:N")
    if dashed:
        # Drawn by the line layer alone, so the legend shows the dash patterns themselves.
        line_encode["strokeDash"] = alt.StrokeDash(
            "detail:N",
            sort=variants,
            legend=_legend(
                variants,
                "Variant",
                reserve=config_w,
                left=left,
                symbolType="stroke",
                symbolStrokeColor="#333333",
                symbolStrokeWidth=1.5,
                symbolSize=500,
            ),
        )
    columns = 1 if len(panels) == 1 else 2

    def build(width: int):
        lines = alt.Chart().mark_line().encode(**line_encode)
        points = (
            alt.Chart()
            .mark_point(filled=True, size=40)
            .encode(x=x, y=y, color=color, tooltip=tooltip)
        )
        layered = alt.layer(lines, points, data=df)
        if len(panels) == 1:
            chart = layered.properties(width=width, height=300)
        else:
            chart = layered.properties(width=width, height=220).facet(
                facet=alt.Facet("panel:N", sort=panels, title=None), columns=columns
            )
        return _finish(chart, caption)

    return _fit_width(build, columns, (TEXT_WIDTH - 100) / columns)


def _size_label_expr() -> str:
    # Message sizes in binary units on an axis: 256 bytes as 256 B, 2048 as 2 KB, 1 MB.
    return (
        "datum.value >= 1048576 && datum.value % 1048576 == 0 ? (datum.value / 1048576) + ' MB'"
        " : datum.value >= 1024 && datum.value % 1024 == 0 ? (datum.value / 1024) + ' KB'"
        " : format(datum.value, ',') + ' B'"
    )


def fit_chart(
    points: pd.DataFrame,
    fits: pd.DataFrame,
    x_name: str,
    y_title: str,
    colors: dict[str, str],
    caption: str,
):
    """Measured points and the fitted lines ``y = a * x + b``, one colour per configuration:
    each line drawn from its ends in fct_fit (fitted_y_at_min_x, fitted_y_at_max_x; the axes
    are linear, so the straight line between them is the fit). Of ``points`` (fct_fit_points
    rows) only those of the fits drawn, by fit_key: the runs each line was fitted through.

    Example:
        chart(fit_chart(pts, fits("protection"), "message_bytes", "CPU µs/txn", colors, "Fig 3"))
    """
    import altair as alt

    x_title = {"message_bytes": "Message size (bytes)"}.get(x_name, x_name.replace("_", " "))
    points = points[points["fit_key"].isin(fits["fit_key"])]
    pts = points.assign(configuration=points["configuration"].astype(str))
    ends = fits.assign(configuration=fits["configuration"].astype(str))
    shown = pd.concat([pts["configuration"], ends["configuration"]])
    color = _config_color(colors, shown)
    dots = (
        alt.Chart(pts)
        .mark_point(filled=True, size=55)
        .encode(
            x=alt.X("x:Q", title=x_title, axis=alt.Axis(format=",")),
            y=alt.Y("y:Q", title=y_title, axis=alt.Axis(format=",")),
            color=color,
            tooltip=[
                "run_id",
                "series",
                alt.Tooltip("x:Q", format=","),
                alt.Tooltip("y:Q", format=",.1f"),
            ],
        )
    )
    # One line per fit: a configuration can have several (one per cipher).
    fitted = (
        alt.Chart(
            ends[
                [
                    "configuration",
                    "fit_key",
                    "min_x",
                    "max_x",
                    "fitted_y_at_min_x",
                    "fitted_y_at_max_x",
                ]
            ]
        )
        .mark_rule(strokeWidth=1.5)
        .encode(
            # The points' axes (title, thousands separators), shared by the layers.
            x=alt.X("min_x:Q", title=x_title, axis=alt.Axis(format=",")),
            x2="max_x",
            y=alt.Y("fitted_y_at_min_x:Q", title=y_title, axis=alt.Axis(format=",")),
            y2="fitted_y_at_max_x",
            color=color,
            detail="fit_key:N",
        )
    )

    def build(width: int):
        return _finish((fitted + dots).properties(width=width, height=300), caption)

    return _fit_width(build, 1, TEXT_WIDTH - 100)


NETSTAT_METRICS = {
    "congestion_window_bytes": "Congestion window (bytes)",
    "smooth_trip_time_ms": "Smooth trip time (ms)",
    "send_data_queued_bytes": "Send data queued (bytes)",
}


def netstat_chart(series: pd.DataFrame, metric: str, colors: dict[str, str], caption: str):
    """A NETSTAT value against seconds into the run: one line per run and connection, one
    colour per configuration, one panel per message size (two across).

    Example:
        chart(netstat_chart(netstat_series("attls"), "smooth_trip_time_ms", colors, "Fig. 4"))
    """
    import altair as alt

    # Every NETSTAT chart of a study is drawn from the same rows and columns (the polls with
    # any of the metrics, each metric in the tooltip), so Altair names the same dataset and
    # the page carries it once for the three charts (mqcap.render.display). A line joins the
    # polls that have its metric (invalid="filter": a poll without it is left out, not a gap).
    metrics = [m for m in NETSTAT_METRICS if m in series.columns]
    if metric not in metrics:
        metrics.append(metric)
    df = series[series[metrics].notna().any(axis=1)].copy()
    df["configuration"] = df["configuration"].astype(str)
    df["size"] = df["message_bytes"].map(size_label)
    df["connection_id"] = df["connection_id"].astype(str)
    sizes = [size_label(s) for s in sorted(df["message_bytes"].dropna().unique())]
    if df["message_bytes"].isna().any():
        sizes.append("–")
    # Only what is drawn goes into the chart (Altair embeds every column of its frame).
    df = df[
        ["seconds_into_run", *metrics, "configuration", "size", "run_id", "series", "connection_id"]
    ]
    columns = 1 if len(sizes) == 1 else 2

    def build(width: int):
        base = (
            alt.Chart(df)
            .mark_line(strokeWidth=1.2, interpolate="linear", invalid="filter")
            .encode(
                x=alt.X("seconds_into_run:Q", title="Seconds into the run"),
                y=alt.Y(
                    f"{metric}:Q",
                    title=NETSTAT_METRICS.get(metric, metric),
                    axis=alt.Axis(labelExpr=_SI_LABELS, tickCount=4),
                ),
                color=_config_color(colors, df["configuration"]),
                # One line per run and connection (two fields: no joined copy of both per row).
                detail=["run_id:N", "connection_id:N"],
                tooltip=[
                    "run_id",
                    "series",
                    "connection_id",
                    "seconds_into_run",
                    *(
                        alt.Tooltip(f"{m}:Q", format=",", title=NETSTAT_METRICS.get(m, m))
                        for m in metrics
                    ),
                ],
            )
            .properties(width=width, height=160)
        )
        chart = base.facet(
            facet=alt.Facet("size:N", sort=sizes, title=None), columns=columns
        ).resolve_scale(y="independent")
        return _finish(chart, caption)

    return _fit_width(build, columns, (TEXT_WIDTH - 160) / columns)


def bar_chart(
    df: pd.DataFrame,
    value: str,
    title: str,
    colors: dict[str, str],
    caption: str,
    facet: str | None = None,
    stack_by: str | None = None,
    fold: dict[str, str] | None = None,
):
    """Horizontal bars per series, coloured by configuration; or stacked by ``stack_by`` (an
    address-space role), a distinct colour per role; split into side-by-side panels by
    ``facet``. ``fold`` draws several columns of a row as the segments of its bar: column ->
    segment name (the ``stack_by`` value), the segment's length read as ``value``.

    Example:
        chart(bar_chart(starts, "rate_per_s", "Channels per second", colors, "Figure 5",
                        facet="channel_operation"))
        chart(bar_chart(starts, "cpu_us", "CPU µs per channel", colors, "Figure 6",
                        stack_by="role", fold={"chin_us_per_channel": "CHIN",
                                               "tcpip_us_per_channel": "TCPIP"}))
    """
    import altair as alt

    if fold:  # one row per bar segment: its value under ``value``, its name under ``stack_by``
        keys = dict.fromkeys(["run_id", "series", "detail", "configuration", facet])
        ids = [c for c in keys if c in df]
        df = df.melt(id_vars=ids, value_vars=list(fold), var_name=stack_by, value_name=value)
        df[stack_by] = df[stack_by].map(fold)
    data = df[df[value].notna()].copy()
    data["configuration"] = data["configuration"].astype(str)
    order = _series_order(data, colors)
    left = labels_px(data["series"])
    encode = dict(
        y=alt.Y("series:N", title=None, sort=order, axis=alt.Axis(labelLimit=_LABEL_LIMIT)),
        x=alt.X(f"sum({value}):Q", title=title, axis=alt.Axis(tickCount=4)),
        tooltip=["run_id", "series", alt.Tooltip(f"{value}:Q", format=",.1f")],
    )
    if stack_by:
        levels = (
            role_order(data[stack_by])
            if stack_by == "role"
            else list(dict.fromkeys(data[stack_by].astype(str)))
        )
        data["stack_order"] = data[stack_by].astype(str).map(levels.index)
        if stack_by == "role":
            encode["color"] = role_color(levels, left=left)
        else:
            encode["color"] = alt.Color(
                f"{stack_by}:N",
                sort=levels,
                legend=_legend(levels, stack_by.replace("_", " "), left=left),
            )
        encode["order"] = alt.Order("stack_order:Q")
        encode["tooltip"] = [*encode["tooltip"], stack_by]
    else:
        # Every bar is labelled with its configuration; past a handful of configurations a
        # colour legend only repeats the labels, so it is left out.
        shown = _present(colors, data["configuration"])
        encode["color"] = _config_color(
            colors, data["configuration"], legend=len(shown) <= 8, left=left
        )
    panels = list(dict.fromkeys(data[facet].astype(str))) if facet else [""]

    def build(width: int):
        base = (
            alt.Chart(data)
            .mark_bar(stroke="white", strokeWidth=0.5)
            .encode(**encode)
            .properties(width=width, height=alt.Step(16))
        )
        if facet:
            base = base.facet(
                column=alt.Column(f"{facet}:N", title=None, sort=panels)
            ).resolve_scale(x="independent")
        return _finish(base, caption)

    return _fit_width(build, len(panels), (TEXT_WIDTH - 400) / len(panels))


# ---------------------------------------------------------------------------------------------
# Thread sweeps, rate targets and channel-initiator tasks

_SWEEP_Y = {
    "rate_per_s": "Transactions per second",
    "round_trip_us": "Round trip (µs)",
}
# Labels a sweep may vary besides the study's group_by: each gets its own panels rather than
# joining two sweeps into one zigzag line.
_SWEEP_DIMS = ["message_bytes", "persistence"]


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


def _panel_dims(df: pd.DataFrame, group_by: list[str]) -> list[str]:
    # The study's grouping dimensions, message size and persistence where they vary; then any
    # other label that varies within one configuration in a panel (it tells sweeps apart).
    dims = [
        d
        for d in dict.fromkeys([*group_by, *_SWEEP_DIMS])
        if d in df and df[d].nunique(dropna=False) > 1
    ]
    extra = [c for c in DETAIL_COLUMNS if c != "threads" and c in df and c not in dims]
    for column in extra:
        keys = ["configuration", *dims]
        if df.groupby(keys, dropna=False, observed=True)[column].nunique(dropna=False).gt(1).any():
            dims.append(column)
    return dims


def sweep_panels(
    df: pd.DataFrame, group_by: list[str], colors: dict[str, str] | None = None
) -> tuple[pd.DataFrame, list[str]]:
    """Add ``panel`` (one small multiple per group x message size x persistence, and any
    other label that varies within a configuration) and ``line`` (one line per configuration
    in a panel), and return the panels in numeric/alphabetical order of their dimensions.

    Only combinations that have data get a panel. A panel that would hold more than
    :data:`MAX_LINES_PER_PANEL` lines is split into several, the baseline in each.

    Example:
        data, order = sweep_panels(thread_sweep("appliance"), ["scenario", "hardware_model"])
    """
    data = df.copy()
    dims = _panel_dims(data, list(group_by))
    if dims:
        data = data.sort_values(dims, kind="stable")
        data["panel"] = data.apply(lambda r: panel_label(r, dims), axis=1)
    else:
        data["panel"] = ""
    data["line"] = data["configuration"].astype(str) + " | " + data["panel"]
    if colors is None:
        colors = {str(c): "" for c in dict.fromkeys(data["configuration"])}
    data = _chunk_panels(data, "panel", "line", colors)
    data["line"] = data["configuration"].astype(str) + " | " + data["panel"]
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


def threads_x(threads: pd.Series, title: bool = True):
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
        title=("Requester threads" + (" (log scale)" if log else "")) if title else None,
        scale=alt.Scale(type="log", base=2, nice=False) if log else alt.Scale(),
        # Altair refuses values=None: a linear axis keeps Vega's own ticks.
        axis=alt.Axis(values=thread_ticks(counts), format="d") if log else alt.Axis(format="d"),
    )


def log_ticks(values: pd.Series, steps: tuple[int, ...] | None = None) -> list[float]:
    """Tick values for a log axis over ``values``: 1-3-10 steps (100, 300, 1,000 ...) when the
    values span at most two decades, else powers of ten only, so a short panel never prints
    a label per 1-2-5 step (``steps`` chooses them instead). Vega leaves out the values
    outside each panel's own domain.

    Example:
        >>> log_ticks(pd.Series([250.0, 4800.0]))
        [100, 300, 1000, 3000, 10000]
    """
    v = values[values > 0].dropna()
    if v.empty:
        return []
    low = math.floor(math.log10(v.min()))
    high = math.ceil(math.log10(v.max()))
    if steps is None:
        steps = (1,) if high - low > 2 else (1, 3)
    return [m * 10**e for e in range(low, high + 1) for m in steps if m * 10**e <= 10**high]


def panel_log_steps(decades: float, height: float, label_px: float = _FONT + 4) -> tuple:
    """The densest 1-2-5, 1-3 or powers-of-ten labelling whose labels do not touch on a log
    axis ``height`` px tall spanning ``decades``.

    Example:
        >>> panel_log_steps(1.0, 150)
        (1, 2, 5)
        >>> panel_log_steps(4.0, 150)
        (1, 3)
    """
    per_decade = height / max(decades, 1.0)
    for steps, gap in (((1, 2, 5), math.log10(2)), ((1, 3), math.log10(3)), ((1,), 1.0)):
        if per_decade * gap >= label_px:
            return steps
    return (1,)


def _panel_decades(df: pd.DataFrame, value: str) -> float:
    # The widest span, in decades after rounding out to powers of ten (Vega's nice log
    # domain), of ``value`` within one panel.
    spans = []
    for _, part in df.groupby("panel", sort=False):
        v = part[value][part[value] > 0]
        if not v.empty:
            spans.append(math.ceil(math.log10(v.max())) - math.floor(math.log10(v.min())))
    return float(max(spans, default=1))


def _sweep_columns(data: pd.DataFrame, panels: list[str], group_by: list[str]) -> int:
    # One row per group: as many columns as the innermost dimension has values (message
    # sizes), at most four; a single panel takes the whole width.
    # A panel split for its many lines: its parts side by side. Fewer columns where the
    # panel titles would not fit above the panels.
    if len(panels) <= 1:
        return 1
    dims = _panel_dims(data, group_by)
    inner = data[dims[-1]].nunique() if dims else len(panels)
    if "panel_part" in data and data["panel_part"].max() > 1:
        inner = int(data["panel_part"].max())
    if inner < 2 or inner > 4:
        inner = 4
    cols = min(inner, len(panels))
    longest = max(text_px(p, _PANEL_TITLE_FONT) for p in panels)
    while cols > 1 and longest > TEXT_WIDTH / cols - _PANEL_SPACING - 10:
        cols -= 1
    return cols


def _sweep_facets(
    df: pd.DataFrame,
    x: object,
    y: object,
    colors: dict[str, str],
    caption: str,
    group_by: list[str],
    tooltip: list,
    y_title: str,
    resolve_x: str = "shared",
    columns: int | None = None,
):
    # The small multiples of a thread sweep: one line per configuration (points joined in
    # thread order), one panel per grouping value x message size (x persistence); the y
    # title once above the panels, the legend above that.
    import altair as alt

    data = df.copy()
    data["configuration"] = data["configuration"].astype(str)
    data, panels = sweep_panels(data, group_by, colors)
    cols = columns or _sweep_columns(data, panels, group_by)
    color = _config_color(colors, data["configuration"], left=_NUMBER_AXIS_PX)

    def build(width: int):
        base = (
            alt.Chart(data)
            .mark_line(point=alt.OverlayMarkDef(size=18), strokeWidth=1.4)
            .encode(
                x=x,
                y=y,
                color=color,
                detail="line:N",
                order=alt.Order("threads:Q"),
                tooltip=["configuration", "panel", alt.Tooltip("threads:Q", format="d"), *tooltip],
            )
            .properties(width=width, height=_panel_height(width))
        )
        chart = base.facet(
            facet=alt.Facet(
                "panel:N",
                sort=panels,
                title=y_title,
                header=alt.Header(
                    titleAnchor="start", titleFontWeight="bold", labelFontSize=_PANEL_TITLE_FONT
                ),
            ),
            columns=cols,
        ).resolve_scale(x=resolve_x, y="independent")
        return _finish(chart, caption)

    return _fit_width(build, cols, (TEXT_WIDTH - 70 * cols) / cols)


def _panel_height(width: float) -> int:
    return int(min(220, max(130, width * 0.68)))


def _sweep_y(df: pd.DataFrame, measure: str, group_by: list[str], columns: int | None):
    # Round trips on a log axis (multiplicative: the single-thread difference reads as well
    # as the saturated one), labelled as densely as the panel height allows; rates linear
    # from zero, so saturation shows as the curve flattening.
    import altair as alt

    if measure != "round_trip_us":
        return alt.Y(
            f"{measure}:Q",
            title=None,
            scale=alt.Scale(zero=True),
            axis=alt.Axis(tickCount=4, labelExpr=_SI_LABELS),
        ), _SWEEP_Y.get(measure, measure)
    data, panels = sweep_panels(df.assign(configuration=df["configuration"].astype(str)), group_by)
    cols = columns or _sweep_columns(data, panels, group_by)
    height = _panel_height((TEXT_WIDTH - 70 * cols) / cols)
    steps = panel_log_steps(_panel_decades(data, measure), height)
    return alt.Y(
        f"{measure}:Q",
        title=None,
        scale=alt.Scale(type="log"),
        axis=alt.Axis(values=log_ticks(df[measure], steps), format=",", labelOverlap="greedy"),
    ), _SWEEP_Y.get(measure, measure) + ", log scale"


def sweep_chart(
    sweep: pd.DataFrame,
    measure: str,
    colors: dict[str, str],
    caption: str,
    group_by: list[str],
    columns: int | None = None,
):
    """``measure`` against requester threads, one line per configuration, one small multiple
    per grouping value x message size (x persistence where it varies).

    Threads are a numeric axis on a log-2 scale (1, 2, 4 ... 200 in numeric order, never as
    text); rates are on a linear axis from zero, round trips on a log axis (MP16: the
    single-thread round trip is the comparison, and it is a fraction of the saturated one).
    The legend follows the study's configuration order.

    Example:
        chart(sweep_chart(thread_sweep(s), "rate_per_s", config_colors(s), "Figure 4", ["scenario"]))
    """
    import altair as alt

    df = sweep[sweep[measure].notna() & sweep["threads"].notna()]
    if measure == "round_trip_us":
        df = df[df[measure] > 0]
    x = threads_x(df["threads"])
    y, y_title = _sweep_y(df, measure, group_by, columns)
    tooltip = [alt.Tooltip(f"{measure}:Q", format=",.1f")]
    return _sweep_facets(df, x, y, colors, caption, group_by, tooltip, y_title, columns=columns)


def latency_throughput_chart(
    sweep: pd.DataFrame, colors: dict[str, str], caption: str, group_by: list[str]
):
    """Round trip against rate along each sweep (points joined in thread order): where the
    latency turns up as throughput stops growing.

    A round trip spanning a decade or more is drawn on a log axis labelled 1-2-5, 1-3-10 or
    powers of ten, as densely as the panels allow (:func:`log_ticks`); rates are labelled in
    thousands (20k), a few per panel.

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
        axis=alt.Axis(tickCount=4, labelExpr=_SI_LABELS, labelOverlap="greedy", labelFlush=True),
    )
    if y_log:
        y, y_title = _sweep_y(df[df["round_trip_us"] > 0], "round_trip_us", group_by, None)
    else:
        y = alt.Y(
            "round_trip_us:Q", title=None, scale=alt.Scale(zero=True), axis=alt.Axis(tickCount=4)
        )
        y_title = _SWEEP_Y["round_trip_us"]
    tooltip = [
        alt.Tooltip("rate_per_s:Q", format=",.1f"),
        alt.Tooltip("round_trip_us:Q", format=",.0f"),
    ]
    return _sweep_facets(
        df if not y_log else df[df["round_trip_us"] > 0],
        x,
        y,
        colors,
        caption,
        group_by,
        tooltip,
        y_title,
        resolve_x="independent",
    )


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
    states = [s for s in ["sustained", "not sustained", "unknown"] if s in set(df["Target"])]
    y = alt.Y("series:N", title=None, sort=order, axis=alt.Axis(labelLimit=_LABEL_LIMIT))
    bars = (
        alt.Chart()
        .mark_bar(stroke="black", strokeWidth=0.4)
        .encode(
            y=y,
            x=alt.X(
                "achieved_rate_per_s:Q", title="Messages per second", axis=alt.Axis(format=",")
            ),
            color=_config_color(
                colors,
                df["configuration"],
                reserve=legend_px(states, "Target"),
                left=labels_px(df["series"]),
            ),
            opacity=alt.Opacity(
                "Target:N",
                scale=alt.Scale(
                    domain=["sustained", "not sustained", "unknown"], range=[1.0, 0.3, 0.6]
                ),
                title="Target",
                legend=_legend(states, "Target", symbolFillColor="#555555"),
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

    def build(width: int):
        chart = (
            alt.layer(bars, ticks, data=df)
            .properties(width=width, height=alt.Step(18))
            .facet(row=alt.Row("size:N", sort=sizes, title=None))
            .resolve_scale(x="independent", y="independent")
        )
        return _finish(chart, caption)

    return _fit_width(build, 1, TEXT_WIDTH - 400)


def task_stack_chart(profile: pd.DataFrame, colors: dict[str, str], caption: str):
    """MP16's channel-initiator chart: CPU and wait µs per request stacked, one bar per
    configuration and variant (fct_chinit_task_profile: runs at other thread counts or
    repeated are pooled), one row of panels per message size and one panel per task type in
    it, so a panel holds a few bars whatever the run count. A row draws only the task types
    and the bars that size has (no empty panels, no empty bars).

    Long because: one Altair spec, layer by layer.

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
    long["task_type"] = long["task_type"].astype(str)
    long["part_order"] = long["part"].map({"CPU": 0, "Wait": 1})
    long["size"] = long["message_bytes"].map(size_label)
    # The query's order: configurations in the study's order, then variant; sizes numeric;
    # task types in the mart's stack order (dispatcher, adapter, SSL, DNS).
    bars = list(dict.fromkeys(profile["bar_label"]))
    tasks = list(dict.fromkeys(profile.sort_values("stack_order")["task_type"].astype(str)))
    rows = [
        (g["size"].iloc[0], g) for _, g in long.groupby("message_bytes", sort=True, dropna=False)
    ]
    across = max((g["task_type"].nunique() for _, g in rows), default=1)
    parts = [p for p in ["CPU", "Wait"] if p in set(long["part"])]
    color = _config_color(
        colors,
        long["configuration"],
        reserve=legend_px(parts, "Part"),
        left=labels_px(long["bar_label"]),
    )
    opacity = alt.Opacity(
        "part:O",
        sort=["CPU", "Wait"],
        scale=alt.Scale(domain=["CPU", "Wait"], range=[1.0, 0.4]),
        title="Part",
        legend=_legend(parts, "Part", symbolFillColor="#4e79a7"),
    )

    def build(width: int):
        charts = []
        for size, part in rows:
            present = set(part["bar_label"])
            chart = (
                alt.Chart(part)
                .mark_bar(stroke="white", strokeWidth=0.5)
                .encode(
                    y=alt.Y(
                        "bar_label:N",
                        title=None,
                        sort=[b for b in bars if b in present],
                        axis=alt.Axis(labelLimit=_LABEL_LIMIT),
                    ),
                    x=alt.X(
                        "us_per_request:Q",
                        title="µs per request",
                        stack="zero",
                        axis=alt.Axis(tickCount=3, labelExpr=_SI_LABELS, labelOverlap="greedy"),
                    ),
                    color=color,
                    opacity=opacity,
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
                .properties(width=width, height=alt.Step(13))
                .facet(
                    column=alt.Column(
                        "task_type:N",
                        sort=[t for t in tasks if t in set(part["task_type"])],
                        title=size,
                        header=alt.Header(titleAnchor="start", titleFontWeight="bold"),
                    )
                )
                .resolve_scale(x="independent")
            )
            charts.append(chart)
        chart = charts[0] if len(charts) == 1 else alt.vconcat(*charts)
        return _finish(chart, caption)

    return _fit_width(build, across, (TEXT_WIDTH - 360) / across)
