"""Run one benchmark module and print its figures as JSON (used by `python -m bench`)."""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path


def main() -> None:
    name, work = sys.argv[1], Path(sys.argv[2])
    quick = "--quick" in sys.argv[3:]
    rows = importlib.import_module(f"bench.{name}").run(work, quick)
    print(json.dumps(rows, default=float))


if __name__ == "__main__":
    main()
