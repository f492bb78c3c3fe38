"""Data helpers for report cells: marts in, DataFrames out. No business SQL in the reports.

Reports run in a Jupyter kernel; the warehouse comes from ``MQCAP_WAREHOUSE`` (set by
``mqcap report``), opened read-only so a report never blocks or changes anything. Every query
here reads ``marts.*`` only; the pure-pandas helpers below them (pivots, labels, captions) shape
those frames for tables and charts.

Example:
    from mqcap import reportdata as rd
    costs = rd.address_space_costs("attls")
"""

from __future__ import annotations

import itertools
import json
import math
import os
import textwrap
from pathlib import Path
from urllib.parse import quote

import duckdb
import pandas as pd

from mqcap.settings import Settings

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
# Workloads that move messages (cost per transaction, rates, round trips); channel start/stop
# runs have their own section.
MESSAGE_WORKLOADS = ("request_reply", "streaming", "put_get", "other")
KEY_STRENGTHS = ["medium", "high", "very_high"]
# Labels that tell runs of one configuration apart, in the order they are tried.
DETAIL_COLUMNS = ["cipher", "recipients", "key_strength", "sslrkeyc", "persistence", "threads"]


def warehouse_path() -> Path:
    """The warehouse the report reads: ``MQCAP_WAREHOUSE``, else the settings' default.

    Example:
        warehouse_path()  # PosixPath('data/warehouse.duckdb')
    """
    return (
        Settings.load().warehouse
        if "MQCAP_WAREHOUSE" not in os.environ
        else Path(os.environ["MQCAP_WAREHOUSE"])
    )


def _con() -> duckdb.DuckDBPyConnection:
    return duckdb.connect(str(warehouse_path()), read_only=True)


def _query(sql: str, params: list | None = None) -> pd.DataFrame:
    # A connection per query, closed at once: a report's kernel may outlive its render by
    # seconds while it shuts down, and an open connection would keep the warehouse locked
    # against the next writer (ingest, build) all that time.
    con = _con()
    try:
        return con.execute(sql, params or []).df()
    finally:
        con.close()


def _mart(name: str, study: str | None = None, order: str | None = None) -> pd.DataFrame:
    sql = f"select * from marts.{name}"
    params: list = []
    if study is not None:
        sql += " where study = ?"
        params.append(study)
    if order:
        sql += f" order by {order}"
    return _query(sql, params)


def has_table(schema: str, name: str) -> bool:
    """Whether ``schema.name`` exists in the warehouse.

    Example:
        has_table("marts", "fct_fit")  # True
    """
    rows = _query(
        "select 1 from information_schema.tables where table_schema = ? and table_name = ?",
        [schema, name],
    )
    return not rows.empty


# ---------------------------------------------------------------------------------------------
# Studies and runs


def studies() -> pd.DataFrame:
    """One row per study: runs, configurations, workload types, message sizes, interval span.

    Example:
        studies()[["study", "runs"]]
    """
    df = _query(
        """select study,
                  count(*) as runs,
                  count(distinct configuration) as configurations,
                  string_agg(distinct workload_type, ', ' order by workload_type) as workloads,
                  min(message_bytes) as min_message_bytes,
                  max(message_bytes) as max_message_bytes,
                  min(interval_start) as first_interval,
                  max(interval_end) as last_interval
           from marts.dim_run group by study order by study"""
    )
    return df


def headlines() -> pd.DataFrame:
    """Per study, its largest round-trip (else total CPU) % change against a baseline, over
    the runs that move messages (a channel start's "round trip" is not one).

    Example:
        headlines().set_index("study").loc["attls", "pct_change"]  # 37.87
    """
    return _query(
        """with ranked as (
               select c.study, c.run_id, c.configuration, c.message_bytes, c.measure,
                      c.subject, c.baseline_configuration, c.pct_change,
                      row_number() over (
                          partition by c.study
                          order by case c.measure when 'round_trip_us' then 0
                                                  when 'cpu_us_per_txn' then 1 else 2 end,
                                   abs(c.pct_change) desc nulls last) as rank_in_study
               from marts.fct_comparison c
               join marts.dim_run r using (run_key)
               where c.pct_change is not null
                 and r.workload_type in ('request_reply', 'streaming', 'put_get', 'other')
                 and (c.measure = 'round_trip_us' or (c.measure = 'cpu_us_per_txn'
                      and c.subject = 'TOTAL'))
           )
           select * exclude (rank_in_study) from ranked where rank_in_study = 1
           order by study"""
    )


