"""Reads of the marts for report cells: marts in, DataFrames out, no business logic.

Reports run in a Jupyter kernel; the warehouse comes from ``MQCAP_WAREHOUSE`` (set by
``mqcap report``), opened read-only so a report never blocks or changes anything. Every query
here reads ``marts.*`` (or ``meta`` for the last validation) only; a mart another branch has
not built yet reads as an empty frame, so a report section says what is missing instead of
crashing.

Example:
    from mqcap.sections import queries as q
    costs = q.series_costs("attls")
"""

from __future__ import annotations

import atexit
import json
from collections.abc import Callable
from pathlib import Path

import duckdb
import pandas as pd

from mqcap import environment as variables
from mqcap.sections.labels import PALETTE
from mqcap.settings import Settings


def warehouse_path() -> Path:
    """The warehouse the report reads: ``MQCAP_WAREHOUSE``, else the settings' default.

    Example:
        warehouse_path()  # PosixPath('data/warehouse.duckdb')
    """
    named = variables.text("MQCAP_WAREHOUSE")
    return Settings.load().warehouse if named is None else Path(named)


# The report's one read-only connection: (warehouse path, connection). Opening the warehouse
# reads its catalog (about 90 ms of CPU on the sample warehouse, a query on an open
# connection about 7 ms), and a study report runs 60 to 90 queries; one connection also reads
# every section from the same state of the warehouse. The report's last cell closes it
# (``close``), and so does the kernel's exit, so a writer (ingest, build) waits on no kernel.
_OPEN: tuple[str, duckdb.DuckDBPyConnection] | None = None
# Frames every section reads again (the study's runs and configuration names), read once per
# open connection: the warehouse does not change under a report's one connection.
_READ: dict[tuple, pd.DataFrame] = {}


def _con() -> duckdb.DuckDBPyConnection:
    global _OPEN
    path = str(warehouse_path())
    if _OPEN is None or _OPEN[0] != path:
        close()
        _OPEN = (path, duckdb.connect(path, read_only=True))
    return _OPEN[1]


def close() -> None:
    """Close the report's connection to the warehouse (the next query opens it again). Every
    report's last cell calls it; the kernel's exit does too.

    Example:
        q.close()
    """
    global _OPEN
    _READ.clear()
    if _OPEN is not None:
        con, _OPEN = _OPEN[1], None
        con.close()


def _once(name: str, study: str, read: Callable[[], pd.DataFrame]) -> pd.DataFrame:
    """``read()``'s frame, read once while the report's connection is open; a copy each time
    (callers add and change columns)."""
    key = (str(warehouse_path()), name, study)
    if key not in _READ:
        _READ[key] = read()
    return _READ[key].copy()


atexit.register(close)


def _query(sql: str, params: list | None = None) -> pd.DataFrame:
    con = _con()
    try:
        return con.execute(sql, params or []).df()
    except duckdb.CatalogException as exc:
        # A mart not built in this warehouse (an older build, a study shape with no data):
        # the section reads an empty frame and says what is missing. Only a missing table or
        # column is forgiven; any other error is a bug and propagates.
        if "does not exist" in str(exc) or "not found" in str(exc):
            return pd.DataFrame()
        raise


def _mart(name: str, study: str | None = None, order: str | None = None) -> pd.DataFrame:
    """A mart's rows (of ``study``), sorted by ``order`` then by the mart's key (its first
    column, tests/test_sql.py): one order whatever order the rows are stored in, so rows that
    tie on ``order`` never swap between engines or builds (tests/test_report_order.py)."""
    sql = f"select * from marts.{name}"
    params: list = []
    if study is not None:
        sql += " where study = ?"
        params.append(study)
    sql += f" order by {order + ', ' if order else ''}1"
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
    """One row per study (dim_study): title, runs, configurations, workload types, message
    sizes, first and last measured time (local time of the measured system), platforms and
    ``run_summary`` (what the runs are, by the dimensions that vary).

    Example:
        studies()[["study", "runs", "configurations"]]
    """
    return _query(
        """select study, title,
                  run_count as runs,
                  configuration_count as configurations,
                  workload_types as workloads,
                  min_message_bytes, max_message_bytes,
                  first_run_start_local as first_interval,
                  last_run_end_local as last_interval,
                  platforms, run_summary
           from marts.dim_study order by study"""
    )


