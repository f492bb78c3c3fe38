""" "Up to date" covers all a step is made from: one byte changed in any input owes the step
that reads it again, and only that step (README "Reliability").

The mqcap package is copied to a temporary folder and the fingerprints are computed over the
copy, so a byte can be changed in a report module, the renderer's stylesheet, a module a Python
mart imports, or a module neither reads, without touching the installed package.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import duckdb
import pytest

from mqcap.ledger import codeprint, steps
from mqcap.ledger.steps import StepRow, pipeline_state
from mqcap.settings import Settings

from helpers import PROJECT


@pytest.fixture
def package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    copy = tmp_path / "mqcap"
    shutil.copytree(codeprint.package_root(), copy, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(codeprint, "package_root", lambda: copy)
    return copy


@pytest.fixture
def project_settings(tmp_path: Path) -> Settings:
    return Settings.load(warehouse=tmp_path / "wh" / "w.duckdb", project_root=PROJECT)


def _touch(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data + (b"\n" if path.suffix != ".py" else b"\n# changed\n"))


@pytest.mark.parametrize(
    ("changed", "owes_report", "owes_build"),
    [
        ("sections/tables.py", True, False),  # a report module the .qmd imports
        ("sections/labels.py", True, False),  # imported by another report module
        ("render/report.css", True, False),  # package data beside the renderer
        ("render/report-header.typ", True, False),
        ("render/typst_tables.py", True, False),  # reached through the renderer only
        ("noise.py", False, True),  # imported by the Python marts
        ("parsers/netstat.py", False, False),  # read by neither step
    ],
)
def test_one_changed_byte_owes_the_step_made_from_it(
    package: Path, project_settings: Settings, changed: str, owes_report: bool, owes_build: bool
) -> None:
    before = (steps.reports_fingerprint(project_settings), steps.dbt_fingerprint(project_settings))
    _touch(package / changed)
    after = (steps.reports_fingerprint(project_settings), steps.dbt_fingerprint(project_settings))
    assert (before[0] != after[0], before[1] != after[1]) == (owes_report, owes_build)


def test_a_library_upgrade_owes_the_step(
    package: Path, project_settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = (steps.reports_fingerprint(project_settings), steps.dbt_fingerprint(project_settings))
    real = codeprint.metadata.version
    monkeypatch.setattr(
        codeprint.metadata, "version", lambda d: "99.0" if d == "altair" else real(d)
    )
    mid = (steps.reports_fingerprint(project_settings), steps.dbt_fingerprint(project_settings))
    assert mid[0] != before[0] and mid[1] == before[1]
    monkeypatch.setattr(
        codeprint.metadata, "version", lambda d: "99.0" if d in ("altair", "duckdb") else real(d)
    )
    after = (steps.reports_fingerprint(project_settings), steps.dbt_fingerprint(project_settings))
    assert after[1] != before[1]


def test_the_import_graph_is_read_from_the_import_statements() -> None:
    text = "from mqcap.sections import charts as ch, text\nimport mqcap.noise as n\n"
    assert codeprint.imports_of_text(text) == {
        "mqcap.sections",
        "mqcap.sections.charts",
        "mqcap.sections.text",
        "mqcap.noise",
    }
    # Relative imports inside the package count too.
    assert codeprint.imports_of_text("from .labels import size_label", "mqcap.sections") == {
        "mqcap.sections.labels",
        "mqcap.sections.labels.size_label",
    }
    files = {
        p.relative_to(codeprint.package_root()).as_posix()
        for p in codeprint.module_closure(["mqcap.sections.tables"])
    }
    assert {
        "sections/tables.py",
        "sections/labels.py",
        "sections/__init__.py",
        "__init__.py",
    } <= files
    assert "parsers/netstat.py" not in files


def test_a_rendered_report_is_stale_after_a_report_code_change(
    package: Path, project_settings: Settings
) -> None:
    # A report recorded as rendered from the current inputs is ok; one byte in the report
    # code later, the same record is stale and the report owed (was: "nothing new").
    project_settings.warehouse.parent.mkdir(parents=True)
    duckdb.connect(str(project_settings.warehouse)).close()  # an empty warehouse
    state = pipeline_state(project_settings)
    out = project_settings.reports_out / "s.html"
    out.parent.mkdir(parents=True)
    out.write_text("report")
    st = out.stat()
    row = StepRow(
        1, "report", "s", "html", "done", state.report_inputs("s", "html"), None, None,
        str(out), st.st_size, st.st_mtime_ns, None, None,
    )  # fmt: skip
    state.rows[("report", "s", "html")] = [row]
    assert state.report_state("s", "html") == "ok"
    _touch(package / "sections" / "charts.py")
    fresh = pipeline_state(project_settings)
    fresh.rows[("report", "s", "html")] = [row]
    assert fresh.report_state("s", "html") == "stale"
