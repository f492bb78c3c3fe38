"""Great Expectations' validation without rebuilding the same objects a hundred times.

GX 1.x builds an expectation's ``configuration`` afresh (a pydantic ``dict()`` of the whole
expectation and a new ``ExpectationConfiguration``) every time it is read, and turns a
configuration back into a new expectation (``to_domain_obj``, pydantic validation of every
field) every time a metric's arguments are asked for. Validating the ten-run mini study's 81
suites (862 expectations) read ``configuration`` 93,883 times and made 6,524 expectations back
from configurations: two thirds of GX's time, against a tenth for computing the metrics
(cProfile, 2026-11-29).

While a checkpoint runs, nothing changes an expectation or a configuration GX validates: the
suite's expectations were made once (mqcap.validate), the validator works on configurations
processed for this run (suite parameters filled in) and reads them only. So within one run
(:func:`kept`) each expectation's configuration is built once and each configuration's
expectation is made once; both memos hold their objects (an ``id`` cannot be reused while the
run lasts) and are dropped when it ends. The results are the same, field for field
(tests/test_gx_memo.py compares whole validation results with and without it).
"""

from __future__ import annotations

import contextlib
import threading

_LOCK = threading.Lock()


@contextlib.contextmanager
def kept():
    """For the duration of the block (one checkpoint run): GX's ``Expectation.configuration``
    and ``ExpectationConfiguration.to_domain_obj`` computed once per object, and the freshness
    checks of checkpoints and validation definitions left out; then GX's own again. One block
    at a time per process.

    The freshness checks compare a checkpoint, its validation definition and its suite with
    copies deserialized from the context's store, four times per run. mqcap made those objects
    in this process, in an ephemeral (in-memory) context, and never changes them (it makes new
    ones when a suite changes: mqcap.validate), so each check compares an object with a copy of
    itself: a third of what was left of GX's time after the memos."""
    from great_expectations.checkpoint.checkpoint import Checkpoint
    from great_expectations.core.freshness_diagnostics import (
        CheckpointFreshnessDiagnostics,
        ValidationDefinitionFreshnessDiagnostics,
    )
    from great_expectations.core.validation_definition import ValidationDefinition
    from great_expectations.expectations.expectation import Expectation
    from great_expectations.expectations.expectation_configuration import (
        ExpectationConfiguration,
    )

    configuration = Expectation.__dict__["configuration"]
    to_domain_obj = ExpectationConfiguration.__dict__["to_domain_obj"]
    configurations: dict[int, tuple] = {}
    expectations: dict[int, tuple] = {}

    def kept_configuration(self):
        hit = configurations.get(id(self))
        if hit is None:
            hit = configurations[id(self)] = (self, configuration.fget(self))
        return hit[1]

    def kept_expectation(self):
        hit = expectations.get(id(self))
        if hit is None:
            hit = expectations[id(self)] = (self, to_domain_obj(self))
        return hit[1]

    checks = {
        Checkpoint: (Checkpoint.__dict__["is_fresh"], CheckpointFreshnessDiagnostics),
        ValidationDefinition: (
            ValidationDefinition.__dict__["is_fresh"],
            ValidationDefinitionFreshnessDiagnostics,
        ),
    }
    with _LOCK:
        Expectation.configuration = property(kept_configuration, doc=configuration.__doc__)
        ExpectationConfiguration.to_domain_obj = kept_expectation
        for cls, (_, diagnostics) in checks.items():
            cls.is_fresh = lambda self, diagnostics=diagnostics: diagnostics(errors=[])
        try:
            yield
        finally:
            Expectation.configuration = configuration
            ExpectationConfiguration.to_domain_obj = to_domain_obj
            for cls, (is_fresh, _) in checks.items():
                cls.is_fresh = is_fresh
            configurations.clear()
            expectations.clear()
