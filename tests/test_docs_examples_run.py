"""The user guide's worked example of builds with replicates (docs/examples/history, shown in
docs/modelling.md "Builds with replicates") runs through the whole pipeline as the guide says:
two builds, two configurations, two replicates each, every file landed, each build's "Feature
on" replicate set compared with its "Baseline" set. The other worked examples are the bundled
sample studies, which the end-to-end tests run (tests/test_sample_studies.py)."""

from __future__ import annotations

import csv
import shutil
from statistics import mean

import pytest
import yaml

from mqcap.pipeline import run

from helpers import PROJECT, query

pytestmark = pytest.mark.e2e

HISTORY = PROJECT / "docs" / "examples" / "history"


def test_the_guides_builds_with_replicates_example_runs_as_described(settings):
    shutil.copytree(HISTORY, settings.raw_root / "history")
    result = run(settings, reports=False)
    manifests = sorted(HISTORY.glob("*/run.yaml"))
    files = [p for p in HISTORY.rglob("*") if p.is_file()]
    assert result.ingest.set_aside == []
    assert len(result.ingest.landed) == len(files) == 1 + 3 * len(manifests)
    assert result.build is not None and result.build.ok and result.marts.ok

    # Two builds x two configurations x two replicates, as the guide says.
    runs = {yaml.safe_load(p.read_text())["run"]: yaml.safe_load(p.read_text()) for p in manifests}
    sets = query(
        settings,
        """select build, configuration, count(*), min(runs_in_set) from marts.dim_run_set
           where study = 'history' group by all order by all""",
    )
    assert sets == [(b, c, 2, 2) for b in ("b01", "b02") for c in ("Baseline", "Feature on")], sets
    assert len(runs) == 8

    # Each build's "Feature on" set against its "Baseline" set: the means are those of the
    # runs' results.csv files, read here.
    def mean_round_trip(build: str, configuration: str) -> float:
        values = []
        for run_id, m in runs.items():
            if m["build"] == build and m["configuration"] == configuration:
                with open(HISTORY / run_id / "results.csv", newline="") as fh:
                    values += [float(r["round_trip_us"]) for r in csv.DictReader(fh)]
        return mean(values)

    rows = query(
        settings,
        """select history_label, configuration, baseline_configuration, variant_n, baseline_n,
                  variant_mean, baseline_mean, verdict
           from marts.fct_replicate_comparison
           where study = 'history' and measure = 'round_trip_us' order by history_label""",
    )
    assert [r[:5] for r in rows] == [(b, "Feature on", "Baseline", 2, 2) for b in ("b01", "b02")], (
        rows
    )
    for build, *_, variant_mean, baseline_mean, verdict in rows:
        assert variant_mean == pytest.approx(mean_round_trip(build, "Feature on"), rel=1e-12)
        assert baseline_mean == pytest.approx(mean_round_trip(build, "Baseline"), rel=1e-12)
        assert verdict in ("better", "worse", "no significant change")
