"""`pip install .` gives a `mqcap` that works in any folder: the wheel carries the dbt project,
the expectation suites, the report sources and the sample studies (setup.py copies them into
``mqcap/project/``), and an installed mqcap writes only under the user's folder.

The slow tests build the wheel from the checkout's source files (no network), install only it
in a fresh venv (``--no-deps``), and reach the dependencies through a ``.pth`` file naming this
venv's site-packages: a ``.pth`` inside a folder added that way is not read, so the checkout's
editable mqcap never comes along. Then, in an empty folder outside the checkout, they run the
installed ``mqcap``: ``init`` + a study of the user's + ``run``, and ``demo`` on one sample
study; nothing may be written into the checkout or the installed package.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import duckdb
import pytest

import mqcap.settings as settings_mod
from mqcap.build import dbt_executable
from mqcap.render import render_report
from mqcap.settings import Settings, defaults_base, find_project_root, is_shipped

from helpers import FIXTURES, PROJECT

# What the wheel must carry under mqcap/project/ (the repository's layout).
SHIPPED = (
    "dbt_project.yml",
    "profiles.yml",
    "models/marts/dim_run.sql",
    "macros",
    "seeds",
    "expectations/marts.dim_run.json",
    "reports/study.qmd",
    "reports/index.qmd",
    "reports/_quarto.yml",
    "data/sample/streaming",
    "data/sample/attls",
    "data/scenarios/attls.yaml",
)
# Written into a working copy by tools and test runs, never by an installed mqcap.
NOISE = re.compile(
    r"(^|/)(__pycache__|\.pytest_cache|\.hypothesis|\.ruff_cache|htmlcov|[^/]*\.egg-info)(/|$)"
    r"|^\.coverage"
)


# ----------------------------------------------------------------------------- fast
def _fake_project(folder: Path) -> Path:
    (folder / "models").mkdir(parents=True)
    shutil.copy(PROJECT / "dbt_project.yml", folder / "dbt_project.yml")
    return folder


def test_the_checkout_is_its_own_project_and_keeps_its_defaults(tmp_path):
    assert find_project_root(tmp_path) == PROJECT
    assert not is_shipped(PROJECT)
    assert defaults_base(PROJECT, tmp_path) == PROJECT


def test_installed_defaults_are_under_the_current_folder_or_beside_the_config(
    tmp_path, monkeypatch
):
    for name in ("MQCAP_WAREHOUSE", "MQCAP_RAW", "MQCAP_REPORTS_OUT"):
        monkeypatch.delenv(name, raising=False)
    shipped = _fake_project(tmp_path / "site-packages" / "mqcap" / "project")
    monkeypatch.setattr(settings_mod, "SHIPPED_PROJECT", shipped)
    user = tmp_path / "user"
    sub = user / "data" / "raw"
    sub.mkdir(parents=True)
    s = Settings.load(project_root=shipped, cwd=user)
    if s.config_file is None:  # no mqcap.toml above the temporary folder
        assert (s.warehouse, s.raw_root) == (user / "data/warehouse.duckdb", user / "data/raw")
    assert s.sample_root == shipped / "data" / "sample"
    # A mqcap.toml without paths: its defaults are beside it, wherever mqcap runs below it.
    (user / "mqcap.toml").write_text("# all commented\n")
    s = Settings.load(project_root=shipped, cwd=sub)
    assert (s.warehouse, s.raw_root) == (user / "data/warehouse.duckdb", user / "data/raw")
    assert s.reports_out == user / "data" / "warehouse.mqcap" / "reports"


def test_dbt_runs_with_this_interpreter_without_its_script(tmp_path, monkeypatch):
    """No ``dbt`` script beside the interpreter (deps reached through a .pth, a pipx venv's
    script not on PATH): dbt's entry point runs in this interpreter, never a dbt on PATH."""
    real = sys.executable
    monkeypatch.setattr(sys, "executable", str(tmp_path / "bin" / "python"))
    cmd = dbt_executable()
    assert cmd[:2] == [str(tmp_path / "bin" / "python"), "-c"]
    proc = subprocess.run([real, *cmd[1:], "--help"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.startswith("Usage: dbt ")


def test_quarto_renders_an_installed_report_from_a_copy_beside_the_outputs(tmp_path, monkeypatch):
    """Quarto writes ``.quarto/`` beside its sources: sources in the installed package are
    copied to a work folder under the outputs first, and the folder goes afterwards."""
    package = tmp_path / "pkg"
    sources = package / "project" / "reports"
    sources.mkdir(parents=True)
    shutil.copy(FIXTURES / "render" / "report.qmd", sources / "report.qmd")
    monkeypatch.setattr(settings_mod, "PACKAGE_DIR", package)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "quarto"
    fake.write_text(
        "#!/bin/sh\n"
        'pwd >> "$ARGS_LOG"\n'
        "mkdir -p .quarto && touch .quarto/state\n"
        'while [ "$#" -gt 0 ]; do\n'
        '  case "$1" in --output-dir) dir="$2";; --output) name="$2";; esac; shift\n'
        "done\n"
        'echo rendered > "$dir/$name"\n'
    )
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    out = tmp_path / "out"
    log = tmp_path / "args.log"
    result = render_report(
        sources / "report.qmd", out, formats=("html",), env={"ARGS_LOG": str(log)}
    )
    assert result == {"html": out.resolve() / "report.html"}
    (ran_in,) = log.read_text().splitlines()
    assert Path(ran_in).parent == out.resolve()
    assert sorted(p.name for p in sources.iterdir()) == ["report.qmd"]
    assert sorted(p.name for p in out.iterdir()) == ["report.html"]


# ----------------------------------------------------------------------------- slow
def _source_files() -> list[str]:
    """The checkout's files as a fresh clone plus local edits has them (tracked and new, not
    ignored): the wheel is built from these, in a copy, so the build writes nothing here."""
    out = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=PROJECT,
        capture_output=True,
        check=True,
    ).stdout.decode()
    return [name for name in out.split("\0") if name and (PROJECT / name).is_file()]


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """A fresh venv holding only the wheel built from the checkout; its bin folder."""
    root = tmp_path_factory.mktemp("wheel")
    src = root / "src"
    for name in _source_files():
        (src / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(PROJECT / name, src / name)
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "--no-input"]
    subprocess.run(
        [*pip, "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(root / "dist"), src],
        check=True,
        capture_output=True,
    )
    (wheel,) = (root / "dist").glob("mqcap-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    for entry in SHIPPED:
        assert any(n.startswith(f"mqcap/project/{entry}") for n in names), entry
    assert not any(re.search(r"/(_output|\.quarto|target|logs)/", n) for n in names)
    # the compiled parsers, built from native/ by the wheel build: a platform wheel
    assert "mqcap/_lib/libmqcap_native.so" in names
    assert "-py3-none-any" not in wheel.name, wheel.name
    venv = root / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    subprocess.run(
        [*pip, "--python", str(python), "install", "--no-deps", "--no-index", "-q", str(wheel)],
        check=True,
        capture_output=True,
    )
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    (Path(site) / "_mqcap_deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return venv / "bin"


def _env() -> dict[str, str]:
    """This environment without mqcap's settings, PYTHONPATH or the checkout on PATH."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("MQCAP_", "PYTHON", "COV_CORE", "COVERAGE", "VIRTUAL_ENV"))
    }
    env["PATH"] = os.pathsep.join(
        p for p in env.get("PATH", "").split(os.pathsep) if p and not p.startswith(str(PROJECT))
    )
    return env


def _mqcap(bin_dir: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess:
    proc = subprocess.run(
        [str(bin_dir / "mqcap"), *args],
        cwd=cwd,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert proc.returncode == 0, f"mqcap {' '.join(args)}:\n{proc.stdout}\n{proc.stderr}"
    return proc


def _checkout_state() -> set[str]:
    """New and ignored files of the checkout (what a misdirected write would add: target/,
    logs/, a warehouse, reports/_output...), without the caches of tools and test runs."""
    status = ["git", "status", "--porcelain", "--ignored", "--untracked-files=all"]
    out = subprocess.run(
        [*status, "--", ".", ":(exclude).venv"],
        cwd=PROJECT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    return {
        line
        for line in out
        if line[:2] in ("!!", "??")
        and not NOISE.search(line[3:])
        # New source files of concurrent edits are not ours to judge; data and reports are.
        and (line[:2] == "!!" or line[3:].startswith(("data/", "reports/")) or "/" not in line[3:])
    }


def _package_state(bin_dir: Path) -> dict[str, tuple[int, int]]:
    package = next((bin_dir.parent / "lib").glob("python*/site-packages/mqcap"))
    return {
        str(p.relative_to(package)): (p.stat().st_size, p.stat().st_mtime_ns)
        for p in package.rglob("*")
        if "__pycache__" not in p.parts
    }


@pytest.fixture
def user_folder(installed, tmp_path):
    """An empty folder outside the checkout; afterwards: the checkout and the installed package
    are as they were."""
    assert not tmp_path.resolve().is_relative_to(PROJECT)
    probe = subprocess.run(
        [
            str(installed / "python"),
            "-c",
            "import mqcap, mqcap.settings as s; print(mqcap.__file__); "
            "print(s.find_project_root())",
        ],
        cwd=tmp_path,
        env=_env(),
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    venv = installed.parent
    assert Path(probe[0]).is_relative_to(venv), probe
    assert Path(probe[1]) == Path(probe[0]).parent / "project", probe
    checkout, package = _checkout_state(), _package_state(installed)
    yield tmp_path
    assert _package_state(installed) == package
    assert sorted(_checkout_state() - checkout) == []


@pytest.mark.slow
@pytest.mark.ci
def test_installed_mqcap_loads_its_compiled_parsers(installed, user_folder):
    code = "from mqcap.parsers import _native; print(_native.library() is not None)"
    done = subprocess.run(
        [str(installed / "python"), "-c", code],
        cwd=user_folder,
        env=_env(),
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.strip() == "True"


@pytest.mark.e2e
@pytest.mark.slow
@pytest.mark.ci
def test_installed_mqcap_runs_a_users_study_in_an_empty_folder(installed, user_folder):
    here = user_folder
    out = _mqcap(installed, here, "init").stdout
    assert f"wrote {here / 'mqcap.toml'}" in out
    assert f"raw root: {here / 'data' / 'raw'}" in out
    _mqcap(installed, here, "init", "attls")
    raw = here / "data" / "raw" / "attls"
    assert (raw / "run-1" / "run.yaml").is_file()
    shutil.rmtree(raw / "run-1")  # the template's run holds no files yet
    for run in (FIXTURES / "mini_study" / "attls").iterdir():
        shutil.copytree(run, raw / run.name)
    _mqcap(installed, here, "run", "--no-reports", "-q")
    warehouse = here / "data" / "warehouse.duckdb"
    with duckdb.connect(str(warehouse), read_only=True) as con:
        assert con.execute("select count(*) from marts.dim_run").fetchone()[0] == 10
        assert con.execute("select count(*) from marts.fct_driver_results").fetchone()[0] > 0
    assert (here / "data" / "warehouse.mqcap" / "dbt" / "target" / "run_results.json").is_file()
    assert sorted(p.name for p in here.iterdir()) == ["data", "mqcap.toml"]


@pytest.mark.e2e
@pytest.mark.slow
@pytest.mark.ci
def test_installed_mqcap_demo_runs_from_the_shipped_samples(installed, user_folder):
    here = user_folder
    _mqcap(installed, here, "init")
    out = _mqcap(installed, here, "demo", "streaming").stdout
    demo = here / "data" / "demo"
    reports = demo / "warehouse.mqcap" / "reports"
    assert f"report: {reports / 'streaming.html'}" in out
    for name in ("streaming.html", "streaming.pdf", "index.html", "dbt-docs.html"):
        assert (reports / name).is_file(), name
    assert (reports / "data-docs" / "index.html").is_file()
    with duckdb.connect(str(demo / "warehouse.duckdb"), read_only=True) as con:
        studies = con.execute("select distinct study from marts.dim_run").fetchall()
    assert studies == [("streaming",)]
    assert "summary: 9 runs" in out
    # Again with nothing changed: nothing is rendered again, and the demo says so.
    before = {p: p.stat().st_mtime_ns for p in reports.glob("streaming.*")}
    again = _mqcap(installed, here, "demo", "streaming").stdout
    assert "nothing new: warehouse and reports are up to date" in again, again
    assert f"reports (unchanged): {reports / 'index.html'}" in again
    assert {p: p.stat().st_mtime_ns for p in reports.glob("streaming.*")} == before
