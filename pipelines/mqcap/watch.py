"""Watch the drop folder: run the pipeline on files once they have stopped growing.

Polling (no OS-specific notification API): every ``interval_s`` the raw root is scanned; a file
is *settled* when its size and mtime have not changed for ``settle_s``. A file still being
copied is never read half-written. Bursts are batched: the pipeline runs when something new
has settled and nothing else is still growing (or after ``max_wait_s`` of continuous growth).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from mqcap.ingest import discover
from mqcap.settings import Settings


@dataclass
class _Seen:
    size: int
    mtime_ns: int
    since: float  # when this size/mtime was first observed


@dataclass
class Watcher:
    """Decides which files are ready; the clock is injectable for tests.

    Example:
        w = Watcher(settings, settle_s=5)
        ready = w.poll()   # [] while files are still growing
    """

    settings: Settings
    settle_s: float = 5.0
    max_wait_s: float = 600.0
    clock: Callable[[], float] = time.monotonic
    seen: dict[Path, _Seen] = field(default_factory=dict)
    done: dict[Path, tuple[int, int]] = field(default_factory=dict)
    growing_since: float | None = None

    def poll(self) -> list[Path]:
        """Files that changed since last handed out and have settled, and handed-out files that
        are gone (deletions); [] while a burst goes on."""
        now = self.clock()
        current: dict[Path, tuple[int, int]] = {}
        for path in discover(self.settings):
            try:
                st = path.stat()
            except OSError:
                continue  # removed, replaced or unreadable between listing and stat
            current[path] = (st.st_size, st.st_mtime_ns)
        for path in list(self.seen):
            if path not in current:
                del self.seen[path]
        # A handed-out file that is gone is a deletion: the pipeline takes its rows out.
        removed = [path for path in self.done if path not in current]
        for path in removed:
            del self.done[path]
        pending: list[Path] = []
        growing = False
        for path, sig in current.items():
            if self.done.get(path) == sig:
                continue
            prev = self.seen.get(path)
            if prev is None or (prev.size, prev.mtime_ns) != sig:
                self.seen[path] = _Seen(sig[0], sig[1], now)
                growing = True
                continue
            if now - prev.since >= self.settle_s:
                pending.append(path)
            else:
                growing = True
        if growing:
            self.growing_since = self.growing_since or now
            if now - self.growing_since < self.max_wait_s:
                return []
        self.growing_since = None
        for path in pending:
            self.done[path] = current[path]
        return sorted(pending + removed)


def watch(
    settings: Settings,
    on_batch: Callable[[list[Path]], None],
    *,
    interval_s: float = 2.0,
    settle_s: float = 5.0,
    log: Callable[[str], None] = print,
    stop: Callable[[], bool] = lambda: False,
) -> None:
    """Poll until ``stop()`` or Ctrl-C (re-raised after saying so); call ``on_batch`` with each
    settled batch of files."""
    watcher = Watcher(settings, settle_s=settle_s)
    log(
        f"watching {settings.raw_root} (poll every {interval_s:g}s, settle {settle_s:g}s); Ctrl-C stops"
    )
    try:
        while not stop():
            try:
                batch = watcher.poll()
            except Exception as exc:  # e.g. the raw root unmounted: keep watching
                log(f"cannot scan {settings.raw_root}: {type(exc).__name__}: {exc}")
                batch = []
            if batch:
                log(f"{len(batch)} file(s) settled: running the pipeline")
                on_batch(batch)
            time.sleep(interval_s)
    except KeyboardInterrupt:
        log("stopped")
        raise  # exit 130, like every interrupted command
