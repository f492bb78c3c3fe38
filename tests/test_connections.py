"""`mqcap run` opens the warehouse once per step (issue 34): ingest, landing checks, build, mart
checks and reports each get one connection, and the pipeline's bookkeeping between steps (what
is owed, the build's end, the reports' records) goes through the step's connection rather than
opening its own. dbt and the report kernel open the file in their own processes, after the
step closed its connection: those opens are not mqcap's and are not counted here.

Each open of the warehouse in this process (``duckdb.connect``) is put down to the step the
pipeline names for the connection (``mqcap.pipeline.step_connection``), else to the step
function ``pipeline._run`` called (``ingest``, ``validate``, ``build``, ``render_reports``);
an open made by anything else ``_run`` calls is the pipeline's own bookkeeping, between steps.
"""

from __future__ import annotations

import shutil
import sys
from collections import Counter
from itertools import pairwise
from pathlib import Path

import duckdb
import pytest

from mqcap.pipeline import run

from helpers import PROJECT, layout_settings

pytestmark = [pytest.mark.e2e, pytest.mark.slow(minutes=3)]

STEPS = ("ingest", "landing checks", "build", "mart checks", "reports")
# What `pipeline._run` calls to do a step, and the step it is.
STEP_CALLS = {"ingest": "ingest", "build": "build", "render_reports": "reports"}
PIPELINE = str(PROJECT / "pipelines" / "mqcap" / "pipeline.py")
MQCAP = str(PROJECT / "pipelines" / "mqcap")


def _step_of(frames: list) -> str:
    """The step an open was made in, from the stack (outermost frame first)."""
    for frame in frames:
        if frame.f_code.co_name == "step_connection" and frame.f_code.co_filename == PIPELINE:
            return frame.f_locals["step"]
    for outer, inner in pairwise(frames):
        if outer.f_code.co_name == "_run" and outer.f_code.co_filename == PIPELINE:
            name = inner.f_code.co_name
            if name == "validate":
                return f"{inner.f_locals['scope']} checks"
            return STEP_CALLS.get(name, f"between steps ({name})")
    return "outside the run"


def _call_site(frames: list) -> str:
    """The innermost frame of mqcap's below the connection helper: who asked for the open."""
    own = [
        f
        for f in frames
        if f.f_code.co_filename.startswith(MQCAP)
        and not f.f_code.co_filename.endswith(("warehouse.py", "contextlib.py"))
    ]
    f = own[-1] if own else frames[-1]
    return f"{Path(f.f_code.co_filename).name}:{f.f_lineno} {f.f_code.co_name}"


@pytest.fixture
def opens(monkeypatch) -> list[tuple[str, str, bool]]:
    """Every open of a DuckDB file in this process from now on: (step, call site, read-only)."""
    seen: list[tuple[str, str, bool]] = []
    real = duckdb.connect

    def counting(*args, **kwargs):
        frames = []
        f = sys._getframe(1)
        while f is not None:
            frames.append(f)
            f = f.f_back
        frames.reverse()
        seen.append((_step_of(frames), _call_site(frames), bool(kwargs.get("read_only"))))
        return real(*args, **kwargs)

    monkeypatch.setattr(duckdb, "connect", counting)
    return seen


def _table(seen: list[tuple[str, str, bool]]) -> str:
    lines = [f"{n} x {step}" for step, n in Counter(s for s, _, _ in seen).items()]
    lines += [f"  {step}: {site} ({'ro' if ro else 'rw'})" for step, site, ro in seen]
    return "\n".join(lines)


def _per_step(seen: list[tuple[str, str, bool]]) -> dict[str, int]:
    """Opens per step; fails, naming each open, when one is outside a step or a step opened
    more than once."""
    counts = Counter(step for step, _, _ in seen)
    assert set(counts) <= set(STEPS), "opens outside a step:\n" + _table(seen)
    assert all(n <= 1 for n in counts.values()), "a step opened more than once:\n" + _table(seen)
    return dict(counts)


def test_each_step_of_a_run_opens_the_warehouse_once(tmp_path, opens):
    shutil.copytree(
        PROJECT / "tests" / "fixtures" / "mini_study" / "attls", tmp_path / "raw" / "attls"
    )
    settings = layout_settings(tmp_path)

    # A new warehouse, without reports: ingest, landing checks, a full build, mart checks.
    first = run(settings, reports=False)
    assert len(first.ingest.landed) == 20 and first.landing.ok and first.build.ok
    assert first.marts.ok and not first.data_problems, first.problems
    assert _per_step(opens) == {"ingest": 1, "landing checks": 1, "build": 1, "mart checks": 1}

    # One result changed, with the reports: every step, the build an incremental one (its
    # selection read from the ledger), two reports rendered (the study's and the overview).
    results = settings.raw_root / "attls" / "attls-chacha-2k" / "results.csv"
    results.write_text(results.read_text().replace("454.752,2199", "455.0,2198"))
    opens.clear()
    second = run(settings, fmt="html")
    assert [o.path for o in second.ingest.landed] == ["attls/attls-chacha-2k/results.csv"]
    assert second.landing.ok and second.build.ok and "recomputed" in second.build.scope
    assert second.marts.ok and set(second.reports.outputs) == {"attls", "_overview"}
    assert not second.data_problems, second.problems
    assert _per_step(opens) == dict.fromkeys(STEPS, 1)

    # Nothing new: ingest finds nothing, the landing checks' connection says nothing is owed.
    opens.clear()
    third = run(settings, fmt="html")
    assert third.nothing_new and not third.problems
    assert _per_step(opens) == {"ingest": 1, "landing checks": 1}
