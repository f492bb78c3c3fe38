"""Code run inside the Jupyter kernel that executes report cells is measured by coverage: the
kernel is shut down (not killed) while coverage measures, so it saves its data."""

from __future__ import annotations

import inspect
import os
import subprocess
import sys

from coverage import CoverageData

from mqcap.render.execute import measuring_coverage
from mqcap.sections import labels

SCRIPT = """
import sys
from pathlib import Path
from mqcap.render.qmd import parse_qmd
from mqcap.render.execute import build_notebook, execute_notebook
doc = parse_qmd(Path(sys.argv[1]))
execute_notebook(build_notebook(doc, None), doc)
assert "mqcap.sections.labels" not in sys.modules  # only the kernel runs it
"""

QMD = """---
title: kernel coverage
---

```{python}
from mqcap.sections.labels import size_label
print(size_label(2048))
```
"""


def test_measuring_coverage_follows_the_environment(monkeypatch):
    for name in ("COVERAGE_PROCESS_CONFIG", "COVERAGE_PROCESS_START"):
        monkeypatch.delenv(name, raising=False)
    assert measuring_coverage() is False
    monkeypatch.setenv("COVERAGE_PROCESS_START", "pyproject.toml")
    assert measuring_coverage() is True


def test_lines_run_in_the_report_kernel_are_measured(tmp_path):
    (tmp_path / "doc.qmd").write_text(QMD)
    (tmp_path / "run.py").write_text(SCRIPT)
    rc = tmp_path / ".coveragerc"
    rc.write_text(
        f"[run]\nsource = mqcap\npatch = subprocess\nparallel = true\n"
        f"data_file = {tmp_path / '.coverage'}\n"
    )
    # A clean environment: the coverage of the test run itself (make unit) stays out of it.
    env = {k: v for k, v in os.environ.items() if not k.startswith("COVERAGE_")}
    subprocess.run(
        [sys.executable, "-m", "coverage", "run", f"--rcfile={rc}", "run.py", "doc.qmd"],
        cwd=tmp_path,
        env=env,
        check=True,
        capture_output=True,
        timeout=300,
    )
    files = sorted(tmp_path.glob(".coverage.*"))
    assert len(files) == 2  # the script's process and the kernel's
    source, start = inspect.getsourcelines(labels.size_label)
    body = set(range(start + 1, start + len(source)))
    label_file = inspect.getsourcefile(labels)
    ran = {}
    for f in files:
        data = CoverageData(basename=str(f))
        data.read()
        ran[f.name] = set(data.lines(label_file) or ()) & body
    assert sorted(bool(lines) for lines in ran.values()) == [False, True]


def test_dbt_runs_outside_a_parent_coverage_run(monkeypatch, tmp_path):
    """dbt's process is not measured (mqcap.build.run_dbt): tracing it costs half again its
    CPU; it runs in the warehouse's folder with the file's bare name (mqcap.parse_cache)."""
    import io

    from mqcap import build
    from mqcap.settings import Settings

    from helpers import PROJECT

    seen = {}

    class FakeDbt:
        def __init__(self, cmd, cwd, env, **kw):
            seen.update(cwd=cwd, env=env)
            self.stdout = io.StringIO("")
            self.returncode = 0
            self.pid = os.getpid()  # noted as the build lock's holder (mqcap.lifeline)

        def wait(self):
            return 0

    monkeypatch.setenv("COVERAGE_PROCESS_START", "pyproject.toml")
    monkeypatch.setenv("COVERAGE_PROCESS_CONFIG", "{}")
    monkeypatch.setattr(build.subprocess, "Popen", FakeDbt)
    # A new dbt process for the command (the fake), not a fork of the warm one; both get the
    # same environment (mqcap.build._dbt_command_env).
    monkeypatch.setenv("MQCAP_DBT_WARM", "0")
    s = Settings.load(warehouse=tmp_path / "wh" / "w.duckdb", project_root=PROJECT)
    assert build.run_dbt(s, ["parse"]).returncode == 0
    assert not any(k.startswith("COVERAGE_PROCESS") for k in seen["env"])
    assert seen["cwd"] == tmp_path / "wh" and seen["env"]["MQCAP_WAREHOUSE"] == "w.duckdb"
    assert "COVERAGE_PROCESS_START" in os.environ  # the caller's own environment is unchanged
