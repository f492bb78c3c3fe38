"""Noise-aware statistics (mqcap.noise): intervals against scipy and textbook values, verdicts,
change points on seeded series (planted regression, false-alarm rate), and the manifest and
study-file fields that feed them."""

from __future__ import annotations

import math
import random
from pathlib import Path

import pytest
from scipy import stats

from mqcap import noise
from mqcap.errors import InputError
from mqcap.parsers import manifest, study
from mqcap.parsers.base import ParseContext


def test_replicates_equal_but_for_rounding_have_no_spread():
    # 0.1 + 0.2 and 0.3 differ in the last bit: the same measurement, sd 0, interval the mean.
    s = noise.summarise([0.1 + 0.2, 0.3, 0.3])
    assert s.sd == 0.0 and s.ci_low == s.ci_high == s.mean
    # A spread of 1e-8 relative is kept.
    s = noise.summarise([1.0, 1.0 + 2e-8, 1.0 - 2e-8])
    assert s.sd == pytest.approx(2e-8, rel=1e-6)
    # Near zero the rule is relative to the mean: 1e-12 around 1e-3 is rounding, around 0 not.
    assert noise.summarise([1e-3, 1e-3 + 1e-15]).sd == 0.0
    assert noise.summarise([0.0, 1e-12]).sd > 0


def test_summary_interval_is_the_textbook_t_interval():
    # 3 runs: mean 100, sd 1, t(0.975, 2) = 4.3027 (every t table): 100 +- 4.3027 / sqrt(3).
    s = noise.summarise([99.0, 100.0, 101.0])
    assert (s.n, s.mean, s.sd) == (3, 100.0, 1.0)
    assert s.ci_low == pytest.approx(100 - 4.3027 / math.sqrt(3), abs=1e-4)
    assert s.ci_high == pytest.approx(100 + 4.3027 / math.sqrt(3), abs=1e-4)
    values = [812.5, 799.0, 805.25, 821.0, 790.75]
    low, high = stats.t.interval(
        0.95, len(values) - 1, loc=stats.tmean(values), scale=stats.sem(values)
    )
    s = noise.summarise(values)
    assert (s.ci_low, s.ci_high) == (pytest.approx(low, rel=1e-12), pytest.approx(high, rel=1e-12))
    assert s.sd == pytest.approx(stats.tstd(values), rel=1e-12)


def test_one_run_has_no_interval():
    s = noise.summarise([42.0])
    assert (s.n, s.mean, s.sd, s.ci_low, s.ci_high) == (1, 42.0, None, None, None)
    c = noise.compare([42.0], [45.0, 46.0], better_when="lower")
    assert c.verdict == noise.ONE_RUN == "one run: no interval"
    assert c.pct_change == pytest.approx(100 * (45.5 - 42) / 42)
    assert c.pct_ci_low is None and c.welch_df is None


def test_welch_interval_by_hand():
    # Equal sizes and sds: df = (1/3 + 1/3)^2 / 2 x (1/3)^2 / 2 = 4, t(0.975, 4) = 2.7764,
    # se = sqrt(2/3): difference 3 +- 2.7764 x 0.81650 = [0.7330, 5.2670]; baseline mean 100.
    c = noise.compare([100.0, 101.0, 99.0], [103.0, 104.0, 102.0], better_when="lower")
    assert c.welch_df == pytest.approx(4.0)
    assert c.t_critical == pytest.approx(2.7764, abs=1e-4)
    assert c.difference == 3.0 and c.pct_change == pytest.approx(3.0)
    assert c.diff_ci_low == pytest.approx(0.7330, abs=1e-4)
    assert c.diff_ci_high == pytest.approx(5.2670, abs=1e-4)
    assert (c.pct_ci_low, c.pct_ci_high) == (c.diff_ci_low, c.diff_ci_high)
    assert c.verdict == "worse"  # cost went up by 3% and the interval excludes 0
    assert c.threshold == "95% Welch interval of the change excludes 0 and |change| >= 1%"


