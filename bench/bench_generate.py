"""Scenario generator throughput: the attls scenario scaled to a large study (about 1 GB; 20 MB
with --quick), written by ``mqcap.generate.generate``, against a plain ``write()`` of the same
bytes into the same kind of files.

The reference reads every generated file back (outside the timing) and times only writing its
bytes to a new file in 8 MB blocks: the floor any generator pays to put the bytes on disk. Peak
RSS shows that generation streams (memory stays flat whatever the scale).
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path

from bench.common import measure, result
from mqcap.generate import generate, load_scenario

ROOT = Path(__file__).resolve().parents[1]
SCENARIO = ROOT / "data" / "scenarios" / "attls.yaml"
MB_PER_SCALE = 1.28  # attls per unit of scale (SMF does not grow with density)
BLOCK = 8 * 1024 * 1024


def _generate(out: Path, scale: float) -> tuple[int, int, float]:
    cpu = time.process_time()
    files = generate(load_scenario(SCENARIO), out, scale=scale)
    return len(files), sum(f.stat().st_size for f in files), time.process_time() - cpu


def _plain_write(src: Path, dst: Path) -> float:
    """Seconds spent in write() copying every file under src to dst, block by block."""
    spent = 0.0
    for path in sorted(p for p in src.rglob("*") if p.is_file()):
        target = dst / path.relative_to(src)
        target.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "rb") as fin, open(target, "wb") as fout:
            while block := fin.read(BLOCK):
                t = time.perf_counter()
                fout.write(block)
                fout.flush()
                spent += time.perf_counter() - t
    return spent


def run(work: Path, quick: bool) -> list[dict]:
    target_mb = 20 if quick else 1000
    scale = target_mb / MB_PER_SCALE
    out, copy = work / "gen", work / "copy"
    t_gen, peak, (nfiles, nbytes, cpu) = measure(lambda: _generate(out, scale))
    t_write, peak_write, _ = measure(lambda: _plain_write(out, copy))
    size_mb = nbytes / 1e6
    shutil.rmtree(out, ignore_errors=True)
    shutil.rmtree(copy, ignore_errors=True)
    return [
        result(
            "generate attls study",
            "throughput",
            size_mb / t_gen,
            "MB/s",
            "plain write() of the same bytes (8 MB blocks)",
            size_mb / t_write,
            peak_rss_mb=peak,
            notes=(
                f"scale {scale:.0f}: {size_mb:.0f} MB in {nfiles:,} files in {t_gen:.1f}s, "
                f"{cpu:.1f}s CPU = {size_mb / cpu:.0f} MB/s of CPU "
                f"(write() {t_write:.1f}s, {peak_write:.0f} MB RSS)"
            ),
        )
    ]


if __name__ == "__main__":
    import sys
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        for row in run(Path(tmp), quick="--quick" in sys.argv):
            print(row)
