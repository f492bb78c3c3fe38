"""Shaping mart frames for report tables (pure pandas, no warehouse access).

Example:
    from mqcap.sections import queries as q, tables as t
    t.cost_table(q.series_costs("attls"))
"""

from __future__ import annotations

import pandas as pd

from mqcap.sections.labels import KEY_STRENGTHS, duration_label, natural_sorted, size_label


def cost_table(costs: pd.DataFrame) -> pd.DataFrame:
    """Cost per transaction: one row per message size and series, one column per role, MQ
    (= MSTR + CHIN, right after its two parts) and Total: the rows of fct_series_cost (runs of
    a series averaged there) laid out; a "Runs" column when any row is a mean of several.
    Nothing is computed here.

    Example:
        cost_table(series_costs("attls")).columns  # Size, Configuration, Variant, MSTR, ...
    """
    if costs.empty:
        return pd.DataFrame()
    keys = ["message_bytes", "configuration", "workload_type", "series", "detail"]
    wide = costs.pivot(index=keys, columns="role", values="cpu_us_per_txn")
    order = costs.drop_duplicates("role").sort_values("role_order")["role"]
    wide = wide[list(order)].rename(columns={"TOTAL": "Total"})
    runs = costs.drop_duplicates(keys).set_index(keys)["runs"]
    if (runs > 1).any():
        wide["Runs"] = runs.reindex(wide.index)
    wide = wide.reset_index().sort_values(keys).drop(columns="series")
    wide.insert(0, "Size", wide.pop("message_bytes").map(size_label))
    wide["configuration"] = wide["configuration"].astype(str)
    wide = wide.rename(
        columns={"configuration": "Configuration", "detail": "Variant", "workload_type": "Workload"}
    )
    if wide["Workload"].nunique() == 1:
        wide = wide.drop(columns="Workload")
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
    if comps.empty or values.empty:
        return []
    mine = comps[comps["measure"] == measure]
    # Message workloads only (dim_run.is_message_workload): a channel start's rate is channels.
    mine = mine[mine["is_message_workload"].fillna(False).astype(bool)]
    if mine.empty:
        return []
    tables = []
    for baseline, group in mine.groupby("baseline_series", sort=False):
        if group.duplicated(["series", "message_bytes"]).any():
            # Runs the labels cannot tell apart at one size: no single cell per size exists.
            continue
        sizes = sorted(group["message_bytes"].dropna().unique())
        columns = [size_label(s) for s in sizes]
        rows: list[dict[str, str]] = []
        base_row = {"Configuration": str(baseline)}
        base_values = group.drop_duplicates("message_bytes").set_index("message_bytes")
        for size, label in zip(sizes, columns, strict=True):
            cell = _fmt_value(base_values.loc[size, "baseline_value"], measure)
            # A run named against a run at another size (its own configuration's, say): the
            # baseline's value is that size's, and the cell says so.
            base_size = base_values.loc[size].get("baseline_message_bytes")
            if base_size is not None and not pd.isna(base_size) and base_size != size:
                cell += f" (at {size_label(base_size)})"
            base_row[label] = cell
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


def fits_table(parts: list[tuple[str, pd.DataFrame]]) -> tuple[pd.DataFrame, str | None]:
    """The fits section's table: ``fit_table`` of each part's fits in turn, its name in a
    Measure column; and the x variable when every fit has the same one (then named in the
    caption, not repeated on every row: room for the held-constant names in a PDF), else None
    and an x column.

    Example:
        rows, only_x = fits_table([("Total CPU µs/txn", cost_fits("protection"))])
    """
    shown = [(what, fits) for what, fits in parts if not fits.empty]
    both = pd.concat([fits.assign(what=what) for what, fits in shown])
    rows = fit_table(both)
    rows.insert(1, "Measure", both["what"].to_numpy())
    only_x = rows["x"].iloc[0] if rows["x"].nunique() == 1 else None
    return (rows if only_x is None else rows.drop(columns="x")), only_x


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
    columns: dict[str, object] = {
        "Configuration": fit["configuration"].astype(str).to_numpy(),
    }
    # A configuration may have several fits (one per cipher, say): fct_fit.fit_label names the
    # held-constant values that tell them apart ('' when nothing does).
    labels = fit["fit_label"].fillna("").astype(str)
    if (labels != "").any():
        columns["Held constant"] = labels.replace("", "–").to_numpy()
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


