"""The dbt process mqcap starts (mqcap.dbt_process): a build writes dbt's manifest.json once,
at the end, with every node the run compiled; the run's results are as dbt's own."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from helpers import layout_settings

pytestmark = pytest.mark.e2e


def _last_invocation(log: Path) -> str:
    """The lines of the last dbt invocation in its log (dbt appends each one)."""
    text = log.read_text()
    return text[text.rindex("Running with dbt=") :]


def test_a_build_writes_its_manifest_once_at_the_end(mini_run: Path):
    settings = layout_settings(mini_run)  # `mqcap run` of the mini study: one full dbt build
    build = _last_invocation(settings.dbt_logs / "dbt.log")
    assert "Command `dbt build` succeeded" in build
    written = [line for line in build.splitlines() if "Wrote artifact" in line]
    # dbt's own build writes WritableManifest and SemanticManifest after the parse and again at
    # the end; here only the end's pair, then the run's results.
    assert [line.split("Wrote artifact ")[1].split(" to ")[0] for line in written] == [
        "WritableManifest",
        "SemanticManifest",
        "RunExecutionResult",
    ]
    manifest = json.loads((settings.dbt_target / "manifest.json").read_text())
    results = json.loads((settings.dbt_target / "run_results.json").read_text())["results"]
    ran = {r["unique_id"] for r in results if r["unique_id"].startswith("model.")}
    assert len(ran) > 80 and ran <= set(manifest["nodes"])
    # The manifest is the run's: each model it ran is there compiled, with its parents.
    for uid in ran:
        node = manifest["nodes"][uid]
        assert node["compiled"] is True and node["compiled_code"], uid
    assert all(uid in manifest["child_map"] for uid in ran)
    assert any(manifest["parent_map"][uid] for uid in ran)
