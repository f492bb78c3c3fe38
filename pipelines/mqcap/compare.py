"""``mqcap compare A B``: every measure of B against A, with % change, interval and verdict.

A and B are two runs, two configurations or two builds (a build or version label) of a study;
a prefix ``run:``, ``config:`` or ``build:`` says which when a name is several. Only marts are
read (``dim_run_set``, ``fct_run_measures``, ``fct_replicate_stats`` for the measures'
directions); the statistics are mqcap.noise's, the same as the marts'.

- two runs: one row per measure x subject both have (one run each: "one run: no interval");
- two configurations: runs are paired by workload point (``dim_run_set.point_key``), and the
  runs of a configuration at a point, over every build, are its replicates;
- two builds: paired by configuration and point (``series_key``).

Example:
    frame, threshold = compare_frame(con, "b06", "b07", study="history")
"""

from __future__ import annotations

from dataclasses import dataclass

import duckdb
import polars as pl

from mqcap import noise
from mqcap.errors import UsageError

KINDS = {"run": "run", "config": "configuration", "build": "build"}


@dataclass(frozen=True)
class Side:
    token: str
    kind: str  # run | configuration | build
    study: str
    run_keys: tuple[str, ...]


# The fields of a workload point (int_run_sets), in the order points are listed.
POINT_ORDER = (
    "workload_type",
    "scenario",
    "hardware_model",
    "message_bytes",
    "persistence",
    "threads",
    "target_rate_per_s",
    "recipients",
    "channels",
)


def point_order(row: dict) -> tuple:
    """A sort key for a row of a workload point: its fields in ``POINT_ORDER``, numbers as
    numbers, a missing field first, then the labels that tell points apart.

    Example:
        >>> rows = [{"threads": t, "point_labels": None} for t in (100, 16, 2)]
        >>> [r["threads"] for r in sorted(rows, key=point_order)]
        [2, 16, 100]
    """
    key = tuple((row.get(c) is not None, row.get(c) or 0) for c in POINT_ORDER)
    return (*key, row.get("point_labels") or "")


def _runs(con: duckdb.DuckDBPyConnection, study: str | None) -> pl.DataFrame:
    # The workload point's own fields too: points are listed in their numeric order (2 before
    # 16 threads), not in the order of their labels' text.
    sql = (
        "select s.run_key, s.study, s.run_id, s.configuration, s.history_label, s.build, "
        "s.version, s.point_key, s.series_key, s.workload_point, s.point_labels, "
        "s.min_change_pct, "
        + ", ".join(f"r.{c}" for c in POINT_ORDER)
        + " from marts.dim_run_set as s inner join marts.dim_run as r on s.run_key = r.run_key"
    )
    if study is not None:
        return con.sql(sql + " where s.study = ?", params=[study]).pl()
    return con.sql(sql).pl()


def resolve(runs: pl.DataFrame, token: str) -> Side:
    """Which runs ``token`` names: a run (id or study/run), a configuration or a build/version."""
    kind_hint, _, name = token.partition(":") if token.split(":", 1)[0] in KINDS else ("", "", "")
    name = name if kind_hint else token
    found: dict[str, pl.DataFrame] = {
        "run": runs.filter((pl.col("run_id") == name) | (pl.col("run_key") == name)),
        "configuration": runs.filter(pl.col("configuration") == name),
        "build": runs.filter((pl.col("build") == name) | (pl.col("version") == name)),
    }
    if kind_hint:
        found = {KINDS[kind_hint]: found[KINDS[kind_hint]]}
    hits = {k: f for k, f in found.items() if f.height}
    if not hits:
        raise UsageError(
            f"{token!r} is no run id, configuration or build/version label in the warehouse"
            ' (mqcap sql "select * from marts.dim_run_set" lists them)'
        )
    if len(hits) > 1:
        kinds = ", ".join(f"{p}:{name}" for p, k in KINDS.items() if k in hits)
        raise UsageError(f"{token!r} names several things; say which: {kinds}")
    kind, frame = next(iter(hits.items()))
    studies = sorted(set(frame["study"]))
    if len(studies) > 1:
        raise UsageError(f"{token!r} is in several studies ({', '.join(studies)}): add --study")
    return Side(token, kind, studies[0], tuple(sorted(frame["run_key"])))


def compare_frame(
    con: duckdb.DuckDBPyConnection, a: str, b: str, study: str | None = None
) -> tuple[pl.DataFrame, str]:
    """Rows of B against A (A is the baseline) and the verdict rule in words.

    A warehouse without the marts it reads is a usage error saying to build them; so are two
    sides naming the same runs (there is nothing to compare).
    """
    try:
        return _compare_frame(con, a, b, study)
    except duckdb.CatalogException as exc:
        raise UsageError(
            f"the marts compare reads are not in the warehouse ({str(exc).splitlines()[0]}): "
            "run `mqcap build` (or `mqcap run`) first"
        ) from None


