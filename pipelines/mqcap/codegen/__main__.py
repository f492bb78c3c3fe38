"""``python -m mqcap.codegen [--check] [ROOT]``: write (or check) every generated file."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from mqcap.codegen import COMMAND, PROJECT, stale, write


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m mqcap.codegen",
        description="Write the generated SMF staging models and expectation suites "
        "(or, with --check, list the ones that differ from what would be written).",
    )
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 when stale")
    parser.add_argument(
        "root", nargs="?", type=Path, default=PROJECT, help="project root (default: %(default)s)"
    )
    opts = parser.parse_args(argv)
    check, root = opts.check, opts.root
    if check:
        bad = stale(root)
        for rel in bad:
            print(f"stale: {rel}")
        if bad:
            print(f"{len(bad)} generated file(s) stale: run {COMMAND}")
        return 1 if bad else 0
    changed = write(root)
    print(f"{len(changed)} generated file(s) written under {root}" if changed else "up to date")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
