"""Small formatting and noise helpers shared by the writers.

Noise comes from one :class:`random.Random` per run and file kind, seeded with a string (Python
hashes string seeds with SHA-512, independent of ``PYTHONHASHSEED``), so the bytes of one file do
not depend on which other files or runs were generated.

Example:
    rng = run_rng(plan, "netstat")
"""

from __future__ import annotations

import random
from datetime import datetime
from fractions import Fraction

DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def run_rng(plan, kind: str) -> random.Random:
    """The noise source of one file kind of one run.

    Example:
        run_rng(plan, "chstatus").uniform(0, 1)
    """
    return random.Random(f"{plan.seed}:{kind}")


def date_line(t: datetime) -> str:
    """What ``date -u`` prints (C locale), locale-independent: ``Tue Jun  1 10:00:05 UTC 2021``.

    Example:
        >>> date_line(datetime(2021, 6, 1, 10, 0, 5))
        'Tue Jun  1 10:00:05 UTC 2021'
    """
    return f"{DAYS[t.weekday()]} {MONTHS[t.month - 1]} {t.day:2d} {t:%H:%M:%S} UTC {t.year}"


def num(value: Fraction | float | int, decimals: int = 3) -> str:
    """A number as a CSV/report cell: whole numbers without decimals, others with ``decimals``.

    Example:
        >>> num(Fraction(2172)), num(Fraction(1, 3))
        ('2172', '0.333')
    """
    if isinstance(value, Fraction) and value.denominator == 1:
        return str(value.numerator)
    if isinstance(value, int):
        return str(value)
    return f"{float(value):.{decimals}f}"


def mmss(ms: int) -> str:
    """An RMF ``INTERVAL`` cell: ``mm.ss.ttt``.

    Example:
        >>> mmss(299_736)
        '04.59.736'
    """
    minutes, rest = divmod(ms, 60_000)
    return f"{minutes:02d}.{rest // 1000:02d}.{rest % 1000:03d}"


def split_exact(total: int, weights: list[float], rng: random.Random, jitter: float) -> list[int]:
    """``total`` (whole units) shared out in proportion to ``weights``, each share jittered by up
    to +-``jitter`` (relative), the last share taking the rounding so the parts sum to ``total``.

    Example:
        >>> sum(split_exact(1000, [1, 1, 1], random.Random(1), 0.05))
        1000
    """
    if len(weights) == 1:
        return [total]
    scale = sum(weights)
    parts = [
        max(0, round(total * w / scale * (1 + rng.uniform(-jitter, jitter)))) for w in weights[:-1]
    ]
    excess = sum(parts) - total
    for i in sorted(range(len(parts)), key=lambda j: -parts[j]):
        # A large jitter on a small total: take the excess back from the biggest shares.
        take = min(parts[i], max(excess, 0))
        parts[i] -= take
        excess -= take
    return [*parts, total - sum(parts)]
