"""Replicates and history end to end: generated raw files -> ingest -> real `dbt build` ->
dim_run_set, fct_replicate_stats, fct_replicate_comparison, fct_change_points, and
`mqcap compare` on the built warehouse.

Three studies in one raw root:
- ``history``: 2 configurations x 10 builds x 3 replicates, 1% noise, CPU per transaction of
  the baseline configuration 3% higher from build b07 on (the planted regression);
- ``noisy``: 5 replicates per configuration, 5% noise, "Feature on" 0.5% slower round trip;
- ``attls``: the ten single-run mini study (one run per side: no interval).
"""

from __future__ import annotations

import csv
import json
import math
import shutil

import duckdb
import pytest
from click.testing import CliRunner
from scipy import stats

from mqcap.build import build
from mqcap.cli import main
from mqcap.generate.history import Shift, write_history_study
from mqcap.ingest import ingest
from mqcap.settings import Settings

from helpers import PROJECT

pytestmark = pytest.mark.e2e

BUILDS = [f"b{i:02d}" for i in range(1, 11)]


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Settings:
    base = tmp_path_factory.mktemp("noise")
    raw = base / "raw"
    write_history_study(
        raw, builds=BUILDS, shifts=[Shift("cpu_us_per_txn", 3.0, "b07", "Baseline")]
    )
    write_history_study(
        raw,
        study="noisy",
        builds=[None],
        replicates=5,
        noise_pct=5.0,
        seed=5,
        shifts=[Shift("round_trip_us", 0.5, configuration="Feature on")],
        noise_settings={"min_change_pct": 0.25, "change_point_pvalue": 0.01},
    )
    write_history_study(
        raw,
        study="ciphers",
        builds=[None],
        replicates=2,
        points=[
            {"message_bytes": 2048, "threads": 1, "labels": {"cipher": "aes"}},
            {"message_bytes": 2048, "threads": 1, "labels": {"cipher": "chacha"}},
        ],
        config_labels={"Baseline": {"protection": "ssl"}, "Feature on": {"protection": "attls"}},
    )
    # A sweep whose thread counts sort differently as text (1, 100, 16, 2).
    write_history_study(
        raw,
        study="sweep",
        builds=[None],
        replicates=1,
        points=[{"message_bytes": 2048, "threads": t} for t in (100, 16, 2, 1)],
    )
    # Two message sizes only: a line through them fits exactly.
    write_history_study(
        raw,
        study="twosizes",
        builds=[None],
        replicates=1,
        points=[{"message_bytes": b, "threads": 1} for b in (2048, 65536)],
    )
    shutil.copytree(PROJECT / "tests" / "fixtures" / "mini_study" / "attls", raw / "attls")
    s = Settings.load(
        warehouse=base / "wh" / "warehouse.duckdb",
        raw=raw,
        reports_out=base / "reports",
        project_root=PROJECT,
    )
    ingest(s)
    assert build(s).ok
    return s


def _rows(s: Settings, sql: str, params=None) -> list[dict]:
    with duckdb.connect(str(s.warehouse), read_only=True) as con:
        rel = con.sql(sql, params=params)
        return [dict(zip(rel.columns, r, strict=True)) for r in rel.fetchall()]


def _results(s: Settings, study: str, run_id: str) -> dict:
    with (s.raw_root / study / run_id / "results.csv").open() as fh:
        return next(csv.DictReader(fh))


