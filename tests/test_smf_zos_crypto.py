"""SMF 70-2 crypto records decode to the figures of the RMF CRYPTO report built from the same counts.

No real binary SMF 70-2 is public, so the records are built (``mqcap.synth.smf_zos``) from the counts
behind the real CB89 report (z/OS V2R4, CEX7): operations and execution seconds derived from
its RATE, EXEC TIME, UTIL% and INTERVAL, chosen inside the rounding of every printed figure
(card totals included).
"""

from __future__ import annotations

from datetime import datetime

import pytest

from mqcap.errors import InputError
from mqcap.parsers import rmf_crypto
from mqcap.parsers.smf.binary import PARSER
from mqcap.parsers.smf.zos_common import float_to_hfp, hfp_to_float
from mqcap.synth.smf_mq import write_dump
from mqcap.synth.smf_zos import record_70_2

from helpers import FIXTURES, parse_file

CB89 = FIXTURES / "rmf" / "CRYPTO_PP_V2R4_CB89_2019-08-11_CEX7.txt"
INTERVAL_S = 900.001  # INTERVAL 15.00.001
START = datetime(2019, 8, 11, 22, 45, 0)
WRITTEN = datetime(2019, 8, 11, 23, 0, 0)
# The report's figures as printed: (section, type, id, function, key bits, scope) ->
# (RATE, EXEC TIME, UTIL%).
PRINTED = {
    ("CCA COPROCESSOR", "CEX7C", 0, None, None, "LPAR"): ("0.00", "0.000", "0.0"),
    ("CCA COPROCESSOR", "CEX7C", 0, None, None, "CPC"): ("0.00", "0.000", "0.0"),
    ("CCA COPROCESSOR", "CEX7C", 1, None, None, "LPAR"): ("1997", "0.209", "41.7"),
    ("CCA COPROCESSOR", "CEX7C", 1, None, None, "CPC"): ("4873", "0.205", "99.8"),
    ("PKCS11 COPROCESSOR", "CEX7P", 3, None, None, "LPAR"): ("461.8", "1.004", "46.4"),
    ("PKCS11 COPROCESSOR", "CEX7P", 3, None, None, "CPC"): ("1005", "0.995", "99.9"),
    ("PKCS11 COPROCESSOR", "CEX7P", 3, "ASYM FAST", None, "LPAR"): ("253.8", "0.947", "24.0"),
    ("PKCS11 COPROCESSOR", "CEX7P", 3, "ASYM FAST", None, "CPC"): ("470.4", "1.009", "47.5"),
    ("PKCS11 COPROCESSOR", "CEX7P", 3, "ASYM GEN", None, "LPAR"): ("0.00", "0.000", "0.0"),
    ("PKCS11 COPROCESSOR", "CEX7P", 3, "ASYM GEN", None, "CPC"): ("0.38", "2.067", "0.1"),
    ("PKCS11 COPROCESSOR", "CEX7P", 3, "ASYM SLOW", None, "LPAR"): ("186.5", "1.081", "20.2"),
    ("PKCS11 COPROCESSOR", "CEX7P", 3, "ASYM SLOW", None, "CPC"): ("491.6", "1.011", "49.7"),
    ("PKCS11 COPROCESSOR", "CEX7P", 3, "SYMM COMPLETE", None, "LPAR"): ("21.48", "1.012", "2.2"),
    ("PKCS11 COPROCESSOR", "CEX7P", 3, "SYMM COMPLETE", None, "CPC"): ("42.52", "0.638", "2.7"),
    ("PKCS11 COPROCESSOR", "CEX7P", 3, "SYMM PARTIAL", None, "LPAR"): ("0.00", "0.000", "0.0"),
    ("PKCS11 COPROCESSOR", "CEX7P", 3, "SYMM PARTIAL", None, "CPC"): ("0.00", "0.000", "0.0"),
    ("ACCELERATOR", "CEX7A", 2, None, None, "CPC"): ("15043", "0.066", "99.7"),
    ("ACCELERATOR", "CEX7A", 2, "RSA ME", 1024, "CPC"): ("1538", "0.031", "4.8"),
    ("ACCELERATOR", "CEX7A", 2, "RSA ME", 2048, "CPC"): ("5965", "0.026", "15.6"),
    ("ACCELERATOR", "CEX7A", 2, "RSA ME", 4096, "CPC"): ("2524", "0.064", "16.3"),
    ("ACCELERATOR", "CEX7A", 2, "RSA CRT", 1024, "CPC"): ("4382", "0.042", "18.2"),
    ("ACCELERATOR", "CEX7A", 2, "RSA CRT", 2048, "CPC"): ("246.2", "0.207", "5.1"),
    ("ACCELERATOR", "CEX7A", 2, "RSA CRT", 4096, "CPC"): ("387.8", "1.025", "39.7"),
}
KEYGEN_RATE = {("CEX7C", 1): "0.86", ("CEX7C", 0): "0.00"}  # KEY-GEN RATE, LPAR and CPC
METRICS = ("rate_per_s", "exec_time_ms", "util_pct")


