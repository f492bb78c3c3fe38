"""`mqcap init` (config file, study templates that load as written), `mqcap shell` (starts,
answers, stays read-only; non-interactive start-up through the real entry point) and
`mqcap open` (the report's path, or what to do)."""

from __future__ import annotations

import subprocess
import sys
import tomllib

import pytest
from click.testing import CliRunner

from mqcap.cli import main
from mqcap.ingest import ingest
from mqcap.scaffold import reads_study_files
from mqcap.settings import find_config


def _cli(settings, *args: str, input: str | None = None):
    return CliRunner().invoke(
        main,
        [
            *args,
            "--warehouse",
            str(settings.warehouse),
            "--raw",
            str(settings.raw_root),
            "--reports",
            str(settings.reports_out),
            "-q",
        ],
        input=input,
        catch_exceptions=False,
    )


def test_init_study_writes_commented_templates_that_load_as_written(settings):
    first = _cli(settings, "init", "attls")
    assert first.exit_code == 0, first.output
    run_yaml = settings.raw_root / "attls" / "run-1" / "run.yaml"
    assert f"wrote {run_yaml}" in first.output
    text = run_yaml.read_text()
    assert "study: attls\nrun: run-1" in text
    assert "# interval:" in text and "# jobs:" in text and "# workload:" in text
    study_yaml = settings.raw_root / "attls" / "study.yaml"
    # study.yaml only where this mqcap reads study files (else it would be set aside).
    assert study_yaml.exists() == reads_study_files()
    report = ingest(settings)
    assert report.set_aside == []
    assert len(report.landed) == 1 + study_yaml.exists()
    # Edited files are never overwritten.
    run_yaml.write_text(text.replace("# description: MQ", "description: mine"))
    again = _cli(settings, "init", "attls")
    assert "kept the files of" in again.output
    assert "description: mine" in run_yaml.read_text()
    second_run = _cli(settings, "init", "attls", "--run", "ssl-2k")
    assert "run: ssl-2k" in (settings.raw_root / "attls" / "ssl-2k" / "run.yaml").read_text()
    assert second_run.exit_code == 0


@pytest.mark.parametrize("name", ["../up", "a/b", "sp ace", ""])
def test_init_refuses_names_that_are_not_folder_names(settings, name):
    result = _cli(settings, "init", name)
    assert result.exit_code == 2
    assert "use letters, digits and _ . + -" in result.output
    assert list(settings.raw_root.iterdir()) == []


def test_init_without_study_writes_a_commented_config_here(settings, tmp_path, monkeypatch):
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    result = _cli(settings, "init")
    assert result.exit_code == 0
    assert f"wrote {work / 'mqcap.toml'}" in result.output
    assert tomllib.loads((work / "mqcap.toml").read_text()) == {}  # every setting commented
    assert find_config(work) == (work / "mqcap.toml", {})
    assert "kept" in _cli(settings, "init").output


SCRIPT = """select count(*) as manifests from landing.run_manifest;
.tables
copy landing.run_manifest to 'leak.csv';
select
  'two lines' as joined;
.quit
select 'never' as after_quit;
"""


def test_shell_answers_statements_over_lines_and_stays_read_only(
    settings, sample_study, tmp_path, monkeypatch
):
    ingest(settings)
    monkeypatch.chdir(tmp_path)
    result = _cli(settings, "shell", input=SCRIPT)
    out = result.output
    assert out.startswith(f"mqcap shell on {settings.warehouse} (read-only).")
    assert "│ 10        │" in out  # ten manifests
    assert "\nlanding (" in out and "driver_results" in out  # .tables, by schema
    assert "error: refused: Permission Error" in out
    assert "two lines" in out and "after_quit" not in out
    assert not (tmp_path / "leak.csv").exists()
    assert result.exit_code == 1  # one statement failed


def test_shell_starts_non_interactively_through_the_entry_point(settings, sample_study):
    ingest(settings)
    proc = subprocess.run(
        [sys.executable, "-m", "mqcap.cli", "--warehouse", str(settings.warehouse), "shell"],
        input="select 6 * 7 as answer;\n",
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert "mqcap shell on" in proc.stdout and "│ 42     │" in proc.stdout


def test_open_prints_the_report_path_or_says_what_to_run(settings):
    missing = _cli(settings, "open", "attls")
    assert missing.exit_code == 2
    assert f"no report at {settings.reports_out / 'attls.html'}: run `mqcap run`" in (
        missing.output
    )
    settings.reports_out.mkdir(parents=True)
    (settings.reports_out / "attls.html").write_text("<p>r</p>")
    (settings.reports_out / "index.html").write_text("<p>i</p>")
    assert _cli(settings, "open", "attls").output == f"{settings.reports_out / 'attls.html'}\n"
    assert _cli(settings, "open").output == f"{settings.reports_out / 'index.html'}\n"
    other = _cli(settings, "open", "keysize")
    assert "(reports there: attls)" in other.output
