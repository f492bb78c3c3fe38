"""Thread-sweep scenarios: a distributed or appliance study of throughput against threads.

A scenario with a ``thread_sweep`` section (see ``data/scenarios/threadsweep.yaml``) describes
runs as scenario x hardware model x feature x message size x threads, each written as a
``run.yaml`` (no interval: mq-cph output carries none) and the driver's output (``cph.out``).
Throughput follows a saturating curve, rate(n) = peak x (1 - exp(-n x r1 / peak)), with r1
chosen so that one thread's round trip is exactly the scenario's single-thread figure; peak
and single-thread round trip are a figure per message size times a factor per scenario,
hardware model and feature. Rates are printed to 2 decimals, as mq-cph prints them.

Example:
    plans = list(expand_sweep(load_scenario("data/scenarios/threadsweep.yaml")))
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from datetime import datetime, timedelta
from fractions import Fraction
from typing import Any

from mqcap.generate.plan import RunPlan, ScenarioError
from mqcap.parsers._clock import parse_offset


def sweep_rate(peak: float, single_rt_us: float, threads: int) -> float:
    """Throughput (round trips per second) of ``threads`` requesters on the saturating curve,
    rounded to 2 decimals as mq-cph prints it.

    Example:
        >>> sweep_rate(10000, 500, 1)
        2000.0
    """
    rate1 = 1_000_000 / single_rt_us
    if rate1 >= peak:
        raise ScenarioError(f"single-thread rate {rate1:g}/s is not below the peak {peak:g}/s")
    r1 = -peak * math.log(1 - rate1 / peak)
    return round(peak * (1 - math.exp(-threads * r1 / peak)), 2)


def _factor(spec: dict, dim: str, key: str, what: str) -> float:
    table = (spec.get("factors") or {}).get(dim) or {}
    if key not in table:
        raise ScenarioError(f"thread_sweep.factors.{dim}: no entry for {key!r}")
    return float(table[key].get(what, 1))


def _group_factor(spec: dict, scen: str, model: str, feat_key: str) -> dict[str, float]:
    """The feature's extra factors in one scenario x model group (``factors.feature_in``,
    keyed ``<scenario>/<model>``), so that a feature can cost more in one group than another."""
    table = ((spec.get("factors") or {}).get("feature_in") or {}).get(f"{scen}/{model}") or {}
    return {k: float(v) for k, v in (table.get(feat_key) or {}).items()}


def _start(doc: dict) -> datetime:
    start = doc["start"]
    if isinstance(start, str):
        start = datetime.fromisoformat(start)
    return start.replace(tzinfo=None, microsecond=0)


def expand_sweep(doc: dict, *, seed: int | None = None, scale: float = 1.0) -> Iterator[RunPlan]:
    """The runs of a thread-sweep scenario, in order (scenario, model, feature, size, threads).

    ``scale`` above 1 repeats the study (run ids ``<run>.r2``...), as for other scenarios.

    Example:
        for plan in expand_sweep(doc): print(plan.run_id, float(plan.rate_per_s))
    """
    spec: dict[str, Any] = doc["thread_sweep"]
    study = str(doc["study"])
    seed = doc.get("seed", 0) if seed is None else seed
    sizes = [int(s) for s in spec["message_bytes"]]
    peaks = [float(p) for p in spec["peak_rate_per_s"]]
    rts = [float(r) for r in spec["single_round_trip_us"]]
    if not (len(sizes) == len(peaks) == len(rts)):
        raise ScenarioError("thread_sweep: one peak and one round trip per message size")
    threads_list = [int(t) for t in spec["threads"]]
    seconds = int(spec.get("run_s", 60))
    gap = timedelta(seconds=int(doc.get("gap_s", 10)))
    persistence = spec.get("persistence", "persistent")
    repeats = max(1, math.ceil(scale))
    t = _start(doc)
    for rep in range(1, repeats + 1):
        suffix = "" if rep == 1 else f".r{rep}"
        for scen in spec["scenarios"]:
            for model in spec["hardware_models"]:
                for feat_key, feat in spec["features"].items():
                    for size, peak0, rt0 in zip(sizes, peaks, rts, strict=True):
                        peak = peak0
                        rt = rt0
                        for dim, key in (
                            ("scenario", scen),
                            ("hardware_model", model),
                            ("feature", feat_key),
                        ):
                            peak *= _factor(spec, dim, key, "peak")
                            rt *= _factor(spec, dim, key, "round_trip")
                        group = _group_factor(spec, scen, model, feat_key)
                        peak *= group.get("peak", 1)
                        rt *= group.get("round_trip", 1)
                        for threads in threads_list:
                            yield _plan(
                                doc, study, seed, suffix, scen, model, feat_key, feat, size,
                                persistence, threads, sweep_rate(peak, rt, threads), seconds, t,
                            )  # fmt: skip
                            t += timedelta(seconds=seconds) + gap


def _plan(
    doc: dict, study: str, seed: Any, suffix: str, scen: str, model: str, feat_key: str,
    feat: dict, size: int, persistence: str, threads: int, rate: float, seconds: int,
    start: datetime,
) -> RunPlan:  # fmt: skip
    rate_f = Fraction(str(rate))
    transactions = round(rate * seconds)
    size_key = f"{size // 1024}k" if size % 1024 == 0 else f"{size}b"
    run_id = f"{scen}-{model}-{feat_key}-{size_key}-t{threads}".lower()
    base_feat = next(k for k, v in doc["thread_sweep"]["features"].items() if v.get("baseline"))
    baseline = f"{scen}-{model}-{base_feat}-{size_key}-t{threads}".lower() + suffix
    configuration = feat.get("name", feat_key)
    labels = {str(k): str(v) for k, v in (feat.get("labels") or {}).items()}
    # encoding 'labels': the way many studies were written before run.yaml had the fields:
    # scenario and model in the configuration's name and in labels, no scenario or
    # hardware_model field (int_runs reads them from the labels).
    by_labels = doc["thread_sweep"].get("encoding", "fields") == "labels"
    if by_labels:
        configuration = f"{scen}, {model}, {configuration}"
        labels = {"scenario": scen, "model": model, **labels}
    return RunPlan(
        study=study,
        run_id=run_id + suffix,
        description=(
            f"{configuration}, {scen} scenario on {model}, {size}-byte {persistence} "
            f"request/responder, {threads} requester thread{'' if threads == 1 else 's'}. "
            f"{doc.get('note', 'Generated by mqcap.generate, not captured on a real system.')}"
        ),
        configuration=configuration,
        config_key=feat_key,
        point_key=f"{size_key}-t{threads}",
        labels=labels,
        baseline=baseline,
        workload={
            "type": "request_reply",
            "message_bytes": size,
            "persistence": persistence,
            "threads": threads,
        },
        start=start,
        interval_ms=seconds * 1000,
        transactions=transactions,
        rate_per_s=rate_f,
        round_trip_us=Fraction(1_000_000 * threads) / rate_f,
        channels=None,
        cpu_us={},
        jobs={},
        system="",
        qmgr=str(doc.get("qmgr", "QM1")),
        remote_qmgr="",
        seed=f"{seed}:{study}:{run_id}{suffix}",
        rmf={},
        rmf_intervals=1,
        density=1.0,
        platform=str(doc.get("platform", "appliance")),
        host=str((doc.get("hosts") or {}).get(model, model)).lower(),
        hardware_model=None if by_labels else model,
        scenario=None if by_labels else scen,
        driver="cph",
        with_interval=False,
        monitoring=_monitoring(doc, scen, model, size),
    )


def _monitoring(doc: dict, scen: str, model: str, size: int) -> dict | None:
    """The ``monitoring`` figures for a run it selects (amqsrua, amqsmon files), else None.

    The section's ``scenarios``, ``hardware_models`` and ``message_bytes`` lists select runs
    (a missing list selects all); the study file's ``utc_offset`` says how far the appliance's
    UTC publication times are from the local times of the run (generate/distributed.py).
    """
    mon = doc["thread_sweep"].get("monitoring")
    if not mon:
        return None
    for key, value in (("scenarios", scen), ("hardware_models", model), ("message_bytes", size)):
        if key in mon and value not in mon[key]:
            return None
    offset = (doc.get("study_file") or {}).get("utc_offset", 0)
    minutes = parse_offset(offset)
    if minutes is None:
        raise ScenarioError(f"study_file.utc_offset: {offset!r} is not a UTC offset like '+01:00'")
    return {**mon, "utc_offset_minutes": minutes}