def test_replicate_sets_group_the_repeats(built):
    sets = _rows(
        built,
        "select study, count(distinct set_key) as sets, count(distinct series_key) as series, "
        "min(runs_in_set) as lo, max(runs_in_set) as hi, count(*) as runs "
        "from marts.dim_run_set group by study order by study",
    )
    assert sets == [
        {"study": "attls", "sets": 10, "series": 10, "lo": 1, "hi": 1, "runs": 10},
        {"study": "ciphers", "sets": 4, "series": 4, "lo": 2, "hi": 2, "runs": 8},
        {"study": "history", "sets": 20, "series": 2, "lo": 3, "hi": 3, "runs": 60},
        {"study": "noisy", "sets": 2, "series": 2, "lo": 5, "hi": 5, "runs": 10},
        {"study": "sweep", "sets": 8, "series": 8, "lo": 1, "hi": 1, "runs": 8},
        {"study": "twosizes", "sets": 4, "series": 4, "lo": 1, "hi": 1, "runs": 4},
    ]
    # ciphers: the cipher varies inside each configuration, so it is part of the workload
    # point; the protection does not (it describes the configuration). The mini attls study
    # varies no label inside a configuration.
    labels = _rows(
        built,
        "select configuration, point_labels, count(*) as runs from marts.dim_run_set "
        "where study in ('ciphers', 'attls') group by all order by all",
    )
    assert labels == [
        {"configuration": "Baseline", "point_labels": "cipher=aes", "runs": 2},
        {"configuration": "Baseline", "point_labels": "cipher=chacha", "runs": 2},
        {"configuration": "Feature on", "point_labels": "cipher=aes", "runs": 2},
        {"configuration": "Feature on", "point_labels": "cipher=chacha", "runs": 2},
        {"configuration": "MQ + AT-TLS", "point_labels": None, "runs": 5},
        {"configuration": "MQ + System SSL", "point_labels": None, "runs": 5},
    ]
    # Each Feature on set is compared with the Baseline set of its own cipher.
    pairs = _rows(
        built,
        "select distinct point_labels, baseline_set_key from marts.fct_replicate_comparison "
        "where study = 'ciphers' order by 1",
    )
    assert [(p["point_labels"], p["baseline_set_key"].split("[")[1]) for p in pairs] == [
        ("cipher=aes", "cipher=aes]"),
        ("cipher=chacha", "cipher=chacha]"),
    ]


def test_set_statistics_equal_scipy_on_the_raw_files(built):
    runs = [f"b03-c1-2048b-t4-r{r}" for r in (1, 2, 3)]
    values = [float(_results(built, "history", r)["round_trip_us"]) for r in runs]
    (row,) = _rows(
        built,
        "select * from marts.fct_replicate_stats where study = 'history' "
        "and history_label = 'b03' and configuration = 'Baseline' and measure = 'round_trip_us'",
    )
    mean = sum(values) / 3
    low, high = stats.t.interval(0.95, 2, loc=mean, scale=stats.sem(values))
    assert row["n_runs"] == 3 and row["run_ids"] == ", ".join(runs)
    assert row["mean_value"] == pytest.approx(mean, rel=1e-12)
    assert row["sd_value"] == pytest.approx(stats.tstd(values), rel=1e-9)
    assert (row["ci95_low"], row["ci95_high"]) == (
        pytest.approx(low, rel=1e-9),
        pytest.approx(high, rel=1e-9),
    )
    assert row["interval_note"] == "3 runs: 95% t interval" and row["better_when"] == "lower"


def test_welch_comparison_equals_scipy_on_the_raw_files(built):
    base = [
        float(_results(built, "noisy", f"run-c1-2048b-t4-r{r}")["round_trip_us"])
        for r in range(1, 6)
    ]
    var = [
        float(_results(built, "noisy", f"run-c2-2048b-t4-r{r}")["round_trip_us"])
        for r in range(1, 6)
    ]
    (row,) = _rows(
        built,
        "select * from marts.fct_replicate_comparison where study = 'noisy' "
        "and measure = 'round_trip_us'",
    )
    ref = stats.ttest_ind(var, base, equal_var=False)
    ci = ref.confidence_interval(0.95)
    mean_b = sum(base) / 5
    assert row["baseline_source"] == "manifest baseline runs"
    assert (row["baseline_n"], row["variant_n"]) == (5, 5)
    assert row["welch_df"] == pytest.approx(ref.df, rel=1e-9)
    assert row["p_value"] == pytest.approx(ref.pvalue, rel=1e-9)
    assert row["pct_ci95_low"] == pytest.approx(ci.low / mean_b * 100, rel=1e-9)
    assert row["pct_ci95_high"] == pytest.approx(ci.high / mean_b * 100, rel=1e-9)
    # A 0.5% shift inside 5% noise: no significant change, whatever the lower threshold.
    assert row["verdict"] == "no significant change"
    assert row["min_change_pct"] == 0.25
    assert row["threshold"] == "95% Welch interval of the change excludes 0 and |change| >= 0.25%"