def runs(study: str) -> pd.DataFrame:
    """The study's runs (dim_run) with ``series`` / ``detail`` labels, in configuration order.

    Example:
        runs("attls")[["run_id", "configuration", "series"]]
    """
    df = label_series(_mart("dim_run", study, "run_id"))
    order = configurations(study)
    df["configuration"] = pd.Categorical(df["configuration"], categories=order, ordered=True)
    df = df.sort_values(["configuration", "workload_type", "message_bytes", "series", "run_id"])
    return df.reset_index(drop=True)


def configurations(study: str) -> list[str]:
    """Configurations in a stable order: those of baseline runs first, then by first appearance.

    Example:
        configurations("attls")  # ['MQ + System SSL', 'MQ, no TLS', 'MQ + AT-TLS']
    """
    df = _mart("dim_run", study, "run_id")
    base = df[df["is_baseline"]]["configuration"].tolist()
    rest = df["configuration"].tolist()
    seen: list[str] = []
    for c in base + rest:
        if c not in seen:
            seen.append(c)
    return seen


def config_colors(study: str) -> dict[str, str]:
    """Configuration -> colour, the same in every chart of a study report.

    Example:
        config_colors("attls")["MQ + AT-TLS"]  # '#f28e2b'
    """
    return {c: PALETTE[i % len(PALETTE)] for i, c in enumerate(configurations(study))}


def environment(study: str) -> pd.DataFrame:
    """What the manifests say about where and when the study ran, one row per system.

    Example:
        environment("attls")  # system_id, qmgr, runs, first_start, last_end
    """
    return _query(
        """select coalesce(system_id, '–') as system_id, coalesce(qmgr, '–') as qmgr,
                  count(*) as runs, min(interval_start) as first_start,
                  max(interval_end) as last_end
           from marts.dim_run where study = ? group by all order by 1, 2""",
        [study],
    )


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
        return f"{int(value)} threads"
    return str(value)


def _with_runs(df: pd.DataFrame, study: str, columns: list[str] | None = None) -> pd.DataFrame:
    """Join a mart frame to the study's run labels (series, detail, workload) on run_id."""
    labels = runs(study)
    keep = ["run_id", "series", "detail", "workload_type"] + (columns or [])
    keep = [c for c in dict.fromkeys(keep) if c in labels]
    out = df.merge(labels[keep], on="run_id", how="left", suffixes=("", "_run"))
    if "configuration" in out:
        order = configurations(study)
        out["configuration"] = pd.Categorical(out["configuration"], categories=order, ordered=True)
    return out


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


# ---------------------------------------------------------------------------------------------
# Mart readers


def driver_results(study: str) -> pd.DataFrame:
    """Achieved rate and round trip per run (fct_driver_results) with run labels.

    Example:
        driver_results("attls")[["series", "message_bytes", "round_trip_us"]]
    """
    return _with_runs(_mart("fct_driver_results", study, "configuration, message_bytes"), study)


def address_space_costs(study: str) -> pd.DataFrame:
    """CPU microseconds per transaction by run and address-space role, message workloads only.

    Example:
        address_space_costs("attls").pivot_table(index="series", columns="role",
                                                 values="cpu_us_per_txn")
    """
    df = _query(
        """select c.run_id, c.configuration, c.message_bytes, c.role, c.cpu_source,
                  c.cpu_s, c.transactions, c.cpu_us_per_txn
           from marts.fct_address_space_cost c
           join marts.dim_run r using (run_key)
           where c.study = ? and r.workload_type in ('request_reply', 'streaming', 'put_get',
                                                     'other')
           order by c.message_bytes, c.run_id, c.role""",
        [study],
    )
    return _with_runs(df, study)


def comparisons(study: str, measures: list[str] | None = None) -> pd.DataFrame:
    """Variant against baseline per run, measure and subject (fct_comparison) with labels.

    ``baseline_series`` names the baseline run's series, so a table can group variants by the
    run they are compared with.

    Example:
        comparisons("attls", ["round_trip_us"])[["series", "message_bytes", "pct_change"]]
    """
    df = _query(
        """select c.run_id, c.configuration, c.message_bytes, b.run_id as baseline_run_id,
                  c.baseline_configuration, c.measure, c.subject, c.unit,
                  c.baseline_value, c.variant_value, c.difference, c.pct_change
           from marts.fct_comparison c
           join marts.dim_run b on b.run_key = c.baseline_run_key
           where c.study = ?
           order by c.measure, c.subject, c.message_bytes, c.run_id""",
        [study],
    )
    if measures is not None:
        df = df[df["measure"].isin(measures)]
    df = _with_runs(df, study)
    base = runs(study)[["run_id", "series", "workload_type"]].rename(
        columns={
            "run_id": "baseline_run_id",
            "series": "baseline_series",
            "workload_type": "baseline_workload_type",
        }
    )
    return df.merge(base, on="baseline_run_id", how="left")


