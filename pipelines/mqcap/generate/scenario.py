"""Scenario files: load, check, and expand into one :class:`RunPlan` per run, lazily.

A scenario (``data/scenarios/<study>.yaml``) describes a study as configurations x workload
points, grouped: each group names its configurations and points and gives, per configuration,
one figure per point (round trip or rate, CPU microseconds per transaction per report class)
plus the behaviour of the captures (channel status, NETSTAT, crypto card). The format is
documented at the top of every scenario file and in the report of issue 6.

The arithmetic is exact: transactions and interval are chosen together (with fractions) so that
report-class CPU seconds printed to the millisecond give back the scenario's microseconds per
transaction, and the driver's rate times the interval is the transaction count.

Example:
    plans = list(expand(load_scenario(Path("data/scenarios/attls.yaml"))))
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from fractions import Fraction
from pathlib import Path
from typing import Any

import yaml

from mqcap.generate.plan import RunPlan, ScenarioError

WORKLOAD_TYPES = ("request_reply", "streaming", "put_get", "channel_start", "channel_stop", "other")
ROLES = ("MSTR", "CHIN", "TCPIP", "AMSM", "APP", "OTHER")
# Per-run density (polls, snapshots, intervals) is capped so a NETSTAT poll stays >= 1 s apart;
# beyond it, scale repeats runs instead.
MAX_DENSITY = 5


def load_scenario(path: Path | str) -> dict:
    """A scenario YAML file as a dict (checked when expanded).

    Example:
        scenario = load_scenario("data/scenarios/keysize.yaml")
    """
    with open(path, encoding="utf-8") as fh:
        doc = yaml.safe_load(fh)
    if not isinstance(doc, dict):
        raise ScenarioError(f"{path}: a scenario must be a YAML mapping")
    return doc


def _frac(value: Any, where: str) -> Fraction:
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise ScenarioError(f"{where}: expected a number, got {value!r}")
    try:
        # via str: 562.5 and 0.1 stay the decimals they were written as
        return Fraction(str(value))
    except (ValueError, ZeroDivisionError):
        raise ScenarioError(f"{where}: expected a number, got {value!r}") from None


def _per_point(table: Any, config: str, idx: int, npoints: int, where: str) -> Any:
    """The value of ``table[config]`` for point ``idx``: one value per point, or one for all."""
    if not isinstance(table, dict) or config not in table:
        raise ScenarioError(f"{where}: no entry for configuration {config!r}")
    values = table[config]
    if isinstance(values, list):
        if len(values) != npoints:
            raise ScenarioError(
                f"{where}.{config}: expected {npoints} values (one per point), got {len(values)}"
            )
        return values[idx]
    return values


def _behaviour(spec: dict | None, config: str, point: str) -> dict | None:
    """``default`` overlaid with every rule matching the configuration and point, in order."""
    if not spec:
        return None
    out = dict(spec.get("default") or {})
    for rule in spec.get("rules") or []:
        if config in rule.get("configurations", [config]) and point in rule.get("points", [point]):
            out.update({k: v for k, v in rule.items() if k not in ("configurations", "points")})
    return out


def quantum(costs: list[Fraction]) -> int:
    """Smallest transaction-count step that makes every cost x count / 1000 a whole number of
    CPU milliseconds (RMF prints CPU seconds with three decimals).

    Example:
        >>> quantum([Fraction(2200), Fraction(45)])
        200
    """
    q = 1
    for c in costs:
        need = (c.denominator * 1000) // math.gcd(c.numerator, c.denominator * 1000)
        q = q * need // math.gcd(q, need)
    return q


def exact_window(rate: Fraction, q: int, target_ms: int) -> tuple[int, int]:
    """(transactions, interval ms) with transactions = rate x interval exactly, a multiple of
    ``q``, and the interval as close to ``target_ms`` as those allow (at least one step).

    Example:
        >>> exact_window(Fraction(1_000_000, 2172), 1000, 300_000)
        (138000, 299736)
    """
    p, d = rate.numerator, rate.denominator
    # T = q*m and ms = 1000*d*T/p: m must be a multiple of p / gcd(p, 1000*d*q).
    step_m = p // math.gcd(p, 1000 * d * q)
    ms_step = 1000 * d * q * step_m // p
    k = max(1, round(target_ms / ms_step))
    return q * step_m * k, ms_step * k


def _check(doc: dict) -> None:
    for key in ("study", "start", "configurations", "points", "groups", "jobs"):
        if key not in doc:
            raise ScenarioError(f"scenario: missing field {key!r}")
    for job, role in doc["jobs"].items():
        if role not in ROLES:
            raise ScenarioError(f"jobs.{job}: role must be one of {ROLES}, got {role!r}")
    for name, point in doc["points"].items():
        if point.get("type", "request_reply") not in WORKLOAD_TYPES:
            raise ScenarioError(f"points.{name}.type: one of {WORKLOAD_TYPES}")


def _start(doc: dict) -> datetime:
    start = doc["start"]
    if isinstance(start, str):
        start = datetime.fromisoformat(start)
    if not isinstance(start, datetime):
        raise ScenarioError("start: expected an ISO timestamp like 2021-06-01T08:00:00")
    return start.replace(tzinfo=None, microsecond=0)


def expand(doc: dict, *, seed: int | None = None, scale: float = 1.0) -> Iterator[RunPlan]:
    """The runs of a scenario in order, scheduled one after the other; a generator, so a
    scenario scaled to thousands of runs never sits in memory.

    ``scale`` multiplies the volume: each run gets up to ``MAX_DENSITY`` times its polls,
    snapshots and RMF intervals, and beyond that the whole study is repeated (run ids
    ``<run>.r2``, ``<run>.r3``... each with its own baseline ``<baseline>.r2``...).

    Example:
        for plan in expand(doc, seed=1, scale=2.0): ...
    """
    if "thread_sweep" in doc:
        from mqcap.generate.sweep import expand_sweep  # a sweep study has its own expansion

        yield from expand_sweep(doc, seed=seed, scale=scale)
        return
    _check(doc)
    if scale <= 0:
        raise ScenarioError("scale must be positive")
    study = str(doc["study"])
    seed = doc.get("seed", 0) if seed is None else seed
    repeats = max(1, math.ceil(scale / MAX_DENSITY))
    density = scale / repeats
    target_ms = int(doc.get("interval_s", 300) * 1000)
    gap = timedelta(seconds=doc.get("gap_s", 60))
    rmf = {"policy": "MQPERF", "intervals": 1, "su_per_s": 50000, **(doc.get("rmf") or {})}
    t = _start(doc)
    configs, points = doc["configurations"], doc["points"]
    for rep in range(1, repeats + 1):
        ctx = _Study(doc, study, seed, rmf, density, target_ms, "" if rep == 1 else f".r{rep}")
        for gi, group in enumerate(doc["groups"]):
            gname = f"groups[{gi}]"
            pkeys = group["points"]
            for ckey in group["configurations"]:
                if ckey not in configs:
                    raise ScenarioError(f"{gname}: unknown configuration {ckey!r}")
                for idx, pkey in enumerate(pkeys):
                    if pkey not in points:
                        raise ScenarioError(f"{gname}: unknown point {pkey!r}")
                    slot = _Slot(group, gname, configs[ckey], ckey, points[pkey], pkey, idx,
                                 len(pkeys))  # fmt: skip
                    plan = _plan(ctx, slot, t)
                    yield plan
                    # Runs never overlap: CPU is attributed to runs by time window.
                    nxt = plan.end + gap
                    t = nxt.replace(microsecond=0) + timedelta(seconds=1 if nxt.microsecond else 0)


@dataclass(frozen=True)
class _Study:
    """What every run of one repetition of a study shares."""

    doc: dict
    study: str
    seed: Any
    rmf: dict
    density: float
    target_ms: int
    suffix: str


@dataclass(frozen=True)
class _Slot:
    """Where a run sits in the scenario: its group, configuration and point."""

    group: dict
    gname: str
    cfg: dict
    ckey: str
    point: dict
    pkey: str
    idx: int
    npoints: int


def _plan(ctx: _Study, slot: _Slot, start: datetime) -> RunPlan:
    """The run of one slot of the scenario, starting at ``start``; its figures are checked
    here, so a scenario's mistake names the group and field it is in."""
    doc, study, seed, rmf, density, suffix = (
        ctx.doc, ctx.study, ctx.seed, ctx.rmf, ctx.density, ctx.suffix,
    )  # fmt: skip
    group, gname, cfg, ckey, point, pkey, idx, npoints = (
        slot.group, slot.gname, slot.cfg, slot.ckey, slot.point, slot.pkey, slot.idx, slot.npoints,
    )  # fmt: skip
    jobs = {str(k).upper(): v for k, v in doc["jobs"].items()}
    cpu = _cpu(slot, jobs)
    wtype = point.get("type", "request_reply")
    channels = point.get("channels")
    notes: list[str] = []
    if wtype in ("channel_start", "channel_stop"):
        rate, round_trip, transactions, interval_ms = _channel_window(slot, cpu, notes)
    else:
        rate, round_trip, transactions, interval_ms = _timed_window(slot, cpu, ctx.target_ms)
    run_id = group.get("run_id", "{configuration}-{point}").format(configuration=ckey, point=pkey)
    baseline = _baseline(slot, suffix)
    workload = _workload(slot, wtype)
    desc = (
        f"{cfg.get('text', cfg.get('name', ckey))}, {point.get('text', pkey)}. "
        f"{doc.get('note', 'Generated by mqcap.generate, not captured on a real system.')}"
    )
    labels = {str(k): str(v) for k, v in (cfg.get("labels") or {}).items()}
    labels.update({str(k): str(v) for k, v in (point.get("labels") or {}).items()})
    return RunPlan(
        study=study,
        run_id=run_id + suffix,
        description=desc,
        configuration=cfg.get("name", ckey),
        config_key=ckey,
        point_key=pkey,
        labels=labels,
        baseline=baseline,
        workload=workload,
        start=start,
        interval_ms=interval_ms,
        transactions=transactions,
        rate_per_s=rate,
        round_trip_us=round_trip,
        channels=int(channels) if channels else None,
        cpu_us=cpu,
        jobs=jobs,
        system=str(doc.get("system", "MPX1")),
        qmgr=str(doc.get("qmgr", "QML1")),
        remote_qmgr=str(doc.get("remote_qmgr", "QML2")),
        seed=f"{seed}:{study}:{run_id}{suffix}",
        rmf=rmf,
        rmf_intervals=max(1, round(int(group.get("rmf_intervals", rmf["intervals"])) * density)),
        density=density,
        base_intervals=int(group.get("rmf_intervals", rmf["intervals"])),
        sslciph=cfg.get("sslciph"),
        chstatus=_behaviour(group.get("chstatus"), ckey, pkey),
        netstat=_behaviour(group.get("netstat"), ckey, pkey),
        crypto=_crypto(group.get("crypto"), ckey, idx, npoints, gname),
        smf=bool(group.get("smf", False)),
        notes=notes,
        platform=doc.get("platform"),
    )