def test_welch_interval_and_p_value_equal_scipy_with_unequal_sizes():
    base = [10.0, 12.0, 11.0, 13.0]
    variant = [14.0, 15.5, 13.0]
    ref = stats.ttest_ind(variant, base, equal_var=False)
    ci = ref.confidence_interval(0.95)
    c = noise.compare(base, variant, better_when="higher")
    assert c.diff_ci_low == pytest.approx(ci.low, rel=1e-10)
    assert c.diff_ci_high == pytest.approx(ci.high, rel=1e-10)
    assert c.welch_df == pytest.approx(ref.df, rel=1e-10)
    assert c.p_value == pytest.approx(ref.pvalue, rel=1e-10)
    assert c.pct_ci_low == pytest.approx(ci.low / 11.5 * 100, rel=1e-10)
    assert c.verdict == "better"  # throughput up


@pytest.mark.parametrize(
    ("pct", "low", "high", "better_when", "min_pct", "verdict"),
    [
        (3.0, 1.0, 5.0, "lower", 1.0, "worse"),
        (3.0, 1.0, 5.0, "higher", 1.0, "better"),
        (-3.0, -5.0, -1.0, "lower", 1.0, "better"),
        (-3.0, -5.0, -1.0, "higher", 1.0, "worse"),
        (3.0, -0.1, 6.0, "lower", 1.0, "no significant change"),  # interval holds 0
        (0.5, 0.2, 0.8, "lower", 1.0, "no significant change"),  # significant but < 1%
        (0.5, 0.2, 0.8, "lower", 0.0, "worse"),
        (3.0, 1.0, 5.0, None, 1.0, "higher"),  # a measure with no direction
    ],
)
def test_verdict_rules(pct, low, high, better_when, min_pct, verdict):
    assert noise.verdict_of(pct, low, high, better_when, min_pct) == verdict


def test_zero_spread_on_both_sides_is_exact():
    c = noise.compare([10.0, 10.0], [12.0, 12.0], better_when="lower")
    assert (c.diff_ci_low, c.diff_ci_high, c.p_value, c.verdict) == (2.0, 2.0, 0.0, "worse")
    assert noise.compare([10.0, 10.0], [10.0, 10.0], "lower").verdict == "no significant change"


def _replicates(rng: random.Random, mean: float, noise_pct: float, n: int) -> list[float]:
    return [mean * (1 + noise_pct / 100 * rng.gauss(0.0, 1.0)) for _ in range(n)]


def test_half_percent_shift_inside_five_percent_noise_is_no_significant_change():
    rng = random.Random(5)
    base = _replicates(rng, 1000.0, 5.0, 5)
    variant = _replicates(rng, 1005.0, 5.0, 5)
    c = noise.compare(base, variant, better_when="lower")
    assert c.verdict == "no significant change"
    assert c.pct_ci_low < 0 < c.pct_ci_high


def _history(rng: random.Random, builds: int, replicates: int, shift_at: int | None, pct: float):
    """Run values in history order: ``replicates`` runs per build, 1% noise, a step of ``pct``
    % from build index ``shift_at`` on."""
    values, labels = [], []
    for b in range(builds):
        factor = 1 + pct / 100 if shift_at is not None and b >= shift_at else 1.0
        values += _replicates(rng, 100.0 * factor, 1.0, replicates)
        labels += [f"b{b + 1:02d}"] * replicates
    return values, labels


def test_planted_three_percent_regression_among_one_percent_noise_is_found_at_its_build():
    rng = random.Random(20)
    values, labels = _history(rng, builds=10, replicates=3, shift_at=6, pct=3.0)
    found = noise.change_points(values, max_pvalue=0.001, min_change_pct=1.0)
    assert len(found) == 1
    cp = found[0]
    assert labels[cp.index] == "b07" and labels[cp.index - 1] == "b06"
    assert cp.mean_before == pytest.approx(sum(values[:18]) / 18)
    assert cp.mean_after == pytest.approx(sum(values[18:]) / 12)
    assert 2.0 < cp.pct_change < 4.0 and cp.p_value < 0.001


