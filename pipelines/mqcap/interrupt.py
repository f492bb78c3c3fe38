"""Ctrl-C is never lost.

Python turns SIGINT into a ``KeyboardInterrupt`` at the next bytecode it runs, and when that
bytecode belongs to a finalizer or a callback from C (a ``__del__``, an ``isinstance`` check a
library makes while converting values) the exception is printed as "Exception ignored" and
dropped: the run went on as if the key had not been pressed (seen under load on
`tests/test_pipeline_state.py`'s Ctrl-C test: SIGINT during ingest, then the landing checks and
the build ran, exit 1). mqcap's own handler raises the same exception and also notes the
interrupt; ``check()`` raises it again between the steps of a run when it was dropped, and
Python's "Exception ignored" traceback of such a drop is not printed.
"""

from __future__ import annotations

import signal
import sys
import threading

_pending = threading.Event()


def _on_sigint(signum, frame) -> None:
    _pending.set()
    raise KeyboardInterrupt


def _quiet_drop(unraisable) -> None:
    # A dropped Ctrl-C is raised again by check(): no traceback for it; others as Python would.
    if unraisable.exc_type is KeyboardInterrupt and _pending.is_set():
        return
    sys.__unraisablehook__(unraisable)


def install() -> None:
    """Handle SIGINT with mqcap's handler (in the main thread, when Python's default is in
    place: a host program's own handler is left alone)."""
    if (
        threading.current_thread() is threading.main_thread()
        and signal.getsignal(signal.SIGINT) is signal.default_int_handler
    ):
        signal.signal(signal.SIGINT, _on_sigint)
        if sys.unraisablehook is sys.__unraisablehook__:
            sys.unraisablehook = _quiet_drop


def check() -> None:
    """Raise ``KeyboardInterrupt`` if Ctrl-C came since the handler was installed (in the main
    thread; a worker thread leaves it to the main one).

    Example:
        >>> check()  # no Ctrl-C: nothing happens
    """
    if _pending.is_set() and threading.current_thread() is threading.main_thread():
        raise KeyboardInterrupt