def _cpu(slot: _Slot, jobs: dict) -> dict[str, Fraction]:
    """CPU microseconds per transaction by job (upper case) for the slot's configuration and
    point; a job the scenario's ``jobs`` does not name is an error."""
    cpu: dict[str, Fraction] = {}
    gname = slot.gname
    for job, table in (slot.group.get("cpu_us") or {}).items():
        if job.upper() not in jobs:
            raise ScenarioError(f"{gname}.cpu_us.{job}: not a job of the scenario's jobs")
        cpu[job.upper()] = _frac(
            _per_point(table, slot.ckey, slot.idx, slot.npoints, f"{gname}.cpu_us.{job}"),
            f"{gname}.cpu_us",
        )
    return cpu


def _figure(slot: _Slot, key: str) -> Fraction:
    """The group's ``key`` (rate_per_s, round_trip_us) for the slot's configuration and point."""
    where = f"{slot.gname}.{key}"
    return _frac(_per_point(slot.group.get(key), slot.ckey, slot.idx, slot.npoints, where), where)


def _channel_window(
    slot: _Slot, cpu: dict[str, Fraction], notes: list[str]
) -> tuple[Fraction, Fraction, int, int]:
    """(rate, round trip, transactions, interval ms) of a channel start or stop point: one
    transaction per channel, each taking one round trip at the group's rate. A CPU figure that
    is not a whole number of milliseconds over the channels adds a note to ``notes``."""
    channels = slot.point.get("channels")
    if not channels:
        raise ScenarioError(f"points.{slot.pkey}: channel start/stop points need channels")
    rate = _figure(slot, "rate_per_s")
    transactions = int(channels)
    interval_ms = round(Fraction(transactions * 1000) / rate)
    round_trip = Fraction(1_000_000) / rate  # time to start (stop) one channel
    for job, c in cpu.items():
        if (c * transactions) % 1000:
            # The channel count is fixed, so exactness cannot be bought with the interval.
            notes.append(
                f"{job}: {float(c):g} us x {transactions} channels rounded to whole CPU ms"
            )
    return rate, round_trip, transactions, interval_ms