def test_false_alarm_rate_on_one_hundred_noise_only_series_is_at_most_five_percent():
    rng = random.Random(2026)
    alarms = 0
    for _ in range(100):
        values, _labels = _history(rng, builds=10, replicates=3, shift_at=None, pct=0.0)
        alarms += bool(noise.change_points(values, max_pvalue=0.001, min_change_pct=1.0))
    assert alarms <= 5
    assert alarms == 3  # measured with this seed (Otava 0.8.0): 3%


def test_a_short_series_has_no_change_point():
    assert noise.change_points([1.0, 2.0]) == []


def _manifest(tmp_path: Path, extra: str) -> dict:
    path = tmp_path / "run.yaml"
    path.write_text(
        "study: h\nrun: b7-r2\nconfiguration: Baseline\n"
        "workload: {type: request_reply, message_bytes: 2048, threads: 4}\n" + extra
    )
    return manifest.load(ParseContext(path=path, source_file="h/b7-r2/run.yaml"))


def test_manifest_takes_replicate_build_and_version(tmp_path):
    m = _manifest(tmp_path, "replicate: 2\nbuild: b07\nversion: 9.4.0.5\n")
    assert (m["replicate"], m["build"], m["version"]) == ("2", "b07", "9.4.0.5")
    m = _manifest(tmp_path, "")
    assert (m["replicate"], m["build"], m["version"]) == (None, None, None)
    with pytest.raises(InputError) as info:
        _manifest(tmp_path, "build: [1, 2]\n")
    assert info.value.line == 5 and "field build: expected a text value" in str(info.value)


def _study(tmp_path: Path, text: str) -> dict:
    folder = tmp_path / "h"
    folder.mkdir(exist_ok=True)
    (folder / "study.yaml").write_text(text)
    return study.load(ParseContext(path=folder / "study.yaml", source_file="h/study.yaml"))


def test_study_file_noise_settings(tmp_path):
    s = _study(tmp_path, "study: h\nnoise:\n  min_change_pct: 2.5\n  change_point_pvalue: 0.01\n")
    assert (s["min_change_pct"], s["change_point_pvalue"]) == (2.5, 0.01)
    s = _study(tmp_path, "study: h\n")
    assert (s["min_change_pct"], s["change_point_pvalue"]) == (None, None)
    with pytest.raises(InputError) as info:
        _study(tmp_path, "study: h\nnoise:\n  change_point_pvalue: 2\n")
    assert info.value.line == 3
    assert "noise.change_point_pvalue: expected a p-value above 0 and at most 0.5" in str(
        info.value
    )
    with pytest.raises(InputError, match=r"noise\.alpha: expected one of min_change_pct"):
        _study(tmp_path, "study: h\nnoise: {alpha: 0.05}\n")


def test_sql_defaults_equal_the_parser_defaults():
    from helpers import PROJECT

    sql = (PROJECT / "models" / "intermediate" / "int_noise_settings.sql").read_text()
    for key, value in study.NOISE_DEFAULTS.items():
        assert f"coalesce(files.{key}, {value})" in sql
        assert getattr(noise, f"DEFAULT_{key.upper()}") == value


def test_every_measure_has_a_direction():
    import csv
    import re

    from helpers import PROJECT

    directions = {
        r["measure"]: r["better_when"]
        for r in csv.DictReader((PROJECT / "seeds" / "measures.csv").open())
    }
    named = set()
    for sql in ("intermediate/int_run_measures.sql", "intermediate/int_distributed_measures.sql"):
        text = (PROJECT / "models" / sql).read_text()
        named |= set(re.findall(r"'([a-z0-9_]+)' as measure\b", text))
    named -= {"amqsrua", "amqsmon"}  # measure_source values, not measures
    named |= {"qmgr_cpu_pct", "host_cpu_pct", "log_physical_bytes_per_s", "log_logical_bytes_per_s"}
    assert sorted(named - set(directions)) == []
    assert directions["cpu_us_per_txn"] == "lower" and directions["rate_per_s"] == "higher"


