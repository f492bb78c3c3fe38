"""Noise-aware comparisons and change points: the statistics behind README "Replicates and history".

One implementation serves the dbt Python models (``int_replicate_comparison``,
``int_change_points``: the marts ``fct_replicate_comparison`` and ``fct_change_points`` are
their copies) and ``mqcap compare``, so a SQL user, a report and the terminal see the same
numbers.

- A replicate set (several runs of one configuration at one workload point and build) is
  summarised by n, mean, sample standard deviation and the 95% confidence interval of the mean,
  ``mean +- t(0.975, n - 1) * sd / sqrt(n)``.
- A variant set is compared with a baseline set by Welch's t interval for the difference of the
  means, ``d +- t(0.975, df) * sqrt(s1^2/n1 + s2^2/n2)`` with the Welch-Satterthwaite ``df``;
  % change and its interval are ``d / baseline mean x 100`` (the baseline mean taken as exact).
- The verdict: ``better`` or ``worse`` (by the measure's direction) when the interval excludes 0
  and the change is at least ``min_change_pct``; else ``no significant change``. A side with one
  run gives no interval: ``one run: no interval``.
- Change points of a history series come from Apache Otava (E-divisive with a Student t test,
  Fleming et al. 2023) with the study's p-value and minimum magnitude.

Example:
    >>> s = compare([100.0, 101.0, 99.0], [103.0, 104.0, 102.0], better_when="lower")
    >>> s.verdict, round(s.pct_change, 1)
    ('worse', 3.0)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

CONFIDENCE = 0.95
ONE_RUN = "one run: no interval"
NO_CHANGE = "no significant change"
DEFAULT_MIN_CHANGE_PCT = 1.0
DEFAULT_CHANGE_POINT_PVALUE = 0.001
# Replicates that agree to this relative spread are the same measurement: their sd is the
# rounding of the arithmetic that produced them (1e-11 on one engine, 0 on another), not noise.
SAME_MEASUREMENT_REL = 1e-9


def to_pandas(relation):
    """A dbt Python model's ``dbt.ref(...)`` as a pandas frame, on either engine: DuckDB's
    relation (``.df()``) or a Spark DataFrame (``.toPandas()``)."""
    if hasattr(relation, "toPandas"):
        return relation.toPandas()
    return relation.df()


_SPARK_TYPES = {"string": "string", "Int64": "bigint", "float64": "double", "boolean": "boolean"}


def model_frame(session, rows: list[dict], columns: dict[str, str]):
    """What a dbt Python model returns, on either engine: a pandas frame of ``rows`` with the
    pandas dtypes ``columns`` (DuckDB), or a Spark DataFrame of the same columns typed from them
    (``session`` is a Spark session: pandas' extension types, NA and empty frames do not
    convert to Spark on their own)."""
    import pandas as pd

    frame = pd.DataFrame(rows, columns=list(columns)).astype(columns)
    if not hasattr(session, "createDataFrame"):
        return frame
    schema = ", ".join(f"`{name}` {_SPARK_TYPES[dtype]}" for name, dtype in columns.items())
    plain = [
        tuple(None if pd.isna(v) else (v.item() if hasattr(v, "item") else v) for v in row)
        for row in frame.itertuples(index=False, name=None)
    ]
    return session.createDataFrame(plain, schema=schema)


def t_quantile(df: float, confidence: float = CONFIDENCE) -> float:
    """Two-sided critical value of Student's t for ``df`` degrees of freedom (may be fractional)."""
    from scipy.stats import t

    return float(t.ppf(0.5 + confidence / 2, df))


@dataclass(frozen=True)
class Summary:
    n: int
    mean: float
    sd: float | None  # sample standard deviation (n - 1); None for one run
    ci_low: float | None
    ci_high: float | None


def summarise(values: Sequence[float]) -> Summary:
    """n, mean, sample sd and the 95% t interval of the mean (no sd or interval for one run).

    An sd of at most SAME_MEASUREMENT_REL of the mean is 0: equal replicates, whatever the last
    bits the engine's arithmetic left in them.
    """
    n = len(values)
    if n == 0:
        raise ValueError("no values to summarise")
    mean = math.fsum(values) / n
    if n < 2:
        return Summary(n, mean, None, None, None)
    sd = math.sqrt(math.fsum((v - mean) ** 2 for v in values) / (n - 1))
    if sd <= SAME_MEASUREMENT_REL * abs(mean):
        sd = 0.0
    half = t_quantile(n - 1) * sd / math.sqrt(n)
    return Summary(n, mean, sd, mean - half, mean + half)


@dataclass(frozen=True)
class Comparison:
    baseline: Summary
    variant: Summary
    difference: float
    pct_change: float | None
    welch_df: float | None
    t_critical: float | None
    diff_ci_low: float | None
    diff_ci_high: float | None
    pct_ci_low: float | None
    pct_ci_high: float | None
    p_value: float | None
    verdict: str
    threshold: str


