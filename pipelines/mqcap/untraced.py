"""Third-party work run without coverage's tracer.

While coverage measures a process (CI's `make test`, `make test COVERAGE=1`: the test workers,
the `mqcap` commands and report kernels they start), every Python call of that process goes
through coverage's trace function, whether or not the code is measured: Great Expectations'
import took 5.7-7.3 user CPU-seconds instead of 3.3-4.1 (three pairs, 2026-11-27). Coverage
measures only mqcap (``[tool.coverage.run] source``), and no mqcap code runs inside these calls,
so they run with this thread's tracer set aside and put back after (coverage's C tracer is made
to be put back with ``sys.settrace``). Any other trace function (a debugger's) is left alone, and
without one (every ordinary run) this is a plain call.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def _is_coverage(tracer: object) -> bool:
    # coverage's CTracer is the trace object itself; its Python tracer is a bound method.
    owner = getattr(tracer, "__self__", tracer)
    return type(owner).__module__.split(".")[0] == "coverage"


def untraced(fn: Callable[..., T], *args, **kwargs) -> T:
    """``fn(*args, **kwargs)`` with coverage's tracer off in this thread for its duration.

    Example:
        >>> untraced(sorted, [3, 1, 2])
        [1, 2, 3]
    """
    tracer = sys.gettrace()
    if tracer is None or not _is_coverage(tracer):
        return fn(*args, **kwargs)
    sys.settrace(None)
    try:
        return fn(*args, **kwargs)
    finally:
        sys.settrace(tracer)
