"""The study report's sections come from one registry (mqcap.sections.registry): the seeds
python -m mqcap.codegen writes from it, the headings of reports/study.qmd and the anchors
fct_findings links to all name its sections, and nothing else."""

from __future__ import annotations

import csv
import json
import re

import duckdb
import pytest

from mqcap.codegen import artefacts, stale
from mqcap.sections import registry as reg

from helpers import PROJECT, layout_settings

SEEDS = ("seeds/report_sections.csv", "seeds/finding_sections.csv")
QMD = PROJECT / "reports" / "study.qmd"
FINDINGS_SQL = PROJECT / "models" / "marts" / "fct_findings.sql"


def _seed(rel: str) -> list[dict[str, str]]:
    with (PROJECT / rel).open(newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


# ------------------------------------------------------------------------------ the registry


def test_the_registry_names_each_anchor_and_each_finding_link_once():
    anchors = [s.anchor for s in reg.SECTIONS]
    assert len(anchors) == len(set(anchors)) == len(reg.SECTIONS_BY_ANCHOR) >= 15
    links = reg.finding_links()  # raises on a link named twice
    assert len(links) >= 10
    assert all(s.title and s.marts for s in reg.SECTIONS)


def test_the_marts_a_section_reads_are_marts():
    marts = {
        p.stem for p in (PROJECT / "models" / "marts").iterdir() if p.suffix in (".sql", ".py")
    }
    unknown = sorted({(s.anchor, m) for s in reg.SECTIONS for m in s.marts if m not in marts})
    assert unknown == []


def test_an_anchor_the_registry_does_not_list_fails():
    assert reg.heading("sec-fits") == "\n# Cost as a function of message size {#sec-fits}\n"
    assert reg.linkable({"sec-fits": True, "sec-cost": False}) == reg.always_shown() | {"sec-fits"}
    with pytest.raises(KeyError, match="sec-nowhere"):
        reg.linkable({"sec-fits": True, "sec-nowhere": True})
    with pytest.raises(KeyError, match="sec-nowhere"):
        reg.heading("sec-nowhere")


# ----------------------------------------------------------------------------- (a) the seeds


def test_the_seeds_are_the_registry_written_by_codegen():
    assert [p for p in stale(PROJECT) if p in SEEDS] == [], "run: python -m mqcap.codegen"
    assert set(SEEDS) <= set(artefacts())
    rows = _seed(SEEDS[0])
    assert [r["anchor"] for r in rows] == [s.anchor for s in reg.SECTIONS]
    assert [r["title"] for r in rows] == [s.title for s in reg.SECTIONS]
    assert [int(r["sort_order"]) for r in rows] == list(range(1, len(rows) + 1))
    links = _seed(SEEDS[1])
    assert {r["section_anchor"] for r in links} <= set(reg.SECTIONS_BY_ANCHOR)
    assert [(r["kind"], r["measure"], r["section_anchor"]) for r in links] == [
        (link.kind, link.measure, anchor) for link, anchor in reg.finding_links()
    ]
    assert all(r["finding_link"] == f"{r['kind']}|{r['measure']}" for r in links)


# --------------------------------------------------------------------------- (b) study.qmd


def _parts(text: str) -> tuple[list[str], list[str]]:
    """The qmd's markdown between code cells and its code cells, each in order."""
    parts = re.split(r"^```", text, flags=re.MULTILINE)
    return parts[0::2], parts[1::2]


_STATIC = re.compile(r"^# (.+?)(?: \{#([^}]+)\})?$", re.MULTILINE)
_CALL = re.compile(r"""\b(?:section|reg\.heading)\(\s*"([^"]+)\"""")


def _qmd_sections(text: str) -> list[str]:
    """Anchors of the qmd's level-1 headings, static or printed by a cell, in order."""
    markdown, code = _parts(text)
    out = []
    for n, part in enumerate(markdown):
        out += [m.group(2) or f"(no anchor: {m.group(1)})" for m in _STATIC.finditer(part)]
        out += _CALL.findall(code[n]) if n < len(code) else []
    return out


def test_every_heading_of_the_report_is_a_registry_section_in_its_order():
    text = QMD.read_text()
    assert _qmd_sections(text) == [s.anchor for s in reg.SECTIONS]


def test_static_headings_print_the_registry_title_and_the_others_come_from_cells():
    markdown, _ = _parts(QMD.read_text())
    static = {m.group(2): m.group(1) for part in markdown for m in _STATIC.finditer(part)}
    assert static == {s.anchor: s.title for s in reg.SECTIONS if s.always}


def test_every_anchor_the_report_names_is_a_registry_anchor():
    text = QMD.read_text()
    named = set(re.findall(r"""["'{(]#?(sec-[a-z0-9-]+)""", text))
    assert named - set(reg.SECTIONS_BY_ANCHOR) == set()
    # The presence checks name real sections (reg.linkable fails on another at render time).
    present = re.search(r"reg\.linkable\(\{(.*?)\}\)", text, re.DOTALL)
    assert present is not None
    keys = re.findall(r'"([^"]+)":', present.group(1))
    assert len(keys) >= 10 and set(keys) <= set(reg.SECTIONS_BY_ANCHOR)


def test_the_qmd_checks_find_a_section_the_registry_lacks():
    text = QMD.read_text()
    extra = text.replace('section(\n        "sec-crypto"', 'section(\n        "sec-cryptography"')
    assert "sec-cryptography" in _qmd_sections(extra)
    assert _qmd_sections(extra) != [s.anchor for s in reg.SECTIONS]
    static = text.replace("{#sec-appendix}", "{#sec-annex}")
    assert "sec-annex" in _qmd_sections(static)
    unnamed = text.replace(" {#appendix-raw-files-behind-every-run}", "")
    assert _qmd_sections(unnamed)[-1] == "(no anchor: Appendix: raw files behind every run)"


# ------------------------------------------------------------------------- (c) fct_findings


def test_fct_findings_takes_every_anchor_from_the_seed():
    sql = FINDINGS_SQL.read_text()
    assert re.findall(r"'sec-[a-z-]+'", sql) == []  # no anchor typed in the model
    assert "ref('finding_sections')" in sql
    # Every kind the model writes links to a section whatever its measure.
    kinds = re.findall(r"'([a-z_]+)' as kind\b", sql)
    assert len(kinds) == 7
    assert {
        k: reg.anchor_of_finding(k, "any_measure")
        for k in kinds
        if reg.anchor_of_finding(k, "any_measure") not in reg.SECTIONS_BY_ANCHOR
    } == {}


def test_the_findings_expectation_accepts_the_anchors_findings_link_to():
    suite = json.loads((PROJECT / "expectations" / "marts.fct_findings.json").read_text())
    (value_set,) = [
        e["kwargs"]["value_set"]
        for e in suite["expectations"]
        if e["kwargs"].get("column") == "section_anchor"
    ]
    assert set(value_set) == {anchor for _, anchor in reg.finding_links()}


def test_a_built_warehouses_findings_link_to_the_registrys_sections(mini_run):
    con = duckdb.connect(str(layout_settings(mini_run).warehouse), read_only=True)
    try:
        rows = con.execute(
            "select kind, measure, section_anchor from marts.fct_findings"
        ).fetchall()
        seeded = con.execute("select anchor from reference.report_sections order by sort_order")
        seeded = [a for (a,) in seeded.fetchall()]
    finally:
        con.close()
    assert rows, "the mini study has findings"
    assert seeded == [s.anchor for s in reg.SECTIONS]
    # What the model's join gives is what the registry says, row by row.
    assert [a for _, _, a in rows] == [reg.anchor_of_finding(k, m) for k, m, _ in rows]
    assert {a for _, _, a in rows} <= set(reg.SECTIONS_BY_ANCHOR)
