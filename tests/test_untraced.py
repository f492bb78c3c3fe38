"""mqcap.untraced: third-party calls run without coverage's tracer, which comes back after;
the lines after the call are measured again, and a trace function that is not coverage's (a
debugger's) is left in place. Measured in a child process with a Coverage of its own (one
measuring this test run would nest)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

PROBE = """\
def before():
    return 1
def inside():
    return 2
def after():
    return 3
"""

SCRIPT = """\
import json, sys
import coverage
from mqcap.untraced import untraced

cov = coverage.Coverage(data_file=None, source=[sys.argv[1]], timid=sys.argv[2] == "python")
cov.start()
import probe
probe.before()
assert untraced(probe.inside) == 2
probe.after()
cov.stop()
lines = sorted(cov.get_data().lines(probe.__file__))

seen = []
def debugger(frame, event, arg):
    if event == "call":
        seen.append(frame.f_code.co_name)
sys.settrace(debugger)
untraced(probe.inside)
sys.settrace(None)
print(json.dumps({"lines": lines, "tracer": type(cov._collector.tracers[0]).__name__,
                  "debugger_saw": "inside" in seen}))
"""


@pytest.mark.parametrize("core", ["c", "python"])
def test_coverage_is_off_inside_and_on_again_after(tmp_path, core):
    (tmp_path / "probe.py").write_text(PROBE)
    env = {k: v for k, v in os.environ.items() if not k.startswith("COVERAGE_")}
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path), env.get("PYTHONPATH", "")])
    out = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(SCRIPT), str(tmp_path), core],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    )
    got = json.loads(out.stdout)
    # def lines at import (1, 3, 5), before's body (2), after's body (6); not inside's (4).
    assert got["lines"] == [1, 2, 3, 5, 6], got
    assert got["tracer"] == ("CTracer" if core == "c" else "PyTracer")
    assert got["debugger_saw"] is True
