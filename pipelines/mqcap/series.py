"""A run's series: its configuration plus the labels that tell it from the configuration's
other runs at the same workload point (three ciphers, several recipient counts).

The dbt model ``int_run_series`` applies this to every study's runs, and ``dim_run`` publishes
``detail`` and ``series``; tables and charts read them from there.

Example:
    label_series(runs)["series"]  # 'MQ + AT-TLS · TLS_CHACHA20_POLY1305_SHA256'
"""

from __future__ import annotations

import math

import pandas as pd

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
# What a workload point is: runs of a configuration that share these are told apart by detail.
POINT_COLUMNS = ["configuration", "workload_type", "message_bytes"]


def label_series(runs: pd.DataFrame, within: tuple[str, ...] = ("configuration",)) -> pd.DataFrame:
    """Add ``detail`` and ``series`` (configuration plus what tells its runs apart).

    Within each group of ``within`` (a configuration; the model adds the study), the detail
    columns are tried in order: a column is taken when it takes two or more values there, until
    no two runs share a workload point and the columns taken. ``series`` is the configuration
    followed by `` · `` and the detail when there is one.

    Example:
        >>> runs = pd.DataFrame({"configuration": ["A", "A", "B"],
        ...                      "workload_type": ["request_reply"] * 3,
        ...                      "message_bytes": [2048, 2048, 2048],
        ...                      "cipher": ["X", "Y", None]})
        >>> list(label_series(runs)["series"])
        ['A · X', 'A · Y', 'B']
    """
    df = runs.copy()
    df["detail"] = ""
    for _key, group in df.groupby(list(within), sort=False, dropna=False):
        keys = [c for c in POINT_COLUMNS if c in group]
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
                lambda row, cols=chosen: ", ".join(detail_text(c, row[c]) for c in cols), axis=1
            )
    df["series"] = df["configuration"].astype(str) + df["detail"].map(
        lambda d: f" · {d}" if d else ""
    )
    return df


def detail_text(column: str, value: object) -> str:
    """One label of a detail as a reader says it.

    Example:
        >>> [detail_text("recipients", 1), detail_text("sslrkeyc", "1000000"),
        ...  detail_text("key_strength", "very_high"), detail_text("threads", None)]
        ['1 recipient', 'SSLRKEYC 1,000,000', 'very high', 'no threads']
    """
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
