"""Writer of a small binary MQ SMF dump per run: 116/10 channel accounting (QCST, one per channel)
and 115/231 channel initiator statistics (QCCT plus dispatcher, adapter and SSL task blocks),
one record of each per scenario RMF interval (not multiplied by ``scale``), with RDWs. The records come from the SMF engineer's encoder
(``mqcap.synth.smf_mq``), the inverse of the decoder, so they are exactly what the
``smf_mq`` parser reads.

Channel figures follow the channel-status behaviour (NETTIME range, batch size); task CPU shares
the run's CHIN CPU out over dispatchers, adapters and, with MQ System SSL, SSL tasks.

Example:
    write_smf(plan, folder)  # -> folder / "mqsmf.bin"
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from mqcap.generate._fmt import run_rng
from mqcap.generate.scenario import RunPlan
from mqcap.synth.smf_mq import Ident, record_115_231, record_116_10, write_dump


def _chin_job(plan: RunPlan) -> str | None:
    return next((j for j, r in plan.jobs.items() if r == "CHIN"), None)


def _channels(plan: RunPlan, rng, start, end, msgs: int) -> list[dict]:
    spec = plan.chstatus or {}
    lo, hi = spec.get("nettime_us", [300, 900])
    xlo, xhi = spec.get("xbatchsz", [1, 2])
    batch = max(1, round((xlo + xhi) / 2))
    msg_bytes = int(plan.workload.get("message_bytes", 1024))
    out = []
    for name, kind in (
        (f"{plan.qmgr}.TO.{plan.remote_qmgr}", "Sender"),
        (f"{plan.remote_qmgr}.TO.{plan.qmgr}", "Receiver"),
    ):
        row = {
            "collection_time_utc": end,
            "chl_name": name,
            "disposition": "Private",
            "type": kind,
            "status": "Running",
            "stat_setting": "High",
            "connection_name": "10.1.1.2",
            "start_utc": plan.start - timedelta(minutes=5),
            "last_msg_utc": end,
            "batchsize": 50,
            "msg_all_count": msgs,
            "batches": msgs // batch,
            "full_batches": 0,
            "buffers_sent": msgs + msgs // batch,
            "buffers_rcvd": msgs // batch + 1,
            "number_bytes": msgs * msg_bytes,
            "bytes_sent": msgs * (msg_bytes + 400) if kind == "Sender" else (msgs // batch) * 84,
            "bytes_received": msgs * (msg_bytes + 400) if kind == "Receiver" else 0,
            "remote_qmgr_or_app": plan.remote_qmgr,
            "dispatcher_number": 0 if kind == "Sender" else 1,
        }
        if kind == "Sender":
            row["net_time_min"] = round(lo * (1 + rng.uniform(0, 0.1)))
            row["net_time_max"] = round(hi * (1 - rng.uniform(0, 0.1)))
            row["net_time_avg"] = round(rng.uniform(row["net_time_min"], row["net_time_max"]))
            row["net_time_max_date_utc"] = start + (end - start) * rng.uniform(0, 1)
        out.append(row)
    return out


def _tasks(plan: RunPlan, rng, chin_us: int, ms: int, msgs: int) -> dict:
    ssl = bool(plan.sslciph)
    shares = {"dispatchers": 0.25, "adapters": 0.05, "ssl": 0.6} if ssl else {
        "dispatchers": 0.7, "adapters": 0.1, "ssl": 0.0}  # fmt: skip
    counts = {"dispatchers": 5, "adapters": 8, "ssl": 3 if ssl else 0}
    out: dict[str, list[dict]] = {}
    for kind, n in counts.items():
        rows = []
        for i in range(n):
            # Channels 0 and 1 run on the first dispatchers and SSL tasks; the rest idle.
            busy = 1.0 if i < 2 or kind == "adapters" else 0.0
            cpu = int(chin_us * shares[kind] / (2 if kind != "adapters" else n) * busy)
            cpu = int(cpu * (1 + rng.uniform(-0.05, 0.05)))
            elapsed = int(cpu * (1.2 + rng.uniform(0, 0.3)))
            rows.append(
                {
                    "task_number": i,
                    "request_count": int(msgs * (3 if kind == "dispatchers" else 1) * busy),
                    "task_cpu_time_us": cpu,
                    "task_elapsed_time_us": elapsed,
                    "task_wait_time_us": max(0, ms * 1000 - elapsed),
                }
            )
        out[kind] = rows
    return out


def _share(total: int, done_ms: int, ms: int, all_ms: int) -> int:
    return total * (done_ms + ms) // all_ms - total * done_ms // all_ms


def write_smf(plan: RunPlan, folder: Path) -> list[Path]:
    """``mqsmf.bin`` (runs with ``smf: true`` in their group, when the encoder is there).

    Example:
        write_smf(plan, Path("out/attls/ssl-chacha-1m"))
    """
    chin = _chin_job(plan)
    if not (plan.smf and chin):
        return []
    rng = run_rng(plan, "smf")
    records = []
    done_ms = 0
    # SMF intervals do not follow scale's density: real SMF intervals are minutes long, and the
    # encoder is the slow part of generation.
    for start, ms in plan.intervals(plan.base_intervals):
        end = start + timedelta(milliseconds=ms)
        ident = Ident(end, plan.system, plan.qmgr, "930", start, ms * 1000)
        # Shares of running totals, so the intervals add up to the run exactly.
        msgs = _share(plan.transactions, done_ms, ms, plan.interval_ms)
        chin_us = _share(plan.cpu_ms(chin) * 1000, done_ms, ms, plan.interval_ms)
        done_ms += ms
        records.append(record_116_10(ident, _channels(plan, rng, start, end, msgs)))
        qcct = {
            "job_name": chin,
            "current_chl_high_water": plan.channels or 2,
            "current_chl_max": 9999,
            "active_chl_high_water": plan.channels or 2,
            "active_chl_max": 9999,
            "max_tcp_chl": 9999,
            "storage_usage_31": 180_000_000,
        }
        records.append(record_115_231(ident, qcct, **_tasks(plan, rng, chin_us, ms, msgs)))
    return [write_dump(folder / "mqsmf.bin", records)]
