"""amqsrua and amqsmon output of a distributed or appliance run (``monitoring`` in a scenario).

GENERATED DATA, NOT CAPTURED ON A REAL SYSTEM. A thread-sweep scenario's ``monitoring`` section
(data/scenarios/threadsweep.yaml) picks runs (by scenario, hardware model and message size) and
gives each of them, beside the driver's output:

- ``amqsrua.txt``: what IBM's ``amqsrua`` sample prints for the queue manager's resource-usage
  publications every ``publish_s`` seconds (default 10): CPU SystemSummary and QMgrSummary,
  DISK Log, STATMQI PUT and GET, STATQ PUT and GET of the request and reply queues. PutDate and
  PutTime are the MQ message descriptor's, in UTC: the run's local times minus the study's
  ``utc_offset`` (the study file states it, so mqcap shows them in local time again);
- ``amqsmon.txt``: what ``amqsmon -t statistics`` prints for one MQIStatistics and one
  QueueStatistics record covering the run (STATINT = the run's length), in local time.

Figures follow the run's round-trip rate r (a request/responder: per round trip one put and one
get on each queue): per publication the puts on each queue are r x seconds with 1% noise, the
queue manager's are their sum, the amqsmon counts are the sums over the publications (the two
sources agree exactly). CPU: the queue manager's percentage of the host is r x
``qmgr_cpu_us_per_txn`` / (``cores`` x 10^6) x 100 (70% user, 30% system), the host's adds
``host_cpu_factor`` times as much for the driver; log write latency is ``log_latency_us``
[base, per thread] with 3% noise; log bytes are ``log_bytes_per_txn`` [physical, logical]
overheads plus twice the message size per round trip (persistent messages only).

Example:
    write_amqsrua(plan, Path("out/threadsweep/local-m2002a-off-2k-t8"))
"""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

from mqcap.generate._fmt import run_rng
from mqcap.generate.scenario import RunPlan

QUEUES = ("CPH.REQUEST", "CPH.REPLY")


def _stamp(t: datetime) -> str:
    """amqsrua's ``PutDate:YYYYMMDD PutTime:HHMMSShh`` (hundredths of a second)."""
    return f"PutDate:{t:%Y%m%d} PutTime:{t:%H%M%S}{t.microsecond // 10000:02d}"


