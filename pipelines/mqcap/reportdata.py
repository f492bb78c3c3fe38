"""Data helpers for report cells: marts in, DataFrames out. No business SQL in the reports.

Reports run in a Jupyter kernel; the warehouse comes from ``MQCAP_WAREHOUSE`` (set by
``mqcap report``), opened read-only so a report never blocks or changes anything.
"""

from __future__ import annotations

import os
from functools import cache
from pathlib import Path

import duckdb
import pandas as pd

from mqcap.settings import Settings

# Tableau-10: distinct, colour-blind-tolerable; one colour per configuration in a report.
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
]


def warehouse_path() -> Path:
    return (
        Settings.load().warehouse
        if "MQCAP_WAREHOUSE" not in os.environ
        else Path(os.environ["MQCAP_WAREHOUSE"])
    )


@cache
def _con() -> duckdb.DuckDBPyConnection:
    return duckdb.connect(str(warehouse_path()), read_only=True)


def _mart(name: str, study: str | None = None, order: str | None = None) -> pd.DataFrame:
    sql = f"select * from marts.{name}"
    params: list = []
    if study is not None:
        sql += " where study = ?"
        params.append(study)
    if order:
        sql += f" order by {order}"
    return _con().execute(sql, params).df()


def has_table(schema: str, name: str) -> bool:
    rows = (
        _con()
        .execute(
            "select 1 from information_schema.tables where table_schema = ? and table_name = ?",
            [schema, name],
        )
        .fetchall()
    )
    return bool(rows)


def studies() -> pd.DataFrame:
    """One row per study: runs, configurations, message sizes, interval span.

    Example:
        studies()[["study", "runs"]]
    """
    runs = _mart("dim_run")
    if runs.empty:
        return pd.DataFrame(columns=["study", "runs", "configurations", "first_interval"])
    return (
        runs.groupby("study")
        .agg(
            runs=("run_id", "count"),
            configurations=("configuration", "nunique"),
            first_interval=("interval_start", "min"),
            last_interval=("interval_end", "max"),
        )
        .reset_index()
    )


def runs(study: str) -> pd.DataFrame:
    """The study's runs (dim_run), ordered by configuration order then message size."""
    df = _mart("dim_run", study, "message_bytes nulls first, run_id")
    order = configurations(study)
    df["configuration"] = pd.Categorical(df["configuration"], categories=order, ordered=True)
    return df.sort_values(["configuration", "message_bytes", "run_id"]).reset_index(drop=True)


def configurations(study: str) -> list[str]:
    """Configurations in a stable order: those of baseline runs first, then by first appearance."""
    df = _mart("dim_run", study, "run_id")
    base = df[df["is_baseline"]]["configuration"].tolist()
    rest = df["configuration"].tolist()
    seen: list[str] = []
    for c in base + rest:
        if c not in seen:
            seen.append(c)
    return seen


def config_colors(study: str) -> dict[str, str]:
    """Configuration -> colour, the same in every chart of a study report."""
    return {c: PALETTE[i % len(PALETTE)] for i, c in enumerate(configurations(study))}


def driver_results(study: str) -> pd.DataFrame:
    return _mart("fct_driver_results", study, "configuration, message_bytes")


def run_files(study: str) -> pd.DataFrame:
    return _mart("fct_run_files", study, "run_id, source_file")


def validation_failures() -> list[str]:
    """Messages of the last failed GX checks (for a report rendered anyway)."""
    if not has_table("meta", "validation_result"):
        return []
    rows = (
        _con()
        .execute(
            """select details from meta.validation_result
           where not success and validated_at = (select max(validated_at) from meta.validation_result)"""
        )
        .fetchall()
    )
    import json

    return [m for (d,) in rows for m in json.loads(d or "[]")]


def report_link(study: str, fmt: str = "html") -> str:
    """Relative link from the overview to a study report (same output folder)."""
    from urllib.parse import quote

    return quote(f"{study}.{fmt}")


_MD_SPECIAL = set("\\`*_{}[]()<>#+-.!|$@~^\"'&=")


def md(text: object) -> str:
    """Text from data, safe inside markdown printed by an ``output: asis`` cell.

    Markdown specials are backslash-escaped so nothing becomes markup, and ``<``/``&`` are
    escaped so no HTML survives.

    Example:
        >>> print(md("<script>alert(1)</script>"))
        &lt;script&gt;alert\\(1\\)&lt;/script&gt;
    """
    out = []
    for ch in str(text):
        if ch == "<":
            out.append("&lt;")
        elif ch == ">":
            out.append("&gt;")
        elif ch == "&":
            out.append("&amp;")
        elif ch in _MD_SPECIAL:
            out.append("\\" + ch)
        elif ch in "\r\n":
            out.append(" ")
        else:
            out.append(ch)
    return "".join(out)
