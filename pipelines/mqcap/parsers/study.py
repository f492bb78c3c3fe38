"""The study file ``data/raw/<study>/study.yaml`` (optional): how a study's report tells it.

It names the study's title and purpose, the order and display names of its configurations,
the dimensions runs are grouped by (scenario, hardware_model, ...), the baseline configuration
and notes for the introduction. Validated like ``run.yaml``: every error names the file, the
line, the field and what was expected. Without a study file the marts use defaults
(``dim_configuration``: configurations in order of first run, baselines as the runs declare
them). ``question`` names the measures the findings answer with (``fct_findings``) and the
dimensions to break them down by (the same as ``group_by``).

Example::

    study: threadsweep
    title: Persistent request/responder on two appliance models
    purpose: What switching the feature on costs in peak throughput and latency
    baseline: Feature off
    group_by: [scenario, hardware_model]
    question:
      measures: [max_rate_per_s, single_thread_round_trip_us]
    configurations:
      - configuration: Feature off
        display_name: Feature off (baseline)
      - configuration: Feature on
    notes:
      - Generated data, not captured on a real system.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import PurePosixPath
from typing import Any

from mqcap.parsers import _clock
from mqcap.parsers.base import TEXT_LINEAGE, Batch, ParseContext, Parser, Table
from mqcap.parsers.manifest import NAME_RE, _Checker, _Mapping, read_yaml

STUDY_NAMES = ("study.yaml", "study.yml")
TOP_FIELDS = {
    "study": "the study name (the folder's name)",
    "title": "a one-line title",
    "purpose": "what the study sets out to show (free text)",
    "baseline": "the configuration the others are compared with",
    "group_by": "a list of dimensions: scenario, hardware_model, host, platform, persistence, "
    "or a label name",
    "configurations": "a list of {configuration, display_name}, in report order",
    "notes": "a text or a list of texts shown in the introduction",
    **_clock.FIELDS,  # the local clock of the study's runs (a run.yaml may state its own)
    "noise": "a mapping: min_change_pct (verdicts and change points), change_point_pvalue",
    "question": "a mapping: measures (what the findings answer with, in order) and by (the "
    "dimensions to break them down by: group_by)",
}
# The measures a study's question may name: the thread-sweep figures of fct_sweep_summary and
# every per-run measure of fct_run_measures (seeds/measures.csv: mqcap.measures).
# Read when a question is checked, not at import (a parser may run where only the package is).
SWEEP_MEASURES = ("max_rate_per_s", "single_thread_round_trip_us")


def question_measures() -> tuple[str, ...]:
    """The measures a question may name: the sweep figures, then the per-run measures.

    Example:
        >>> question_measures()[:3]
        ('max_rate_per_s', 'single_thread_round_trip_us', 'achieved_batch_size')
    """
    from mqcap.measures import definitions

    return SWEEP_MEASURES + tuple(sorted(definitions()))


# Noise-aware comparisons and change points (README "Replicates and history"): defaults and
# the accepted ranges of the study file's ``noise`` mapping.
NOISE_DEFAULTS = {"min_change_pct": 1.0, "change_point_pvalue": 0.001}
NOISE_RANGES = {
    "min_change_pct": (0.0, 100.0, "a percentage from 0 to 100"),
    "change_point_pvalue": (1e-9, 0.5, "a p-value above 0 and at most 0.5"),
}
DIMENSION_RE = re.compile(r"^[a-z][a-z0-9_]{0,62}$")

STUDY_TABLE = Table(
    "study_file",
    {
        **TEXT_LINEAGE,
        "study": "VARCHAR",
        "title": "VARCHAR",
        "purpose": "VARCHAR",
        "baseline_configuration": "VARCHAR",
        "group_by_json": "VARCHAR",
        "notes_json": "VARCHAR",
        "utc_offset_minutes": "BIGINT",  # the runs' local clock's offset from UTC, if stated
        "timezone": "VARCHAR",  # the IANA zone of the runs' local clock, if stated
        "min_change_pct": "DOUBLE",
        "change_point_pvalue": "DOUBLE",
    },
    "One row per study file (study.yaml).",
)
QUESTION_TABLE = Table(
    "study_question_measure",
    {
        **TEXT_LINEAGE,
        "study": "VARCHAR",
        "measure": "VARCHAR",
        "sort_order": "BIGINT",
    },
    "One row per measure a study file's question names, in its order.",
)
CONFIG_TABLE = Table(
    "study_configuration",
    {
        **TEXT_LINEAGE,
        "study": "VARCHAR",
        "configuration": "VARCHAR",
        "display_name": "VARCHAR",
        "sort_order": "BIGINT",
    },
    "One row per configuration a study file lists, in its order.",
)


def _text(check: _Checker, where: _Mapping, key: Any, field: str, value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        check.fail(where, key, field, "a text value", value)
    return str(value)


def validate(doc: Any, ctx: ParseContext) -> dict:
    """A checked study file as a plain dict; raises InputError naming line and field, with
    every problem of the file at once."""
    check = _Checker(ctx)
    if not isinstance(doc, _Mapping):
        raise ctx.error("a study file must be a YAML mapping (key: value lines)", line=1)
    for key in doc:
        with check.section():
            if key not in TOP_FIELDS:
                check.fail(doc, key, str(key), f"one of {', '.join(TOP_FIELDS)}", key)
    study = doc.get("study")
    out: dict[str, Any] = {"study": str(study), "utc_offset_minutes": None, "timezone": None}
    with check.section():
        if study is None:
            check.fail(doc, None, "study", TOP_FIELDS["study"] + " (required)", None)
        if not isinstance(study, str | int) or not NAME_RE.match(str(study)):
            check.fail(doc, "study", "study", TOP_FIELDS["study"], study)
        folder = PurePosixPath(ctx.source_file).parts
        if len(folder) >= 2 and folder[-2] != str(study):
            check.fail(doc, "study", "study", f"the study folder's name {folder[-2]!r}", study)
    with check.section():
        _clock.validate(doc, check, out)
    for key in ("title", "purpose", "baseline"):
        out[key] = None
        with check.section():
            out[key] = _text(check, doc, key, key, doc.get(key))

    out["group_by"] = []
    with check.section():
        group_by = doc.get("group_by") or []
        if isinstance(group_by, str):
            group_by = [group_by]
        if not isinstance(group_by, list):
            check.fail(doc, "group_by", "group_by", TOP_FIELDS["group_by"], group_by)
        for i, dim in enumerate(group_by):
            if not isinstance(dim, str) or not DIMENSION_RE.match(dim):
                check.fail(doc, "group_by", f"group_by[{i}]", "a dimension name (a-z, 0-9, _)", dim)
        if len(set(group_by)) != len(group_by):
            check.fail(doc, "group_by", "group_by", "each dimension once", group_by)
        out["group_by"] = list(group_by)
    out["question"] = []
    with check.section():
        out["question"] = _question(check, doc, out)

    out["notes"] = []
    with check.section():
        notes = doc.get("notes") or []
        if isinstance(notes, str | int | float) and not isinstance(notes, bool):
            notes = [str(notes)]
        if not isinstance(notes, list):
            check.fail(doc, "notes", "notes", TOP_FIELDS["notes"], notes)
        for i, note in enumerate(notes):
            _text(check, doc, "notes", f"notes[{i}]", note)
            if note is None:
                check.fail(doc, "notes", f"notes[{i}]", "a text value", note)
        out["notes"] = [str(n) for n in notes]

    out["configurations"] = []
    seen: set[str] = set()
    configs = doc.get("configurations") or []
    with check.section():
        if not isinstance(configs, list):
            check.fail(
                doc, "configurations", "configurations", TOP_FIELDS["configurations"], configs
            )
    for i, item in enumerate(configs if isinstance(configs, list) else []):
        with check.section():
            _configuration(check, doc, i, item, seen, out)
    out.update(dict.fromkeys(NOISE_DEFAULTS))
    with check.section():
        out.update(_noise(check, doc))
    with check.section():
        if out["baseline"] is not None and seen and out["baseline"] not in seen:
            check.fail(
                doc, "baseline", "baseline", f"one of the listed configurations {sorted(seen)}",
                out["baseline"],
            )  # fmt: skip
    check.done()
    return out


def _configuration(
    check: _Checker, doc: _Mapping, i: int, item: Any, seen: set[str], out: dict
) -> None:
    field = f"configurations[{i}]"
    if isinstance(item, str | int | float) and not isinstance(item, bool):
        item = _Mapping({"configuration": str(item)}, {}, doc.lines.get("configurations", 1))
    if not isinstance(item, _Mapping):
        check.fail(doc, "configurations", field, "a configuration name or a mapping", item)
    for key in item:
        if key not in ("configuration", "display_name"):
            check.fail(item, key, f"{field}.{key}", "configuration or display_name", key)
    name = _text(check, item, "configuration", f"{field}.configuration", item.get("configuration"))
    if name is None:
        check.fail(item, None, f"{field}.configuration", "a configuration name (required)", None)
    if name in seen:
        check.fail(item, "configuration", f"{field}.configuration", "each configuration once", name)
    seen.add(name)
    display = _text(check, item, "display_name", f"{field}.display_name", item.get("display_name"))
    out["configurations"].append((name, display or name))


def _question(check: _Checker, doc: _Mapping, out: dict) -> list[str]:
    """The optional ``question`` mapping: its measures (checked, in order); its ``by`` is the
    study's group_by (both given, they must agree)."""
    question = doc.get("question")
    if question is None:
        return []
    if not isinstance(question, _Mapping):
        check.fail(doc, "question", "question", TOP_FIELDS["question"], question)
    for key in question:
        if key not in ("measures", "by"):
            check.fail(question, key, f"question.{key}", "measures or by", key)
    measures = question.get("measures") or []
    if isinstance(measures, str):
        measures = [measures]
    if not isinstance(measures, list):
        check.fail(question, "measures", "question.measures", "a list of measure names", measures)
    allowed = question_measures()
    for i, m in enumerate(measures):
        if m not in allowed:
            check.fail(
                question, "measures", f"question.measures[{i}]",
                f"one of {', '.join(allowed)}", m,
            )  # fmt: skip
    if len(set(measures)) != len(measures):
        check.fail(question, "measures", "question.measures", "each measure once", measures)
    by = question.get("by")
    if by is not None:
        by = [by] if isinstance(by, str) else by
        if not isinstance(by, list) or not all(
            isinstance(d, str) and DIMENSION_RE.match(d) for d in by
        ):
            check.fail(question, "by", "question.by", "a list of dimension names", by)
        if out["group_by"] and out["group_by"] != by:
            check.fail(question, "by", "question.by", f"the same as group_by {out['group_by']}", by)
        out["group_by"] = list(by)
    return [str(m) for m in measures]


