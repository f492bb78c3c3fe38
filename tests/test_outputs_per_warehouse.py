"""Outputs belong to their warehouse and open offline.

Two warehouses side by side in one folder: each one's reports, Data Docs and dbt target and
logs are in its own `<stem>.mqcap/` folder, and the second pipeline changes nothing of the
first's. Every kind of page mqcap writes (overview, study report, Data Docs index, validation
and suite pages, dbt docs) opens in headless Chromium with no network request and with its
tables filled.
"""

from __future__ import annotations

import hashlib
import re
import shutil
from pathlib import Path

import pytest

from mqcap.build import write_dbt_docs
from mqcap.offline import remote_references
from mqcap.pipeline import run
from mqcap.settings import Settings

from browser_support import load_page
from helpers import PROJECT

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

MINI = PROJECT / "tests" / "fixtures" / "mini_study" / "attls"


def _raw(root: Path, study: str) -> Path:
    shutil.copytree(MINI, root / study)
    for manifest in (root / study).rglob("run.yaml"):
        manifest.write_text(manifest.read_text().replace("study: attls", f"study: {study}"))
    return root


def _digests(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


@pytest.fixture(scope="module")
def pair(tmp_path_factory):
    """alpha (study attls, with dbt docs) then beta (study other) in one folder."""
    base = tmp_path_factory.mktemp("pair")

    def settings(name: str, study: str) -> Settings:
        return Settings.load(
            warehouse=base / f"{name}.duckdb",
            raw=_raw(base / f"raw_{name}", study),
            project_root=PROJECT,
            cwd=base,
        )

    a, b = settings("alpha", "attls"), settings("beta", "other")
    first = run(a, fmt="html")
    assert first.reports and not first.data_problems
    docs = write_dbt_docs(a)
    before = _digests(base / "alpha.mqcap")
    second = run(b, fmt="html")
    assert second.reports and not second.data_problems
    return base, a, docs, before


def test_two_warehouses_side_by_side_never_write_over_each_other(pair):
    base, a, docs, before = pair
    assert a.reports_out == base / "alpha.mqcap" / "reports"
    assert docs == a.reports_out / "dbt-docs.html"
    for part in ("reports/index.html", "reports/attls.html", "reports/data-docs/index.html"):
        assert part in before, part
    assert "dbt/target/run_results.json" in before and "dbt/logs/dbt.log" in before
    assert _digests(base / "alpha.mqcap") == before
    beta = base / "beta.mqcap"
    assert (beta / "reports" / "other.html").exists()
    assert (beta / "dbt" / "target" / "run_results.json").exists()
    assert "other.html" in (beta / "reports" / "index.html").read_text()
    assert "other.html" not in (base / "alpha.mqcap" / "reports" / "index.html").read_text()
    # Beside the warehouses: only the two files, their output folders and the raw roots.
    assert sorted(p.name for p in base.iterdir() if not p.name.startswith("raw_")) == [
        "alpha.duckdb",
        "alpha.mqcap",
        "beta.duckdb",
        "beta.mqcap",
    ]


def test_no_page_mqcap_wrote_refers_to_anything_remote(pair):
    base = pair[0]
    pages = sorted(base.rglob("*.html"))
    assert len(pages) >= 2 * 20
    assert {
        p.name: remote_references(p.read_text()) for p in pages if remote_references(p.read_text())
    } == {}


def _filled_cells(dom: str) -> int:
    return sum(1 for cell in re.findall(r"<td\b[^>]*>(.*?)</td>", dom, re.S) if cell.strip())


def test_every_kind_of_page_opens_offline_with_its_tables_filled(pair, tmp_path):
    reports = pair[1].reports_out
    docs = reports / "data-docs"
    # page, URL fragment, at least this many filled table cells
    pages = {
        "overview": (reports / "index.html", "", 3),
        "study report": (reports / "attls.html", "", 20),
        "Data Docs index": (docs / "index.html", "", 10),
        "Data Docs validation": (next((docs / "validations").rglob("*.html")), "", 5),
        "Data Docs suite": (docs / "expectations" / "marts" / "fct_driver_results.html", "", 2),
        # models/overview.md: the page the dbt docs open on (not dbt's generic welcome)
        "dbt docs overview": (reports / "dbt-docs.html", "#!/overview", 12),
        "dbt docs model": (
            reports / "dbt-docs.html",
            "#!/model/model.mqcap.fct_driver_results",
            5,
        ),
    }
    for kind, (page, fragment, cells) in pages.items():
        got = load_page(page, tmp_path / kind.replace(" ", "_"), fragment)
        assert got.requests == [], f"{kind} fetched {got.requests}"
        assert _filled_cells(got.dom) >= cells, f"{kind}: tables empty"
        assert not [c for c in got.console if "Uncaught" in c], f"{kind}: {got.console}"
        if kind == "dbt docs overview":
            assert "the warehouse's models" in got.dom and "fct_file_reconciliation" in got.dom
    overview = (reports / "index.html").read_text()
    assert 'href="data-docs/index.html"' in overview and 'href="dbt-docs.html"' in overview