def fits(study: str) -> pd.DataFrame:
    """Least-squares lines ``y = a * x + b`` per configuration (fct_fit).

    Example:
        fits("protection").query("measure == 'cpu_us_per_txn' and subject == 'TOTAL'")
    """
    df = _mart("fct_fit", study, "x_name, measure, subject, configuration")
    order = configurations(study)
    df["configuration"] = pd.Categorical(df["configuration"], categories=order, ordered=True)
    return df.sort_values(["x_name", "measure", "subject", "configuration"]).reset_index(drop=True)


def fit_points(study: str) -> pd.DataFrame:
    """The measured points behind the fits: one row per run x measure x subject, with x values.

    CPU per transaction comes per role and as TOTAL (the sum of the roles) from
    fct_address_space_cost; rate and round trip from fct_driver_results.

    Example:
        fit_points("protection").query("subject == 'TOTAL'")[["run_id", "message_bytes", "y"]]
    """
    df = _query(
        """with cost as (
               select run_key, 'cpu_us_per_txn' as measure, role as subject, cpu_us_per_txn as y
               from marts.fct_address_space_cost where study = ?
               union all
               select run_key, 'cpu_us_per_txn', 'TOTAL', sum(cpu_us_per_txn)
               from marts.fct_address_space_cost where study = ? group by run_key
           ),
           driver as (
               select run_key, 'round_trip_us' as measure, 'RUN' as subject,
                      round_trip_us as y
               from marts.fct_driver_results where study = ?
               union all
               select run_key, 'rate_per_s', 'RUN', rate_per_s
               from marts.fct_driver_results where study = ?
           )
           select r.run_id, r.configuration, r.message_bytes, r.recipients, r.threads,
                  r.key_bits, p.measure, p.subject, p.y
           from (select * from cost union all select * from driver) p
           join marts.dim_run r using (run_key)
           where p.y is not null""",
        [study] * 4,
    )
    return _with_runs(df, study)


def chinit_tasks(study: str) -> pd.DataFrame:
    """Channel-initiator task statistics per run and task type (SMF class 4, fct_chinit_tasks).

    Example:
        chinit_tasks("attls")[["series", "task_type", "cpu_us_per_request", "busy_pct"]]
    """
    df = _mart("fct_chinit_tasks", study, "message_bytes, run_id, task_type")
    return _with_runs(df, study)


def channel_network(study: str) -> pd.DataFrame:
    """Per run and channel: SMF channel accounting beside DISPLAY CHSTATUS percentiles.

    Accounting (fct_channel_accounting) gives messages, batches, achieved batch size and
    NETTIME average / min / max; status (fct_channel_status) gives XBATCHSZ and NETTIME
    percentiles. Either side may be missing for a channel.

    Example:
        channel_network("attls")[["series", "channel_name", "xbatchsz_short_p50"]]
    """
    df = _query(
        """select coalesce(a.run_id, s.run_id) as run_id,
                  coalesce(a.configuration, s.configuration) as configuration,
                  coalesce(a.message_bytes, s.message_bytes) as message_bytes,
                  coalesce(a.channel_name, s.channel_name) as channel_name,
                  s.channel_type, a.messages, a.batches, a.achieved_batch_size,
                  a.nettime_avg_us, a.nettime_min_us, a.nettime_max_us,
                  s.snapshots, s.xbatchsz_short_p50, s.xbatchsz_long_max,
                  s.nettime_short_p50_us, s.nettime_short_p95_us, s.nettime_short_max_us
           from (select * from marts.fct_channel_accounting where study = ?) a
           full outer join (select * from marts.fct_channel_status where study = ?) s
             on a.run_key = s.run_key and a.channel_name = s.channel_name
           order by 3, 1, 4""",
        [study, study],
    )
    return _with_runs(df, study)


def netstat_series(study: str) -> pd.DataFrame:
    """NETSTAT polls per run and TCP connection (fct_netstat_series) with run labels.

    Example:
        netstat_series("attls")[["series", "seconds_into_run", "congestion_window_bytes"]]
    """
    df = _mart("fct_netstat_series", study, "run_id, connection_id, poll_no")
    return _with_runs(df, study)


