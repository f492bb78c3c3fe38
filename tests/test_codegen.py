"""Generated files (SMF staging models, SMF expectation suites, the findings' measure names, the
report's sections) come from mqcap.codegen alone, and the committed ones are up to date."""

from __future__ import annotations

import subprocess
import sys

from mqcap.codegen import GENERATED_DIRS, artefacts, stale, write
from mqcap.codegen.smf_staging import STAGED
from mqcap.parsers.smf.structures import STRUCTURES

from helpers import PROJECT


def test_committed_generated_files_are_up_to_date():
    assert stale(PROJECT) == [], "run: python -m mqcap.codegen"


def test_artefacts_are_the_smf_staging_models_and_suites_the_measure_names_and_the_sections():
    files = artefacts()
    n = len(STRUCTURES)
    assert n == 24
    staging = [p for p in files if p.startswith("models/staging/smf/")]
    suites = [p for p in files if p.startswith("expectations/landing.smf_")]
    # One view per structure a model reads, their models YAML and every table's sources YAML.
    assert len(staging) == len(STAGED) + 2 == 7
    assert len(suites) == n  # every landing table is checked, staged or not
    # The macro naming each measure in a finding, from seeds/measures.csv, and the report's
    # sections and the section each finding links to, from mqcap.sections.registry.
    assert len(files) == n + len(STAGED) + 2 + 1 + 2
    assert {"seeds/report_sections.csv", "seeds/finding_sections.csv"} <= set(files)
    assert "when 'round_trip_us' then 'round trip'" in files["macros/measure_text.sql"]
    assert (
        '"generated_by": "python -m mqcap.codegen"' in files["expectations/landing.smf_qcst.json"]
    )


def test_stale_names_a_changed_a_missing_and_an_uninvited_file(tmp_path):
    assert len(write(tmp_path)) == len(artefacts())
    assert stale(tmp_path) == []
    (tmp_path / "models/staging/smf/stg_smf__qcst.sql").write_text("select 1\n")
    (tmp_path / "expectations/landing.smf_wq.json").unlink()
    (tmp_path / GENERATED_DIRS[0] / "stg_smf__old.sql").write_text("select 2\n")
    # Hand-written suites beside the generated ones are not the generator's business.
    (tmp_path / "expectations/landing.driver_results.json").write_text("{}\n")
    assert stale(tmp_path) == [
        "expectations/landing.smf_wq.json",
        "models/staging/smf/stg_smf__old.sql",
        "models/staging/smf/stg_smf__qcst.sql",
    ]
    check = [sys.executable, "-m", "mqcap.codegen", "--check", str(tmp_path)]
    out = subprocess.run(check, capture_output=True, text=True)
    assert out.returncode == 1
    assert "stale: models/staging/smf/stg_smf__qcst.sql" in out.stdout
    assert "3 generated file(s) stale: run python -m mqcap.codegen" in out.stdout
    fix = subprocess.run([*check[:3], str(tmp_path)], capture_output=True, text=True, check=True)
    assert "3 generated file(s) written" in fix.stdout
    assert not (tmp_path / "models/staging/smf/stg_smf__old.sql").exists()
    assert (tmp_path / "expectations/landing.driver_results.json").read_text() == "{}\n"
    assert subprocess.run(check, capture_output=True).returncode == 0


def test_help_and_unknown_options_write_nothing(tmp_path):
    # `--help` was once taken for the project root: 31 files written under a folder "--help".
    for args, code in ((["--help"], 0), (["--bogus"], 2)):
        out = subprocess.run(
            [sys.executable, "-m", "mqcap.codegen", *args],
            cwd=tmp_path,
            capture_output=True,
            text=True,
        )
        assert out.returncode == code, out.stdout + out.stderr
        assert "usage: python -m mqcap.codegen [-h] [--check] [root]" in out.stdout + out.stderr
    assert list(tmp_path.iterdir()) == []
