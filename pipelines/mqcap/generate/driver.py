"""Writer of the generic load-driver results CSV (``parsers/driver_csv.py``): one row per run.

Each row names its study and run. Request/reply and put/get runs: achieved rate, round trip, threads, message size and the
transaction count (rate x interval, exact by construction). Channel start/stop runs: the start
(stop) rate in channels per second, ``round_trip_us`` the time to start one channel
(1,000,000 / rate), ``transactions`` and ``channels`` the channels started.

Example:
    write_driver(plan, folder)  # -> folder / "results.csv"
"""

from __future__ import annotations

from pathlib import Path

from mqcap.generate._fmt import num
from mqcap.generate.scenario import RunPlan


def write_driver(plan: RunPlan, folder: Path) -> list[Path]:
    """``results.csv`` of one run.

    Example:
        write_driver(plan, Path("out/attls/ssl-chacha-1m"))
    """
    # study and run_id make every results file unique: ingest sets aside a file whose bytes it
    # has already loaded under another name, and two runs can share the same figures.
    if plan.driver == "cph":
        return _write_cph(plan, folder)
    if plan.channels:
        header = "study,run_id,rate_per_s,round_trip_us,transactions,channels"
        row = [plan.study, plan.run_id, num(plan.rate_per_s), num(plan.round_trip_us)]
        row += [str(plan.transactions), str(plan.channels)]
    else:
        header = "study,run_id,rate_per_s,round_trip_us,threads,message_bytes,transactions"
        row = [
            plan.study,
            plan.run_id,
            num(plan.rate_per_s),
            num(plan.round_trip_us),
            str(plan.workload.get("threads", 1)),
            str(plan.workload.get("message_bytes", "")),
            str(plan.transactions),
        ]
        if "target_rate_per_s" in plan.workload:
            header += ",target_rate_per_s"
            row.append(str(plan.workload["target_rate_per_s"]))
            if plan.workload.get("type") == "streaming":
                # Streaming at a target rate: a partner puts at a fixed rate; there is no
                # round trip to report, so the column is left out (not invented).
                cols = header.split(",")
                drop = cols.index("round_trip_us")
                header = ",".join(c for i, c in enumerate(cols) if i != drop)
                row = [v for i, v in enumerate(row) if i != drop]
    path = folder / "results.csv"
    path.write_text(f"{header}\n{','.join(row)}\n", encoding="utf-8")
    return [path]


def _write_cph(plan: RunPlan, folder: Path) -> list[Path]:
    """``cph.out``: what mq-cph prints for one requester run with ``-ss 10 -su``: a statistics
    line per 10 seconds and the closing summary (avgRate to 2 decimals, as cph prints it).
    The statistics lines wander by under 1% around the rate; the summary is the run's rate.
    """
    threads = int(plan.workload.get("threads", 1))
    seconds = plan.interval_ms / 1000
    lines = ["controlThread START"]
    for i in range(max(1, int(seconds // 10))):
        wobble = 1 + ((hash_frac(plan.seed, i) - 0.5) / 100)
        lines.append(f"rate={float(plan.rate_per_s) * wobble:.2f},threads={threads}")
    lines.append(
        f"totalIterations={plan.transactions},totalSeconds={seconds:.2f},"
        f"avgRate={float(plan.rate_per_s):.2f}"
    )
    path = folder / "cph.out"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return [path]


def hash_frac(seed: str, i: int) -> float:
    """A stable number in [0, 1) from the run's seed (not Python's salted hash).

    Example:
        >>> 0 <= hash_frac("1:s:r", 0) < 1
        True
    """
    import hashlib

    digest = hashlib.sha256(f"{seed}:{i}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64
