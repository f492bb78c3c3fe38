"""Mutated RMF reports and driver files: a parser lands rows or raises its clean InputError.

Property: whatever is done to a real sample (lines dropped, repeated, swapped or cut, bytes
replaced, binary or random text inserted), no parser raises anything but ``InputError``, and
what it lands fits its landing table's types.
"""

from __future__ import annotations

import functools
from pathlib import Path

import polars as pl
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

from mqcap.errors import InputError
from mqcap.parsers import ascpu_csv, cphtestp, mqcph, rmf_crypto, rmf_workload
from mqcap.parsers.base import ParseContext

from helpers import FIXTURES, check_parse_property

CASES = [
    *[(rmf_crypto.PARSER, p) for p in sorted((FIXTURES / "rmf").glob("CRYPTO*.txt"))],
    *[(rmf_workload.PARSER, p) for p in sorted((FIXTURES / "rmf").glob("WLMGL*.txt"))],
    (rmf_workload.PARSER, FIXTURES / "rmf" / "CPU_PP_V2R2_CB88_2015-04-21.txt"),
    (mqcph.PARSER, FIXTURES / "driver" / "cph_requester_output.txt"),
    (mqcph.PARSER, FIXTURES / "driver" / "cph_agg_output.txt"),
    (cphtestp.PARSER, FIXTURES / "driver" / "cphtestp_results.csv"),
    (cphtestp.PARSER, FIXTURES / "driver" / "cphtestp_docker_log.txt"),
    (ascpu_csv.PARSER, FIXTURES / "ascpu" / "ascpu_intervals.csv"),
]
SAMPLES = {path: path.read_bytes() for _, path in CASES}
NOISE = st.sampled_from(
    [b"0", b"1", b"9", b".", b"-", b" ", b"#", b",", b"=", b"A", b"\x00", b"\xff", b"\t", b"K",
     b"N/A", b"\n", b"*****", b"TYPE", b"CEX9Z", b"PAGE 2", b"1", b"99999999999999999999"]
)  # fmt: skip
LINE_NOISE = st.sampled_from(
    [
        b"-------- CRYPTOGRAPHIC ACCELERATOR --------",
        b"-------- LPAR --------- --------- CPC ---------",
        b"TYPE   ID   RATE  EXEC TIME  UTIL%",
        b"1   1927    0.201    38.8     0.24",
        b"RSA ME   2048   128.0    0.036     0.5",
        b"REPORT BY: POLICY=P WORKLOAD=W SERVICE CLASS=S",
        b"REPORT BY: POLICY=P REPORT CLASS=R PERIOD=x",
        b"----SERVICE----   SERVICE TIME  ---APPL %---",
        b"CPU 12.5  CP 1.0 IIP 0.1 AAP 3",
        b"z/OS V2R9   SYSTEM ID X   DATE 13/45/2017   INTERVAL 99.99.999",
        b"RPT VERSION V2R9 RMF   TIME 25.61.00",
        b"C P U   A C T I V I T Y",
        b"W O R K L O A D   A C T I V I T Y",
        b"totalIterations=1,totalSeconds=0.00,avgRate=inf",
        b"rate=nan,threads=0",
        b"# Persistence, Msg Size, Threads, Rate (RT/s)",
        b"1,2,3",
        b"interval_start,interval_end,system,jobname,cpu_seconds",
    ]
)


def mutate(draw, lines: list[bytes], ops: list[str], noise, line_noise, steps, most_dropped):
    """``lines`` changed by ``steps`` operations drawn from ``ops``: lines dropped (up to
    ``most_dropped`` at once), repeated, swapped or cut, bytes replaced by ``noise``, lines of
    ``line_noise`` inserted, leading blanks lost (as PDF extraction does)."""
    for _ in range(draw(steps)):
        if not lines:
            break
        op = draw(st.sampled_from(ops))
        i = draw(st.integers(0, len(lines) - 1))
        if op == "drop":
            del lines[i : i + draw(st.integers(1, most_dropped))]
        elif op == "dup":
            lines.insert(i, lines[i])
        elif op == "swap":
            j = draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
        elif op == "cut":
            lines = lines[:i]
        elif op == "byte":
            line = lines[i]
            k = draw(st.integers(0, len(line)))
            lines[i] = line[:k] + draw(noise) + line[k + draw(st.integers(0, 3)) :]
        elif op == "insert":
            lines.insert(i, draw(line_noise))
        else:
            lines[i] = lines[i].lstrip()
    return b"\n".join(lines)


@st.composite
def mutated(draw):
    parser, path = draw(st.sampled_from(CASES))
    ops = ["drop", "dup", "swap", "cut", "byte", "insert", "strip"]
    lines = SAMPLES[path].split(b"\n")
    return parser, path.name, mutate(draw, lines, ops, NOISE, LINE_NOISE, st.integers(1, 6), 5)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated())
def test_mutated_inputs_raise_only_input_error(case):
    parser, name, data = case
    check_parse_property(parser, name, data)