def _rate(count: int, interval_us: int) -> int:
    """The rate amqsrua prints for a counter: ``(count * 1e6 + interval / 2) / interval``."""
    return (count * 1_000_000 + interval_us // 2) // interval_us


def publications(plan: RunPlan) -> list[dict]:
    """The run's publications: UTC put time, interval and the counts and levels they print.

    Example:
        [p["puts"] for p in publications(plan)]  # per-queue puts of each 10 s publication
    """
    mon = plan.monitoring or {}
    step = int(mon.get("publish_s", 10))
    n = max(1, int(plan.interval_s // step))
    offset = timedelta(minutes=int(mon.get("utc_offset_minutes", 0)))
    rng = run_rng(plan, "amqsrua")
    rate = float(plan.rate_per_s)
    threads = int(plan.workload.get("threads", 1))
    size = int(plan.workload.get("message_bytes", 0))
    persistent = plan.workload.get("persistence") == "persistent"
    cores = float(mon.get("cores", 8))
    qmgr_pct = rate * float(mon.get("qmgr_cpu_us_per_txn", 30)) / (cores * 1e6) * 100
    base, per_thread = (float(x) for x in mon.get("log_latency_us", [800, 4]))
    phys, logical = (int(x) for x in mon.get("log_bytes_per_txn", [1400, 900]))
    out = []
    for k in range(1, n + 1):
        puts = round(rate * step * rng.uniform(0.99, 1.01))
        qpct = qmgr_pct * rng.uniform(0.97, 1.03)
        out.append(
            {
                "put_utc": plan.start - offset + timedelta(seconds=k * step, milliseconds=130),
                "interval_us": step * 1_000_000,
                "puts": puts,  # per queue; gets equal puts (a responder keeps up)
                "qmgr_user": round(qpct * 0.7, 2),
                "qmgr_system": round(qpct * 0.3, 2),
                "host_user": round(qpct * float(mon.get("host_cpu_factor", 1.6)) * 0.7, 2),
                "host_system": round(qpct * float(mon.get("host_cpu_factor", 1.6)) * 0.3, 2),
                "latency_us": round((base + per_thread * threads) * rng.uniform(0.97, 1.03)),
                "phys_bytes": puts * (2 * size + phys) if persistent else 0,
                "logical_bytes": puts * (2 * size + logical) if persistent else 0,
            }
        )
    return out


def write_amqsrua(plan: RunPlan, folder: Path) -> list[Path]:
    """``amqsrua.txt`` of one run (nothing when its scenario asks for no monitoring).

    Example:
        write_amqsrua(plan, Path("out/threadsweep/local-m2002a-off-2k-t8"))
    """
    if not plan.monitoring:
        return []
    lines: list[str] = []
    for p in publications(plan):
        iv = p["interval_us"]
        head = (
            f"Publication received {_stamp(p['put_utc'])} "
            f"Interval:{iv // 1_000_000}.{iv // 1000 % 1000:03d} seconds"
        )
        puts, total = p["puts"], 2 * p["puts"]
        lines += [
            head,
            f"User CPU time percentage {p['host_user']:.2f}%",
            f"System CPU time percentage {p['host_system']:.2f}%",
            "CPU load - one minute average 1.00",
            "RAM free percentage 72.50%",
            "RAM total bytes 192000MB",
            head,
            f"User CPU time - percentage estimate for queue manager {p['qmgr_user']:.2f}%",
            f"System CPU time - percentage estimate for queue manager {p['qmgr_system']:.2f}%",
            "RAM total bytes - estimate for queue manager 2048MB",
            head,
            f"Log - physical bytes written {p['phys_bytes']} {_rate(p['phys_bytes'], iv)}/sec",
            f"Log - logical bytes written {p['logical_bytes']} {_rate(p['logical_bytes'], iv)}/sec",
            f"Log - write latency {p['latency_us']} uSec",
            "Log - current primary space in use 4.20%",
            head,
            f"Interval total MQPUT/MQPUT1 count {total} {_rate(total, iv)}/sec",
            head,
            f"Interval total destructive get- count {total} {_rate(total, iv)}/sec",
        ]
        for queue in QUEUES:
            lines += [
                head,
                f"{queue:<48}MQPUT/MQPUT1 count {puts} {_rate(puts, iv)}/sec",
                head,
                f"{queue:<48}MQGET count {puts} {_rate(puts, iv)}/sec",
            ]
    path = folder / "amqsrua.txt"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return [path]


def write_amqsmon(plan: RunPlan, folder: Path) -> list[Path]:
    """``amqsmon.txt`` of one run: one MQI and one queue statistics record over the run.

    Example:
        write_amqsmon(plan, Path("out/threadsweep/local-m2002a-off-2k-t8"))
    """
    if not plan.monitoring:
        return []
    pubs = publications(plan)
    puts = sum(p["puts"] for p in pubs)
    size = int(plan.workload.get("message_bytes", 0))
    persistent = plan.workload.get("persistence") == "persistent"

    def pair(n: int) -> str:
        return f"[0, {n}]" if persistent else f"[{n}, 0]"

    start, end = plan.start, plan.start + timedelta(seconds=len(pubs) * _step(plan))
    head = [
        f"QueueManager: '{plan.qmgr}'",
        f"IntervalStartDate: '{start:%Y-%m-%d}'",
        f"IntervalStartTime: '{start:%H.%M.%S}'",
        f"IntervalEndDate: '{end:%Y-%m-%d}'",
        f"IntervalEndTime: '{end:%H.%M.%S}'",
        "CommandLevel: 940",
    ]
    lines = ["MonitoringType: MQIStatistics", *head]
    lines += [
        "ConnCount: 0",
        f"ConnHighwater: {2 * int(plan.workload.get('threads', 1))}",
        f"PutCount: {pair(2 * puts)}",
        "PutFailCount: 0",
        f"PutBytes: {pair(2 * puts * size)}",
        f"GetCount: {pair(2 * puts)}",
        f"GetBytes: {pair(2 * puts * size)}",
        "GetFailCount: 0",
        f"CommitCount: {2 * puts}",
        "",
        "MonitoringType: QueueStatistics",
        *head,
        f"ObjectCount: {len(QUEUES)}",
    ]
    for i, queue in enumerate(QUEUES):
        lines += [
            f"QueueStatistics: {i}",
            f"  QueueName: '{queue}'",
            "  QueueType: Local",
            "  QMinDepth: 0",
            f"  QMaxDepth: {int(plan.workload.get('threads', 1))}",
            f"  PutCount: {pair(puts)}",
            "  Put1Count: [0, 0]",
            f"  PutBytes: {pair(puts * size)}",
            f"  GetCount: {pair(puts)}",
            f"  GetBytes: {pair(puts * size)}",
        ]
    path = folder / "amqsmon.txt"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return [path]


def _step(plan: RunPlan) -> int:
    return int((plan.monitoring or {}).get("publish_s", 10))