def _noise(check: _Checker, doc: _Mapping) -> dict[str, float | None]:
    """The optional ``noise`` mapping; a setting left out is NULL (the marts use the default)."""
    noise = doc.get("noise")
    out: dict[str, float | None] = dict.fromkeys(NOISE_DEFAULTS)
    if noise is None:
        return out
    if not isinstance(noise, _Mapping):
        check.fail(doc, "noise", "noise", TOP_FIELDS["noise"], noise)
    for key, value in noise.items():
        if key not in NOISE_RANGES:
            check.fail(noise, key, f"noise.{key}", f"one of {', '.join(NOISE_RANGES)}", key)
        low, high, expected = NOISE_RANGES[key]
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or not (low <= value <= high)
        ):
            check.fail(noise, key, f"noise.{key}", expected, value)
        out[key] = float(value)
    return out


def load(ctx: ParseContext) -> dict:
    """Read (within the manifest's bounds: size, aliases, gzip, BOM) and validate a study file."""
    return validate(read_yaml(ctx, "a study file"), ctx)


def sniff(head: bytes, name: str) -> bool:
    # The name decides, as for run.yaml: an invalid study file is reported as one.
    return name.lower() in STUDY_NAMES


def parse(ctx: ParseContext) -> Iterator[Batch]:
    s = load(ctx)
    base = {"source_file": ctx.source_file, "source_line": 1, "study": s["study"]}
    yield (
        STUDY_TABLE.name,
        [
            {
                **base,
                "title": s["title"],
                "purpose": s["purpose"],
                "baseline_configuration": s["baseline"],
                "group_by_json": json.dumps(s["group_by"]),
                "notes_json": json.dumps(s["notes"]),
                "utc_offset_minutes": s["utc_offset_minutes"],
                "timezone": s["timezone"],
                "min_change_pct": s["min_change_pct"],
                "change_point_pvalue": s["change_point_pvalue"],
            }
        ],
    )
    if s["question"]:  # only a study file that asks one
        yield (
            QUESTION_TABLE.name,
            [{**base, "measure": m, "sort_order": i + 1} for i, m in enumerate(s["question"])],
        )
    yield (
        CONFIG_TABLE.name,
        [
            {**base, "configuration": name, "display_name": display, "sort_order": i + 1}
            for i, (name, display) in enumerate(s["configurations"])
        ],
    )


PARSER = Parser(
    kind="study",
    description="Study file (study.yaml): title, purpose, configuration order, baseline, notes",
    tables=(STUDY_TABLE, CONFIG_TABLE, QUESTION_TABLE),
    sniff=sniff,
    parse=parse,
    priority=0,
)