TCPIP_COLUMNS = {
    "series": "Configuration",
    "run_id": "Run",
    "Size": "Size",
    "subject_kind": "Kind",
    "subject": "Connection or interface",
    "samples": "Samples",
    "in_bytes": "Bytes in",
    "out_bytes": "Bytes out",
    "out_segments": "Segments out",
    "retransmits": "Retransmits",
    "in_bytes_per_s_mean": "In B/s mean",
    "in_bytes_per_s_max": "In B/s peak",
    "out_bytes_per_s_mean": "Out B/s mean",
    "out_bytes_per_s_max": "Out B/s peak",
}


def channel_table(sending: pd.DataFrame, channel_column: bool) -> pd.DataFrame:
    """The channels section's table of the sending channels (fct_channel_network rows):
    series, size, the channel's name when ``channel_column`` (a run with several), achieved
    batch size, XBATCHSZ and NETTIME in milliseconds (accounting's average and range, the
    CHSTATUS median).

    Example:
        channel_table(sending_channel_network("attls"), channel_column=False)["avg_ms"]
    """
    ms = 1000.0
    lows, highs = sending["nettime_min_us"], sending["nettime_max_us"]
    n = sending.assign(
        Size=sending["message_bytes"].map(size_label),
        avg_ms=sending["nettime_avg_us"] / ms,
        range_ms=[
            "–" if pd.isna(lo) or pd.isna(hi) else f"{lo / ms:,.1f}–{hi / ms:,.1f}"
            for lo, hi in zip(lows, highs, strict=True)
        ],
        p50_ms=sending["nettime_short_p50_us"] / ms,
    )
    return n[
        [
            "series",
            "Size",
            *(["channel_name"] if channel_column else []),
            "achieved_batch_size",
            "xbatchsz_short_p50",
            "avg_ms",
            "range_ms",
            "p50_ms",
        ]
    ]


def tcpip_table(throughput: pd.DataFrame) -> pd.DataFrame:
    """The rows of fct_tcpip_throughput laid out: one per run and connection or interface, in
    the mart's order, with the run's series and size. Nothing is computed here.

    Example:
        tcpip_table(q.tcpip_throughput("tcp")).columns  # Configuration, Run, Size, Kind, ...
    """
    if throughput.empty:
        return pd.DataFrame()
    df = throughput.assign(Size=throughput["message_bytes"].map(size_label))
    return df[list(TCPIP_COLUMNS)].rename(columns=TCPIP_COLUMNS).reset_index(drop=True)


def crypto_by_strength(by_strength: pd.DataFrame) -> pd.DataFrame:
    """Seed-001-style pivot: TLS version x cipher prefix rows, key strengths as columns: the
    rows of fct_crypto_by_strength (the highest utilisation % of a single card, "up to") laid
    out, weaker strengths first. Nothing is computed here.

    Example:
        crypto_by_strength(q.crypto_by_strength("keysize"))  # TLS | Cipher prefix | Medium | ...
    """
    if by_strength.empty:
        return pd.DataFrame()
    df = by_strength.assign(
        tls=by_strength["tls_version"].map(lambda v: f"TLS {v}" if pd.notna(v) else "–"),
        prefix=by_strength["cipher_prefix"].fillna("–"),
    )
    wide = df.pivot(index=["tls", "prefix"], columns="key_strength", values="util_up_to_pct")
    strengths = [s for s in KEY_STRENGTHS if s in wide.columns] + sorted(
        s for s in wide.columns if s not in KEY_STRENGTHS
    )
    wide = wide[strengths].reset_index()
    wide.columns.name = None
    return wide.rename(
        columns={"tls": "TLS", "prefix": "Cipher prefix"}
        | {s: str(s).replace("_", " ").capitalize() + " %" for s in strengths}
    )