def _half(printed: str) -> float:
    decimals = len(printed.split(".")[1]) if "." in printed else 0
    return 0.5 * 10**-decimals


def _window(rate: str, exec_ms: str, util: str, ops: float) -> tuple[float, float]:
    """Execution seconds for ``ops`` operations that print as EXEC TIME and UTIL%."""
    lo = max(
        (float(util) - _half(util)) / 100 * INTERVAL_S,
        ops * (float(exec_ms) - _half(exec_ms)) / 1000,
    )
    hi = min(
        (float(util) + _half(util)) / 100 * INTERVAL_S,
        ops * (float(exec_ms) + _half(exec_ms)) / 1000,
    )
    if ops == 0:
        lo = hi = 0.0
    assert lo <= hi, (rate, exec_ms, util)
    return lo, hi


def derive(parts: list[tuple], total: tuple | None) -> list[tuple[float, float]]:
    """(seconds, operations) per row: operations = RATE x INTERVAL; seconds inside every row's
    EXEC TIME / UTIL% window and, when the card total sums the rows, inside the total's window
    too (one common fraction of each row's window)."""
    ops = [float(round(float(r) * INTERVAL_S)) for r, _, _ in parts]
    windows = [_window(*p, o) for p, o in zip(parts, ops, strict=True)]
    lo, hi = sum(w[0] for w in windows), sum(w[1] for w in windows)
    target = (lo + hi) / 2
    if total is not None:
        t_lo, t_hi = _window(*total, sum(ops))
        lo, hi = max(lo, t_lo), min(hi, t_hi)
        target = (lo + hi) / 2
    span = sum(w[1] - w[0] for w in windows)
    share = (target - sum(w[0] for w in windows)) / span if span else 0.0
    return [(w[0] + (w[1] - w[0]) * share, o) for w, o in zip(windows, ops, strict=True)]


def cb89_record() -> bytes:
    cards: dict[str, list[dict]] = {"cca": [], "pkcs11": [], "accelerators": []}
    for card_id in (0, 1):
        for scope in ("LPAR", "CPC"):
            key = ("CCA COPROCESSOR", "CEX7C", card_id, None, None, scope)
            ((secs, ops),) = derive([PRINTED[key]], None)
            keygens = round(float(KEYGEN_RATE[("CEX7C", card_id)]) * INTERVAL_S)
            cards["cca"].append(
                {
                    "card_type": "CEX7C",
                    "card_id": card_id,
                    "scope": scope,
                    "seconds": secs,
                    "operations": ops,
                    "keygens": keygens,
                }
            )
    for section, kind, ctype, cid, scopes in (
        ("PKCS11 COPROCESSOR", "pkcs11", "CEX7P", 3, ("LPAR", "CPC")),
        ("ACCELERATOR", "accelerators", "CEX7A", 2, ("CPC",)),
    ):
        for scope in scopes:
            keys = [k for k in PRINTED if k[0] == section and k[3] is not None and k[5] == scope]
            total = PRINTED[(section, ctype, cid, None, None, scope)]
            values = derive([PRINTED[k] for k in keys], total)
            functions = {
                (k[3] if kind == "pkcs11" else (k[3], k[4])): v
                for k, v in zip(keys, values, strict=True)
            }
            cards[kind].append(
                {
                    "card_type": ctype,
                    "card_id": cid,
                    "scope": scope,
                    "functions": functions,
                    "engines": 1,
                }
            )
    for c in cards["pkcs11"]:
        c.pop("engines")
    return record_70_2(WRITTEN, "CB89", START, INTERVAL_S, **cards)


@pytest.fixture(scope="module")
def decoded(tmp_path_factory):
    path = write_dump(tmp_path_factory.mktemp("cb89") / "cb89.smf", [cb89_record()])
    return parse_file(PARSER, path)["rmf_crypto"]


def _key(row: dict) -> tuple:
    return (
        row["section"],
        row["card_type"],
        row["card_id"],
        row["function"],
        row["key_size_bits"],
        row["scope"],
    )


