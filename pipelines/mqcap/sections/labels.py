"""Labels shared by tables and charts: series of a configuration, message sizes, colours.

Example:
    from mqcap.sections.labels import size_label
    size_label(2048)  # '2 KB'
"""

from __future__ import annotations

import math
import re

import pandas as pd

# Tableau-20: distinct, colour-blind-tolerable; one colour per configuration in a report. The
# strong ten come first, their light partners only for studies with more configurations.
PALETTE = [
    "#4e79a7",
    "#f28e2b",
    "#e15759",
    "#76b7b2",
    "#59a14f",
    "#edc948",
    "#b07aa1",
    "#ff9da7",
    "#9c755f",
    "#bab0ac",
    "#a0cbe8",
    "#ffbe7d",
    "#ff9d9a",
    "#86bcb6",
    "#8cd17d",
    "#f1ce63",
    "#d4a6c8",
    "#fabfd2",
    "#d7b5a6",
    "#79706e",
]
# Address-space roles in the order MP16 stacks them.
ROLES = ["MSTR", "CHIN", "TCPIP", "AMSM", "APP", "OTHER"]
KEY_STRENGTHS = ["medium", "high", "very_high"]
# Labels that tell runs of one configuration apart, in the order they are tried.
DETAIL_COLUMNS = [
    "cipher",
    "recipients",
    "key_strength",
    "sslrkeyc",
    "persistence",
    "scenario",
    "hardware_model",
    "threads",
]


def label_series(runs: pd.DataFrame) -> pd.DataFrame:
    """Add ``detail`` and ``series`` (configuration plus what tells its runs apart).

    A configuration measured several ways at the same workload point (three ciphers, several
    recipient counts) gets the distinguishing labels as ``detail``; ``series`` is the
    configuration followed by the detail, so table rows and chart bars stay distinct.

    Example:
        label_series(dim_run)["series"]  # 'MQ + AT-TLS · TLS_CHACHA20_POLY1305_SHA256'
    """
    df = runs.copy()
    df["detail"] = ""
    point = ["configuration", "workload_type", "message_bytes"]
    for _config, group in df.groupby("configuration", sort=False, dropna=False):
        keys = [c for c in point if c in group]
        chosen: list[str] = []
        for column in DETAIL_COLUMNS:
            if column not in group:
                continue
            if not group.duplicated(keys + chosen).any():
                break
            if group[column].nunique(dropna=True) > 1:
                chosen.append(column)
        if chosen:
            df.loc[group.index, "detail"] = group[chosen].apply(
                lambda row, cols=chosen: ", ".join(_detail(c, row[c]) for c in cols), axis=1
            )
    df["series"] = df["configuration"].astype(str) + df["detail"].map(
        lambda d: f" · {d}" if d else ""
    )
    return df


def _detail(column: str, value: object) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)) or value is pd.NA:
        return f"no {column.replace('_', ' ')}"
    if column == "recipients":
        return f"{int(value)} recipient" + ("" if int(value) == 1 else "s")
    if column == "key_strength":
        return str(value).replace("_", " ")
    if column == "sslrkeyc":
        return f"SSLRKEYC {int(value):,}"
    if column == "threads":
        return f"{int(value)} thread" + ("" if int(value) == 1 else "s")
    return str(value)


def size_label(size: object) -> str:
    """A message size for a column header: binary units when exact, else bytes.

    Example:
        >>> [size_label(s) for s in (2048, 1048576, 1000, None)]
        ['2 KB', '1 MB', '1,000 bytes', '–']
    """
    if size is None or size is pd.NA or (isinstance(size, float) and math.isnan(size)):
        return "–"
    n = int(size)
    for unit, factor in (("MB", 1 << 20), ("KB", 1 << 10)):
        if n >= factor and n % factor == 0:
            return f"{n // factor} {unit}"
    return f"{n:,} bytes"


def duration_label(us: object) -> str:
    """A time given in microseconds, in the unit that reads (s, ms or µs, one decimal).

    Example:
        >>> [duration_label(v) for v in (16988153, 26647.5, 257.7, None)]
        ['17.0 s', '26.6 ms', '257.7 µs', '–']
    """
    if us is None or us is pd.NA or (isinstance(us, float) and math.isnan(us)):
        return "–"
    v = float(us)
    if abs(v) >= 1_000_000:
        return f"{v / 1_000_000:,.1f} s"
    if abs(v) >= 1_000:
        return f"{v / 1_000:,.1f} ms"
    return f"{v:,.1f} µs"


def natural_sorted(values) -> list[str]:
    """Strings in natural order: the numbers inside compare as numbers.

    Example:
        >>> natural_sorted(["100 threads", "16 threads", "2 threads"])
        ['2 threads', '16 threads', '100 threads']
    """
    return sorted(
        (str(v) for v in values),
        key=lambda s: [
            (0, int(t), "") if t.isdigit() else (1, 0, t) for t in re.split(r"(\d+)", s)
        ],
    )


def variant_summary(group: pd.DataFrame, max_listed: int = 12) -> str:
    """What varies between a configuration's runs, one clause per label: values in natural
    order, a long numeric list as its range.

    Example:
        >>> variant_summary(pd.DataFrame({"threads": [1, 2, 200], "scenario": ["b", "a", "a"]}))
        'scenario: a, b; threads: 1, 2, 200'
    """
    parts = []
    for column in DETAIL_COLUMNS:
        if column not in group:
            continue
        values = list(group[column].dropna().unique())
        if len(values) <= 1:
            continue
        if pd.api.types.is_numeric_dtype(group[column]):
            nums = sorted(float(v) for v in values)
            shown = [f"{v:,.0f}" if v.is_integer() else f"{v:g}" for v in nums]
            text = (
                ", ".join(shown)
                if len(shown) <= max_listed
                else f"{shown[0]}–{shown[-1]} ({len(shown)} values)"
            )
        else:
            text = ", ".join(natural_sorted(values))
        parts.append(f"{column.replace('_', ' ')}: {text}")
    return "; ".join(parts)