def crypto(study: str) -> pd.DataFrame:
    """Crypto card utilisation per run, card, function and scope (fct_crypto), with workload.

    Example:
        crypto("keysize")[["cipher_prefix", "key_strength", "util_pct"]]
    """
    df = _mart("fct_crypto", study, "run_id, card_id, crypto_function, scope")
    return _with_runs(df, study, ["message_bytes"])


def channel_starts(study: str) -> pd.DataFrame:
    """Channel start / stop runs (fct_channel_starts): rate, time and CPU per channel.

    Example:
        channel_starts("attls")[["series", "channel_operation", "rate_per_s"]]
    """
    df = _mart("fct_channel_starts", study, "channel_operation, configuration, run_id")
    return _with_runs(df, study)


def run_files(study: str) -> pd.DataFrame:
    """Every raw file behind every run (fct_run_files): name, sha256 prefix, kind, rows.

    Example:
        run_files("attls")[["run_id", "source_file", "sha256_prefix", "rows_landed"]]
    """
    return _mart("fct_run_files", study, "run_id, source_file")


def validation_failures() -> list[str]:
    """Messages of the last failed GX checks (for a report rendered anyway).

    Example:
        validation_failures()  # ['marts.fct_fit: r_squared between 0 and 1 failed ...']
    """
    if not has_table("meta", "validation_result"):
        return []
    rows = _query(
        """select details from meta.validation_result
           where not success
             and validated_at = (select max(validated_at) from meta.validation_result)"""
    ).itertuples(index=False)
    return [m for (d,) in rows for m in json.loads(d or "[]")]


# ---------------------------------------------------------------------------------------------
# Shaping for tables (pure pandas)


def cost_table(costs: pd.DataFrame) -> pd.DataFrame:
    """Cost per transaction: one row per message size and series, one column per role + Total.

    Example:
        cost_table(address_space_costs("attls")).columns  # size, series, MSTR, CHIN, ...
    """
    if costs.empty:
        return pd.DataFrame()
    wide = costs.pivot_table(
        index=["message_bytes", "configuration", "series"],
        columns="role",
        values="cpu_us_per_txn",
        aggfunc="sum",
        observed=True,
    )
    roles = [r for r in ROLES if r in wide.columns]
    wide = wide[roles]
    wide["Total"] = wide.sum(axis=1, min_count=1)
    wide = wide.reset_index().sort_values(["message_bytes", "configuration", "series"])
    wide.insert(0, "Size", wide.pop("message_bytes").map(size_label))
    details = costs.drop_duplicates("series").set_index("series")["detail"]
    wide["series"] = wide["series"].map(details)
    wide["configuration"] = wide["configuration"].astype(str)
    wide = wide.rename(columns={"configuration": "Configuration", "series": "Variant"})
    if (wide["Variant"].fillna("") == "").all():
        wide = wide.drop(columns="Variant")
    wide.columns.name = None
    return wide.reset_index(drop=True)


def comparison_tables(
    comps: pd.DataFrame, values: pd.DataFrame, measure: str, change_label: str
) -> list[tuple[str, pd.DataFrame]]:
    """Seed-000-style tables: sizes as columns, series as rows, a "% change" row per variant.

    One table per baseline series (the runs compared with the same baseline configuration).
    ``values`` holds the measure per run (run_id, series, message_bytes, ``measure``); values
    are formatted as text here so value and % rows share a column.

    Example:
        comparison_tables(comparisons(s, ["round_trip_us"]), driver_results(s),
                          "round_trip_us", "% increase in round-trip time")
    """
    mine = comps[comps["measure"] == measure]
    mine = mine[mine["workload_type"].isin(MESSAGE_WORKLOADS)]
    if mine.empty:
        return []
    tables = []
    for baseline, group in mine.groupby("baseline_series", sort=False):
        sizes = sorted(group["message_bytes"].dropna().unique())
        columns = [size_label(s) for s in sizes]
        rows: list[dict[str, str]] = []
        base_row = {"Configuration": str(baseline)}
        base_values = group.drop_duplicates("message_bytes").set_index("message_bytes")
        for size, label in zip(sizes, columns, strict=True):
            base_row[label] = _fmt_value(base_values.loc[size, "baseline_value"], measure)
        rows.append(base_row)
        several = group["series"].nunique() > 1
        for series, variant in group.groupby("series", sort=False):
            by_size = variant.set_index("message_bytes")
            value_row = {"Configuration": str(series)}
            # With several variants each "% change" row says whose it is.
            pct_row = {"Configuration": f"{change_label}, {series}" if several else change_label}
            for size, label in zip(sizes, columns, strict=True):
                if size in by_size.index:
                    value_row[label] = _fmt_value(by_size.loc[size, "variant_value"], measure)
                    pct = by_size.loc[size, "pct_change"]
                    pct_row[label] = "–" if pd.isna(pct) else f"{pct:+.2f}"
                else:
                    value_row[label] = pct_row[label] = "–"
            rows += [value_row, pct_row]
        tables.append((str(baseline), pd.DataFrame(rows, columns=["Configuration", *columns])))
    return tables