def test_cb89_counts_give_the_reports_rate_exec_time_and_util(decoded):
    got = {_key(r): r for r in decoded.iter_rows(named=True)}
    assert set(got) == set(PRINTED)
    for key, printed in PRINTED.items():
        for metric, text in zip(METRICS, printed, strict=True):
            decimals = len(text.split(".")[1]) if "." in text else 0
            assert f"{got[key][metric]:.{decimals}f}" == text, (key, metric)
    row = got[("CCA COPROCESSOR", "CEX7C", 1, None, None, "CPC")]
    assert f"{row['keygen_rate_per_s']:.2f}" == "0.86"
    assert row["interval_start"] == START and row["interval_s"] == INTERVAL_S
    assert row["system_id"] == "CB89" and row["zos_level"] == "V2R4"


def test_cb89_smf_rows_match_the_text_parsers_rows_row_for_row(decoded):
    text = parse_file(rmf_crypto.PARSER, CB89)["rmf_crypto"]
    smf = {_key(r): r for r in decoded.iter_rows(named=True)}
    rows = list(text.iter_rows(named=True))
    assert len(rows) == len(smf) == 23
    for t in rows:
        s = smf[_key(t)]
        printed = PRINTED[_key(t)]
        for metric, p in zip(METRICS, printed, strict=True):
            decimals = len(p.split(".")[1]) if "." in p else 0
            assert round(s[metric], decimals) == t[metric], (_key(t), metric)
        for col in ("system_id", "zos_level", "interval_start", "interval_s"):
            assert s[col] == t[col]
        if t["keygen_rate_per_s"] is not None:
            assert round(s["keygen_rate_per_s"], 2) == t["keygen_rate_per_s"]


def test_sections_without_a_scope_byte_are_pre_v2r3_totals_and_engines_divide_util(tmp_path):
    rec = record_70_2(
        WRITTEN,
        "S35",
        START,
        900.0,
        cca=[
            {
                "card_type": "CEX5C",
                "card_id": 0,
                "scope": "TOTAL",
                "seconds": 9.0,
                "operations": 18000,
                "keygens": 0,
            }
        ],
        accelerators=[
            {
                "card_type": "CEX5A",
                "card_id": 4,
                "scope": "CPC",
                "engines": 2,
                "functions": {("RSA ME", 2048): (90.0, 900000)},
            }
        ],
    )
    rows = parse_file(PARSER, write_dump(tmp_path / "s35.smf", [rec]))["rmf_crypto"]
    cca = rows.filter(rows["section"] == "CCA COPROCESSOR").row(0, named=True)
    assert (cca["scope"], cca["card_type"], cca["rate_per_s"]) == ("TOTAL", "CEX5C", 20.0)
    assert cca["exec_time_ms"] == pytest.approx(0.5) and cca["util_pct"] == pytest.approx(1.0)
    me = rows.filter(rows["key_size_bits"] == 2048).row(0, named=True)
    # 90 s of 2 engines over 900 s is 5% busy, 0.1 ms per operation, 1000/s.
    assert me["util_pct"] == pytest.approx(5.0) and me["exec_time_ms"] == pytest.approx(0.1)
    assert me["rate_per_s"] == pytest.approx(1000.0)


def test_hfp_round_trips_values_and_known_bit_patterns():
    assert float_to_hfp(1.0) == bytes.fromhex("4110000000000000")
    assert float_to_hfp(-0.5) == bytes.fromhex("C080000000000000")
    assert hfp_to_float(bytes.fromhex("4110000000000000")) == 1.0
    for v in (1797302.0, 375.3004, 1 / 4096 / 1e6, 2.5e-12, 6.1e9):
        assert hfp_to_float(float_to_hfp(v)) == pytest.approx(v, rel=1e-15)


@pytest.mark.parametrize(
    ("patch", "message"),
    [
        ("negative", "impossible CCA operation count"),
        ("fraction", "impossible CCA operation count"),
        ("engines", "impossible accelerator engine count 0"),
    ],
)
def test_impossible_crypto_values_are_errors_naming_the_record_offset(tmp_path, patch, message):
    ok = cb89_record()
    rec = bytearray(ok)
    cca_at = int.from_bytes(rec[32:36], "big") - 4  # SMF7023S (from the RDW) -> data offset
    accel_at = int.from_bytes(rec[40:44], "big") - 4
    if patch == "negative":
        rec[cca_at + 24 : cca_at + 32] = float_to_hfp(-5.0)
    elif patch == "fraction":
        rec[cca_at + 24 : cca_at + 32] = float_to_hfp(10.5)
    else:
        rec[accel_at + 4 : accel_at + 8] = bytes(4)
    path = write_dump(tmp_path / "bad.smf", [ok, bytes(rec)])
    with pytest.raises(InputError) as exc:
        parse_file(PARSER, path)
    assert message in str(exc.value)
    assert exc.value.offset == len(ok) + 4  # the second record, RDW included
