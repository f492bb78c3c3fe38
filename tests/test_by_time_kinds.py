"""Formats attributed to runs by time: each parser declares it (``Parser.attributed_by_time``),
the ledger derives ``by_time_kinds()`` from the declarations, and the declarations agree with the
staging models whose rows dbt matches to runs by time (a ``clock`` in ``mqcap_time_span``)."""

from __future__ import annotations

import re
from datetime import datetime

from mqcap.ledger.files import FileLedger, by_time_kinds
from mqcap.ledger.scope import timed_views
from mqcap.parsers import all_parsers

from helpers import PROJECT

_REF = re.compile(r"ref\(\s*'([^']+)'\s*\)")
_SOURCE = re.compile(r"source\(\s*'[^']+'\s*,\s*'([^']+)'\s*\)")

# Kinds whose landing tables a timed staging model reads, yet not declared by time, with why.
NOT_BY_TIME = {
    "chstatus": "timed only when its snapshots carry a time: the ledger decides per file",
}
# Kinds declared by time whose rows no timed staging model reads, with why.
BY_TIME_WITHOUT_SPAN: dict[str, str] = {}


def test_the_kinds_attributed_by_time():
    declared = {p.kind for p in all_parsers() if p.attributed_by_time}
    assert declared == by_time_kinds()
    assert declared == {
        "smf_mq",
        "smf_csv",
        "rmf_crypto",
        "rmf_workload",
        "netstat",
        "ascpu_csv",
        "amqsrua",
        "amqsmon",
    }


def test_tcpipmon_is_placed_by_its_run_folder_not_by_time():
    # Its print-outs carry a time of day only: int_tcpipmon_samples places its rows by the run
    # folder (int_file_runs), so a file outside run folders reaches no run and is said so.
    ledger = FileLedger(None, datetime(2024, 1, 1))
    assert "tcpipmon" not in by_time_kinds()
    assert ledger.attribution(1, "loose/tcpipmon.txt", "tcpipmon", (None, None))[0] != "by_time"


def test_a_loose_file_of_a_kind_declared_by_time_is_attributed_by_time():
    ledger = FileLedger(None, datetime(2024, 1, 1))  # no warehouse read for these kinds
    for kind in by_time_kinds():
        assert ledger.attribution(1, f"loose/{kind}.txt", kind, (None, None)) == ("by_time", None)


def _kinds_read_by_time() -> set[str]:
    """The kinds landing a table that a staging model with a time span (``timed_views``) reads,
    directly or through the models it refs."""
    refs: dict[str, set[str]] = {}
    sources: dict[str, set[str]] = {}
    for sql in (PROJECT / "models").rglob("*.sql"):
        text = sql.read_text()
        refs[sql.stem] = set(_REF.findall(text))
        sources[sql.stem] = set(_SOURCE.findall(text))
    tables: set[str] = set()
    todo, seen = list(timed_views(PROJECT)), set()
    while todo:
        model = todo.pop()
        if model not in seen:
            seen.add(model)
            tables |= sources[model]
            todo.extend(refs[model])
    landed_by: dict[str, set[str]] = {}
    for p in all_parsers():
        for t in p.tables:
            landed_by.setdefault(t.name, set()).add(p.kind)
    assert tables and tables <= set(landed_by), tables - set(landed_by)
    return {kind for t in tables for kind in landed_by[t]}


def test_the_declarations_agree_with_the_models_that_attribute_by_time():
    """A new format whose staging model declares a time span (tests/test_layout.py asks it of
    every staging model time attribution reads) fails here until its parser declares
    ``attributed_by_time=True``, or is listed above with the reason."""
    read_by_time = _kinds_read_by_time()
    assert len(read_by_time) >= 9  # today's 8 by time and chstatus
    assert read_by_time - by_time_kinds() == set(NOT_BY_TIME)
    assert by_time_kinds() - read_by_time == set(BY_TIME_WITHOUT_SPAN)