def threshold_text(min_change_pct: float) -> str:
    """The verdict rule in words, printed beside every verdict."""
    return f"95% Welch interval of the change excludes 0 and |change| >= {min_change_pct:g}%"


def verdict_of(
    pct_change: float | None,
    pct_ci_low: float | None,
    pct_ci_high: float | None,
    better_when: str | None,
    min_change_pct: float,
) -> str:
    """better / worse / no significant change (higher / lower for a measure of no direction)."""
    if pct_change is None or pct_ci_low is None or pct_ci_high is None:
        return ONE_RUN
    excludes_zero = pct_ci_low > 0 or pct_ci_high < 0
    if not excludes_zero or abs(pct_change) < min_change_pct:
        return NO_CHANGE
    up = pct_change > 0
    if better_when not in ("higher", "lower"):
        return "higher" if up else "lower"
    return "better" if up == (better_when == "higher") else "worse"


def compare_summaries(
    baseline: Summary,
    variant: Summary,
    better_when: str | None,
    min_change_pct: float = DEFAULT_MIN_CHANGE_PCT,
) -> Comparison:
    """Welch comparison of two summaries (n, mean, sd)."""
    difference = variant.mean - baseline.mean
    pct = difference / baseline.mean * 100 if baseline.mean != 0 else None
    df = t_crit = low = high = pct_low = pct_high = p = None
    if baseline.sd is not None and variant.sd is not None:
        a = variant.sd**2 / variant.n
        b = baseline.sd**2 / baseline.n
        se = math.sqrt(a + b)
        if se > 0:
            df = (a + b) ** 2 / (a**2 / (variant.n - 1) + b**2 / (baseline.n - 1))
            t_crit = t_quantile(df)
            from scipy.stats import t

            p = float(2 * t.sf(abs(difference) / se, df))
        else:  # both sets repeat one value exactly: the difference has no spread
            df, t_crit, p = float(variant.n + baseline.n - 2), 0.0, 0.0 if difference else 1.0
        low, high = difference - t_crit * se, difference + t_crit * se
        if pct is not None:
            scale = 100 / abs(baseline.mean)
            pct_low, pct_high = low * scale, high * scale
    return Comparison(
        baseline=baseline,
        variant=variant,
        difference=difference,
        pct_change=pct,
        welch_df=df,
        t_critical=t_crit,
        diff_ci_low=low,
        diff_ci_high=high,
        pct_ci_low=pct_low,
        pct_ci_high=pct_high,
        p_value=p,
        verdict=verdict_of(pct, pct_low, pct_high, better_when, min_change_pct)
        if pct is not None or low is None
        # A baseline mean of 0 (no drops, no wait) has no % change: the difference decides.
        else verdict_of(difference, low, high, better_when, 0.0),
        threshold=threshold_text(min_change_pct),
    )


def compare(
    baseline: Sequence[float],
    variant: Sequence[float],
    better_when: str | None,
    min_change_pct: float = DEFAULT_MIN_CHANGE_PCT,
) -> Comparison:
    """Welch comparison of two samples of one measure (each a list of run values)."""
    return compare_summaries(summarise(baseline), summarise(variant), better_when, min_change_pct)


@dataclass(frozen=True)
class ChangePoint:
    index: int  # position of the first value after the change
    mean_before: float
    mean_after: float
    pct_change: float | None
    p_value: float


def change_points(
    values: Sequence[float],
    max_pvalue: float = DEFAULT_CHANGE_POINT_PVALUE,
    min_change_pct: float = DEFAULT_MIN_CHANGE_PCT,
    window_len: int = 50,
) -> list[ChangePoint]:
    """Change points of one series (values in history order) by Apache Otava.

    Otava's E-divisive split finds candidates in sliding windows, its merge step keeps those
    whose t-test p-value is below ``max_pvalue`` and whose relative change is above
    ``min_change_pct``; the means are those of the stretches between kept change points.
    """
    if len(values) < 3:
        return []
    from otava.analysis import compute_change_points

    # A plain list: Otava's interval bookkeeping misreads slices of a numpy array (0.8.0).
    series = [float(v) for v in values]
    found, _weak = compute_change_points(
        series,
        window_len=window_len,
        max_pvalue=max_pvalue,
        min_magnitude=min_change_pct / 100,
    )
    out = []
    for cp in found:
        before, after = float(cp.stats.mean_1), float(cp.stats.mean_2)
        out.append(
            ChangePoint(
                index=int(cp.index),
                mean_before=before,
                mean_after=after,
                pct_change=(after - before) / before * 100 if before else None,
                p_value=float(cp.stats.pvalue),
            )
        )
    return out
