"""The landing suites of the SMF tables (``landing.smf_*.json``) from the parser's field
tables, so 24 wide tables get the same checks without hand-copying hundreds of columns.

What each generated suite checks, per SMF structure (``mqcap.parsers.smf.structures``):

- the rows landed agree with the ledger's count for the files validated;
- ``record_time_local`` is a real date (1990-2100: a zero STCK would read 1900, a zeroed
  conversion 1970), ``smf_type`` is 115 or 116;
- statistics (SMF 115) intervals are positive seconds;
- durations (STCK fields, ``*_us``) are 0 to 1e13 microseconds (116 days: beyond is garbage),
  the first ``MAX_DURATIONS`` in mq-smf-csv's print order;
- timestamps (``*_utc``) are 1990-2100 when present;
- counts (unsigned integer fields) are at least 0: a -1 is mq-smf-csv's "not in this release"
  placeholder, which the CSV loader turns into NULL; the first ``MAX_COUNTS``.

The caps keep validation fast (GX costs about 10 ms per expectation): mq-smf-csv prints the
headline fields first, and WQ alone has 397 counts.

Signed fields, text, flags and enums are left out: a negative signed value can be legitimate.
Keys stay in dbt. Written by ``python -m mqcap.codegen`` after a change to the field tables;
``tests/test_codegen.py`` fails when the committed files differ from what this renders.
"""

from __future__ import annotations

import json

from mqcap.parsers.smf.fields import INT_KINDS
from mqcap.parsers.smf.structures import STRUCTURES

MAX_COUNTS = 16
MAX_DURATIONS = 24
MAX_US = 10_000_000_000_000


def _e(kind: str, why: str | None = None, unit: str | None = None, **kwargs) -> dict:
    meta = {k: v for k, v in (("unit", unit), ("why", why)) if v}
    return {"type": kind, "kwargs": kwargs, **({"meta": meta} if meta else {})}


def suite(structure) -> dict:
    """The suite of one SMF structure's landing table.

    Long because: one suite's expectations written out, field by field.

    Example:
        suite(STRUCTURES["QLST"])["name"]  # 'landing.smf_qlst'
    """
    name = f"landing.{structure.table}"
    stats = structure.name.startswith("Q") and structure.name not in ("QMAC", "QCST")
    exps = [
        _e(
            "expect_table_row_count_to_equal",
            "every row the ledger says was landed is there, and no more",
            value={"$PARAMETER": "ledger_rows"},
        ),
        _e("expect_column_values_to_not_be_null", column="source_file"),
        _e("expect_column_values_to_be_in_set", column="smf_type", value_set=[115, 116]),
        _e(
            "expect_column_values_to_be_between",
            "SMF wrote the record at a real time, not a zeroed one",
            "z/OS local time",
            column="record_time_local",
            min_value="1990-01-01",
            max_value="2100-01-01",
        ),
    ]
    if stats:
        exps.append(
            _e(
                "expect_column_values_to_be_between",
                "a statistics interval is positive",
                "seconds",
                column="interval_duration_s",
                min_value=0,
                strict_min=True,
            )
        )
    counts = durations = 0
    for f in structure.fields:
        if f.member is None:
            continue
        if f.kind == "stck" and durations < MAX_DURATIONS:
            durations += 1
            exps.append(
                _e(
                    "expect_column_values_to_be_between",
                    unit="microseconds",
                    column=f.column,
                    min_value=0,
                    max_value=MAX_US,
                )
            )
        elif f.kind == "time":
            exps.append(
                _e(
                    "expect_column_values_to_be_between",
                    unit="UTC",
                    column=f.column,
                    min_value="1990-01-01",
                    max_value="2100-01-01",
                )
            )
        elif f.kind in INT_KINDS and f.kind.startswith("u") and counts < MAX_COUNTS:
            counts += 1
            exps.append(
                _e(
                    "expect_column_values_to_be_between",
                    "an unsigned count; -1 would be a placeholder left in",
                    "count",
                    column=f.column,
                    min_value=0,
                )
            )
    return {
        "name": name,
        "meta": {
            "mqcap": {
                "table": name,
                "generated_by": "python -m mqcap.codegen",
                "description": f"SMF {structure.name} as landed: {structure.description}".strip(),
            }
        },
        "expectations": exps,
    }


def render(data: dict) -> str:
    """A suite as committed: one expectation per line, for readable diffs."""
    lines = [json.dumps(e) for e in data["expectations"]]
    head = json.dumps({"name": data["name"], "meta": data["meta"]}, indent=2)[:-2]
    return head + ',\n  "expectations": [\n    ' + ",\n    ".join(lines) + "\n  ]\n}\n"


def suites() -> dict[str, str]:
    """File name -> content of every generated suite."""
    return {f"landing.{s.table}.json": render(suite(s)) for s in STRUCTURES.values()}
