"""The user guide (docs/, mkdocs.yml) and the README: the guide builds offline with
``mkdocs build --strict``, every link and anchor in it and in the README leads somewhere, and
the worked examples it includes are real files that mqcap's own parsers accept.

Example:
    .venv/bin/python -m pytest tests/test_docs.py -q
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from mqcap.parsers import manifest, study
from mqcap.parsers.base import ParseContext

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
EXAMPLES = DOCS / "examples"
# The field-by-field reference files: parsed, but their baselines name runs of a study that
# is not there (they document every field, they are not a study).
REFERENCE = EXAMPLES / "reference"
# `--8<-- "path"` or `--8<-- "path:start:end"` (pymdownx.snippets), one per line.
SNIPPET = re.compile(r'^\s*--8<--\s+"([^"]+)"\s*$', re.M)
README_LINK = re.compile(r"\]\(([^)\s]+)\)")
# The arguments docs/examples/history was generated with (see test below).
HISTORY_ARGS = {
    "study": "history",
    "builds": ["b01", "b02"],
    "replicates": 2,
    "noise_settings": {"min_change_pct": 1, "change_point_pvalue": 0.001},
}
# Every study shape the guide promises a worked example of: its heading in modelling.md.
SHAPES = (
    "Message-size sweep",
    "Thread sweep with scenarios and models",
    "Rate targets",
    "Channel start and stop",
    "Builds with replicates",
    "Distributed statistics (amqsrua, amqsmon)",
)


class _Page(HTMLParser):
    """The ids a page defines and the links and resources it refers to."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.links: list[str] = []
        self.resources: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        for key in ("id", "name") if tag == "a" else ("id",):
            if a.get(key):
                self.ids.add(a[key])
        if tag == "a" and a.get("href"):
            self.links.append(a["href"])
        if tag in ("script", "img", "iframe", "source") and a.get("src"):
            self.resources.append(a["src"])
        if tag == "link" and a.get("href"):
            self.resources.append(a["href"])
            self.links.append(a["href"])


def _parse(path: Path) -> _Page:
    page = _Page()
    page.feed(path.read_text(encoding="utf-8"))
    return page


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """The guide, built as `make docs` builds it, into a temporary folder.

    Not with --quiet: mkdocs then drops the warnings that --strict counts, and builds anyway."""
    out = tmp_path_factory.mktemp("docs") / "site"
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(out)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, f"mkdocs build --strict failed:\n{proc.stdout}\n{proc.stderr}"
    return out


@pytest.fixture(scope="module")
def pages(site: Path) -> dict[Path, _Page]:
    return {p: _parse(p) for p in site.rglob("*.html")}


def _external(url: str) -> bool:
    return urlsplit(url).scheme in ("http", "https", "mailto", "data", "javascript") or (
        url.startswith("//")
    )


def test_the_guide_builds_strict_with_every_page_of_the_nav(site: Path):
    names = {p.name for p in site.glob("*.html")}
    for page in (
        "index.html",
        "modelling.html",
        "reading-a-report.html",
        "domain.html",
        "sources.html",
        "formats.html",
        "settings.html",
        "engines.html",
        "reliability.html",
        "benchmarks.html",
        "developer.html",
    ):
        assert page in names


def test_every_internal_link_and_anchor_of_the_built_guide_resolves(
    site: Path, pages: dict[Path, _Page]
):
    broken = []
    checked = 0
    for path, page in pages.items():
        if path.name == "404.html":  # a web server's error page: links from the site root
            continue
        for href in page.links:
            if _external(href):
                continue
            parts = urlsplit(href)
            target = path if not parts.path else (path.parent / unquote(parts.path)).resolve()
            if target.is_dir():
                target = target / "index.html"
            checked += 1
            if not target.is_file():
                broken.append(f"{path.relative_to(site)}: {href} (no such file)")
                continue
            fragment = unquote(parts.fragment)
            if fragment and target.suffix == ".html":
                ids = pages[target].ids if target in pages else _parse(target).ids
                if fragment not in ids:
                    broken.append(f"{path.relative_to(site)}: {href} (no anchor {fragment!r})")
    assert checked > 100  # the nav alone links every page from every page
    assert broken == []


def test_the_built_guide_loads_nothing_from_the_network(pages: dict[Path, _Page]):
    fetched = [
        f"{path.name}: {url}"
        for path, page in pages.items()
        for url in page.resources
        if _external(url) and not url.startswith("data:")
    ]
    assert fetched == []


