"""The study report's sections, in the report's order: one registry the report, the findings
and the checks read, so that a section's anchor and title are written once.

Each entry says the heading's anchor (the id ``reports/study.qmd`` gives it, and the one
``fct_findings.section_anchor`` links to), its title as the report prints it, the marts its
cells read (besides ``dim_run`` and ``dim_configuration``, which label every section's runs), and
which findings link to it (``FindingLink``: a ``fct_findings.kind``, with a ``measure`` or
``"*"`` for any measure no other link of that kind names). ``python -m mqcap.codegen`` writes
two seeds from it: ``seeds/report_sections.csv`` (anchor, title, sort order, marts) and
``seeds/finding_sections.csv`` (kind and measure -> anchor), which ``fct_findings`` joins for
its ``section_anchor``. ``tests/test_report_sections.py`` checks the registry against
``study.qmd`` and the findings against the registry.

Adding a section: an entry here (where the report shows it), the ``study.qmd`` cell that prints
its heading with ``heading(anchor)`` / ``section(anchor, text)``, then ``python -m
mqcap.codegen``.

Example:
    >>> SECTIONS_BY_ANCHOR["sec-cost"].title
    'Cost per transaction by address space'
    >>> heading("sec-cost")
    '\\n# Cost per transaction by address space {#sec-cost}\\n'
    >>> anchor_of_finding("pair_change", "cpu_us_per_txn"), anchor_of_finding("pair_change", "x")
    ('sec-cost', 'sec-channels')
    >>> sorted(linkable({"sec-cost": True, "sec-fits": False}) - always_shown())
    ['sec-cost']
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

ANY_MEASURE = "*"


@dataclass(frozen=True)
class FindingLink:
    """Findings of ``kind`` (``fct_findings.kind``) about ``measure`` (``fct_findings.measure``;
    ``"*"``: any measure no other link of the kind names) link to the section."""

    kind: str
    measure: str = ANY_MEASURE


@dataclass(frozen=True)
class Section:
    """One heading of the study report: its anchor (the heading's id), its title as printed,
    the marts its cells read, the findings that link to it, and whether every report has it
    (``always``: a heading written in ``study.qmd``'s markdown, not printed by a cell)."""

    anchor: str
    title: str
    marts: tuple[str, ...] = ()
    findings: tuple[FindingLink, ...] = ()
    always: bool = False


def _links(kind: str, *measures: str) -> tuple[FindingLink, ...]:
    return tuple(FindingLink(kind, m) for m in measures) or (FindingLink(kind),)


SECTIONS: tuple[Section, ...] = (
    Section("sec-findings", "Findings", ("fct_findings", "dim_study"), always=True),
    Section(
        "sec-environment",
        "Environment and configurations",
        ("dim_run", "dim_study", "dim_configuration"),
        always=True,
    ),
    Section(
        "sec-thread-sweep",
        "Throughput and latency against threads",
        ("fct_thread_sweep", "fct_sweep_summary", "fct_study_shape"),
        _links("sweep_headline") + _links("saturation"),
    ),
    Section(
        "sec-rate-target",
        "Target and achieved rates",
        ("fct_rate_target", "fct_study_shape"),
        _links("target_not_sustained"),
    ),
    Section(
        "sec-qmgr-resources",
        "Queue manager resources",
        ("fct_run_measures", "fct_distributed_series"),
    ),
    Section(
        "sec-cost",
        "Cost per transaction by address space",
        ("fct_series_cost", "fct_address_space_cost", "fct_cost_delta"),
        _links("pair_change", "cpu_us_per_txn"),
    ),
    Section(
        "sec-comparison",
        "Transaction rate and round-trip time",
        ("fct_driver_results", "fct_comparison"),
        _links("pair_change", "round_trip_us", "rate_per_s"),
    ),
    Section(
        "sec-fits",
        "Cost as a function of message size",
        ("fct_fit", "fct_fit_points"),
        _links("cost_per_kb"),
    ),
    Section(
        "sec-tasks",
        "Channel initiator tasks",
        ("fct_chinit_tasks", "fct_chinit_task_profile"),
    ),
    Section(
        "sec-channels",
        "Channel batches and network time",
        ("fct_channel_network",),
        # A pair finding about any other measure (a study file's question may name any).
        _links("pair_change", ANY_MEASURE),
    ),
    Section("sec-netstat", "TCP/IP behaviour (NETSTAT)", ("fct_netstat_series",)),
    Section("sec-tcpip", "TCP/IP throughput (TCPIPMonitor)", ("fct_tcpip_throughput",)),
    Section("sec-crypto", "Cryptographic hardware", ("fct_crypto", "fct_crypto_by_strength")),
    Section(
        "sec-starts",
        "Starting and stopping channels",
        ("fct_channel_starts", "fct_channel_start_strength_steps"),
        _links("key_step")
        + _links("pair_change", "time_per_channel_us", "channel_rate_per_s", "cpu_us_per_channel"),
    ),
    Section(
        "sec-changes",
        "What changed",
        ("fct_replicate_comparison", "fct_change_points", "fct_replicate_stats", "dim_run_set"),
        _links("change_point"),
    ),
    Section(
        "sec-appendix",
        "Appendix: runs and comparisons",
        (
            "dim_run",
            "fct_sweep_summary",
            "fct_cost_delta",
            "fct_chinit_tasks",
            "fct_comparison",
            "fct_driver_results",
        ),
        always=True,
    ),
    # The id pandoc gave this heading before it had one of its own (the report is unchanged).
    Section(
        "appendix-raw-files-behind-every-run",
        "Appendix: raw files behind every run",
        ("fct_run_files",),
        always=True,
    ),
)

SECTIONS_BY_ANCHOR: dict[str, Section] = {s.anchor: s for s in SECTIONS}


def section_of(anchor: str) -> Section:
    """The section of ``anchor``; an anchor the registry does not list is an error."""
    try:
        return SECTIONS_BY_ANCHOR[anchor]
    except KeyError:
        raise KeyError(f"{anchor!r} is not a report section (mqcap.sections.registry)") from None


def heading(anchor: str) -> str:
    """The markdown heading of the section of ``anchor``, as a cell prints it."""
    return f"\n# {section_of(anchor).title} {{#{anchor}}}\n"


def always_shown() -> set[str]:
    """Anchors of the headings every report has."""
    return {s.anchor for s in SECTIONS if s.always}


def linkable(present: Mapping[str, bool]) -> set[str]:
    """Anchors a report's findings may link to: the headings every report has and those of
    ``present`` (anchor -> the study has that section's data) that are true. An anchor the
    registry does not list is an error."""
    for anchor in present:
        section_of(anchor)
    return always_shown() | {a for a, here in present.items() if here}


def finding_links() -> list[tuple[FindingLink, str]]:
    """Every (finding link, anchor) in the registry's order; a link is named once."""
    out = [(link, s.anchor) for s in SECTIONS for link in s.findings]
    seen: set[FindingLink] = set()
    for link, _ in out:
        if link in seen:
            raise ValueError(f"{link} links to two sections")
        seen.add(link)
    return out


def anchor_of_finding(kind: str, measure: str | None) -> str | None:
    """The anchor a finding of ``kind`` about ``measure`` links to (what ``fct_findings``
    computes from the seed), or None when the registry links no such finding."""
    links = dict(finding_links())
    exact = links.get(FindingLink(kind, measure)) if measure is not None else None
    return exact or links.get(FindingLink(kind, ANY_MEASURE))
