"""Mutated RMF reports and driver files: a parser lands rows or raises its clean InputError.

Property: whatever is done to a real sample (lines dropped, repeated, swapped or cut, bytes
replaced, binary or random text inserted), no parser raises anything but ``InputError``, and
what it lands fits its landing table's types.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mqcap.parsers import ascpu_csv, cphtestp, mqcph, rmf_crypto, rmf_workload

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


@st.composite
def mutated(draw):
    parser, path = draw(st.sampled_from(CASES))
    lines = SAMPLES[path].split(b"\n")
    for _ in range(draw(st.integers(1, 6))):
        op = draw(st.sampled_from(["drop", "dup", "swap", "cut", "byte", "insert", "strip"]))
        i = draw(st.integers(0, max(len(lines) - 1, 0)))
        if not lines:
            break
        if op == "drop":
            del lines[i : i + draw(st.integers(1, 5))]
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
            lines[i] = line[:k] + draw(NOISE) + line[k + draw(st.integers(0, 3)) :]
        elif op == "insert":
            lines.insert(i, draw(LINE_NOISE))
        else:  # lose leading blanks, as PDF extraction does
            lines[i] = lines[i].lstrip()
    return parser, path.name, b"\n".join(lines)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated())
def test_mutated_inputs_raise_only_input_error(case):
    parser, name, data = case
    check_parse_property(parser, name, data)