def _timed_window(
    slot: _Slot, cpu: dict[str, Fraction], target_ms: int
) -> tuple[Fraction, Fraction, int, int]:
    """(rate, round trip, transactions, interval ms) of a point that runs for an interval: the
    group gives the round trip or the rate (the other follows from the threads), and the
    interval is the exact one nearest ``target_ms`` (:func:`exact_window`), unlike a channel
    point's, whose transactions are fixed."""
    threads = int(slot.point.get("threads", 1))
    if "round_trip_us" in slot.group:
        round_trip = _figure(slot, "round_trip_us")
        rate = Fraction(1_000_000 * threads) / round_trip
    else:
        rate = _figure(slot, "rate_per_s")
        round_trip = Fraction(1_000_000 * threads) / rate
    transactions, interval_ms = exact_window(rate, quantum(list(cpu.values())), target_ms)
    return rate, round_trip, transactions, interval_ms


def _baseline(slot: _Slot, suffix: str) -> str | None:
    """The run this one is compared with: the same point's run of the baseline configuration
    (the group's, else the configuration's own), or a fixed run of the group
    (``baseline_run``); None for a baseline run."""
    group = slot.group
    base_cfg = group.get("baseline", slot.cfg.get("baseline"))
    baseline = group.get("baseline_run")
    if baseline is None and base_cfg:
        baseline = group.get("run_id", "{configuration}-{point}").format(
            configuration=base_cfg, point=slot.pkey
        )
    if baseline is not None:
        baseline += suffix
    return baseline


def _workload(slot: _Slot, wtype: str) -> dict:
    """The run's workload: the point's, with what its configuration fixes (e.g. recipients of
    an encryption) over it."""
    workload = {"type": wtype}
    fixed = {**slot.point, **(slot.cfg.get("workload") or {})}
    for key in ("message_bytes", "persistence", "threads", "target_rate_per_s", "recipients"):
        if key in fixed:
            workload[key] = fixed[key]
    return workload


def _crypto(spec: dict | None, ckey: str, idx: int, npoints: int, gname: str) -> dict | None:
    if not spec:
        return None
    out = {k: v for k, v in spec.items() if k not in ("util_pct", "exec_time_ms")}
    util = _per_point(spec["util_pct"], ckey, idx, npoints, f"{gname}.crypto.util_pct")
    if util is None:
        return None
    out["util_pct"] = _frac(util, f"{gname}.crypto.util_pct")
    out["exec_time_ms"] = _frac(
        _per_point(spec["exec_time_ms"], ckey, idx, npoints, f"{gname}.crypto.exec_time_ms"),
        f"{gname}.crypto.exec_time_ms",
    )
    return out
