"""Every generated artefact of the project, written from one place.

Two kinds of file are generated from the SMF field tables
(``mqcap.parsers.smf.structures``), because hand-copying hundreds of columns would drift:

- the dbt staging models of the SMF landing tables, ``models/staging/smf/``
  (``smf_staging``: one view per structure plus its sources and models YAML);
- the Great Expectations suites of those tables, ``expectations/landing.smf_*.json``
  (``smf_suites``).

One from the measures' definitions (``seeds/measures.csv``, ``mqcap.measures``): the macro
that names a measure in a finding's sentence, ``macros/measure_text.sql`` (``measure_text``).

And two seeds from the report's sections (``mqcap.sections.registry``): the sections,
``seeds/report_sections.csv``, and the section each kind of finding links to,
``seeds/finding_sections.csv`` (``report_sections``; ``fct_findings`` joins it).

``artefacts()`` maps each file's path (relative to the project root) to its content;
``python -m mqcap.codegen`` writes them all, ``python -m mqcap.codegen --check`` lists the
stale ones and exits 1. ``tests/test_codegen.py`` fails when a committed file is stale or a
file in a generated folder is not generated.

Example:
    >>> files = artefacts()
    >>> files["models/staging/smf/stg_smf__qcst.sql"].splitlines()[0]
    '-- Generated from pipelines/mqcap/parsers/smf/structures.py by python -m mqcap.codegen.'
    >>> sum(p.startswith("expectations/landing.smf_") for p in files)
    24
"""

from __future__ import annotations

from pathlib import Path

from mqcap.codegen import measure_text, report_sections, smf_staging, smf_suites

PROJECT = Path(__file__).resolve().parents[3]
COMMAND = "python -m mqcap.codegen"
# Folders whose every file is generated (a file there that is not generated is stale too).
GENERATED_DIRS = ("models/staging/smf",)


def artefacts() -> dict[str, str]:
    """Project-relative path -> content of every generated file."""
    files = {f"models/staging/smf/{name}": text for name, text in smf_staging.render_all().items()}
    files.update({f"expectations/{name}": text for name, text in smf_suites.suites().items()})
    files["macros/measure_text.sql"] = measure_text.render()
    files.update(report_sections.render())
    return files


def stale(root: Path = PROJECT) -> list[str]:
    """Generated files that are missing, differ, or lie in a generated folder uninvited."""
    files = artefacts()
    out = [p for p, text in files.items() if _read(root / p) != text]
    for folder in GENERATED_DIRS:
        present = (root / folder).iterdir() if (root / folder).is_dir() else ()
        out += [f"{folder}/{p.name}" for p in present if f"{folder}/{p.name}" not in files]
    return sorted(out)


def write(root: Path = PROJECT) -> list[str]:
    """Write every stale artefact under ``root``; remove uninvited files of generated folders."""
    files = artefacts()
    changed = stale(root)
    for rel in changed:
        path = root / rel
        if rel in files:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(files[rel])
        else:
            path.unlink()
    return changed


def _read(path: Path) -> str | None:
    return path.read_text() if path.is_file() else None