def test_report_rows_split_significant_from_the_rest():
    import pandas as pd

    from mqcap.sections import changes as chg

    base = {
        "configuration": "B", "workload_point": "request_reply, 2048 B", "point_labels": None,
        "history_label": "b07", "measure": "cpu_us_per_txn", "subject": "TOTAL",
        "variant_n": 3, "baseline_n": 3,
    }  # fmt: skip
    frame = pd.DataFrame(
        [
            {**base, "pct_change": 3.0, "pct_ci95_low": 0.73, "pct_ci95_high": 5.27,
             "verdict": "worse"},
            {**base, "subject": "MSTR", "pct_change": 0.4, "pct_ci95_low": -1.0,
             "pct_ci95_high": 1.8, "verdict": "no significant change"},
            {**base, "subject": "CHIN", "point_labels": "cipher=aes", "variant_n": 1,
             "pct_change": -2.0, "pct_ci95_low": None, "pct_ci95_high": None,
             "verdict": "one run: no interval"},
        ]
    )  # fmt: skip
    sig = chg.comparison_rows(frame, significant=True)
    assert sig.to_dict("records") == [
        {"Configuration": "B", "Point": "request_reply, 2048 B", "Build": "b07",
         "Measure": "cpu_us_per_txn", "Subject": "TOTAL", "Runs": "3 vs 3", "Change": "+3.00%",
         "95% interval": "[+0.73%, +5.27%]", "Verdict": "worse"},
    ]  # fmt: skip
    rest = chg.comparison_rows(frame, significant=False)
    assert list(rest["95% interval"]) == ["[-1.00%, +1.80%]", "one run: no interval"]
    assert list(rest["Point"]) == ["request_reply, 2048 B", "request_reply, 2048 B [cipher=aes]"]
    assert len(chg.comparison_rows(frame)) == 3


def test_the_verdict_sentence_counts_the_marts_rows(tmp_path, monkeypatch):
    """chg.verdict_summary: the study's comparisons by verdict, the most first then by name,
    and each threshold the study's comparisons used, once; another study's rows not counted."""
    import pandas as pd

    from mqcap.sections import changes as chg
    from mqcap.sections import queries

    from report_support import write_warehouse

    one, two = "interval excludes 0 and |change| >= 1%", "interval excludes 0 and |change| >= 5%"
    rows = [
        ("s", "worse", one), ("s", "no significant change", one), ("s", "better", two),
        ("s", "no significant change", two), ("s", "worse", one), ("s", "one run: no interval", None),
        ("other", "better", one), ("other", "better", "other rule"),
    ]  # fmt: skip
    frame = pd.DataFrame(rows, columns=["study", "verdict", "threshold"])
    warehouse = write_warehouse(tmp_path / "w.duckdb", {"fct_replicate_comparison": frame})
    monkeypatch.setenv("MQCAP_WAREHOUSE", str(warehouse))
    queries.close()
    assert chg.verdict_summary("s") == (
        {"no significant change": 2, "worse": 2, "better": 1, "one run: no interval": 1},
        [one, two],
    )
    assert chg.verdict_summary("none") == ({}, [])


def test_a_zero_baseline_is_judged_by_the_difference():
    c = noise.compare([0.0, 0.0, 0.0], [2.0, 3.0, 4.0], better_when="lower")
    assert c.pct_change is None and c.pct_ci_low is None
    assert c.diff_ci_low == pytest.approx(3 - 4.3027 / math.sqrt(3), abs=1e-4)
    assert c.verdict == "worse"
    assert noise.compare([0.0, 0.0], [0.0, 1.0], "lower").verdict == "no significant change"
