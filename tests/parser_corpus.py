"""The inputs the fast parsers (CHSTATUS, NETSTAT, RMF CRYPTO / WORKLOAD, binary SMF) must keep
reading exactly as before, and a fingerprint of what each parser makes of each one.

The corpus: every fixture of those formats, variants of each text fixture (CRLF line ends, no
final line end, leading blanks lost as in a PDF copy, the file twice, the file cut mid-line, a
foreign line in the middle, tabs for blanks), the benchmark generators at a small size, the
studies ``mqcap generate`` writes for the bundled scenarios (seeded), and SMF dumps cut short or
with a damaged record. The fingerprint of one input: per landing table its row count and the
SHA-256 of its typed rows (sorted, CSV), the unknown-line and skipped counters, and the error
(message, file, position) when the parser refuses the input.

``tests/fixtures/golden/parser_outputs.json`` holds the fingerprints the per-line parsers gave;
``test_parser_outputs.py`` asserts the current parsers give the same. Regenerate (only when an
output change is intended, and say why in the commit) with::

    .venv/bin/python tests/parser_corpus.py --write
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import polars as pl

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
FIXTURES = HERE / "fixtures"
GOLDEN = FIXTURES / "golden" / "parser_outputs.json"
sys.path.insert(0, str(ROOT))  # bench generators

from mqcap.errors import InputError  # noqa: E402
from mqcap.parsers import chstatus, netstat, rmf_crypto, rmf_workload  # noqa: E402
from mqcap.parsers.base import ParseContext, Parser  # noqa: E402
from mqcap.parsers.smf import binary  # noqa: E402

PARSERS: dict[str, Parser] = {
    "chstatus": chstatus.PARSER,
    "netstat": netstat.PARSER,
    "rmf_crypto": rmf_crypto.PARSER,
    "rmf_workload": rmf_workload.PARSER,
    "smf_mq": binary.PARSER,
}
TEXT_DIRS = {
    "chstatus": ["chstatus/*.txt"],
    "netstat": ["netstat/*.txt"],
    "rmf_crypto": ["rmf/CRYPTO_*.txt"],
    "rmf_workload": ["rmf/WLMGL_*.txt"],
}
SCENARIOS = ("attls", "keysize", "protection", "streaming", "threadsweep")
GENERATED = {
    "chstatus.txt": "chstatus",
    "netstat.txt": "netstat",
    "rmf_crypto.txt": "rmf_crypto",
    "rmf_workload.txt": "rmf_workload",
    "mqsmf.bin": "smf_mq",
}


def fingerprint(parser: Parser, path: Path, name: str) -> dict:
    """What ``parser`` makes of ``path``: rows and checksum per table, counters, or the error."""
    ctx = ParseContext(path=path, source_file=name, size=path.stat().st_size)
    frames: dict[str, list[pl.DataFrame]] = {}
    out: dict = {}
    try:
        for table, rows in parser.parse(ctx):
            frames.setdefault(table, []).append(parser.table(table).frame(rows))
    except InputError as exc:
        out["error"] = str(exc)
    tables = {}
    for table, fs in sorted(frames.items()):
        df = pl.concat(fs)
        df = df.sort(df.columns, nulls_last=True)
        digest = hashlib.sha256(df.write_csv().encode()).hexdigest()[:20]
        tables[table] = [df.height, digest]
    out["tables"] = tables
    out["unknown"] = dict(sorted(ctx.unknown_lines.items()))
    out["skipped"] = dict(sorted(ctx.skipped.items()))
    return out


def _text_variants(data: bytes) -> Iterator[tuple[str, bytes]]:
    yield "as-is", data
    yield "crlf", data.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")
    yield "no-final-eol", data.rstrip(b"\n")
    yield "pdf-blanks", b"\n".join(ln.lstrip(b" ") for ln in data.split(b"\n"))
    yield "twice", data + (b"" if data.endswith(b"\n") else b"\n") + data
    yield "cut", data[: len(data) * 3 // 5]
    lines = data.split(b"\n")
    mid = len(lines) // 2
    yield "foreign", b"\n".join([*lines[:mid], b"  zz? 12 (unclosed  -- stray", *lines[mid:]])
    yield "tabs", data.replace(b"        ", b"\t")


def _generated(work: Path) -> Path:
    out = work / "gen"
    # The scenarios named, not a glob: a scenario added later does not change the corpus. (A
    # change of the generator's output for these formats does: check that the parsers are not
    # the cause, then regenerate the fingerprints, saying so in the commit.)
    scenarios = [ROOT / "data" / "scenarios" / f"{name}.yaml" for name in SCENARIOS]
    mqcap = Path(sys.executable).parent / "mqcap"
    subprocess.run(
        [str(mqcap), "generate", *map(str, scenarios), "--out", str(out), "--seed", "7", "-q"],
        check=True,
        cwd=work,
    )
    return out


def cases(work: Path) -> Iterator[tuple[str, str, Path]]:
    """(case name, parser kind, file) of the whole corpus; files written under ``work``."""
    for kind, globs in TEXT_DIRS.items():
        for g in globs:
            for src in sorted(FIXTURES.glob(g)):
                for variant, data in _text_variants(src.read_bytes()):
                    p = work / "variants" / variant / src.name
                    p.parent.mkdir(parents=True, exist_ok=True)
                    p.write_bytes(data)
                    yield f"{kind}/{src.name}/{variant}", kind, p
    from bench import bench_captures, bench_reports

    small = work / "bench"
    small.mkdir()
    path, _ = bench_captures.make_chstatus(small, 0.3)
    yield "chstatus/bench-generator", "chstatus", path
    path, _ = bench_captures.make_netstat(small, 0.3)
    yield "netstat/bench-generator", "netstat", path
    path, _ = bench_reports.make_report(small, "crypto.txt", bench_reports.CRYPTO, 0.4)
    yield "rmf_crypto/bench-generator", "rmf_crypto", path
    path, _ = bench_reports.make_report(small, "wlm.txt", bench_reports.WORKLOAD, 0.4)
    yield "rmf_workload/bench-generator", "rmf_workload", path
    for src in sorted((FIXTURES / "smf").glob("*.dat")):
        data = src.read_bytes()
        yield f"smf_mq/{src.name}/as-is", "smf_mq", src
        for variant, cut in (
            ("cut", data[: len(data) // 2 + 3]),
            ("bad-rdw", data[:4000] + b"\x00\x02\x00\x00" + data[4004:]),
            ("flipped", bytes(b ^ 0x5A if 900 <= i < 960 else b for i, b in enumerate(data))),
        ):
            p = work / "smf" / variant / src.name
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_bytes(cut)
            yield f"smf_mq/{src.name}/{variant}", "smf_mq", p
    gen = _generated(work)
    for p in sorted(gen.rglob("*")):
        kind = GENERATED.get(p.name)
        if kind:
            yield f"{kind}/generated/{p.relative_to(gen)}", kind, p


def compute() -> dict[str, dict]:
    with tempfile.TemporaryDirectory(prefix="mqcap-corpus-") as tmp:
        return {
            name: fingerprint(PARSERS[kind], path, path.name)
            for name, kind, path in cases(Path(tmp))
        }


if __name__ == "__main__":
    got = compute()
    if "--write" in sys.argv:
        GOLDEN.write_text(json.dumps(got, indent=1, sort_keys=True) + "\n")
        print(f"wrote {len(got)} fingerprints to {GOLDEN}")
    else:
        want = json.loads(GOLDEN.read_text())
        bad = [k for k in sorted(set(got) | set(want)) if got.get(k) != want.get(k)]
        print("\n".join(bad) or f"all {len(got)} fingerprints equal")
