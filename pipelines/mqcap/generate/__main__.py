"""``python -m mqcap.generate SCENARIO.yaml [...] OUT_DIR [--seed N] [--scale X] [--clean]``.

Writes each scenario's study under ``OUT_DIR/<study>/``. ``--clean`` first removes that study
folder (only it), so run folders no longer in the scenario do not linger; this is how
``data/sample/`` is regenerated: ``python -m mqcap.generate data/scenarios/*.yaml data/sample
--clean``.

Example:
    python -m mqcap.generate data/scenarios/attls.yaml /tmp/raw --scale 20
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

from mqcap.generate import generate, load_scenario
from mqcap.generate.scenario import ScenarioError


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m mqcap.generate",
        description="Generate raw MQ performance files (one folder per run) from scenario files.",
    )
    ap.add_argument("scenarios", nargs="+", type=Path, help="scenario YAML files")
    ap.add_argument("out_dir", type=Path)
    ap.add_argument("--seed", type=int, default=None, help="noise seed (default: the scenario's)")
    ap.add_argument("--scale", type=float, default=1.0, help="volume multiplier (default 1)")
    ap.add_argument("--clean", action="store_true", help="remove OUT_DIR/<study> first")
    args = ap.parse_args(argv)
    try:
        for path in args.scenarios:
            doc = load_scenario(path)
            if args.clean:
                shutil.rmtree(args.out_dir / str(doc["study"]), ignore_errors=True)
            files = generate(doc, args.out_dir, seed=args.seed, scale=args.scale)
            size = sum(f.stat().st_size for f in files)
            print(f"{doc['study']}: {len(files)} files, {size / 1e6:.2f} MB under {args.out_dir}")
    except (ScenarioError, OSError, KeyError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
