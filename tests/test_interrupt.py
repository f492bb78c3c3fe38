"""Ctrl-C is never lost (mqcap.interrupt): an interrupt that Python drops because it arrived
inside a finalizer is raised again at the next step of a run."""

from __future__ import annotations

import os
import signal
import sys
import threading
import time

import pytest

from mqcap import interrupt
from mqcap.pipeline import run


@pytest.fixture
def handler(monkeypatch):
    monkeypatch.setattr(interrupt, "_pending", threading.Event())
    old = signal.getsignal(signal.SIGINT)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        interrupt.install()
        assert signal.getsignal(signal.SIGINT) is interrupt._on_sigint
        yield
    finally:
        signal.signal(signal.SIGINT, old)


class _Dropper:
    """Ctrl-C while Python finalizes this object: the KeyboardInterrupt is printed as
    "Exception ignored" and dropped."""

    def __del__(self):
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.05)


def test_a_ctrl_c_dropped_in_a_finalizer_is_raised_again(handler, monkeypatch):
    dropped = []
    monkeypatch.setattr(sys, "unraisablehook", lambda u: dropped.append(u.exc_type))
    _Dropper()  # no exception reaches here
    assert dropped == [KeyboardInterrupt]  # Python dropped it
    with pytest.raises(KeyboardInterrupt):
        interrupt.check()


def test_a_run_stops_after_the_step_in_which_ctrl_c_was_dropped(handler, settings, monkeypatch):
    monkeypatch.setattr(sys, "unraisablehook", lambda u: None)
    _Dropper()
    with pytest.raises(KeyboardInterrupt):
        run(settings, reports=False)  # ingest (nothing to land), then the check stops it
    assert not settings.dbt_target.exists()  # no build was started


def test_without_ctrl_c_check_does_nothing(handler):
    interrupt.check()


def test_a_host_programs_own_handler_is_left_alone(monkeypatch):
    def own(signum, frame):
        pass

    old = signal.getsignal(signal.SIGINT)
    signal.signal(signal.SIGINT, own)
    try:
        interrupt.install()
        assert signal.getsignal(signal.SIGINT) is own
    finally:
        signal.signal(signal.SIGINT, old)


def test_the_dropped_ctrl_c_prints_no_traceback_and_other_drops_still_do(monkeypatch):
    from types import SimpleNamespace

    pending = threading.Event()
    monkeypatch.setattr(interrupt, "_pending", pending)
    printed = []
    monkeypatch.setattr(sys, "__unraisablehook__", lambda u: printed.append(u.exc_type))
    pending.set()
    interrupt._quiet_drop(SimpleNamespace(exc_type=KeyboardInterrupt))
    interrupt._quiet_drop(SimpleNamespace(exc_type=ValueError))
    assert printed == [ValueError]