def test_single_runs_say_one_run_no_interval(built):
    rows = _rows(
        built,
        "select verdict, count(*) as n, count(pct_change) as with_pct, count(pct_ci95_low) as "
        "with_interval from marts.fct_replicate_comparison where study = 'attls' group by 1",
    )
    assert rows == [
        {
            "verdict": "one run: no interval",
            "n": rows[0]["n"],
            "with_pct": rows[0]["n"],
            "with_interval": 0,
        }
    ]
    assert rows[0]["n"] > 0
    (note,) = _rows(
        built,
        "select distinct interval_note from marts.fct_replicate_stats where study = 'attls'",
    )
    assert note == {"interval_note": "one run: no interval"}


def test_planted_regression_is_the_one_change_point_at_build_b07(built):
    rows = _rows(
        built,
        "select configuration, measure, subject, history_label_before, history_label_after, "
        "within_label, runs_before, runs_after, verdict, pct_change, p_value, mean_before, "
        "mean_after, run_ids_after from marts.fct_change_points where study = 'history' "
        "and measure = 'cpu_us_per_txn' and subject = 'TOTAL'",
    )
    assert len(rows) == 1
    cp = rows[0]
    assert (cp["configuration"], cp["history_label_before"], cp["history_label_after"]) == (
        "Baseline",
        "b06",
        "b07",
    )
    assert (cp["within_label"], cp["runs_before"], cp["runs_after"], cp["verdict"]) == (
        False,
        18,
        12,
        "worse",
    )
    assert 2.0 < cp["pct_change"] < 4.0 and cp["p_value"] < 0.001
    assert cp["run_ids_after"].split(", ")[0] == "b07-c1-2048b-t4-r1"
    # Thresholds: the defaults for `history`, study.yaml's `noise` for `noisy`.
    settings = _rows(
        built,
        "select distinct study, min_change_pct, change_point_pvalue from marts.dim_run_set "
        "where study in ('history', 'noisy') order by study",
    )
    assert settings == [
        {"study": "history", "min_change_pct": 1.0, "change_point_pvalue": 0.001},
        {"study": "noisy", "min_change_pct": 0.25, "change_point_pvalue": 0.01},
    ]
    # The means are those of the runs on each side, from the marts' per-run values.
    (means,) = _rows(
        built,
        "select avg(measure_value) filter (where s.history_order < 7) as before, "
        "avg(measure_value) filter (where s.history_order >= 7) as after "
        "from marts.fct_run_measures m join marts.dim_run_set s using (run_key) "
        "where s.study = 'history' and s.configuration = 'Baseline' "
        "and m.measure = 'cpu_us_per_txn' and m.subject = 'TOTAL'",
    )
    assert cp["mean_before"] == pytest.approx(means["before"], rel=1e-12)
    assert cp["mean_after"] == pytest.approx(means["after"], rel=1e-12)


def _compare(s: Settings, *args: str):
    return CliRunner().invoke(
        main,
        ["-q", "compare", *args, "--warehouse", str(s.warehouse), "--raw", str(s.raw_root)],
        catch_exceptions=False,
    )


