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
    path = folder / "results.csv"
    path.write_text(f"{header}\n{','.join(row)}\n", encoding="utf-8")
    return [path]
