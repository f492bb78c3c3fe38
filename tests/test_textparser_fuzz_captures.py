"""Mutated CHSTATUS captures and NETSTAT reports: a parser lands rows or raises its InputError.

Property: whatever is done to a real sample (bytes flipped, the file truncated anywhere, lines
duplicated, deleted or swapped, random bytes or capture-like lines inserted), the parser raises
nothing but ``InputError`` naming the file and a line, and what it lands fits its landing
tables, every row with a source line inside the file.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mqcap.parsers import chstatus, netstat

from helpers import FIXTURES, check_parse_property

CASES = [
    *[(chstatus.PARSER, p) for p in sorted((FIXTURES / "chstatus").glob("*.txt"))],
    *[(netstat.PARSER, p) for p in sorted((FIXTURES / "netstat").glob("netstat_*.txt"))],
]
SAMPLES = {path: path.read_bytes() for _, path in CASES}
LINE_NOISE = st.sampled_from(
    [
        b"AMQ8417I: Display Channel Status details.",
        b"AMQ8420I: Channel Status not found.",
        b"   CHANNEL(X)   CHLTYPE(SDR)",
        b"CHSTATUS(Y)",
        b" CSQM201I ZQS1 CSQMDRTC  DISPLAY CHSTATUS DETAILS 610",
        b"  END CHSTATUS DETAILS",
        b" CSQM293I ZQS1 CSQMDRTC 99999999999999999999 CHSTATUS FOUND",
        b" 25.61.99 STC04567  CSQM201I -ZQS1 CSQMDRTC DISPLAY CHSTATUS DETAILS",
        b"N 0000000 SYSA 26999 10:15:22.12 STC04567 00000090  CSQM201I X",
        b"0 10.15.20 STC04567 ---- SATURDAY,  31 FEB 2026 ----",
        b"Sat Nov 31 05:52:09 UTC 2026",
        b"2026-02-30T25:61:00",
        b"     1 : DIS CHS(*) ALL",
        b"NETTIME((((  XQTIME())))",
        b"MQIACH_BYTES_SENT:236",
        b"MVS TCP/IP NETSTAT CS V2R4       TCPIP Name: TCPIP           99:99:99",
        b"MVS TCP/IP NETSTAT",
        b"Client Name: CSQ1CHIN                 Client Id: 000000B2",
        b"Client:",
        b"  Local Socket: 10.1.1.1..1414 Foreign Socket:",
        b"    Round-trip information:",
        b"      TTLSRule:          MQ_CHANNELS",
        b"    :   :  :",
        b"  A: 1  B: 2  C: 3  D:",
        b"\t\t\t",
        b"READY",
    ]
)
BYTE_NOISE = st.binary(min_size=1, max_size=8)


@st.composite
def mutated(draw):
    parser, path = draw(st.sampled_from(CASES))
    data = SAMPLES[path]
    lines = data.split(b"\n")
    for _ in range(draw(st.integers(1, 6))):
        if not lines:
            break
        op = draw(st.sampled_from(["flip", "truncate", "dup", "drop", "swap", "insert", "bytes"]))
        i = draw(st.integers(0, len(lines) - 1))
        if op == "flip":
            line = bytearray(lines[i])
            if line:
                k = draw(st.integers(0, len(line) - 1))
                line[k] ^= 1 << draw(st.integers(0, 7))
            lines[i] = bytes(line)
        elif op == "truncate":
            whole = b"\n".join(lines)
            lines = whole[: draw(st.integers(0, len(whole)))].split(b"\n")
        elif op == "dup":
            lines[i:i] = lines[i : i + draw(st.integers(1, 8))]
        elif op == "drop":
            del lines[i : i + draw(st.integers(1, 8))]
        elif op == "swap":
            j = draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
        elif op == "insert":
            lines.insert(i, draw(LINE_NOISE))
        else:
            line = lines[i]
            k = draw(st.integers(0, len(line)))
            lines[i] = line[:k] + draw(BYTE_NOISE) + line[k:]
    return parser, path.name, b"\n".join(lines)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated())
def test_mutated_captures_raise_only_input_error(case):
    parser, name, data = case
    check_parse_property(parser, name, data, must_land=True)