def test_compare_two_builds(built):
    out = _compare(built, "b06", "b07", "--format", "json")
    assert out.exit_code == 0, out.output
    rows = json.loads(out.output)
    worse = [
        (r["configuration"], r["measure"], r["subject"]) for r in rows if r["verdict"] == "worse"
    ]
    assert worse == [
        ("Baseline", "cpu_us_per_txn", "CHIN"),
        ("Baseline", "cpu_us_per_txn", "MSTR"),
        ("Baseline", "cpu_us_per_txn", "TOTAL"),
    ]
    assert len(rows) == 10  # 2 configurations x (3 CPU roles + rate + round trip)
    total = next(r for r in rows if r["configuration"] == "Baseline" and r["subject"] == "TOTAL")
    assert (total["a_n"], total["b_n"]) == (3, 3)
    assert total["pct_ci95_low"] > 0 and total["threshold"].endswith("|change| >= 1%")
    table = _compare(built, "b06", "b07")
    assert table.exit_code == 0
    assert table.output.splitlines()[0] == "b07 against b06"
    assert "worse" in table.output and "[+" in table.output
    assert table.output.rstrip().endswith("|change| >= 1%")


def test_compare_two_configurations_and_two_runs(built):
    rows = json.loads(
        _compare(built, "Baseline", "Feature on", "--study", "history", "--format", "json").output
    )
    assert {(r["a_n"], r["b_n"]) for r in rows} == {(30, 30)}
    rows = json.loads(
        _compare(built, "run:attls/ssl-chacha-2k", "attls-chacha-2k", "--format", "json").output
    )
    assert {r["verdict"] for r in rows} == {"one run: no interval"}
    base = float(_results(built, "attls", "ssl-chacha-2k")["round_trip_us"])
    var = float(_results(built, "attls", "attls-chacha-2k")["round_trip_us"])
    trip = next(r for r in rows if r["measure"] == "round_trip_us")
    assert trip["pct_change"] == pytest.approx((var - base) / base * 100, rel=1e-9)
    assert math.isnan(trip["pct_ci95_low"] or math.nan)


def test_compare_lists_points_in_their_numeric_order(built):
    """Thread counts 1, 2, 16, 100 in that order (not the text order 1, 100, 16, 2), and one
    thread said as such."""
    rows = json.loads(
        _compare(built, "Baseline", "Feature on", "--study", "sweep", "--format", "json").output
    )
    points = [r["point"] for r in rows]
    order = [p.split(", ")[3] for p in dict.fromkeys(points)]
    assert order == ["1 thread", "2 threads", "16 threads", "100 threads"], points
    assert len(rows) == 4 * len({(r["measure"], r["subject"]) for r in rows})


def test_a_fit_through_two_sizes_gives_no_cost_per_kb_finding(built):
    """Two points fit any line exactly (R² 1): the fit is in fct_fit, but the findings do not
    present it as a fitted cost per KB."""
    fits = _rows(
        built,
        "select configuration, n_points, r_squared from marts.fct_fit where study = 'twosizes' "
        "and x_name = 'message_bytes' and measure = 'cpu_us_per_txn' and subject = 'TOTAL' "
        "order by configuration",
    )
    assert [(f["configuration"], f["n_points"]) for f in fits] == [
        ("Baseline", 2),
        ("Feature on", 2),
    ]
    assert all(f["r_squared"] == pytest.approx(1.0) for f in fits)
    kinds = _rows(built, "select kind from marts.fct_findings where study = 'twosizes'")
    assert "cost_per_kb" not in {k["kind"] for k in kinds}, kinds


def test_compare_refuses_what_it_cannot_compare(built, tmp_path):
    out = _compare(built, "b06", "Baseline", "--study", "history")
    assert out.exit_code == 2
    assert "compare two of a kind: 'b06' is a build, 'Baseline' a configuration" in out.output
    out = _compare(built, "nothing-like-this", "b07")
    assert out.exit_code == 2 and "'nothing-like-this' is no run id" in out.output
    out = _compare(built, "Baseline", "Feature on")
    assert out.exit_code == 2
    assert (
        "in several studies (ciphers, history, noisy, sweep, twosizes): add --study" in out.output
    )
    target = tmp_path / "cmp.parquet"
    out = _compare(built, "b01", "b02", "--format", "parquet", "-o", str(target))
    assert out.exit_code == 0 and target.exists()


