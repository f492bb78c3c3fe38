"""SMF 70 subtype 2 (RMF crypto hardware activity) -> ``landing.rmf_crypto`` rows.

Layout: IBM "z/OS MVS System Management Facilities (SMF)", record type 70 subtype 2 (mapped by
ERBSMFR): header triplets at record offset 36 (CCA coprocessor, ``SMF7023S/L/N``), 44
(accelerator, ``SMF7024S/L/N``), 52 (ICSF services, not decoded) and 60 (PKCS11 coprocessor,
``SMF7025S/L/N``); sections "Cryptographic CCA Coprocessor Data Section" (R7023*),
"Cryptographic Accelerator Data Section" (R7024*, per-engine timer/counter pairs R702xMET/MEC,
R702xCRT/CRC) and "Cryptographic PKCS11 Coprocessor Data Section" (R7025*). Timers and counters
are 8-byte floating point (HFP); execution times times the section's scaling factor
(R7023SF/R7024SF/R7025SF) are seconds. The scope byte (R702xSCOPE, added by OA54952, z/OS
V2R3) says 0 = CPC, 1 = LPAR; a section too short to have it is a pre-V2R3 ``TOTAL`` figure.

Derived exactly as the RMF Postprocessor CRYPTO report does: rate = operations / interval,
exec time (ms) = time x SF / operations x 1000 (0 without operations), util % = time x SF /
interval x 100, divided by the engine count (R7024EN) for accelerators; PKCS11 and accelerator
card totals sum their functions.

Example:
    rows = decode_70_2(rec.data)  # [{"card_type": "CEX7C", "scope": "CPC", ...}, ...]
"""

from __future__ import annotations

import math

from mqcap.parsers.smf.fields import parse_layout
from mqcap.parsers.smf.zos_common import (
    RmfInterval,
    ZosRecordError,
    hfp,
    rmf_interval,
    triplet,
    u32,
)

CCA = parse_layout("ax:B ct:B msk:B mt:B r1:4x sf:8s t0:8s c0:8s r2:8x c1:8s scope:B did:B r3:2x")
ACCEL = parse_layout(
    "ax:B ct:B msk:B mt:B en:I sf:8s tc:320s met4096:8s mec4096:8s crt4096:8s crc4096:8s "
    "scope:B did:B r3:2x"
)
# One engine's block in R7024TC (5 x 64 bytes): (time, count) pairs by format and key size.
ENGINE = parse_layout(
    "met1024:8s mec1024:8s met2048:8s mec2048:8s crt1024:8s crc1024:8s crt2048:8s crc2048:8s"
)
ENGINES_MAX = 5
PKCS11 = parse_layout(
    "ax:B ct:B msk:B mt:B r1:4x sf:8s sat:8s sac:8s fat:8s fac:8s spt:8s spc:8s sct:8s scc:8s "
    "agt:8s agc:8s scope:B did:B r2:2x"
)
PKCS11_FUNCTIONS = {  # RMF report row -> (time, count) members
    "ASYM FAST": ("fat", "fac"),
    "ASYM GEN": ("agt", "agc"),
    "ASYM SLOW": ("sat", "sac"),
    "SYMM COMPLETE": ("sct", "scc"),
    "SYMM PARTIAL": ("spt", "spc"),
}
SECTIONS = {"CCA": "CCA COPROCESSOR", "PKCS11": "PKCS11 COPROCESSOR", "ACCEL": "ACCELERATOR"}
SUFFIX = {"CCA": "C", "PKCS11": "P", "ACCEL": "A"}
SCOPES = {0: "CPC", 1: "LPAR"}


def card_type(code: int, kind: str) -> str:
    """R702xCT -> report name: 11..14 are CEX5..CEX8 (C, P or A by section)."""
    return f"CEX{code - 6}{SUFFIX[kind]}" if 11 <= code <= 20 else f"TYPE{code}"


def _count(data: bytes, at: int, what: str) -> float:
    v = hfp(data, at)
    if not math.isfinite(v) or v < 0 or v != int(v):
        raise ZosRecordError(f"impossible {what} {v!r} at record offset {at + 4}")
    return v


def _time(data: bytes, at: int, what: str) -> float:
    v = hfp(data, at)
    if not math.isfinite(v) or v < 0:
        raise ZosRecordError(f"impossible {what} {v!r} at record offset {at + 4}")
    return v


def _metrics(seconds: float, ops: float, iv: RmfInterval, engines: int = 1) -> dict:
    return {
        "rate_per_s": ops / iv.seconds,
        "exec_time_ms": seconds / ops * 1000 if ops else 0.0,
        "util_pct": seconds / (iv.seconds * engines) * 100,
    }


