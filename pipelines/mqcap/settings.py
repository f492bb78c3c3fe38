"""One typed settings object: every path mqcap uses comes from here.

Environment variables override the defaults, and CLI options override both:
``MQCAP_WAREHOUSE`` (``--warehouse``), ``MQCAP_RAW`` (``--raw``), ``MQCAP_REPORTS_OUT``.
Relative paths are taken from the project root (the folder holding ``dbt_project.yml``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent


def find_project_root(start: Path | None = None) -> Path:
    """The folder with ``dbt_project.yml``: from ``start`` (cwd) upwards, else the source tree.

    Example:
        >>> (find_project_root() / "dbt_project.yml").exists()
        True
    """
    for folder in [(start or Path.cwd()).resolve(), *(start or Path.cwd()).resolve().parents]:
        if (folder / "dbt_project.yml").exists() and (folder / "models").is_dir():
            return folder
    # Installed editable from the repository: pipelines/mqcap -> repository root.
    candidate = PACKAGE_DIR.parent.parent
    if (candidate / "dbt_project.yml").exists():
        return candidate
    raise FileNotFoundError("cannot find the mqcap project root (a folder with dbt_project.yml)")


@dataclass(frozen=True)
class Settings:
    """Paths and defaults for one invocation.

    Example:
        s = Settings.load(warehouse="/tmp/w.duckdb")
        s.warehouse  # PosixPath('/tmp/w.duckdb')
    """

    project_root: Path
    warehouse: Path
    raw_root: Path
    sample_root: Path
    reports_src: Path
    reports_out: Path
    expectations_dir: Path
    quiet: bool = False

    @classmethod
    def load(
        cls,
        *,
        warehouse: str | os.PathLike | None = None,
        raw: str | os.PathLike | None = None,
        reports_out: str | os.PathLike | None = None,
        quiet: bool = False,
        project_root: Path | None = None,
    ) -> Settings:
        root = project_root or find_project_root()

        def pick(option, env: str, default: str) -> Path:
            value = option if option is not None else os.environ.get(env) or default
            path = Path(value).expanduser()
            return (path if path.is_absolute() else root / path).resolve()

        return cls(
            project_root=root,
            warehouse=pick(warehouse, "MQCAP_WAREHOUSE", "data/warehouse.duckdb"),
            raw_root=pick(raw, "MQCAP_RAW", "data/raw"),
            sample_root=root / "data" / "sample",
            reports_src=root / "reports",
            reports_out=pick(reports_out, "MQCAP_REPORTS_OUT", "reports/_output"),
            expectations_dir=root / "expectations",
            quiet=quiet,
        )

    def with_(self, **changes) -> Settings:
        return replace(self, **changes)

    @property
    def dbt_env(self) -> dict[str, str]:
        """Environment for a dbt subprocess: same warehouse, no network calls home."""
        env = dict(os.environ)
        env["MQCAP_WAREHOUSE"] = str(self.warehouse)
        env["DBT_SEND_ANONYMOUS_USAGE_STATS"] = "False"
        env["DBT_PROFILES_DIR"] = str(self.project_root)
        env["DBT_PROJECT_DIR"] = str(self.project_root)
        env["DBT_LOG_PATH"] = str(self.warehouse.parent / "logs")
        env["DBT_TARGET_PATH"] = str(self.warehouse.parent / "target")
        env["DBT_USE_COLORS"] = "False"
        return env