def start_time_increase(steps: pd.DataFrame) -> pd.DataFrame:
    """Seed-001-style: % increase in time to start a channel, by cipher prefix and key strength
    step, "up to" (the largest over the prefix's ciphers): the rows of
    fct_channel_start_strength_steps laid out as TLS version x cipher prefix rows, one column
    per step, weaker steps first. Nothing is computed here.

    Example:
        start_time_increase(channel_start_strength_steps("keysize"))  # TLS | Cipher prefix | ...
    """
    if steps.empty:
        return pd.DataFrame()
    rank = {s: i for i, s in enumerate(KEY_STRENGTHS)}
    df = steps.assign(
        tls=steps["tls_version"].map(lambda v: f"TLS {v}" if pd.notna(v) else "–"),
        prefix=steps["cipher_prefix"].fillna("–"),
        step=[
            f"{a.replace('_', ' ').capitalize()} → {b.replace('_', ' ')} %"
            for a, b in zip(steps["from_key_strength"], steps["to_key_strength"], strict=True)
        ],
        order=steps["from_key_strength"].map(lambda s: rank.get(s, len(rank))),
    )
    columns = list(dict.fromkeys(df.sort_values(["order", "from_key_bits"], kind="stable")["step"]))
    wide = df.pivot(index=["tls", "prefix"], columns="step", values="time_increase_up_to_pct")
    wide = wide[columns].reset_index()
    wide.columns.name = None
    return wide.rename(columns={"tls": "TLS", "prefix": "Cipher prefix"})


# ---------------------------------------------------------------------------------------------
# Thread sweeps, rate targets, cost deltas

# Address spaces of the cost-delta table: MQ (= MSTR + CHIN) right after its two parts.
DELTA_ROLES = ["MSTR", "CHIN", "MQ", "TCPIP", "AMSM", "APP", "OTHER", "TOTAL"]
_GROUP_LABELS = {"scenario": "Scenario", "hardware_model": "Model", "persistence": "Persistence"}


def _pct(value: object) -> str:
    # Adding 0.0 turns a rounded -0.0 (float noise around an unchanged value) into +0.0.
    return "–" if value is None or pd.isna(value) else f"{round(float(value), 1) + 0.0:+.1f}%"


def _num(value: object, places: int = 0) -> str:
    return "–" if value is None or pd.isna(value) else f"{float(value):,.{places}f}"


def _pct_column(df: pd.DataFrame, stem: str) -> str | None:
    # The mart names the % change of a measure "<stem>..._pct_change".
    return next((c for c in df.columns if c.startswith(stem) and c.endswith("pct_change")), None)


def sweep_summary_table(summary: pd.DataFrame, group_by: list[str]) -> pd.DataFrame:
    """One row per sweep: maximum rate, the threads where it is reached, single-thread round
    trip, each with its % change against the baseline configuration's sweep.

    Grouping columns (scenario, model, ...) come first and only when they vary; rows are in
    group, message-size (numeric) and configuration order.

    Example:
        sweep_summary_table(sweep_summary("appliance"), ["scenario", "hardware_model"])
    """
    if summary.empty:
        return pd.DataFrame()
    dims = [d for d in [*group_by, "persistence"] if d in summary and summary[d].nunique() > 1]
    df = summary.sort_values([*dims, "message_bytes", "configuration"])
    rate_pct = _pct_column(df, "max_rate")
    rt_pct = _pct_column(df, "single_thread")
    out = pd.DataFrame(
        {_GROUP_LABELS.get(d, d.replace("_", " ").capitalize()): df[d].astype(str) for d in dims}
    )
    # A no-break space: "256 bytes" never wraps in a table this wide.
    out["Size"] = df["message_bytes"].map(size_label).str.replace(" ", "\u00a0")
    out["Configuration"] = df["configuration"].astype(str)
    out["Max rate /s"] = df["max_rate_per_s"].map(lambda v: _num(v, 1))
    out["Threads at max"] = df["threads_at_max"].map(_num)
    out["Max rate vs baseline"] = df[rate_pct].map(_pct) if rate_pct else "–"
    out["1-thread round trip µs"] = df["single_thread_round_trip_us"].map(_num)
    out["1-thread vs baseline"] = df[rt_pct].map(_pct) if rt_pct else "–"
    if "saturates" in df:
        out["Saturates"] = df["saturates"].map({True: "yes", False: "no"}).fillna("–")
    return out.reset_index(drop=True)