def _scope(data: bytes, base: int, ln: int, layout: dict) -> str:
    m = layout["scope"]
    if ln <= m.offset:
        return "TOTAL"
    code = data[base + m.offset]
    if code not in SCOPES:
        raise ZosRecordError(f"unknown crypto scope {code} at record offset {base + m.offset + 4}")
    return SCOPES[code]


def _sf(data: bytes, base: int, layout: dict) -> float:
    at = base + layout["sf"].offset
    sf = hfp(data, at)
    if not math.isfinite(sf) or sf < 0:
        raise ZosRecordError(f"impossible scaling factor {sf!r} at record offset {at + 4}")
    return sf


def decode_70_2(data: bytes) -> list[dict]:
    """Rows (card totals and function rows, per scope) of one SMF 70-2 record.

    Long because: the SMF 70-2 sections, in record order."""
    iv = rmf_interval(data)
    head = {
        "system_id": iv.system_id,
        "zos_level": iv.zos_level,
        "interval_start": iv.start,
        "interval_s": iv.seconds,
    }
    rows: list[dict] = []

    def card(kind: str, base: int, ln: int, layout: dict) -> dict:
        return {
            **head,
            "section": SECTIONS[kind],
            "card_type": card_type(data[base + layout["ct"].offset], kind),
            "card_id": data[base + layout["ax"].offset],
            "scope": _scope(data, base, ln, layout),
        }

    off, ln, n = triplet(data, 36, "crypto CCA coprocessor", CCA["c1"].offset + 8)
    for j in range(n):
        b = off + ln * j
        sf = _sf(data, b, CCA)
        t = _time(data, b + CCA["t0"].offset, "CCA execution time") * sf
        c = _count(data, b + CCA["c0"].offset, "CCA operation count")
        keygen = _count(data, b + CCA["c1"].offset, "CCA key generation count")
        rows.append(
            {
                **card("CCA", b, ln, CCA),
                **_metrics(t, c, iv),
                "keygen_rate_per_s": keygen / iv.seconds,
            }
        )

    off, ln, n = triplet(data, 60, "crypto PKCS11 coprocessor", PKCS11["agc"].offset + 8)
    for j in range(n):
        b = off + ln * j
        sf = _sf(data, b, PKCS11)
        ident = card("PKCS11", b, ln, PKCS11)
        funcs = []
        for name, (tm, cm) in PKCS11_FUNCTIONS.items():
            t = _time(data, b + PKCS11[tm].offset, f"PKCS11 {name} time") * sf
            c = _count(data, b + PKCS11[cm].offset, f"PKCS11 {name} count")
            funcs.append({**ident, "function": name, **_metrics(t, c, iv), "_t": t, "_c": c})
        total_t, total_c = sum(f.pop("_t") for f in funcs), sum(f.pop("_c") for f in funcs)
        rows.append({**ident, **_metrics(total_t, total_c, iv)})
        rows.extend(funcs)

    off, ln, n = triplet(data, 44, "crypto accelerator", ACCEL["crc4096"].offset + 8)
    for j in range(n):
        b = off + ln * j
        sf = _sf(data, b, ACCEL)
        engines = u32(data, b + ACCEL["en"].offset)
        if not 1 <= engines <= ENGINES_MAX:
            raise ZosRecordError(
                f"impossible accelerator engine count {engines} at record offset "
                f"{b + ACCEL['en'].offset + 4} (1 to {ENGINES_MAX})"
            )
        ident = card("ACCEL", b, ln, ACCEL)
        pairs: dict[tuple[str, int], list[float]] = {}
        for fmt in ("me", "crt"):
            t_pre, c_pre = ("met", "mec") if fmt == "me" else ("crt", "crc")
            for bits in (1024, 2048):
                tot = pairs.setdefault((fmt, bits), [0.0, 0.0])
                for e in range(engines):
                    eb = b + ACCEL["tc"].offset + 64 * e
                    tot[0] += _time(data, eb + ENGINE[f"{t_pre}{bits}"].offset, "RSA time")
                    tot[1] += _count(data, eb + ENGINE[f"{c_pre}{bits}"].offset, "RSA count")
            pairs[(fmt, 4096)] = [
                _time(data, b + ACCEL[f"{t_pre}4096"].offset, "RSA 4096 time"),
                _count(data, b + ACCEL[f"{c_pre}4096"].offset, "RSA 4096 count"),
            ]
        total_t = sum(t for t, _ in pairs.values()) * sf
        total_c = sum(c for _, c in pairs.values())
        rows.append({**ident, **_metrics(total_t, total_c, iv, engines)})
        for (fmt, bits), (t, c) in pairs.items():
            rows.append(
                {
                    **ident,
                    "function": "RSA ME" if fmt == "me" else "RSA CRT",
                    "key_size_bits": bits,
                    **_metrics(t * sf, c, iv, engines),
                }
            )
    return rows
