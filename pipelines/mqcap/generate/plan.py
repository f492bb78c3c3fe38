"""What the writers need to know about one run (``RunPlan``), and the error of a scenario that
cannot be generated; :mod:`mqcap.generate.scenario` and :mod:`mqcap.generate.sweep` make plans.

Example:
    from mqcap.generate.plan import RunPlan
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from fractions import Fraction
from typing import Any


class ScenarioError(ValueError):
    """A scenario file that cannot be generated; the message names the field."""


@dataclass
class RunPlan:
    """Everything the writers need to know about one run (already exact and scheduled)."""

    study: str
    run_id: str
    description: str
    configuration: str
    config_key: str
    point_key: str
    labels: dict[str, str]
    baseline: str | None
    workload: dict[str, Any]
    start: datetime
    interval_ms: int
    transactions: int
    rate_per_s: Fraction
    round_trip_us: Fraction
    channels: int | None
    cpu_us: dict[str, Fraction]
    jobs: dict[str, str]
    system: str
    qmgr: str
    remote_qmgr: str
    seed: str
    rmf: dict[str, Any]
    rmf_intervals: int
    density: float
    base_intervals: int = 1
    sslciph: str | None = None
    chstatus: dict[str, Any] | None = None
    netstat: dict[str, Any] | None = None
    crypto: dict[str, Any] | None = None
    smf: bool = False
    notes: list[str] = field(default_factory=list)
    # Distributed / appliance studies (generate/sweep.py): where the run was measured, how the
    # driver wrote its results ("csv" results.csv, "cph" mq-cph output) and whether the
    # manifest gives an interval (mq-cph and cphtestp carry none).
    platform: str | None = None
    host: str | None = None
    hardware_model: str | None = None
    scenario: str | None = None
    driver: str = "csv"
    with_interval: bool = True
    xqtime_growth: float = 1.0
    # amqsrua / amqsmon output of a distributed or appliance run (generate/distributed.py):
    # the scenario's monitoring figures plus utc_offset_minutes, or None for no such files.
    monitoring: dict[str, Any] | None = None

    @property
    def end(self) -> datetime:
        return self.start + timedelta(milliseconds=self.interval_ms)

    @property
    def interval_s(self) -> float:
        return self.interval_ms / 1000

    def cpu_ms(self, job: str) -> int:
        """CPU milliseconds of ``job`` over the run: exact when the plan could make it so."""
        return round(self.cpu_us[job] * self.transactions / 1000)

    def intervals(self, n: int | None = None) -> list[tuple[datetime, int]]:
        """(start, length ms) of the RMF intervals (or of ``n`` intervals): whole seconds but the
        last, since the report header prints the start time to the second."""
        n = n or self.rmf_intervals
        whole_s = self.interval_ms // 1000 // n
        if n == 1 or whole_s == 0:
            return [(self.start, self.interval_ms)]
        out, t, left = [], self.start, self.interval_ms
        for _ in range(n - 1):
            out.append((t, whole_s * 1000))
            t += timedelta(seconds=whole_s)
            left -= whole_s * 1000
        out.append((t, left))
        return out