def test_findings_report_no_change_from_inside_the_noise(built):
    # `noisy` (0.5% inside 5% noise): no set differs, so no pair finding at all; `history`
    # leads with its change point, named by the builds on either side, as the mart found it.
    noisy = _rows(
        built,
        "select count(*) as n from marts.fct_replicate_comparison "
        "where study = 'noisy' and verdict <> 'no significant change'",
    )
    assert noisy == [{"n": 0}]
    assert (
        _rows(
            built,
            "select kind, count(*) as n from marts.fct_findings where study = 'noisy' "
            "and kind = 'pair_change' group by kind",
        )
        == []
    )
    (cp,) = _rows(
        built,
        "select pct_change, history_label_before, history_label_after, configuration "
        "from marts.fct_change_points where study = 'history' and subject = 'TOTAL'",
    )
    first = _rows(
        built,
        "select kind, sentence, section_anchor from marts.fct_findings "
        "where study = 'history' order by finding_rank",
    )
    assert first[0]["kind"] == "change_point" and first[0]["section_anchor"] == "sec-changes"
    totals = [f for f in first if f["kind"] == "change_point" and "(" in f["sentence"]]
    assert (
        "CPU per transaction changes between b06 and b07: "
        f"{cp['pct_change']:+.1f}% ({cp['configuration']})."
    ) in [f["sentence"] for f in totals]
    assert (cp["history_label_before"], cp["history_label_after"]) == ("b06", "b07")


def test_report_section_what_changed(built):
    out = CliRunner().invoke(
        main,
        ["-q", "report", "--study", "history", "--format", "html", "--warehouse",
         str(built.warehouse), "--raw", str(built.raw_root), "--reports", str(built.reports_out)],
        catch_exceptions=False,
    )  # fmt: skip
    assert out.exit_code == 0, out.output
    page = (built.reports_out / "history.html").read_text()
    assert 'id="sec-changes"' in page and "What changed" in page
    # Each change-point finding links to the section behind it (it did not while the section's
    # presence was known only after the findings were written).
    findings = page[page.index('id="sec-findings"') : page.index('id="sec-environment"')]
    n_change_points = _rows(
        built,
        "select count(*) as n from marts.fct_findings "
        "where study = 'history' and kind = 'change_point' and is_headline",
    )[0]["n"]
    assert n_change_points >= 1 and findings.count('href="#sec-changes"') >= n_change_points
    body = " ".join(page[page.index('id="sec-changes"') : page.index('id="sec-appendix"')].split())
    # The verdict counts and the change point come from the marts.
    counts = _rows(
        built,
        "select verdict, count(*) as n from marts.fct_replicate_comparison "
        "where study = 'history' group by 1 order by 2 desc, 1",
    )
    total = sum(c["n"] for c in counts)
    assert f"among {total} comparisons with the baseline" in body
    for c in counts:
        assert f"{c['n']} {c['verdict']}" in body
    (cp,) = _rows(
        built,
        "select pct_change, runs_before, runs_after from marts.fct_change_points "
        "where study = 'history' and subject = 'TOTAL'",
    )
    assert f"{cp['pct_change']:+.2f}%" in body and ">b07<" in body
    assert f"{cp['runs_before']} / {cp['runs_after']}" in body
    # Significant changes come first: the first verdict in the first table is not "no ...".
    first_table = body[body.index("<table") : body.index("</table>")]
    verdicts = [v for v in ("better", "worse", "no significant change") if v in first_table]
    assert verdicts and "no significant change" not in first_table
    # One series chart per measure x subject with a change point, the change marked as a rule.
    assert body.count("vegaEmbed(") == 3 and body.count('"strokeDash"') == 3
