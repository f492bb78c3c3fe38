"""The parsers of two git revisions side by side on the same files: CPU seconds, best of N.

Usage: python -m bench.compare_parsers [--base main] [--mb 20] [--repeat 3]

Each revision's ``pipelines/mqcap`` is exported (``git archive``) into a temporary folder and
imported from there in a fresh process (``PYTHONPATH``); a revision with compiled parsers
(``native/``) has them built into its export (``cargo build --release --offline``; ``--python``
leaves them out, so its parsers run in Python), the two taking turns on the same
generated inputs (the ``bench_captures`` / ``bench_reports`` / ``bench_smf`` generators): CPU time
of the parse, all threads, so a loaded machine changes the figures less than it changes wall
time. Not one of the ``bench_*`` modules of ``python -m bench``: it compares code, not a goal.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CHILD = r"""
import sys, time
from pathlib import Path
import mqcap
from mqcap.parsers import chstatus, netstat, rmf_crypto, rmf_workload
from mqcap.parsers.smf import binary
from mqcap.parsers.base import ParseContext
parser = {"chstatus": chstatus.PARSER, "netstat": netstat.PARSER, "rmf_crypto": rmf_crypto.PARSER,
          "rmf_workload": rmf_workload.PARSER, "smf_mq": binary.PARSER}[sys.argv[1]]
path = Path(sys.argv[2])
ctx = ParseContext(path=path, source_file=path.name, size=path.stat().st_size)
cpu, wall = time.process_time(), time.perf_counter()
rows = sum(parser.table(t).frame(b).height for t, b in parser.parse(ctx))
print(time.process_time() - cpu, time.perf_counter() - wall, rows, mqcap.__file__)
"""


def export(rev: str, into: Path, native: bool = True) -> Path:
    into.mkdir(parents=True)
    has_native = (
        subprocess.run(["git", "cat-file", "-e", f"{rev}:native/Cargo.toml"], cwd=ROOT).returncode
        == 0
    )
    paths = ["pipelines/mqcap", *(["native"] if has_native and native else [])]
    archive = subprocess.run(
        ["git", "archive", rev, *paths], cwd=ROOT, check=True, capture_output=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    if len(paths) > 1:
        target = into / "native" / "target"
        manifest = into / "native" / "Cargo.toml"
        subprocess.run(
            [shutil.which("cargo") or str(Path.home() / ".cargo/bin/cargo"), "build", "-q", "--release", "--offline", "--manifest-path", str(manifest),
             "--target-dir", str(target)],
            check=True,
        )  # fmt: skip
        lib = into / "pipelines" / "mqcap" / "_lib"
        lib.mkdir(parents=True, exist_ok=True)
        shutil.copy2(target / "release" / "libmqcap_native.so", lib)
    return into / "pipelines"


def inputs(work: Path, mb: float) -> dict[str, Path]:
    sys.path.insert(0, str(ROOT))
    from bench import bench_captures, bench_reports, bench_smf

    one = sum((bench_smf.SAMPLES / f"{d}.dat").stat().st_size for d in bench_smf.DUMPS) / 1e6
    return {
        "chstatus": bench_captures.make_chstatus(work, mb)[0],
        "netstat": bench_captures.make_netstat(work, mb)[0],
        "rmf_crypto": bench_reports.make_report(work, "c.txt", bench_reports.CRYPTO, mb)[0],
        "rmf_workload": bench_reports.make_report(work, "w.txt", bench_reports.WORKLOAD, mb)[0],
        "smf_mq": bench_smf.make_dump(work, max(1, int(mb / one))),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.compare_parsers")
    ap.add_argument("--base", default="main")
    ap.add_argument("--head", default="HEAD")
    ap.add_argument("--mb", type=float, default=20)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--only", nargs="*", help="parsers to compare (default: all)")
    ap.add_argument("--python", action="store_true", help="head without its compiled parsers")
    args = ap.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="mqcap-compare-"))
    try:
        trees = {
            args.base: export(args.base, work / "tree0"),
            args.head: export(args.head, work / "tree1", native=not args.python),
        }
        files = inputs(work, args.mb)
        if args.only:
            files = {k: v for k, v in files.items() if k in args.only}
        print(f"| parser | MB | {args.base} CPU s | {args.head} CPU s | speed-up | rows |")
        print("|---|---:|---:|---:|---:|---:|")
        for kind, path in files.items():
            best: dict[str, float] = {}
            rows: set[int] = set()
            for _ in range(args.repeat):
                for rev, tree in trees.items():
                    out = subprocess.run(
                        [sys.executable, "-c", CHILD, kind, str(path)],
                        env={"PYTHONPATH": str(tree), "PATH": "/usr/bin:/bin"},
                        check=True,
                        capture_output=True,
                        text=True,
                    ).stdout.split()
                    assert out[3].startswith(str(tree)), out  # the exported code ran
                    best[rev] = min(best.get(rev, float("inf")), float(out[0]))
                    rows.add(int(out[2]))
            assert len(rows) == 1, rows  # both revisions land the same number of rows
            base, head = best[args.base], best[args.head]
            mb = path.stat().st_size / 1e6
            print(f"| {kind} | {mb:.0f} | {base:.2f} | {head:.2f} | {base / head:.2f}x | "
                  f"{rows.pop():,} |", flush=True)  # fmt: skip
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
