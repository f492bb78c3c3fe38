"""Data Docs say what each check saw and what it checked: a validation result page shows each
expectation's observed value (a row count, the share of values outside a range), names the table
validated as its data asset and the pass as its run (``landing checks of 20 landed file(s)``,
``mart checks``), not GX's ``--``, ``None`` and ``__none__``. The figures expected are read from
the warehouse with SQL."""

from __future__ import annotations

import json
import re
import shutil
from html.parser import HTMLParser
from pathlib import Path

import duckdb
import pytest

from mqcap import validate as validate_mod
from mqcap.pipeline import run
from mqcap.settings import Settings
from mqcap.validate import data_docs_index, load_suites, validate

from helpers import PROJECT

pytestmark = pytest.mark.e2e

TABLE_LEVEL = "Table-Level Expectations"


class Page(HTMLParser):
    """One Data Docs validation result page as text: its words, and the rows of its tables
    (cell texts) under the heading they follow (a column's name, or ``Table-Level
    Expectations``)."""

    def __init__(self, path: Path):
        super().__init__()
        self.path = path
        self.words: list[str] = []
        self.rows: list[tuple[str | None, list[str]]] = []
        self._heading: str | None = None
        self._h5: list[str] | None = None
        self._open_rows: list[list[str]] = []
        self._open_cells: list[list[str]] = []
        self._skip = 0  # inside <script> or <style>
        self.feed(path.read_text())

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style"):
            self._skip += 1
        elif tag == "h5":
            self._h5 = []
        elif tag == "tr":
            self._open_rows.append([])
        elif tag in ("td", "th") and self._open_rows:
            self._open_cells.append([])

    def handle_endtag(self, tag):
        if tag in ("script", "style"):
            self._skip -= 1
        elif tag == "h5" and self._h5 is not None:
            self._heading, self._h5 = " ".join(self._h5), None
        elif tag in ("td", "th") and self._open_cells:
            self._open_rows[-1].append(" ".join(self._open_cells.pop()))
        elif tag == "tr" and self._open_rows:
            self.rows.append((self._heading, self._open_rows.pop()))

    def handle_data(self, data):
        if self._skip:
            return
        words = data.split()
        self.words += words
        for buf in [self._h5, *self._open_cells]:
            if buf is not None:
                buf += words

    def _between(self, label: str, end: str) -> str:
        found = re.findall(rf"{re.escape(label)} (.*?) {re.escape(end)}", " ".join(self.words))
        assert len(found) == 1, (self.path, label, found)
        return found[0]

    @property
    def suite(self) -> str:
        return self._between("Expectation Suite:", "Data asset:")

    @property
    def data_asset(self) -> str:
        return self._between("Data asset:", "Status:")

    @property
    def status(self) -> str:
        return self._between("Status:", "Statistics")

    def info(self, name: str) -> str:
        """A value of the page's Info table (``Run Name``, ``Run Time``)."""
        got = [cells[1] for _, cells in self.rows if len(cells) == 2 and cells[0] == name]
        assert len(got) == 1, (self.path, name, got)
        return got[0]

    def observed(self, heading: str, expectation: str) -> str:
        """The Observed Value of the one expectation under ``heading`` whose text starts
        with ``expectation``."""
        got = [
            cells[2]
            for h, cells in self.rows
            if h == heading and len(cells) == 3 and cells[1].startswith(expectation)
        ]
        assert len(got) == 1, (self.path, heading, expectation, self.rows)
        return got[0]


def _pages(settings: Settings) -> dict[tuple[str, str], Page]:
    """Every validation result page of ``settings``' Data Docs by (suite, run name)."""
    pages: dict[tuple[str, str], Page] = {}
    for path in sorted((data_docs_index(settings).parent / "validations").rglob("*.html")):
        page = Page(path)
        key = (page.suite, page.info("Run Name"))
        assert key not in pages, (key, path, pages.get(key) and pages[key].path)
        pages[key] = page
    return pages


def _one(settings: Settings, sql: str):
    with duckdb.connect(str(settings.warehouse), read_only=True) as con:
        return con.execute(sql).fetchone()[0]


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> tuple[Settings, object]:
    """The ten-run mini study (tests/fixtures/mini_study) through ``mqcap run`` without
    reports: landing checks, the dbt build, the mart checks and their Data Docs."""
    root = tmp_path_factory.mktemp("data-docs")
    shutil.copytree(PROJECT / "tests" / "fixtures" / "mini_study" / "attls", root / "raw" / "attls")
    settings = Settings.load(
        warehouse=root / "wh" / "warehouse.duckdb",
        raw=root / "raw",
        reports_out=root / "reports",
        project_root=PROJECT,
    )
    # Results another module left in this process's GX store (a direct _gx_run call files its
    # result there, and only validate() clears it) would be pages of these Data Docs too.
    store = validate_mod._gx_context()[1].validation_results_store
    for key in store.list_keys():
        store.remove_key(key)
    result = run(settings, reports=False)
    assert result.landing.ok and result.marts.ok, [f.message() for f in result.marts.failures]
    return settings, result


def test_every_page_names_its_table_and_its_pass(built):
    settings, result = built
    files = _one(settings, "select count(*) from meta.ingest_ledger where status = 'loaded'")
    assert files == len(result.ingest.landed) == 20
    landing_run = f"landing checks of {files} landed file(s)"
    expected = {(r.suite, landing_run) for r in result.landing.results}
    expected |= {(r.suite, "mart checks") for r in result.marts.results}
    pages = _pages(settings)
    assert sorted(pages) == sorted(expected)
    assert len(result.landing.results) >= 3 and len(result.marts.results) >= 20
    for (suite, _), page in pages.items():
        # A suite is named after its table (load_suites checks it).
        assert page.data_asset == suite, page.path
        assert page.status == "Succeeded", page.path
    run_times = {page.info("Run Time") for page in pages.values()}
    assert len(run_times) == 2  # one per pass, shared by its suites


