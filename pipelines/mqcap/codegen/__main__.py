"""``python -m mqcap.codegen [--check] [ROOT]``: write (or check) every generated file."""

from __future__ import annotations

import sys
from pathlib import Path

from mqcap.codegen import COMMAND, PROJECT, stale, write


def main(argv: list[str]) -> int:
    check = "--check" in argv
    args = [a for a in argv if a != "--check"]
    root = Path(args[0]) if args else PROJECT
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