def _fmt_value(value: object, measure: str) -> str:
    if value is None or pd.isna(value):
        return "–"
    v = float(value)
    if measure == "rate_per_s" and abs(v) < 100:
        return f"{v:,.2f}"
    return f"{v:,.0f}" if abs(v) >= 100 else f"{v:,.1f}"


def fit_table(fit: pd.DataFrame) -> pd.DataFrame:
    """The fits as a compact table: a and b, each with its 95% confidence interval, R², n.

    Example:
        fit_table(fits("protection"))["a"]
    """
    a = [
        _with_ci(v, lo, hi, 5)
        for v, lo, hi in zip(
            fit["slope_a"], fit["slope_a_ci95_low"], fit["slope_a_ci95_high"], strict=True
        )
    ]
    b = [
        _with_ci(v, lo, hi, 1)
        for v, lo, hi in zip(
            fit["intercept_b"],
            fit["intercept_b_ci95_low"],
            fit["intercept_b_ci95_high"],
            strict=True,
        )
    ]
    # A configuration may have several fits (one per cipher, say): name what tells them apart,
    # the held-constant values that vary between the rows.
    held = [
        dict(part.split("=", 1) for part in str(h).split(", ") if "=" in part)
        for h in fit["held_constant"]
    ]
    varying = [k for k in (held[0] if held else {}) if len({h.get(k) for h in held}) > 1]
    columns: dict[str, object] = {
        "Configuration": fit["configuration"].astype(str).to_numpy(),
    }
    if varying:
        columns["Held constant"] = [
            ", ".join(h.get(k, "-") if k == "cipher" else f"{k}={h.get(k, '-')}" for k in varying)
            for h in held
        ]
    out = pd.DataFrame(
        {
            **columns,
            "x": fit["x_name"].map(lambda x: x.replace("_", " ")).to_numpy(),
            "a": a,
            "b": b,
            "r_squared": fit["r_squared"].to_numpy(),
            "n": fit["n_points"].to_numpy(),
        }
    )
    return out.reset_index(drop=True)


def _with_ci(value: object, lo: object, hi: object, places: int) -> str:
    # "a (low – high)": the estimate with its 95% interval, one column instead of two.
    if value is None or pd.isna(value):
        return "–"
    text = f"{float(value):,.{places}f}"
    if lo is None or hi is None or pd.isna(lo) or pd.isna(hi):
        return text
    return f"{text} ({float(lo):,.{places}f} – {float(hi):,.{places}f})"


def fit_lines(fit: pd.DataFrame, steps: int = 24) -> pd.DataFrame:
    """Points along each fitted line from its smallest to its largest x, for a chart.

    Example:
        fit_lines(fits("protection"))[["configuration", "x", "y"]]
    """
    rows = []
    for row in fit.itertuples(index=False):
        lo, hi = float(row.min_x), float(row.max_x)
        for k in range(steps + 1):
            x = lo + (hi - lo) * k / steps
            rows.append(
                {
                    "configuration": str(row.configuration),
                    # One line per fit: a configuration can have several (one per cipher).
                    "fit": f"{row.configuration} {row.held_constant}",
                    "x_name": row.x_name,
                    "measure": row.measure,
                    "subject": row.subject,
                    "x": x,
                    "y": row.slope_a * x + row.intercept_b,
                }
            )
    return pd.DataFrame(rows)


