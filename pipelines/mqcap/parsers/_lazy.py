"""numpy and polars for the parser modules, imported when a file is parsed, not before.

Every ingest imports the parser modules, for the landing tables they declare
(``warehouse.ensure_landing``). A no-change ``mqcap run`` parses nothing, and importing numpy
and polars with them took 0.29 s of its 1.7 s at 10,000 runs. A parser module therefore takes
a stand-in: ``pl = lazy_module("polars", __name__, "pl")``. The first attribute read through
it imports the module and puts the module itself in the stand-in's place in every parser module
that took one (later reads cost nothing extra); the import lock makes that safe from threads.

Names evaluated at import (a module-level schema, a default argument) must not read through a
stand-in: they would import the module at once. ``tests/test_ingest_ledger.py`` checks that a
no-change ingest imports neither (nor pyarrow).

Example:
    >>> np = lazy_module("numpy", __name__, "np")
    >>> int(np.int64(2) * 3)
    6
"""

from __future__ import annotations

import importlib
import sys
import threading
from types import ModuleType
from typing import Any

_lock = threading.Lock()


class _StandIn:
    def __init__(self, name: str) -> None:
        self._name = name
        self._takers: list[tuple[str, str]] = []

    def __getattr__(self, attr: str) -> Any:
        return getattr(self._load(), attr)

    def __repr__(self) -> str:
        return f"<{self._name}, imported on first use>"

    def _load(self) -> ModuleType:
        module = importlib.import_module(self._name)
        with _lock:
            for taker, as_name in self._takers:
                where = sys.modules.get(taker)
                if where is not None and getattr(where, as_name, None) is self:
                    setattr(where, as_name, module)
        return module


_stand_ins: dict[str, _StandIn] = {}


def lazy_module(name: str, taker: str, as_name: str) -> Any:
    """``name`` for the module ``taker`` (its global ``as_name``): the module itself when it is
    imported already, else a stand-in that imports it on first use (see the module docstring).
    """
    if name in sys.modules:
        return sys.modules[name]
    with _lock:
        stand_in = _stand_ins.setdefault(name, _StandIn(name))
        stand_in._takers.append((taker, as_name))
    return stand_in
