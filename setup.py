"""Packaging: everything is in pyproject.toml but one step, which needs code.

A wheel (``pip install .``, ``pipx install .``, ``pip wheel .``) carries the project mqcap runs
(the dbt project, the expectation suites, the report sources, the sample studies and their
scenarios) inside the package, as ``mqcap/project/``, laid out as in the repository:
``mqcap.settings.find_project_root`` finds it there when mqcap is not run from a checkout. The
repository keeps its layout (``models/``, ``reports/``, ``data/sample/``... at the top); the
copy is made here, at build time. An editable install (``pip install -e .``, what ``make``
does) copies nothing: it runs from the checkout.

The wheel also carries the compiled parsers (``native/``, a Rust crate without dependencies,
``cargo build --release --offline``) as ``mqcap/_lib/libmqcap_native.so`` (a data folder, not a
package: the parser registry imports every module of ``mqcap.parsers``), so it is a
platform wheel. Without cargo the wheel is built without them and mqcap parses in Python (the
same rows, slower); ``make`` builds the library into the checkout for an editable install.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

ROOT = Path(__file__).resolve().parent
# Where the project goes inside the package (mqcap.settings.SHIPPED_PROJECT).
TARGET = ("mqcap", "project")
# What mqcap reads besides its code; dbt's own folders are read from dbt_project.yml's *-paths.
FILES = ("dbt_project.yml", "profiles.yml", "packages.yml", "dependencies.yml", "selectors.yml")
FOLDERS = ("expectations", "reports", "data/sample", "data/scenarios")
# Outputs and caches that may sit in those folders in a working copy.
IGNORE = shutil.ignore_patterns(
    "__pycache__", "*.pyc", "_output", ".quarto", "_freeze", "*.duckdb", "*.duckdb.wal", ".*.tmp"
)
# dbt_project.yml keys that name folders dbt writes, not reads.
DBT_WRITES = {"target-path", "clean-targets", "packages-install-path", "log-path"}


def dbt_folders(project: Path) -> list[str]:
    """The folders dbt reads, from the ``*-paths`` lists of ``dbt_project.yml`` (models,
    macros, seeds, tests, analyses, snapshots, docs); read without a YAML library, as the build
    may run where none is installed."""
    text = project.read_text(encoding="utf-8")
    found = {"models", "macros", "seeds"}
    for key, items in re.findall(r"^([\w-]+-paths):\s*\[([^\]]*)\]", text, re.M):
        if key not in DBT_WRITES:
            found |= {i.strip().strip("'\"") for i in items.split(",") if i.strip()}
    return sorted(found)


def project_entries(root: Path = ROOT) -> list[str]:
    """The files and folders (relative to ``root``) that ship as the package's project."""
    names = [*FILES, *dbt_folders(root / "dbt_project.yml"), *FOLDERS]
    return [n for n in dict.fromkeys(names) if (root / n).exists()]


NATIVE_LIB = "libmqcap_native.so"


def cargo() -> str | None:
    """The cargo command: on PATH, or where rustup puts it."""
    found = shutil.which("cargo")
    home = Path(os.environ.get("CARGO_HOME") or Path.home() / ".cargo") / "bin" / "cargo"
    return found or (str(home) if home.is_file() else None)


def build_native(dest: Path) -> Path | None:
    """Build ``native/`` (offline: it has no dependencies) and copy the library to ``dest``;
    None, with a line saying so, when cargo is not there or the build fails."""
    exe = cargo()
    manifest = ROOT / "native" / "Cargo.toml"
    if exe is None or not manifest.is_file():
        print("mqcap: cargo not found: the wheel parses in Python (no compiled parsers)")
        return None
    target = ROOT / "native" / "target"
    cmd = [exe, "build", "--release", "--offline", "--manifest-path", str(manifest)]
    done = subprocess.run([*cmd, "--target-dir", str(target)], check=False)
    if done.returncode:
        print("mqcap: the compiled parsers did not build: the wheel parses in Python")
        return None
    dest.mkdir(parents=True, exist_ok=True)
    shutil.copy2(target / "release" / NATIVE_LIB, dest / NATIVE_LIB)
    return dest / NATIVE_LIB


class PlatformWheel(Distribution):
    """The wheel holds a compiled library: tag it for this platform, not ``py3-none-any``."""

    def has_ext_modules(self) -> bool:
        return True


class BuildWithProject(build_py):
    """``build_py`` that also copies the project, and the compiled parsers, into the package."""

    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return  # editable: the package runs from the checkout, which holds the project
        build_native(Path(self.build_lib, "mqcap", "_lib"))
        target = Path(self.build_lib, *TARGET)
        if target.exists():
            shutil.rmtree(target)
        for name in project_entries():
            source, dest = ROOT / name, target / name
            if source.is_dir():
                shutil.copytree(source, dest, ignore=IGNORE)
            else:
                dest.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(source, dest)


setup(cmdclass={"build_py": BuildWithProject}, distclass=PlatformWheel)