def crypto_by_strength(crypto_df: pd.DataFrame) -> pd.DataFrame:
    """Seed-001-style pivot: TLS version x cipher prefix rows, key strengths as columns.

    The value is the highest utilisation % of the card among the runs of that cell ("up to",
    as the published table reads), over the LPAR scope when both scopes are there.

    Example:
        crypto_by_strength(crypto("keysize"))  # TLS | Cipher prefix | Medium | High | ...
    """
    df = crypto_df[crypto_df["key_strength"].notna()]
    if "scope" in df and (df["scope"] == "lpar").any():
        df = df[df["scope"] == "lpar"]
    if df.empty:
        return pd.DataFrame()
    df = df.assign(
        tls=df["tls_version"].map(lambda v: f"TLS {v}" if pd.notna(v) else "–"),
        prefix=df["cipher_prefix"].fillna("–"),
    )
    wide = df.pivot_table(
        index=["tls", "prefix"], columns="key_strength", values="util_pct", aggfunc="max"
    )
    strengths = [s for s in KEY_STRENGTHS if s in wide.columns] + [
        s for s in wide.columns if s not in KEY_STRENGTHS
    ]
    wide = wide[strengths].reset_index()
    wide.columns.name = None
    return wide.rename(
        columns={"tls": "TLS", "prefix": "Cipher prefix"}
        | {s: str(s).replace("_", " ").capitalize() + " %" for s in strengths}
    )


def start_time_increase(starts: pd.DataFrame) -> pd.DataFrame:
    """Seed-001-style: % increase in time to start a channel, by cipher prefix and key strength.

    Per cipher, time per channel (1,000,000 / start rate) at each strength against the next
    weaker one; per prefix, the largest increase ("up to").

    Example:
        start_time_increase(channel_starts("keysize"))  # prefix | Medium → High | High → ...
    """
    df = starts[(starts["channel_operation"] == "start") & starts["key_strength"].notna()]
    if df.empty or df["key_strength"].nunique() < 2:
        return pd.DataFrame()
    df = df.assign(
        prefix=df["cipher_prefix"].fillna("–"),
        tls=df["tls_version"].map(lambda v: f"TLS {v}" if pd.notna(v) else "–"),
    )
    times = df.pivot_table(
        index=["tls", "prefix", "cipher"],
        columns="key_strength",
        values="time_per_channel_us",
        aggfunc="mean",
    )
    steps = list(itertools.pairwise(KEY_STRENGTHS))
    out = pd.DataFrame(index=times.index)
    labels = []
    for weak, strong in steps:
        if weak in times.columns and strong in times.columns:
            label = f"{weak.replace('_', ' ').capitalize()} → {strong.replace('_', ' ')} %"
            out[label] = (times[strong] - times[weak]) / times[weak] * 100
            labels.append(label)
    if not labels:
        return pd.DataFrame()
    result = out.groupby(level=["tls", "prefix"]).max().reset_index()
    return result.rename(columns={"tls": "TLS", "prefix": "Cipher prefix"})


# ---------------------------------------------------------------------------------------------
# Captions, links and escaping


class Captions:
    """Numbers tables and figures in document order, the same in every engine.

    Sections appear only when a study has their data, so numbers are given as the report
    runs instead of by cell labels.

    Example:
        cap = Captions()
        cap.table("Runs of the study.")  # 'Table 1: Runs of the study.'
    """

    def __init__(self) -> None:
        self.tables = 0
        self.figures = 0

    def table(self, text: str) -> str:
        self.tables += 1
        return f"Table {self.tables}: {text}"

    def figure(self, text: str) -> str:
        self.figures += 1
        return f"Figure {self.figures}: {text}"


def caption_lines(text: str, width: int = 95) -> list[str]:
    """A chart caption wrapped into lines (Vega titles do not wrap by themselves).

    Example:
        >>> caption_lines("a b c", width=3)
        ['a b', 'c']
    """
    return textwrap.wrap(text, width=width) or [""]


def report_link(study: str, fmt: str = "html") -> str:
    """Relative link from the overview to a study report (same output folder).

    Example:
        >>> report_link("my study", "pdf")
        'my%20study.pdf'
    """
    return quote(f"{study}.{fmt}")


_MD_SPECIAL = set("\\`*_{}[]()<>#+-.!|$@~^\"'&=:")


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


def title_block(title: str, subtitle: str) -> str:
    """A pandoc YAML metadata block setting the document title from data (escaped).

    Pandoc merges metadata blocks and the later one wins, so an ``output: asis`` cell can name
    the study in the title although the front matter cannot know it.

    Example:
        print(title_block("Study attls", "3 configurations"))
    """
    return (
        "\n---\n"
        f"title: {json.dumps(md(title), ensure_ascii=False)}\n"
        f"subtitle: {json.dumps(md(subtitle), ensure_ascii=False)}\n"
        "---\n"
    )


# ---------------------------------------------------------------------------------------------
# Charts (Altair; shown with mqcap.render.display.chart)

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
