from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

# tests/helpers.py is imported as `helpers` by the test modules.
sys.path.insert(0, str(Path(__file__).parent))

from mqcap.settings import Settings

from helpers import PROJECT


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    """Settings on a fresh raw root and warehouse under tmp_path (the project's models/suites)."""
    raw = tmp_path / "raw"
    raw.mkdir()
    return Settings.load(
        warehouse=tmp_path / "wh" / "warehouse.duckdb",
        raw=raw,
        reports_out=tmp_path / "reports",
        project_root=PROJECT,
    )


@pytest.fixture
def sample_study(settings: Settings) -> Path:
    """A fixed ten-run driver-results study (tests/fixtures/mini_study) in the test's raw root."""
    dest = settings.raw_root / "attls"
    shutil.copytree(Path(__file__).parent / "fixtures" / "mini_study" / "attls", dest)
    return dest