def test_row_count_page_shows_the_rows_it_counted(built):
    settings, _ = built
    rows = _one(settings, "select count(*) from landing.driver_results")
    files = _one(settings, "select count(*) from meta.ingest_ledger where status = 'loaded'")
    page = _pages(settings)[("landing.driver_results", f"landing checks of {files} landed file(s)")]
    # The expected count is the ledger's; the observed one is what the table held.
    assert page.observed(TABLE_LEVEL, f"Must have exactly {rows} rows.") == str(rows)
    assert rows >= 10


def test_failed_check_shows_the_share_of_rows_outside_its_range(built, tmp_path):
    settings, _ = built
    broken = settings.with_(
        warehouse=tmp_path / "wh" / "warehouse.duckdb", reports_out=tmp_path / "reports"
    )
    broken.warehouse.parent.mkdir()
    shutil.copy(settings.warehouse, broken.warehouse)
    suite = next(s for s in load_suites(settings) if s["name"] == "marts.fct_driver_results")
    kwargs = next(
        e["kwargs"]
        for e in suite["expectations"]
        if e["type"] == "expect_column_values_to_be_between"
        and e["kwargs"]["column"] == "round_trip_us"
    )
    lo, hi = kwargs["min_value"], kwargs["max_value"]
    assert kwargs.get("strict_min") and not kwargs.get("strict_max"), kwargs
    with duckdb.connect(str(broken.warehouse)) as con:
        con.execute(
            """update marts.fct_driver_results set round_trip_us = -1
               where run_key = (select min(run_key) from marts.fct_driver_results)"""
        )
        outside, values = con.execute(
            f"""select count(*) filter (where not (round_trip_us > {lo}
                                                   and round_trip_us <= {hi})),
                       count(round_trip_us)
                from marts.fct_driver_results"""
        ).fetchone()
    share = 100 * outside / values
    assert outside == 1 and share == round(share, 3), (outside, values)

    source = validate_mod._gx_context()[2]
    assets = [a.name for a in source.assets]
    assert "marts.fct_driver_results" in assets  # made by the pipeline's mart pass
    report = validate(broken, "mart")
    assert [a.name for a in source.assets] == assets  # kept, not made again per validation
    assert [(f.suite, f.column, f.unexpected) for f in report.failures] == [
        ("marts.fct_driver_results", "round_trip_us", outside)
    ]
    pages = _pages(broken)
    first = pages[("marts.fct_driver_results", "mart checks")]
    assert (first.data_asset, first.status) == ("marts.fct_driver_results", "Failed")
    expectation = f"values must be greater than {float(lo)} and less than or equal to {float(hi)}"
    assert first.observed("round_trip_us", expectation) == f"{share:g}% unexpected"
    # The failed check again, with the rows it names: a page of its own, beside the first.
    detail = pages[("marts.fct_driver_results", "mart checks, failure detail")]
    assert detail.data_asset == "marts.fct_driver_results"
    assert detail.observed("round_trip_us", expectation) == f"{share:g}% unexpected"
    assert detail.info("Run Time") == first.info("Run Time")
    assert sorted(k[1] for k in pages if k[0] == "marts.fct_driver_results") == [
        "mart checks",
        "mart checks, failure detail",
    ]


def test_suite_pages_are_rendered_again_only_when_missing_or_changed(built, tmp_path):
    """GX renders every suite's page on every build; mqcap asks only for the validation pages
    of the pass and the suite pages whose expectations differ from what the page shows (a
    record beside them) or that are gone."""
    settings, _ = built
    copy = settings.with_(
        warehouse=tmp_path / "wh" / "warehouse.duckdb", reports_out=tmp_path / "reports"
    )
    copy.warehouse.parent.mkdir()
    shutil.copy(settings.warehouse, copy.warehouse)
    shutil.copytree(settings.reports_out, copy.reports_out)
    pages = data_docs_index(copy).parent / "expectations"
    record = pages / ".mqcap-pages.json"

    def stamps() -> dict[str, int]:
        return {
            p.relative_to(pages).as_posix(): p.stat().st_mtime_ns for p in pages.rglob("*.html")
        }

    validate(copy, "mart")  # renders what another test of this process left owed
    before = stamps()
    assert len([p for p in before if p.startswith("marts/")]) >= 20
    results = set((pages.parent / "validations").rglob("*.html"))
    assert validate(copy, "mart").ok
    assert stamps() == before  # no suite page rendered again
    # ... while the pass's own results are (pages of the last result per suite, new run time)
    now = set((pages.parent / "validations").rglob("*.html"))
    assert len(now) == len(results) >= 20 and now.isdisjoint(results)

    (pages / "marts" / "dim_run.html").unlink()
    digests = json.loads(record.read_text())
    digests["marts.fct_driver_results"] = "an older suite"
    record.write_text(json.dumps(digests))
    assert validate(copy, "mart").ok
    after = stamps()
    again = sorted(p for p in after if after[p] != before.get(p))
    assert again == ["marts/dim_run.html", "marts/fct_driver_results.html"]
    assert json.loads(record.read_text())["marts.fct_driver_results"] != "an older suite"