def headlines() -> pd.DataFrame:
    """Per study, its first-ranked finding (fct_findings, finding_rank 1).

    Example:
        headlines().set_index("study").loc["attls", "sentence"]
    """
    return _query("select * from marts.fct_findings where finding_rank = 1 order by study")


def runs(study: str) -> pd.DataFrame:
    """The study's runs (dim_run) with ``series`` / ``detail`` labels, in configuration order.

    Example:
        runs("attls")[["run_id", "configuration", "series"]]
    """
    return _once("runs", study, lambda: _runs(study))


def _runs(study: str) -> pd.DataFrame:
    df = _mart("dim_run", study, "run_id")
    if df.empty:
        return df
    # detail and series come from dim_run (int_run_series names them).
    df["configuration"] = _categorical(df["configuration"], study)
    # Numbers in numeric order (1, 2, 16, 100 threads), never as the text of a series.
    numeric = [c for c in ("message_bytes", "threads", "recipients") if c in df]
    df = df.sort_values(["configuration", "workload_type", *numeric, "series", "run_id"])
    return df.reset_index(drop=True)


def configurations(study: str) -> list[str]:
    """Configuration display names in the study's order (dim_configuration.sort_order: the
    study file's order, else the order of the configurations' first runs).

    Example:
        configurations("attls")  # ['MQ + System SSL', 'MQ, no TLS', 'MQ + AT-TLS']
    """
    named = configuration_names(study)
    return [] if named.empty else list(dict.fromkeys(named["display_name"].astype(str)))


def display_names(study: str) -> dict[str, str]:
    """Configuration -> the name study.yaml gives it (only those that have one).

    Example:
        display_names("appliance")  # {'feature_off': 'Feature off', ...}
    """
    named = configuration_names(study)
    if named.empty or "display_name" not in named:
        return {}
    named = named[named["display_name"].notna()]
    return dict(
        zip(named["configuration"].astype(str), named["display_name"].astype(str), strict=True)
    )


def _categorical(values: pd.Series, study: str) -> pd.Categorical:
    # Display names and the study's order, so tables sort and charts colour the same way.
    names = display_names(study)
    shown = values.astype(str).map(lambda c: names.get(c, c))
    order = configurations(study)
    order += [c for c in dict.fromkeys(shown) if c not in order]
    return pd.Categorical(shown, categories=order, ordered=True)


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


def _with_runs(df: pd.DataFrame, study: str, columns: list[str] | None = None) -> pd.DataFrame:
    """Join a mart frame to the study's run labels (series, detail, workload) on run_id."""
    if df.empty or "run_id" not in df:
        return df
    labels = runs(study)
    keep = ["run_id", "series", "detail", "workload_type", "is_message_workload"] + (columns or [])
    keep = [c for c in dict.fromkeys(keep) if c in labels]
    out = df.merge(labels[keep], on="run_id", how="left", suffixes=("", "_run"))
    if "configuration" in out:
        out["configuration"] = _categorical(out["configuration"], study)
    return out


# ---------------------------------------------------------------------------------------------
# Mart readers


def driver_results(study: str) -> pd.DataFrame:
    """Achieved rate and round trip per run (fct_driver_results) with run labels.

    Example:
        driver_results("attls")[["series", "message_bytes", "round_trip_us"]]
    """
    return _with_runs(_mart("fct_driver_results", study, "configuration, message_bytes"), study)