def sweep_pivot_tables(
    summary: pd.DataFrame, group_by: list[str]
) -> list[tuple[str, pd.DataFrame]]:
    """MP16's thread-sweep tables: one per group (scenario x model, as the study groups) and
    baseline, message sizes down, maximum throughput and single-thread round trip of the
    baseline and each variant across with their % changes. Only series compared with a
    baseline (fct_sweep_summary.baseline_series_key, the declared pairs) appear; a baseline
    never has a "+0.0%" row of its own. Returns (title, table) pairs, groups in natural order.

    Example:
        for title, df in sweep_pivot_tables(sweep_summary("encsweep"), ["scenario"]): ...
    """
    if summary.empty or "baseline_series_key" not in summary:
        return []
    compared = summary[summary["baseline_series_key"].notna()]
    if compared.empty:
        return []
    # Groups: the study's dimensions, persistence, and labels that vary within a configuration
    # (point_labels: a topology the study groups by), each when it takes two or more values.
    dims = [
        d
        for d in [*group_by, "persistence", "point_labels"]
        if d in summary and summary[d].nunique(dropna=False) > 1
    ]
    order = (
        summary.drop_duplicates("configuration").set_index("configuration")["sort_order"]
        if "sort_order" in summary
        else pd.Series(dtype=float)
    )
    shown = _display_names(summary)
    keys = [*dims, "baseline_configuration"]
    groups = compared.groupby(keys, dropna=False, sort=False, observed=True)
    titled = [_sweep_group(key, part, shown, order) for key, part in groups]
    # Groups in natural order ("client" before "local", "M2002A" before "M2002B").
    rank = {w: i for i, w in enumerate(natural_sorted({w for w, _, _ in titled}))}
    titled.sort(key=lambda t: rank[t[0]])
    return [(title, df) for _, title, df in titled]


def _display_names(summary: pd.DataFrame) -> dict[str, str]:
    """The names the study gives its configurations (study.yaml display names)."""
    if "display_name" not in summary:
        return {}
    named = summary.drop_duplicates("configuration")
    return {
        str(c): str(n)
        for c, n in zip(named["configuration"], named["display_name"], strict=True)
        if isinstance(n, str)
    }


def _sweep_group(
    key, part: pd.DataFrame, shown: dict[str, str], order: pd.Series
) -> tuple[str, str, pd.DataFrame]:
    """One group's table of :func:`sweep_pivot_tables`: (where, title, table)."""
    key = key if isinstance(key, tuple) else (key,)
    where = ", ".join(str(v) for v in key[:-1] if v is not None and not pd.isna(v))
    baseline = shown.get(str(key[-1]), str(key[-1]))
    variants = [
        shown.get(c, c)
        for c in sorted(
            part["configuration"].astype(str).unique(), key=lambda c: (order.get(c, 1e9), c)
        )
    ]
    rows = [
        _sweep_row(size, at_size, shown, baseline, variants)
        for size, at_size in sorted(part.groupby("message_bytes"), key=lambda kv: kv[0])
    ]
    title = (f"{where}: " if where else "") + ", ".join(variants) + f" against {baseline}"
    table = pd.DataFrame(rows)
    # One time unit for every round-trip column of the table, the one its smallest value
    # reads in (MP16 prints one unit per column; µs up to ms, ms up to s).
    times = [c for c in table.columns if c.endswith(" 1-thread")]
    unit, div, places = _time_unit(table[times].to_numpy().ravel())
    table = table.rename(columns={c: f"{c} {unit}" for c in times})
    for c in times:
        table[f"{c} {unit}"] = table[f"{c} {unit}"].map(
            lambda v, d=div, p=places: _num(None if v is None or pd.isna(v) else v / d, p)
        )
    return where, title, table


def _sweep_row(
    size, at_size: pd.DataFrame, shown: dict[str, str], baseline: str, variants: list[str]
) -> dict:
    """One message size's row: the baseline's and each variant's figures with the % changes."""
    by_cfg = at_size.set_index(at_size["configuration"].astype(str).map(lambda c: shown.get(c, c)))
    first = by_cfg.iloc[0]
    row = {"Size": size_label(size).replace(" ", "\u00a0")}
    row[f"{baseline} max /s"] = _num(first["baseline_max_rate_per_s"], 0)
    for v in variants:
        r = by_cfg.loc[v] if v in by_cfg.index else None
        row[f"{v} max /s"] = _num(None if r is None else r["max_rate_per_s"], 0)
        row[f"{_short(v, variants)}throughput %"] = _pct(
            None if r is None else r["max_rate_pct_change"]
        )
    row[f"{baseline} 1-thread"] = first["baseline_single_thread_round_trip_us"]
    for v in variants:
        r = by_cfg.loc[v] if v in by_cfg.index else None
        row[f"{v} 1-thread"] = None if r is None else r["single_thread_round_trip_us"]
        row[f"{_short(v, variants)}latency %"] = _pct(
            None if r is None else r["single_thread_round_trip_pct_change"]
        )
    return row


