"""Every per-run measure, defined once: ``seeds/measures.csv`` (dbt's ``reference.measures``).

One row per measure of ``fct_run_measures``: its ``unit``, which way is better (``better_when``:
``lower`` or ``higher``), the name a finding's sentence gives it (``reader_name``) and the label
of a chart axis or table column (``label``). The models read the seed (``int_run_measures``
takes each measure's unit from it, ``int_replicate_stats`` and ``int_change_points`` the
direction their verdicts follow); the findings' wording comes from it through the macro
``python -m mqcap.codegen`` writes (``macros/measure_text.sql``); the study file's
``question.measures`` accepts exactly these (``mqcap.parsers.study``), and the report's labels
are these. A measure added to the models without a row here fails ``int_run_measures``' key
check (its unit would be NULL).

Example:
    >>> m = definitions()["cpu_us_per_txn"]
    >>> m.unit, m.better_when, m.reader_name
    ('CPU microseconds per transaction', 'lower', 'CPU per transaction')
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from functools import cache
from pathlib import Path

SEED = Path("seeds") / "measures.csv"


@dataclass(frozen=True)
class Measure:
    measure: str
    unit: str
    better_when: str
    reader_name: str
    label: str


@cache
def definitions(root: Path | None = None) -> dict[str, Measure]:
    """measure -> its definition, in the seed's order (``root``: the project root, default the
    one mqcap runs from)."""
    if root is None:
        from mqcap.settings import find_project_root

        root = find_project_root()
    with (root / SEED).open(newline="", encoding="utf-8") as f:
        return {row["measure"]: Measure(**row) for row in csv.DictReader(f)}


def labels(names) -> dict[str, str]:
    """measure -> label, for ``names`` in their order.

    Example:
        >>> labels(["qmgr_cpu_pct", "mqget_rate_per_s"])
        {'qmgr_cpu_pct': 'Queue manager CPU %', 'mqget_rate_per_s': 'MQGET per s'}
    """
    known = definitions()
    return {name: known[name].label for name in names}