def test_every_relative_link_of_the_readme_resolves(site: Path, pages: dict[Path, _Page]):
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    links = [u for u in README_LINK.findall(text) if not _external(u)]
    assert len(links) >= 10
    broken = []
    for link in links:
        parts = urlsplit(link)
        target = ROOT / unquote(parts.path)
        if not target.exists():
            broken.append(f"{link} (no such file)")
            continue
        if parts.fragment:
            # A guide page's anchors are the ids mkdocs gives its headings.
            assert target.parent == DOCS, f"{link}: anchors are checked in docs/ pages only"
            built = site / target.with_suffix(".html").name
            if parts.fragment not in pages[built].ids:
                broken.append(f"{link} (no anchor {parts.fragment!r})")
    assert broken == []


def test_the_readme_stays_short_and_names_every_command():
    from mqcap.cli import main

    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 200, "move detail into the guide (docs/), the README is the front door"
    text = "\n".join(lines)
    missing = [name for name in main.commands if f"`mqcap {name}" not in text]
    assert missing == []
    for kept in ("make demo", "make test", ".ci/run"):
        assert kept in text


def _included() -> list[tuple[Path, str]]:
    """(page, snippet path) for every file a guide page includes."""
    found = []
    for page in sorted(DOCS.glob("*.md")):
        for ref in SNIPPET.findall(page.read_text(encoding="utf-8")):
            found.append((page, re.sub(r"(:\d*)+$", "", ref)))
    return found


def _load(path: Path) -> dict:
    """A run.yaml or study.yaml through mqcap's own parser, named as ingest names it."""
    if path.name == "study.yaml":
        ctx = ParseContext(path=path, source_file=f"{path.parent.name}/study.yaml")
        return study.load(ctx)
    source = f"{path.parent.parent.name}/{path.parent.name}/{path.name}"
    return manifest.load(ParseContext(path=path, source_file=source))


def test_every_included_file_exists_and_every_included_manifest_parses():
    included = _included()
    assert len(included) >= 15
    missing = [f"{page.name}: {ref}" for page, ref in included if not (ROOT / ref).is_file()]
    assert missing == []
    parsed = 0
    for _page, ref in included:
        path = ROOT / ref
        if path.name in ("run.yaml", "study.yaml"):
            doc = _load(path)
            assert (
                doc["study"]
                == (path.parent if path.name == "study.yaml" else path.parent.parent).name
            )
            parsed += 1
    assert parsed >= 15


def test_every_shape_of_the_modelling_page_has_a_worked_example():
    text = (DOCS / "modelling.md").read_text(encoding="utf-8")
    sections = re.split(r"^### ", text, flags=re.M)
    for shape in SHAPES:
        body = next((s for s in sections if s.startswith(shape + "\n")), None)
        assert body is not None, f"no section {shape!r} in modelling.md"
        refs = SNIPPET.findall(body)
        assert any(r.endswith(("run.yaml", "study.yaml")) for r in refs), shape


def _runs_of(study_dir: Path) -> set[str]:
    return {_load(p)["run"] for p in study_dir.glob("*/run.yaml")}


def test_example_studies_parse_and_name_baselines_that_are_runs_of_their_study():
    """Every manifest under docs/examples/ and every sample the guide includes: parsed by
    mqcap's parsers, and each `baseline:` is a run of the same study (ingest would hold the run
    back otherwise)."""
    manifests = {p for p in EXAMPLES.rglob("run.yaml")}
    manifests |= {ROOT / ref for _page, ref in _included() if ref.endswith("run.yaml")}
    assert len(manifests) >= 10
    runs: dict[Path, set[str]] = {}
    for path in sorted(manifests):
        doc = _load(path)
        if REFERENCE in path.parents or doc["baseline"] is None:
            continue
        study_dir = path.parent.parent
        runs.setdefault(study_dir, _runs_of(study_dir))
        assert doc["baseline"] in runs[study_dir], f"{path}: baseline {doc['baseline']!r}"
    for path in EXAMPLES.rglob("study.yaml"):
        doc = _load(path)
        assert doc["study"] == path.parent.name


def test_the_builds_example_is_a_fresh_generation(tmp_path: Path):
    """docs/examples/history is write_history_study's output: regenerate it with the arguments
    in HISTORY_ARGS (``write_history_study("docs/examples", **HISTORY_ARGS)``)."""
    from mqcap.generate.history import write_history_study

    write_history_study(tmp_path, **HISTORY_ARGS)
    fresh = {p.relative_to(tmp_path): p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    committed = {
        p.relative_to(EXAMPLES): p.read_bytes()
        for p in (EXAMPLES / "history").rglob("*")
        if p.is_file()
    }
    assert sorted(committed) == sorted(fresh)
    assert [k for k in fresh if fresh[k] != committed[k]] == []
