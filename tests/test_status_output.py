"""`mqcap status` as a user reads it: a study's study.yaml is counted with its study, never as
a phantom "(no run folder)" line."""

from __future__ import annotations

from click.testing import CliRunner

from mqcap.cli import main
from mqcap.ingest import ingest


def test_a_study_file_is_counted_with_its_study(settings, sample_study):
    (sample_study / "study.yaml").write_text("study: attls\nbaseline: ssl-chacha\n")
    ingest(settings)
    runs = sum(1 for p in sample_study.iterdir() if (p / "run.yaml").is_file())
    files = sum(1 for p in sample_study.rglob("*") if p.is_file())
    out = (
        CliRunner()
        .invoke(
            main,
            ["status", "--warehouse", str(settings.warehouse), "--raw", str(settings.raw_root)],
        )
        .output
    )
    line = next(ln for ln in out.splitlines() if ln.startswith("  attls "))
    assert line.split()[1:5] == [str(runs), "runs", str(files), "files"], out
    assert "(no run folder)" not in out
