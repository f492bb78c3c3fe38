"""Where the test suite's time goes: the per-test lines ``MQCAP_TEST_CPU_LOG`` collects
(tests/conftest.py) summed per module, the most CPU first.

    MQCAP_TEST_CPU_LOG=/tmp/cpu make unit
    python -m tests.cpu_log /tmp/cpu
"""

from __future__ import annotations

import sys
from collections import defaultdict
from pathlib import Path


def per_module(folder: Path) -> list[tuple[str, int, float, float]]:
    """(module, tests, wall seconds, CPU seconds) per test module, the most CPU first."""
    tests: dict[str, int] = defaultdict(int)
    wall: dict[str, float] = defaultdict(float)
    cpu: dict[str, float] = defaultdict(float)
    for log in sorted(folder.glob("*.tsv")):
        for line in log.read_text().splitlines():
            nodeid, w, c = line.split("\t")
            module = nodeid.split("::")[0]
            tests[module] += 1
            wall[module] += float(w)
            cpu[module] += float(c)
    return sorted(((m, tests[m], wall[m], cpu[m]) for m in tests), key=lambda r: -r[3])


def main(argv: list[str]) -> None:
    rows = per_module(Path(argv[0]))
    total = sum(r[3] for r in rows)
    print(f"{'module':<55} {'tests':>5} {'wall s':>8} {'CPU s':>8} {'CPU %':>6}")
    for module, n, w, c in rows:
        print(f"{module:<55} {n:>5} {w:>8.1f} {c:>8.1f} {100 * c / total:>6.1f}")
    print(
        f"{'total':<55} {sum(r[1] for r in rows):>5} {sum(r[2] for r in rows):>8.1f} {total:>8.1f}"
    )


if __name__ == "__main__":
    main(sys.argv[1:])