def _time_unit(values_us) -> tuple[str, float, int]:
    """(unit, divisor, decimals) for microsecond values shown in one column: the unit the
    smallest reads in as 1 or more, with three significant figures for it.

    Example:
        >>> _time_unit([380.0, 5280.0])
        ('µs', 1.0, 0)
        >>> _time_unit([16_988_153.0, 15_000_000.0])
        ('s', 1000000.0, 1)
    """
    present = [float(v) for v in values_us if v is not None and not pd.isna(v) and v > 0]
    if not present:
        return "µs", 1.0, 0
    low = min(present)
    unit, div = ("s", 1e6) if low >= 1e6 else ("ms", 1e3) if low >= 1e3 else ("µs", 1.0)
    scaled = low / div
    places = 0 if scaled >= 100 else 1 if scaled >= 10 else 2
    return unit, div, places


def _short(variant: str, variants: list[str]) -> str:
    # With one variant the % columns need no name; with several each says whose it is.
    return "" if len(variants) == 1 else f"{variant} "


def rate_target_table(targets: pd.DataFrame) -> pd.DataFrame:
    """Per rate-targeted run: target, achieved, achieved % of target, sustained or not (with the
    mart's threshold), XQTIME p95 and the backlog signal.

    Example:
        rate_target_table(rate_targets("streaming"))
    """
    if targets.empty:
        return pd.DataFrame()
    df = targets
    out = pd.DataFrame(
        {
            "Run": df["series"].astype(str) if "series" in df else df["run_id"],
            "Size": df["message_bytes"].map(size_label) if "message_bytes" in df else "–",
            "Target /s": df["target_rate_per_s"].map(_num),
            "Achieved /s": df["achieved_rate_per_s"].map(_num),
            "Achieved %": df["achieved_pct"].map(lambda v: _num(v, 1)),
            "Sustained": df["sustained"].map({True: "yes", False: "NOT sustained"}).fillna("–"),
        }
    )
    if "xqtime_p95_us" in df:
        # Scaled to the unit that reads: a standing backlog is seconds, a free flow µs.
        out["XQTIME p95"] = df["xqtime_p95_us"].map(duration_label)
    # Worded by the mart (fct_rate_target.backlog): unknown where no XQTIME was captured.
    out["XQTIME backlog"] = df["backlog"]
    return out.reset_index(drop=True)


def cost_delta_table(deltas: pd.DataFrame) -> pd.DataFrame:
    """Cost per transaction by address space with a "Δ vs baseline" row under every variant
    run: µs difference and % change per role, MQ (= MSTR + CHIN) as its own column.

    Example:
        cost_delta_table(cost_deltas("attls")).columns  # Size, Run, Row, MSTR, CHIN, MQ, ...
    """
    if deltas.empty:
        return pd.DataFrame()
    roles = [r for r in DELTA_ROLES if r in set(deltas["role"])]
    rows = []
    keys = ["message_bytes", "configuration", "series", "run_id"]
    ordered = deltas.sort_values(["message_bytes", "configuration", "series"])
    for (size, _config, series, _run), part in ordered.groupby(keys, sort=False, observed=True):
        by_role = part.set_index("role")
        value = {"Size": size_label(size), "Run": str(series), "Row": "µs/txn"}
        delta = {"Size": "", "Run": "", "Row": "Δ vs baseline"}
        for role in roles:
            if role not in by_role.index:
                value[role] = delta[role] = "–"
                continue
            r = by_role.loc[role]
            value[role] = _num(r["cpu_us_per_txn"], 1)
            d = r.get("delta_us_per_txn")
            delta[role] = (
                "–"
                if d is None or pd.isna(d)
                else f"{round(float(d), 1) + 0.0:+,.1f} ({_pct(r.get('pct_change'))})"
            )
        rows.append(value)
        # A baseline run compared with itself has no difference worth a row.
        own_baseline = "is_baseline" in part and bool(part["is_baseline"].fillna(False).all())
        if not own_baseline and any(delta[r] != "–" for r in roles):
            rows.append(delta)
    if not any(row["Row"] == "Δ vs baseline" for row in rows):
        # Nothing compared (every run is a baseline, or a study of one run): the costs are
        # the cost table's already, and a table "against the baseline" would compare nothing.
        return pd.DataFrame()
    return pd.DataFrame(rows, columns=["Size", "Run", "Row", *roles])
