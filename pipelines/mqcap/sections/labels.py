"""Labels shared by tables and charts: series of a configuration, message sizes, colours.

Example:
    from mqcap.sections.labels import size_label
    size_label(2048)  # '2 KB'
"""

from __future__ import annotations

import math
import re

import pandas as pd

# Tableau-20: distinct, colour-blind-tolerable; one colour per configuration in a report. The
# strong ten come first, their light partners only for studies with more configurations.
PALETTE = [
    "#4e79a7",
    "#f28e2b",
    "#e15759",
    "#76b7b2",
    "#59a14f",
    "#edc948",
    "#b07aa1",
    "#ff9da7",
    "#9c755f",
    "#bab0ac",
    "#a0cbe8",
    "#ffbe7d",
    "#ff9d9a",
    "#86bcb6",
    "#8cd17d",
    "#f1ce63",
    "#d4a6c8",
    "#fabfd2",
    "#d7b5a6",
    "#79706e",
]
# Address-space roles in the order MP16 stacks them.
ROLES = ["MSTR", "CHIN", "TCPIP", "AMSM", "APP", "OTHER"]
KEY_STRENGTHS = ["medium", "high", "very_high"]


def size_label(size: object) -> str:
    """A message size for a column header: binary units when exact, else bytes.

    Example:
        >>> [size_label(s) for s in (2048, 1048576, 1000, None)]
        ['2 KB', '1 MB', '1,000 bytes', '–']
    """
    if size is None or size is pd.NA or (isinstance(size, float) and math.isnan(size)):
        return "–"
    n = int(size)
    for unit, factor in (("MB", 1 << 20), ("KB", 1 << 10)):
        if n >= factor and n % factor == 0:
            return f"{n // factor} {unit}"
    return f"{n:,} bytes"


def duration_label(us: object) -> str:
    """A time given in microseconds, in the unit that reads (s, ms or µs, one decimal).

    Example:
        >>> [duration_label(v) for v in (16988153, 26647.5, 257.7, None)]
        ['17.0 s', '26.6 ms', '257.7 µs', '–']
    """
    if us is None or us is pd.NA or (isinstance(us, float) and math.isnan(us)):
        return "–"
    v = float(us)
    if abs(v) >= 1_000_000:
        return f"{v / 1_000_000:,.1f} s"
    if abs(v) >= 1_000:
        return f"{v / 1_000:,.1f} ms"
    return f"{v:,.1f} µs"


def natural_sorted(values) -> list[str]:
    """Strings in natural order: the numbers inside compare as numbers.

    Example:
        >>> natural_sorted(["100 threads", "16 threads", "2 threads"])
        ['2 threads', '16 threads', '100 threads']
    """
    return sorted(
        (str(v) for v in values),
        key=lambda s: [
            (0, int(t), "") if t.isdigit() else (1, 0, t) for t in re.split(r"(\d+)", s)
        ],
    )