def message_driver_results(study: str) -> pd.DataFrame:
    """``driver_results`` of the message workloads only (dim_run.is_message_workload): the
    rows the comparison section tables and draws.

    Example:
        message_driver_results("attls")[["series", "message_bytes", "rate_per_s"]]
    """
    df = _query(
        """select d.* from marts.fct_driver_results d
           join marts.dim_run r on r.run_id = d.run_id and r.study = d.study
           where d.study = ? and r.is_message_workload
           order by d.configuration, d.message_bytes, d.run_key""",
        [study],
    )
    return _with_runs(df, study)


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
           where c.study = ? and r.is_message_workload
           order by c.message_bytes, c.run_id, c.role""",
        [study],
    )
    return _with_runs(df, study)


def series_costs(study: str) -> pd.DataFrame:
    """CPU microseconds per transaction by series, message size and role, runs of a series
    averaged, with the MQ and TOTAL subtotals (fct_series_cost), in the cost table's order.

    Example:
        series_costs("attls").pivot(index=["message_bytes", "series"], columns="role",
                                    values="cpu_us_per_txn")
    """
    df = _mart("fct_series_cost", study, "message_bytes, series, role_order")
    if not df.empty:
        df["configuration"] = _categorical(df["configuration"], study)
    return df


def comparisons(study: str, measures: list[str] | None = None) -> pd.DataFrame:
    """Variant against baseline per run, measure and subject (fct_comparison) with labels.

    ``baseline_series`` names the baseline run's series, so a table can group variants by the
    run they are compared with.

    Example:
        comparisons("attls", ["round_trip_us"])[["series", "message_bytes", "pct_change"]]
    """
    df = _query(
        """select c.run_id, c.configuration, c.message_bytes, b.run_id as baseline_run_id,
                  b.message_bytes as baseline_message_bytes, c.baseline_configuration, c.measure, c.subject, c.unit,
                  c.baseline_value, c.variant_value, c.difference, c.pct_change
           from marts.fct_comparison c
           join marts.dim_run b on b.run_key = c.baseline_run_key
           where c.study = ?
           order by c.measure, c.subject, c.message_bytes, c.run_id""",
        [study],
    )
    if df.empty:
        return df
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
    return _fits(study)


def cost_fits(study: str) -> pd.DataFrame:
    """The fits the fits section draws and tables first: total CPU per transaction (fct_fit
    rows of measure cpu_us_per_txn, subject TOTAL), in the order of ``fits``.

    Example:
        cost_fits("protection")[["configuration", "x_name", "slope_a"]]
    """
    return _fits(study, "cpu_us_per_txn", "TOTAL")


def round_trip_fits(study: str) -> pd.DataFrame:
    """The round-trip fits the fits table shows after the cost fits (fct_fit rows of measure
    round_trip_us, every subject), in the order of ``fits``.

    Example:
        round_trip_fits("protection")[["configuration", "x_name", "slope_a"]]
    """
    return _fits(study, "round_trip_us")


def _fits(study: str, measure: str | None = None, subject: str | None = None) -> pd.DataFrame:
    # The rows of fct_fit (of one measure and subject when named), configurations in the
    # study's order.
    df = _query(
        """select * from marts.fct_fit
           where study = ?
             and (cast(? as varchar) is null or measure = ?)
             and (cast(? as varchar) is null or subject = ?)
           order by x_name, measure, subject, configuration, 1""",
        [study, measure, measure, subject, subject],
    )
    if df.empty:
        return df
    df["configuration"] = _categorical(df["configuration"], study)
    return df.sort_values(["x_name", "measure", "subject", "configuration"]).reset_index(drop=True)


def pooled_cost_fits(study: str) -> dict[str, list[str]]:
    """Per x variable, the configurations whose cost fit (``cost_fits``) pools several
    variants measured at the same x (fct_fit.pools_variants), in the study's order.

    Example:
        pooled_cost_fits("protection")  # {'message_bytes': ['MQ + AMS']}
    """
    df = _query(
        """select x_name, configuration from marts.fct_fit
           where study = ? and measure = 'cpu_us_per_txn' and subject = 'TOTAL'
             and pools_variants
           group by x_name, configuration
           order by x_name, configuration""",
        [study],
    )
    if df.empty:
        return {}
    df["configuration"] = _categorical(df["configuration"], study)
    df = df.sort_values(["x_name", "configuration"])
    return {
        str(x): list(dict.fromkeys(group["configuration"].astype(str)))
        for x, group in df.groupby("x_name", sort=False)
    }


def fit_points(study: str) -> pd.DataFrame:
    """The measured points behind each fit (fct_fit_points joined to its fct_fit row): one row
    per fit and run, ``x`` and ``y`` as fitted, with the run's labels.

    Only points of fits that exist are returned, so a chart of a fit's points shows exactly
    the runs the line was fitted through (a fit against key bits holds the message size
    constant, so it never mixes sizes).

    Example:
        fit_points("protection").query("subject == 'TOTAL'")[["fit_key", "run_id", "x", "y"]]
    """
    return _fit_points(study)


def _fit_points(study: str, measure: str | None = None, subject: str | None = None):
    # fct_fit_points joined to its fit (of one measure and subject when named).
    df = _query(
        """select f.fit_key, p.configuration, p.x_name, p.held_constant, f.fit_label,
                  p.measure, p.subject, r.run_id, p.x_value as x, p.y_value as y
           from marts.fct_fit_points p
           join marts.fct_fit f
             on f.study = p.study and f.configuration = p.configuration
            and f.x_name = p.x_name and f.held_constant = p.held_constant
            and f.measure = p.measure and f.subject = p.subject
           join marts.dim_run r on r.run_key = p.run_key
           where p.study = ? and p.y_value is not null
             and (cast(? as varchar) is null or f.measure = ?)
             and (cast(? as varchar) is null or f.subject = ?)
           order by f.fit_key, p.x_value, r.run_id""",
        [study, measure, measure, subject, subject],
    )
    return _with_runs(df, study)


def cost_fit_points(study: str) -> pd.DataFrame:
    """The points behind the cost fits (``cost_fits``): ``fit_points`` of the fits of total CPU
    per transaction only.

    Example:
        cost_fit_points("protection")[["fit_key", "run_id", "x", "y"]]
    """
    return _fit_points(study, "cpu_us_per_txn", "TOTAL")


def chinit_tasks(study: str) -> pd.DataFrame:
    """Channel-initiator task statistics per run and task type (SMF class 4, fct_chinit_tasks).

    Example:
        chinit_tasks("attls")[["series", "task_type", "cpu_us_per_request", "busy_pct"]]
    """
    df = _mart("fct_chinit_tasks", study, "message_bytes, run_id, task_type")
    return _with_runs(df, study)


def channel_network(study: str) -> pd.DataFrame:
    """Per run and channel: SMF channel accounting beside DISPLAY CHSTATUS percentiles
    (fct_channel_network: either side may be missing for a channel; is_sending says which
    channels the section shows).

    Example:
        channel_network("attls")[["series", "channel_name", "xbatchsz_short_p50"]]
    """
    df = _mart("fct_channel_network", study, "message_bytes, run_id, channel_name")
    return _with_runs(df, study)


def sending_channel_network(study: str) -> pd.DataFrame:
    """The rows of ``channel_network`` the channels section shows: the sending channels
    (fct_channel_network.is_sending).

    Example:
        sending_channel_network("attls")[["series", "channel_name", "achieved_batch_size"]]
    """
    df = _query(
        """select * from marts.fct_channel_network where study = ? and is_sending
           order by message_bytes, run_id, channel_name, channel_network_key""",
        [study],
    )
    return _with_runs(df, study)


def netstat_series(study: str) -> pd.DataFrame:
    """NETSTAT polls per run and TCP connection (fct_netstat_series) with run labels.

    Example:
        netstat_series("attls")[["series", "seconds_into_run", "congestion_window_bytes"]]
    """
    df = _mart("fct_netstat_series", study, "run_id, connection_id, poll_no")
    return _with_runs(df, study)


def tcpip_throughput(study: str) -> pd.DataFrame:
    """TCPIPMonitor figures per run and connection or interface (fct_tcpip_throughput): bytes
    and segments in and out, retransmits, the printed byte rates' mean and peak, with run labels.

    Example:
        tcpip_throughput("tcp")[["series", "subject", "out_bytes", "retransmits"]]
    """
    df = _mart("fct_tcpip_throughput", study, "run_id, subject_kind, subject")
    return _with_runs(df, study)


def crypto(study: str) -> pd.DataFrame:
    """Crypto card utilisation per run, card, function and scope (fct_crypto), with workload.

    Example:
        crypto("keysize")[["cipher_prefix", "key_strength", "util_pct"]]
    """
    df = _mart("fct_crypto", study, "run_id, card_id, crypto_function, scope")
    return _with_runs(df, study, ["message_bytes"])


def crypto_by_strength(study: str) -> pd.DataFrame:
    """Per TLS version, cipher prefix and key strength of the channel start and stop runs, the
    highest utilisation of a single crypto card (fct_crypto_by_strength).

    Example:
        crypto_by_strength("keysize")[["cipher_prefix", "key_strength", "util_up_to_pct"]]
    """
    return _mart("fct_crypto_by_strength", study, "tls_version, cipher_prefix, key_strength")


def channel_starts(study: str) -> pd.DataFrame:
    """Channel start / stop runs (fct_channel_starts): rate, time and CPU per channel.

    Example:
        channel_starts("attls")[["series", "channel_operation", "rate_per_s"]]
    """
    df = _mart("fct_channel_starts", study, "channel_operation, configuration, run_id")
    return _with_runs(df, study)


def channel_start_strength_steps(study: str) -> pd.DataFrame:
    """Per TLS version, cipher prefix and step to the next stronger key, the largest % increase
    in time to start a channel (fct_channel_start_strength_steps).

    Example:
        channel_start_strength_steps("keysize")[["cipher_prefix", "from_key_strength",
                                                 "time_increase_up_to_pct"]]
    """
    return _mart(
        "fct_channel_start_strength_steps", study, "tls_version, cipher_prefix, from_key_bits"
    )


def run_files(study: str) -> pd.DataFrame:
    """Every raw file behind every run (fct_run_files): name, sha256 prefix, kind, rows.

    Example:
        run_files("attls")[["run_id", "source_file", "sha256_prefix", "rows_landed"]]
    """
    return _mart("fct_run_files", study, "run_id, source_file")


# ---------------------------------------------------------------------------------------------
# Study-level marts (dim_study, dim_configuration, fct_study_shape, fct_findings) and the marts
# of the thread-sweep and rate-target shapes. Each reads as an empty frame where not built.


def study_info(study: str) -> dict:
    """The study's row of dim_study (title, purpose, baseline, notes, group_by, counts), or
    an empty dict when the mart or the row is missing.

    ``group_by``, ``shapes`` and ``notes`` are decoded from their JSON text into lists.

    Example:
        study_info("attls").get("configuration_count")  # 3
    """
    df = _mart("dim_study", study) if has_table("marts", "dim_study") else pd.DataFrame()
    if df.empty:
        return {}
    row = df.iloc[0].to_dict()
    for key in ("group_by", "shapes", "notes"):
        # dim_study stores lists as JSON text in ``<name>_json``.
        value = row.pop(f"{key}_json", row.get(key))
        if isinstance(value, str):
            row[key] = json.loads(value or "[]")
        elif value is None or (isinstance(value, float) and pd.isna(value)):
            row[key] = []
        else:
            row[key] = list(value)
    return row


def study_shapes(study: str) -> list[str]:
    """The study shapes fct_study_shape recognised (message_size_sweep, thread_sweep, ...).

    Example:
        study_shapes("attls")  # ['message_size_sweep', 'channel_start_stop']
    """
    df = _mart("fct_study_shape", study)
    return [] if df.empty else list(dict.fromkeys(df["shape"].astype(str)))


def configuration_names(study: str) -> pd.DataFrame:
    """dim_configuration: configuration, display_name, sort_order, is_baseline, in order.

    Example:
        configuration_names("attls")[["configuration", "display_name"]]
    """
    return _once(
        "configuration_names",
        study,
        lambda: _mart("dim_configuration", study, "sort_order, configuration"),
    )


def findings(study: str) -> pd.DataFrame:
    """The study's findings (fct_findings), best-ranked first.

    Example:
        findings("attls")[["finding_rank", "sentence", "section_anchor"]]
    """
    return _mart("fct_findings", study, "finding_rank")


def headline_findings(study: str) -> pd.DataFrame:
    """The findings the report leads with (fct_findings.is_headline: the first eight by rank),
    best-ranked first.

    Example:
        headline_findings("attls")[["finding_rank", "sentence"]]
    """
    return _findings(study, headline=True)


def further_findings(study: str) -> pd.DataFrame:
    """The findings after the headline ones (``headline_findings``), best-ranked first: the
    report folds them away.

    Example:
        further_findings("attls")[["finding_rank", "sentence"]]
    """
    return _findings(study, headline=False)


def _findings(study: str, headline: bool) -> pd.DataFrame:
    # A mart built before is_headline existed: its first eight ranks, as the mart makes it.
    has_flag = not _query(
        """select 1 from information_schema.columns
           where table_schema = 'marts' and table_name = 'fct_findings'
             and column_name = 'is_headline'"""
    ).empty
    flag = "is_headline" if has_flag else "finding_rank <= 8"
    return _query(
        f"""select * from marts.fct_findings where study = ? and ({flag}) = ?
            order by finding_rank, 1""",
        [study, headline],
    )


def thread_sweep(study: str) -> pd.DataFrame:
    """Rate and round trip per configuration x group x size x persistence x threads.

    Example:
        thread_sweep("appliance")[["configuration", "threads", "rate_per_s"]]
    """
    df = _mart("fct_thread_sweep", study, "configuration, message_bytes, threads")
    return _ordered(df, study)


def sweep_summary(study: str) -> pd.DataFrame:
    """Per sweep (configuration x group x size x persistence): maximum rate, threads at the
    maximum, single-thread round trip, and both against the baseline configuration.

    Example:
        sweep_summary("appliance")[["configuration", "max_rate_per_s", "max_rate_pct_change"]]
    """
    df = _mart("fct_sweep_summary", study, "message_bytes, configuration")
    if "baseline_configuration" in df and not df.empty:
        # The baseline by the same name as the configurations (display names).
        names = display_names(study)
        df["baseline_configuration"] = df["baseline_configuration"].map(
            lambda c: names.get(c, c) if isinstance(c, str) else c
        )
    return _ordered(df, study)


def rate_targets(study: str) -> pd.DataFrame:
    """Per rate-targeted run: target and achieved rate, sustained or not, XQTIME, backlog.

    Example:
        rate_targets("streaming")[["run_id", "target_rate_per_s", "sustained"]]
    """
    # The study's configuration order, then sizes in numeric order (not the run ids' text).
    df = _mart("fct_rate_target", study, "sort_order, configuration, message_bytes, run_id")
    return _with_runs(df, study) if not df.empty else df


def cost_deltas(study: str) -> pd.DataFrame:
    """CPU per transaction per run and role (with 'MQ' = MSTR + CHIN) against the baseline.

    Example:
        cost_deltas("attls").query("role == 'MQ'")[["run_id", "delta_us_per_txn"]]
    """
    df = _mart("fct_cost_delta", study, "run_id, role")
    return _with_runs(df, study) if not df.empty else df


def chinit_task_stack(study: str) -> pd.DataFrame:
    """CPU and wait per request per run and channel-initiator task type (MP16's stack).

    Example:
        chinit_task_stack("attls")[["run_id", "task_type", "cpu_us_per_request"]]
    """
    df = _mart("fct_chinit_task_stack", study, "run_id, task_type")
    return _with_runs(df, study) if not df.empty else df


def chinit_task_profile(study: str) -> pd.DataFrame:
    """CPU and wait per request per configuration x variant x size x task type, pooled over
    thread counts and repeats (fct_chinit_task_profile): the bars of the task chart.

    Example:
        chinit_task_profile("attls")[["bar_label", "message_bytes", "task_type", "runs"]]
    """
    df = _mart(
        "fct_chinit_task_profile",
        study,
        "message_bytes, sort_order, configuration, variant, stack_order, task_type",
    )
    return _ordered(df, study)


def _ordered(df: pd.DataFrame, study: str) -> pd.DataFrame:
    # Configurations in the study's order (dim_configuration, else baseline first).
    if df.empty or "configuration" not in df:
        return df
    df["configuration"] = _categorical(df["configuration"], study)
    return df


# ---------------------------------------------------------------------------------------------
# The environment section's configurations table and the crypto section's per-run table


def configuration_table(study: str) -> pd.DataFrame:
    """One row per configuration in the study's order (dim_configuration): display name, runs,
    workload types, message sizes, variant_summary and shared_labels; the last two left out
    when no configuration has one.

    Example:
        configuration_table("protection")[["display_name", "run_count", "message_sizes"]]
    """
    df = _mart("dim_configuration", study, "sort_order, configuration")
    shown = ["display_name", "run_count", "workload_types", "message_sizes"]
    # A column no configuration fills would only repeat "–" (one an older mart lacks, too).
    shown += [c for c in ("variant_summary", "shared_labels") if c in df and df[c].notna().any()]
    return df[[c for c in shown if c in df]]


def crypto_per_run(study: str) -> pd.DataFrame:
    """The rows of fct_crypto the per-run crypto table shows, with run labels: without the
    channel start and stop runs when fct_crypto_by_strength has the study (its table shows
    them), and only the LPAR scope's rows when any of those rows has it.

    Example:
        crypto_per_run("protection")[["run_id", "card_name", "util_pct"]]
    """
    df = _query(
        """with shown as (
               select crypto.*
               from marts.fct_crypto as crypto
               left join marts.dim_run as runs on crypto.run_key = runs.run_key
               where crypto.study = ?
                 and (coalesce(runs.workload_type, '') not in ('channel_start', 'channel_stop')
                      or not exists (select 1 from marts.fct_crypto_by_strength as strength
                                     where strength.study = crypto.study))
           )
           select * from shown
           where scope = 'lpar' or not exists (select 1 from shown where scope = 'lpar')
           order by run_id, card_id, crypto_function, scope, crypto_key""",
        [study],
    )
    return _with_runs(df, study, ["message_bytes"])


# ---------------------------------------------------------------------------------------------
# What the sections say and decide about their rows: counts, names and whether to draw, read
# from the marts so that a report cell only prints and draws.


def _one_row(sql: str, params: list) -> dict:
    # The one row of an aggregate query as a dict ({} when the mart is not built).
    df = _query(sql, params)
    return {} if df.empty else {k: (None if pd.isna(v) else v) for k, v in df.iloc[0].items()}


def rate_target_counts(study: str) -> dict:
    """The rate-target section's sentence (fct_rate_target): ``runs``, ``not_sustained`` (runs
    whose achieved rate fell short of the threshold) and ``threshold_pct`` (the mart's
    sustained_threshold_pct, one for the study; None when no row has one).

    Example:
        rate_target_counts("streaming")  # {'runs': 6, 'not_sustained': 1, 'threshold_pct': 98.0}
    """
    row = _one_row(
        """select count(*) as runs,
                  count(*) filter (where not sustained) as not_sustained,
                  min(sustained_threshold_pct) as threshold_pct
           from marts.fct_rate_target where study = ?""",
        [study],
    )
    return {
        "runs": int(row.get("runs") or 0),
        "not_sustained": int(row.get("not_sustained") or 0),
        "threshold_pct": row.get("threshold_pct"),
    }


def sweep_undecided_notes(study: str) -> list[str]:
    """Why sweeps were not compared with a baseline (fct_sweep_summary.baseline_note of the
    series whose baseline_source is 'undecided'): each note once, in the summary's order.

    Example:
        sweep_undecided_notes("appliance")  # ['runs name series of feature_off and ...']
    """
    df = _query(
        """with undecided as (
               select baseline_note,
                      row_number() over (order by message_bytes, configuration, series_key) as n
               from marts.fct_sweep_summary
               where study = ? and baseline_source = 'undecided' and baseline_note is not null
           )
           select baseline_note from undecided group by baseline_note order by min(n)""",
        [study],
    )
    return [] if df.empty else list(df["baseline_note"].astype(str))


def round_trip_by_size(study: str) -> bool:
    """Whether the comparison section draws round trip against message size: the message
    workloads' driver results (fct_driver_results) span two or more message sizes and have a
    round trip. (A thread sweep draws it in its own section instead.)

    Example:
        round_trip_by_size("attls")  # True
    """
    row = _one_row(
        """select count(distinct d.message_bytes) > 1 and count(d.round_trip_us) > 0 as shown
           from marts.fct_driver_results d
           join marts.dim_run r on r.run_id = d.run_id and r.study = d.study
           where d.study = ? and r.is_message_workload""",
        [study],
    )
    return bool(row.get("shown"))


def chinit_task_counts(study: str) -> dict:
    """The tasks section's counts (fct_chinit_tasks): ``runs`` with task statistics and
    ``busy_rows``, the rows that have a busy % (none when the statistics came without the
    task's elapsed interval).

    Example:
        chinit_task_counts("attls")  # {'runs': 12, 'busy_rows': 48}
    """
    row = _one_row(
        """select count(distinct run_id) as runs, count(busy_pct) as busy_rows
           from marts.fct_chinit_tasks where study = ?""",
        [study],
    )
    return {"runs": int(row.get("runs") or 0), "busy_rows": int(row.get("busy_rows") or 0)}


def sending_channels(study: str) -> dict:
    """The channels section's sending channels (fct_channel_network rows with is_sending):
    ``names``, each once in sorted order, and ``one_per_run``, whether each run has one
    sending channel (then the text names them and the table has no channel column).

    Example:
        sending_channels("attls")  # {'names': ['QML1.TO.QML2'], 'one_per_run': True}
    """
    names = _query(
        """select distinct channel_name from marts.fct_channel_network
           where study = ? and is_sending and channel_name is not null
           order by channel_name""",
        [study],
    )
    row = _one_row(
        """select count(*) = count(distinct run_id) as one_per_run
           from marts.fct_channel_network where study = ? and is_sending""",
        [study],
    )
    return {
        "names": [] if names.empty else list(names["channel_name"].astype(str)),
        "one_per_run": bool(row.get("one_per_run")),
    }


def channel_operation_count(study: str) -> int:
    """How many channel operations (start, stop) the study's channel start runs measured
    (fct_channel_starts): the starts section's charts have a panel per operation when two.

    Example:
        channel_operation_count("attls")  # 2
    """
    row = _one_row(
        """select count(distinct channel_operation) as operations
           from marts.fct_channel_starts where study = ?""",
        [study],
    )
    return int(row.get("operations") or 0)


# The NETSTAT figures the netstat section charts, in its order.
NETSTAT_METRICS = ("congestion_window_bytes", "smooth_trip_time_ms", "send_data_queued_bytes")


def netstat_metrics(study: str) -> list[str]:
    """The NETSTAT_METRICS that fct_netstat_series has values of for the study, in that order:
    the netstat section draws a chart of each.

    Example:
        netstat_metrics("attls")  # ['congestion_window_bytes', 'smooth_trip_time_ms']
    """
    row = _one_row(
        "select {} from marts.fct_netstat_series where study = ?".format(
            ", ".join(f"count({m}) as {m}" for m in NETSTAT_METRICS)
        ),
        [study],
    )
    return [m for m in NETSTAT_METRICS if row.get(m)]
