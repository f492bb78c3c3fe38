"""Scenario generator: raw MQ performance files in the real formats, from a scenario YAML.

``generate`` expands a scenario (study, configurations x workload points, CPU per address space
per transaction, round trips or rates, channel-status / NETSTAT / crypto behaviour, noise seed)
into one folder per run, ``<out>/<study>/<run>/``, holding ``run.yaml``, ``results.csv``,
``rmf_workload.txt``, and where the scenario asks ``rmf_crypto.txt``, ``chstatus.txt``,
``netstat.txt`` and ``mqsmf.bin``. The files are generated, modelled on published results; they
were not captured on a real system. Same scenario + seed + scale = same bytes.

Example:
    paths = generate(Path("data/scenarios/attls.yaml"), Path("/tmp/raw"), seed=6)
"""

from __future__ import annotations

import warnings
from pathlib import Path

from mqcap.generate.registry import WRITERS
from mqcap.generate.scenario import RunPlan, ScenarioError, expand, load_scenario

__all__ = ["RunPlan", "ScenarioError", "expand", "generate", "load_scenario"]


def generate(
    scenario: dict | Path | str,
    out_dir: Path | str,
    *,
    seed: int | None = None,
    scale: float = 1.0,
) -> list[Path]:
    """Write every run of ``scenario`` under ``out_dir/<study>/`` and return the files written.

    ``seed`` overrides the scenario's ``seed`` (noise only: the scenario's figures stay exact);
    ``scale`` multiplies polls, snapshots and intervals per run (up to 5x) and beyond that
    repeats the runs, for benchmark-sized studies. Runs are written one at a time and each file
    is streamed, so memory stays flat whatever the scale.

    Example:
        generate(load_scenario("data/scenarios/keysize.yaml"), "data/sample")
    """
    doc = scenario if isinstance(scenario, dict) else load_scenario(scenario)
    out = Path(out_dir) / str(doc.get("study", ""))
    written: list[Path] = []
    for plan in expand(doc, seed=seed, scale=scale):
        for note in plan.notes:
            warnings.warn(f"{plan.study}/{plan.run_id}: {note}", stacklevel=2)
        folder = out / plan.run_id
        folder.mkdir(parents=True, exist_ok=True)
        for _name, writer in WRITERS:
            written += writer(plan, folder)
    return written
