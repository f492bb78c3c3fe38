"""Property-based fuzzing of the parsers the other fuzz tests do not cover, and of all of them.

Seeded with the real samples: the run manifest, the generic results CSV, mq-smf-csv output (CSV
and SQL forms) and binary SMF dumps are mutated (bytes flipped, cut, repeated, spliced, noise of
the format inserted); a parser either lands rows that fit its tables or raises its own clean
``InputError`` naming the file and a position inside it. The cross-parser property runs
``detect`` + ``parse`` on mutated bytes of every fixture, and the ingest property checks that a
batch never stops whatever a file holds: each file is loaded or set aside, ledger = landing.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mqcap.errors import InputError
from mqcap.parsers import detect, driver_csv, manifest
from mqcap.parsers.smf import binary, csv_loader

from helpers import FIXTURES, check_parse_property, parse_file
from reliability_summary import FIXED_PARSER_BUGS, FORMATS, ledger_landing_disagreements

GOLDEN = FIXTURES / "golden" / "mq-smf-csv"
MANIFESTS = [
    FORMATS["manifest"][1],
    *sorted((FIXTURES.parent.parent / "data" / "sample").glob("*/*/run.yaml"))[:3],
]
RESULTS = [FORMATS["driver_csv"][1]]
SMF_CSV = [
    *sorted((GOLDEN / "TEST116" / "csv").glob("SMF-*.csv")),
    *sorted((GOLDEN / "TEST116" / "sql").glob("SMF-*.csv")),
    GOLDEN / "TESTCHL" / "csv" / "SMF-QCST.csv",
    GOLDEN / "TESTCHL" / "sql" / "SMF-QCST.csv",
]
DUMPS = [FIXTURES / "smf" / "TEST115.dat", FIXTURES / "smf" / "TEST116.dat"]
EVERY_FIXTURE = (
    sorted(
        p
        for p in FIXTURES.rglob("*")
        if p.is_file() and p.suffix != ".md" and "golden" not in p.parts and "render" not in p.parts
    )
    + SMF_CSV[:4]
)

NOISE = {
    "manifest": [
        b"interval: {start: 2021-02-30T10:00:00, end: 2021-03-01T10:00:00}",
        b"labels: {a: !!timestamp 2021-13-01}",
        b"? [a, b]\n: c",
        b"x: &a [*a]",
        b"labels: " + b"[" * 300 + b"]" * 300,
        b"workload: {message_bytes: 1e400, threads: .inf}",
        b"jobs: {QML1CHIN: [MSTR]}",
        b"!!python/object/apply:os.system ['true']",
        b"run: !!binary aGVsbG8=",
        b"study: \xff\xfe",
        b"baseline: ~",
        b"  - - -",
        b"interval: 2021-06-01",
        b"labels: {tls_version: 1.3, yes: no}",
        b"%YAML 9.9",
        b"---",
        b"...",
        b"study: 9" * 3,
    ],
    "csv": [
        b"1e400,1e400,1e400",
        b"nan,inf,-inf",
        b"\xef\xbc\x91\xef\xbc\x92,3,4",  # full-width digits
        b'"unterminated,1,2',
        b'="0x1F",="",""',
        b"1_000,0x10,0o7",
        b",,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,",
        b"2021/02/30,25:61:00,000000",
        b'"2021-02-30","10:00:00,000000",',
        b"9" * 40,
        b"\r",
        b"#",
        b"Date,Time,LPAR,QMgr",
        b"rate_per_s,round_trip_us",
    ],
}


@st.composite
def mutated(draw, samples: list[Path], noise: list[bytes]):
    path = draw(st.sampled_from(samples))
    data = path.read_bytes()
    lines = data.split(b"\n")
    for _ in range(draw(st.integers(1, 5))):
        lines = lines or [b""]
        op = draw(st.sampled_from(["flip", "cut", "dup", "drop", "swap", "noise", "bytes"]))
        i = draw(st.integers(0, max(0, len(lines) - 1)))
        if op == "flip" and lines[i]:
            line = bytearray(lines[i])
            k = draw(st.integers(0, len(line) - 1))
            line[k] = draw(st.integers(0, 255))
            lines[i] = bytes(line)
        elif op == "cut":
            whole = b"\n".join(lines)
            lines = whole[: draw(st.integers(0, len(whole)))].split(b"\n")
        elif op == "dup":
            lines[i:i] = lines[i : i + draw(st.integers(1, 4))]
        elif op == "drop":
            del lines[i : i + draw(st.integers(1, 4))]
        elif op == "swap" and lines:
            j = draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
        elif op == "noise":
            lines.insert(i, draw(st.sampled_from(noise)))
        elif op == "bytes" and lines:
            k = draw(st.integers(0, len(lines[i])))
            lines[i] = lines[i][:k] + draw(st.binary(min_size=1, max_size=6)) + lines[i][k:]
    return path.name, b"\n".join(lines)


@st.composite
def mutated_dump(draw):
    """A binary SMF dump with bytes flipped, cut, spliced or records repeated."""
    path = draw(st.sampled_from(DUMPS))
    data = bytearray(path.read_bytes())
    for _ in range(draw(st.integers(1, 4))):
        op = draw(st.sampled_from(["flip", "cut", "splice", "repeat", "zero", "rdw"]))
        k = draw(st.integers(0, max(0, len(data) - 1)))
        if op == "flip" and data:
            data[k] = draw(st.integers(0, 255))
        elif op == "cut":
            del data[k:]
        elif op == "splice":
            data[k:k] = draw(st.binary(min_size=1, max_size=64))
        elif op == "repeat":
            data[k:k] = data[k : k + draw(st.integers(1, 600))]
        elif op == "zero":
            data[k : k + 32] = bytes(len(data[k : k + 32]))
        elif op == "rdw" and len(data) > 4:
            # An RDW-sized length somewhere: records that run past, overlap or are tiny.
            data[k : k + 2] = draw(st.integers(0, 0xFFFF)).to_bytes(2, "big")
    return path.name, bytes(data)


FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FUZZ
@given(mutated(MANIFESTS, NOISE["manifest"]))
def test_mutated_manifests_raise_only_input_error(case):
    _name, data = case
    check_parse_property(manifest.PARSER, "run.yaml", data)


@FUZZ
@given(mutated(RESULTS, NOISE["csv"]))
def test_mutated_results_csv_raise_only_input_error(case):
    name, data = case
    check_parse_property(driver_csv.PARSER, name, data)


@FUZZ
@given(mutated(SMF_CSV, NOISE["csv"]))
def test_mutated_mq_smf_csv_raise_only_input_error(case):
    name, data = case
    check_parse_property(csv_loader.PARSER, name, data)


@FUZZ
@given(mutated_dump())
def test_mutated_smf_dumps_raise_only_input_error(case):
    name, data = case
    check_parse_property(binary.PARSER, name, data)


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(EVERY_FIXTURE).flatmap(
        lambda p: st.one_of(
            mutated([p], NOISE["csv"] + NOISE["manifest"]),
            mutated_dump() if p.suffix == ".dat" else mutated([p], [b"\x00"]),
        )
    )
)
def test_detect_and_parse_any_mutated_fixture_raise_only_input_error(case):
    name, data = case
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / name
        path.write_bytes(data)
        parser = detect(path, name)
    if parser is not None:
        check_parse_property(parser, name, data)


@pytest.fixture(scope="module")
def shared_warehouse(tmp_path_factory):
    from mqcap.settings import Settings

    from helpers import PROJECT

    root = tmp_path_factory.mktemp("fuzz-ingest")
    (root / "raw").mkdir()
    return Settings.load(
        warehouse=root / "wh" / "warehouse.duckdb", raw=root / "raw", project_root=PROJECT
    )


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    st.sampled_from(EVERY_FIXTURE + MANIFESTS + RESULTS).flatmap(
        lambda p: mutated([p], NOISE["csv"] + NOISE["manifest"])
    ),
    st.integers(0, 10**9),
)
def test_ingest_never_stops_a_batch_whatever_a_file_holds(shared_warehouse, case, tag):
    from mqcap.ingest import ingest

    name, data = case
    folder = shared_warehouse.raw_root / f"f{tag}"
    folder.mkdir(exist_ok=True)
    (folder / name).write_bytes(data)
    # The next file of the batch (a fresh good one, outside a run folder the mutated file may
    # have made wait) lands whatever the mutated file did.
    after = shared_warehouse.raw_root / f"g{tag}"
    after.mkdir(exist_ok=True)
    (after / "zz-next.csv").write_text(f"rate_per_s,round_trip_us\n{tag}.5,{tag + 1}\n")
    report = ingest(shared_warehouse, [folder, after])
    by_path = {o.path: o for o in report.outcomes}
    assert by_path[f"g{tag}/zz-next.csv"].status in ("loaded", "unchanged")
    # (a tag hypothesis draws again may replace the file it dropped before)
    assert by_path[f"f{tag}/{name}"].status in ("loaded", "replaced", "set_aside", "unchanged")
    assert ledger_landing_disagreements(shared_warehouse.warehouse) == []


@pytest.mark.parametrize(
    ("kind", "needle", "reproducer"),
    FIXED_PARSER_BUGS,
    ids=[n for _, n, _ in FIXED_PARSER_BUGS],
)
def test_fixed_parser_bug_is_set_aside_with_its_position(tmp_path, kind, needle, reproducer):
    """Each parser bug fuzzing found: the file is set aside naming the line, the next loads."""
    from mqcap.ingest import ingest
    from mqcap.settings import Settings

    from helpers import PROJECT

    settings = Settings.load(
        warehouse=tmp_path / "wh" / "w.duckdb", raw=tmp_path / "raw", project_root=PROJECT
    )
    name, data = reproducer
    (tmp_path / "raw" / "a").mkdir(parents=True)
    (tmp_path / "raw" / "a" / name).write_bytes(data)
    (tmp_path / "raw" / "b").mkdir()
    (tmp_path / "raw" / "b" / "next.csv").write_text("rate_per_s,round_trip_us\n1,2\n")
    report = ingest(settings)
    by_path = {o.path: o for o in report.outcomes}
    aside = by_path[f"a/{name}"]
    assert aside.status == "set_aside"
    assert needle in aside.reason
    assert aside.position is not None and aside.position.startswith("line ")
    assert (by_path["b/next.csv"].status, by_path["b/next.csv"].rows) == ("loaded", 1)


@pytest.mark.parametrize(
    ("kind", "needle", "reproducer"),
    FIXED_PARSER_BUGS,
    ids=[n for _, n, _ in FIXED_PARSER_BUGS],
)
def test_fixed_parser_bug_raises_input_error(tmp_path, kind, needle, reproducer):
    name, data = reproducer
    path = tmp_path / name
    path.write_bytes(data)
    parser = detect(path, name)
    assert parser is not None
    with pytest.raises(InputError) as info:
        parse_file(parser, path)
    assert needle in str(info.value) and info.value.line is not None