_FRAME_SCHEMA = {
    "configuration": pl.String,
    "point": pl.String,
    "measure": pl.String,
    "subject": pl.String,
    "unit": pl.String,
    "a_n": pl.Int64,
    "a_mean": pl.Float64,
    "b_n": pl.Int64,
    "b_mean": pl.Float64,
    "pct_change": pl.Float64,
    "pct_ci95_low": pl.Float64,
    "pct_ci95_high": pl.Float64,
    "interval": pl.String,
    "verdict": pl.String,
}


def _sides(runs: pl.DataFrame, a: str, b: str):
    """The two sides, resolved: two different sets of runs of one kind in one study."""
    left, right = resolve(runs, a), resolve(runs, b)
    if left.run_keys == right.run_keys:
        raise UsageError(
            f"{a!r} and {b!r} are the same runs on both sides: compare two different runs, "
            "configurations or builds"
        )
    if left.kind != right.kind:
        raise UsageError(
            f"compare two of a kind: {a!r} is a {left.kind}, {b!r} a {right.kind}"
            " (prefix run:, config: or build: to choose)"
        )
    if left.study != right.study:
        raise UsageError(f"{a!r} is in study {left.study}, {b!r} in {right.study}")
    return left, right


def _groups(rows: pl.DataFrame, left, right, match: str | None) -> dict[tuple, dict]:
    """(point, measure, subject) -> the unit, a row of the point, and each side's values; a
    run on both sides compares with nothing."""
    groups: dict[tuple, dict] = {}
    for r in rows.iter_rows(named=True):
        side = "a" if r["run_key"] in left.run_keys else "b"
        if r["run_key"] in left.run_keys and r["run_key"] in right.run_keys:
            continue
        point = "" if match is None else r[match]
        g = groups.setdefault(
            (point, r["measure"], r["subject"]),
            {"unit": r["unit"], "point": r, "a": [], "b": []},
        )
        g[side].append(r["measure_value"])
    return groups


def _compare_frame(
    con: duckdb.DuckDBPyConnection, a: str, b: str, study: str | None
) -> tuple[pl.DataFrame, str]:
    runs = _runs(con, study)
    left, right = _sides(runs, a, b)
    min_pct = runs.filter(pl.col("study") == left.study)["min_change_pct"][0]
    min_pct = noise.DEFAULT_MIN_CHANGE_PCT if min_pct is None else float(min_pct)
    keys = sorted(set(left.run_keys) | set(right.run_keys))
    measures = con.sql(
        "select m.run_key, m.measure, m.subject, m.unit, m.measure_value "
        "from marts.fct_run_measures m where m.run_key in (select unnest(?))",
        params=[keys],
    ).pl()
    directions = dict(
        con.sql(
            "select distinct measure, better_when from marts.fct_replicate_stats "
            "where better_when is not null"
        ).fetchall()
    )
    match = {"run": None, "configuration": "point_key", "build": "series_key"}[left.kind]
    info = runs.select(
        "run_key",
        "configuration",
        "point_key",
        "series_key",
        "workload_point",
        "point_labels",
        *POINT_ORDER,
    )
    groups = _groups(measures.join(info, on="run_key"), left, right, match)
    out = []
    ordered = sorted(groups.items(), key=lambda kv: (point_order(kv[1]["point"]), kv[0]))
    for (_point, measure, subject), g in ordered:
        if not g["a"] or not g["b"]:
            continue
        c = noise.compare(g["a"], g["b"], directions.get(measure), min_pct)
        p = g["point"]
        label = (
            ""
            if match is None
            else p["workload_point"] + (f" [{p['point_labels']}]" if p["point_labels"] else "")
        )
        out.append(
            {
                "configuration": p["configuration"],
                "point": label,
                "measure": measure,
                "subject": subject,
                "unit": g["unit"],
                "a_n": c.baseline.n,
                "a_mean": c.baseline.mean,
                "b_n": c.variant.n,
                "b_mean": c.variant.mean,
                "pct_change": c.pct_change,
                "pct_ci95_low": c.pct_ci_low,
                "pct_ci95_high": c.pct_ci_high,
                "interval": _interval(c),
                "verdict": c.verdict,
            }
        )
    frame = pl.DataFrame(out, schema=_FRAME_SCHEMA)
    if match is None:
        frame = frame.drop("point")
    if left.kind != "build":
        frame = frame.drop("configuration")
    return frame, noise.threshold_text(min_pct)


def _interval(c: noise.Comparison) -> str:
    if c.pct_ci_low is None or c.pct_ci_high is None:
        return noise.ONE_RUN
    return f"[{c.pct_ci_low:+.2f}%, {c.pct_ci_high:+.2f}%]"


def table_frame(frame: pl.DataFrame) -> pl.DataFrame:
    """The terminal table: rounded means, % change with sign, the interval text."""
    return frame.with_columns(
        pl.col("a_mean").round(3),
        pl.col("b_mean").round(3),
        pl.col("pct_change").map_elements(
            lambda v: f"{v:+.2f}%", return_dtype=pl.String, skip_nulls=True
        ),
    ).drop("pct_ci95_low", "pct_ci95_high")