# -- RMF CRYPTO: the parse in bulk equals the parse one line at a time ----------------------------
CRYPTO_LINES = st.sampled_from(
    [
        b"-------- CRYPTOGRAPHIC PKCS11 COPROCESSOR --------",
        b"-------- CRYPTOGRAPHIC CCA COPROCESSOR ----",
        b"-------- TOTAL -------- KEY-GEN",
        b"-------- ICSF SERVICES --------",
        b"TYPE   ID   RATE  EXEC TIME  UTIL%    KEY     RATE    EXEC TIME    UTIL%      RATE"
        b"     EXEC TIME    UTIL%",
        b"ASYM FAST        289.4      0.575      16.6 ",
        b"2048     1633      0.026        4.2      0.00       0.000        0.0",
        b"CEX6A   4  13504    0.029    38.7    1024     4361      0.010        4.4      1439"
        b"       0.034        4.9",
        b"CEX7A   2                           15043    0.066    99.7   RSA ME   1024",
        b"z/OS V2R2      SYSTEM ID S35      DATE 04/27/2017      INTERVAL 29.59.848",
        b"RPT VERSION V2R2 RMF       TIME 10.00.00              CYCLE 1.000 SECONDS",
        b"C R Y P T O  H A R D W A R E  A C T I V I T Y",
        b"",
    ]
)
CRYPTO_NOISE = st.sampled_from(
    [b"0", b"9", b".", b"-", b"  ", b"N/A", b"*****", b"\xa0", b"\x1c", b"12K", b"-5", b"300",
     b"2048", b"ASYM", b"RSA ME", b"LPAR", b"TOTAL", b"---", b"TYPE", b"CEX9Z", b"\t"]
)  # fmt: skip


def _crypto_bases() -> list[bytes]:
    from test_rmf_crypto import fixed_columns

    out = []
    for path in sorted((FIXTURES / "rmf").glob("CRYPTO*.txt")):
        text = path.read_text(encoding="latin-1")
        out += [text, fixed_columns(text), fixed_columns(text, second_time="10.00.00")]
    return [t.encode("latin-1") for t in out]


CRYPTO_BASES = _crypto_bases()


@st.composite
def mutated_crypto(draw):
    lines = draw(st.sampled_from(CRYPTO_BASES)).split(b"\n")
    ops = ["drop", "dup", "swap", "byte", "insert", "strip"]
    data = mutate(draw, lines, ops, CRYPTO_NOISE, CRYPTO_LINES, st.integers(0, 5), 3)
    return data, draw(st.sampled_from([1000, 4 << 20]))


def crypto_outcome(parse, path: Path) -> tuple:
    """(rows or None, error text or None, unknown-line counts, skipped counts) of a parse."""
    ctx = ParseContext(path=path, source_file=path.name, size=path.stat().st_size)
    try:
        frames = [rmf_crypto.TABLE.frame(rows) for _, rows in parse(ctx)]
    except InputError as err:
        return None, str(err), None, None
    rows = pl.concat(frames) if frames else None
    return rows, None, dict(ctx.unknown_lines), dict(ctx.skipped)


# A function row whose every value is N/A: its scope lands nothing and is counted as skipped.
NO_VALUES = (
    (FIXTURES / "rmf" / "CRYPTO_PP_V2R2_S35_2017-04-26.txt")
    .read_bytes()
    .replace(
        b"ASYM GEN          0.10      1.730       0.0",
        b"ASYM GEN          N/A       N/A         N/A",
    )
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_crypto())
@example((NO_VALUES, 4 << 20))
def test_crypto_in_bulk_lands_what_the_line_by_line_parse_lands(tmp_path_factory, case):
    """Rows (values, order, lineage), the error and its line, and the counts of unknown and
    skipped lines are the same, also with chunks of a few lines. The one allowed difference:
    small chunks may meet a parse error before the reader's own refusal of a later chunk."""
    data, chunk = case
    path = tmp_path_factory.mktemp("crypto") / "crypto.txt"
    path.write_bytes(data)
    want = crypto_outcome(rmf_crypto.parse_by_line, path)
    got = crypto_outcome(functools.partial(rmf_crypto.parse_bulk, chunk_bytes=chunk), path)
    if data is NO_VALUES:
        assert want[3] == {"crypto scope with no values": 1}
    if chunk < 4 << 20 and want[1] and "binary data" in want[1]:
        return
    assert got[1:] == want[1:]
    if want[0] is None:
        assert got[0] is None
    else:
        assert_frame_equal(got[0], want[0])


def test_crypto_in_bulk_equals_line_by_line_on_a_long_report(tmp_path):
    """The bench's report (the three layouts taking turns, carriage control, a page per
    interval) over several chunks: every row equal, with nothing read one by one but the
    structural lines."""
    from bench import bench_reports

    path, intervals = bench_reports.make_report(tmp_path, "c.txt", bench_reports.CRYPTO, 0.4)
    want = crypto_outcome(rmf_crypto.parse_by_line, path)
    stats: dict = {}
    bulk = functools.partial(rmf_crypto.parse_bulk, chunk_bytes=50_000, stats=stats)
    got = crypto_outcome(bulk, path)
    assert stats == {"one_by_one": 0}
    assert intervals > 100 and want[0].height > 4000
    assert got[1:] == want[1:] == (None, {}, {})
    assert_frame_equal(got[0], want[0])
    # The same report with CRLF line ends: still nothing but structural lines one by one.
    crlf = path.with_name("crlf.txt")
    crlf.write_bytes(path.read_bytes().replace(b"\n", b"\r\n"))
    stats.clear()
    got_crlf = crypto_outcome(bulk, crlf)
    assert stats == {"one_by_one": 0}
    assert_frame_equal(
        got_crlf[0].drop("source_file"),
        crypto_outcome(rmf_crypto.parse_by_line, crlf)[0].drop("source_file"),
    )
    assert_frame_equal(got_crlf[0].drop("source_file"), want[0].drop("source_file"))
    # What a ParseContext of this size gets from the parser: the line-by-line parse.
    assert path.stat().st_size < rmf_crypto.BULK_MIN_BYTES
    assert_frame_equal(crypto_outcome(rmf_crypto.parse, path)[0], want[0])
