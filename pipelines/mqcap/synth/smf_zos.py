"""Encoder of z/OS SMF 30 (subtypes 2/3), 70-2 and 72-3 records: the decoders' inverse, built
from the same layouts (``zos_smf30``, ``zos_smf70``, ``zos_smf72``) for tests and scenario
generators. No public binary samples of these records exist, so this is how test input is made.

Inputs are in the units that land (seconds, operation counts); the encoder turns them into what
z/OS writes: hundredths of a second (SMF 30), HFP timers divided by a scaling factor (70-2),
service units from seconds with the coefficients and adjustment factor (72-3).

Example:
    rec = record_30(datetime(2024, 3, 1, 10, 15), "MV41", "CSQ1CHIN",
                    datetime(2024, 3, 1, 10, 0), tcb_s=40.0, srb_s=1.5)
    write_dump(path, [rec])  # mqcap.synth.smf_mq.write_dump: RDWs added
"""

from __future__ import annotations

import struct
from datetime import datetime

from mqcap.parsers.smf.convert import pack_smf_date, to_ebcdic
from mqcap.parsers.smf.fields import Member, parse_layout
from mqcap.parsers.smf.zos_common import RDW, float_to_hfp, pack_digits
from mqcap.parsers.smf.zos_smf30 import CAS, ID
from mqcap.parsers.smf.zos_smf70 import ACCEL, CCA, ENGINE, PKCS11, PKCS11_FUNCTIONS
from mqcap.parsers.smf.zos_smf72 import REPORT_CLASS, SCS, WMS

FLAG = 0x5E  # bit 1 (X'40'): subtypes used
PRODUCT = parse_layout(
    "mfv:2s prd:8s ist:4s dat:4s int:4s mfl:2s sam:I rv2:2s fla:2s rls:4s cyc:4s mvs:8s "
    "iml:B prf:B ptn:B srl:B iet:8s lgo:8s rao:I ral:H ran:H oil:H syn:H gie:8s xnm:8s snm:8s"
)
# Default crypto scaling factor: timers in TOD-clock units (1/4096 microsecond).
STCK_SECONDS = 1 / 4096 / 1e6
CARD_CODE = {"CEX5": 11, "CEX6": 12, "CEX7": 13, "CEX8": 14}


def _put(buf: bytearray, m: Member, value: object) -> None:
    if m.code == "s":
        raw = value if isinstance(value, bytes) else to_ebcdic(str(value or ""), m.size)
        buf[m.offset : m.offset + m.size] = raw.ljust(m.size, b"\0")[: m.size]
    else:
        struct.pack_into(">" + m.code, buf, m.offset, value)


def _section(layout: dict[str, Member], values: dict, size: int | None = None) -> bytes:
    buf = bytearray(size or layout["__size__"].offset)
    for name, v in values.items():
        _put(buf, layout[name], v)
    return bytes(buf)


def _hundredths(t: datetime) -> int:
    return (t.hour * 3600 + t.minute * 60 + t.second) * 100 + t.microsecond // 10000


def _header(rtype: int, when: datetime, sid: str, ssi: str, subtype: int) -> bytes:
    return (
        bytes([FLAG, rtype])
        + struct.pack(">I", _hundredths(when))
        + pack_smf_date(when)
        + to_ebcdic(sid, 4)
        + to_ebcdic(ssi, 4)
        + struct.pack(">H", subtype)
    )


def _assemble(
    head: bytes, first: int, slots: int, sections: dict[int, tuple[bytes, int, int]]
) -> bytes:
    """Header + ``slots`` triplets from record offset ``first`` + the sections in order.

    ``sections`` maps a triplet's record offset to (data, length of one, count).
    """
    body = bytearray()
    trip = bytearray(8 * slots)
    pos = first + 8 * slots  # record offset (RDW included) where the sections start
    for at in sorted(sections):
        data, ln, n = sections[at]
        struct.pack_into(">IHH", trip, at - first, pos + len(body) if n else 0, ln, n)
        body += data
    pad = first - RDW - len(head)
    return head + bytes(pad) + bytes(trip) + bytes(body)


def record_30(
    written_local: datetime,
    system_id: str,
    jobname: str,
    interval_start: datetime,
    *,
    subtype: int = 2,
    work_type: str = "STC",
    step: str = "STEP1",
    program: str = "IEFBR14",
    tcb_s: float = 0.0,
    srb_s: float = 0.0,
    ziip_s: float = 0.0,
    ziip_on_cp_s: float = 0.0,
    initiator_tcb_s: float = 0.0,
    initiator_srb_s: float = 0.0,
    io_interrupt_s: float = 0.0,
    rct_s: float = 0.0,
    hiperspace_s: float = 0.0,
) -> bytes:
    """An SMF 30 interval record (no RDW): identification + processor accounting sections."""
    ident = _section(ID, {"jbn": jobname, "pgm": program, "stm": step, "stn": 1})
    h = {
        "cpt": tcb_s,
        "cps": srb_s,
        "icu": initiator_tcb_s,
        "isb": initiator_srb_s,
        "iip": io_interrupt_s,
        "rct": rct_s,
        "hpt": hiperspace_s,
        "ziip": ziip_s,
        "ziipcp": ziip_on_cp_s,
    }
    cas = _section(
        CAS,
        {
            **{k: round(v * 100) for k, v in h.items()},
            "ist": _hundredths(interval_start),
            "idt": pack_smf_date(interval_start),
        },
    )
    head = _header(30, written_local, system_id, work_type, subtype)
    # Triplets SMF30SOF (24) .. SMF30EOF (96): identification at 32, processor at 56.
    return _assemble(head, 24, 10, {32: (ident, len(ident), 1), 56: (cas, len(cas), 1)})


def _rmf(
    rtype: int,
    subtype: int,
    written_local: datetime,
    system_id: str,
    interval_start: datetime,
    interval_s: float,
    slots: int,
    sections: dict[int, tuple[bytes, int, int]],
    sysplex: str = "PLEX1",
    mvs: str = "SP7.2.4",
) -> bytes:
    minutes, rest = divmod(round(interval_s * 1000), 60_000)
    product = _section(
        PRODUCT,
        {
            "mfv": pack_digits("024"),
            "prd": "RMF",
            "ist": pack_digits(f"0{interval_start:%H%M%S}"),
            "dat": pack_smf_date(interval_start),
            "int": pack_digits(f"{minutes:02d}{rest:05d}"),
            "mvs": mvs,
            "xnm": sysplex,
            "snm": system_id,
        },
    )
    head = _header(rtype, written_local, system_id, "RMF", subtype)
    head += struct.pack(">HH", slots + 1, 0)
    rec = _assemble(head + bytes(8), 36, slots, sections)
    # The product section goes last; its triplet (SMFxxPRS/PRL/PRN) is at record offset 28.
    prs = len(rec) + RDW
    rec = rec[:24] + struct.pack(">IHH", prs, len(product), 1) + rec[32:] + product
    return rec


def record_70_2(
    written_local: datetime,
    system_id: str,
    interval_start: datetime,
    interval_s: float,
    *,
    cca: list[dict] = (),  # type: ignore[assignment]
    pkcs11: list[dict] = (),  # type: ignore[assignment]
    accelerators: list[dict] = (),  # type: ignore[assignment]
    **kw,
) -> bytes:
    """An SMF 70-2 record (no RDW) from card dicts in landing units.

    CCA: ``card_type`` (e.g. CEX7C), ``card_id``, ``scope`` (LPAR/CPC/TOTAL), ``seconds``,
    ``operations``, ``keygens``; PKCS11: ``functions`` {name: (seconds, operations)};
    accelerators: ``engines`` and ``functions`` {("RSA ME", 1024): (seconds, operations)}
    (1024/2048-bit figures are written to engine 0). ``scale`` overrides the scaling factor.
    """

    def common(card: dict, layout: dict) -> dict:
        vals = {
            "ax": card["card_id"],
            "ct": CARD_CODE[card["card_type"][:4]],
            "sf": float_to_hfp(card.get("scale", STCK_SECONDS)),
        }
        if card.get("scope", "CPC") != "TOTAL":
            vals["scope"] = {"CPC": 0, "LPAR": 1}[card.get("scope", "CPC")]
        return vals

    def size(card: dict, layout: dict) -> int:
        full = layout["__size__"].offset
        return layout["scope"].offset if card.get("scope") == "TOTAL" else full

    def t(card: dict, seconds: float) -> bytes:
        return float_to_hfp(seconds / card.get("scale", STCK_SECONDS))

    sections: dict[int, tuple[bytes, int, int]] = {}
    parts = []
    for c in cca:
        vals = {
            **common(c, CCA),
            "t0": t(c, c["seconds"]),
            "c0": float_to_hfp(c["operations"]),
            "c1": float_to_hfp(c.get("keygens", 0)),
        }
        parts.append(_section(CCA, vals, size(c, CCA)))
    if parts:
        sections[36] = (b"".join(parts), len(parts[0]), len(parts))
    parts = []
    for c in accelerators:
        vals = {**common(c, ACCEL), "en": c.get("engines", 1)}
        engine0 = {}
        for (fn, bits), (secs, ops) in c["functions"].items():
            tm, cm = ("met", "mec") if fn == "RSA ME" else ("crt", "crc")
            if bits == 4096:
                vals[f"{tm}4096"], vals[f"{cm}4096"] = t(c, secs), float_to_hfp(ops)
            else:
                engine0[f"{tm}{bits}"], engine0[f"{cm}{bits}"] = t(c, secs), float_to_hfp(ops)
        vals["tc"] = _section(ENGINE, engine0).ljust(ACCEL["tc"].size, b"\0")
        parts.append(_section(ACCEL, vals, size(c, ACCEL)))
    if parts:
        sections[44] = (b"".join(parts), len(parts[0]), len(parts))
    parts = []
    for c in pkcs11:
        vals = common(c, PKCS11)
        for name, (secs, ops) in c["functions"].items():
            tm, cm = PKCS11_FUNCTIONS[name]
            vals[tm], vals[cm] = t(c, secs), float_to_hfp(ops)
        parts.append(_section(PKCS11, vals, size(c, PKCS11)))
    if parts:
        sections[60] = (b"".join(parts), len(parts[0]), len(parts))
    return _rmf(70, 2, written_local, system_id, interval_start, interval_s, 4, sections, **kw)


def record_72_3(
    written_local: datetime,
    system_id: str,
    interval_start: datetime,
    interval_s: float,
    *,
    policy: str,
    workload: str,
    class_name: str,
    report_class: bool,
    periods: list[dict],
    resource_group: str | None = None,
    mcpu: int = 10000,
    msrb: int = 10000,
    madj: int = 276,
    **kw,
) -> bytes:
    """An SMF 72-3 record (no RDW) for one class; ``periods`` hold the landing seconds
    (``cpu_s``, ``srb_s``, ``rct_s``, ``iit_s``, ``hst_s``, ``aap_s``, ``iip_s``, and the
    on-CP ``aapcp_s`` / ``iipcp_s``) plus ``period`` and ``importance``."""
    wms = _section(
        WMS,
        {
            "mscf": REPORT_CLASS if report_class else 0,
            "mnsp": policy,
            "mwnm": workload,
            "mcnm": class_name,
            "mcpu": mcpu,
            "msrb": msrb,
            "madj": madj,
            "mcpg": len(periods),
        },
    )

    def su(seconds: float, coefficient: int) -> bytes:
        return float_to_hfp(seconds * 1600 * coefficient / madj)

    parts = []
    for p in periods:
        vals = {
            "cper": p.get("period", 1),
            "cimp": p.get("importance", 0),
            "ccpu": su(p.get("cpu_s", 0.0), mcpu),
            "csrb": su(p.get("srb_s", 0.0), msrb),
            "crct": float_to_hfp(p.get("rct_s", 0.0) * 1e6),
            "ciit": float_to_hfp(p.get("iit_s", 0.0) * 1e6),
            "chst": float_to_hfp(p.get("hst_s", 0.0) * 1e6),
            "cifa": su(p.get("aap_s", 0.0), mcpu),
            "csup": su(p.get("iip_s", 0.0), mcpu),
            "cifc": su(p.get("aapcp_s", 0.0), mcpu),
            "csuc": su(p.get("iipcp_s", 0.0), mcpu),
        }
        parts.append(_section(SCS, vals))
    sections = {36: (wms, len(wms), 1), 60: (b"".join(parts), len(parts[0]), len(parts))}
    if resource_group:
        rg = to_ebcdic(resource_group, 8) + bytes(40)
        sections[52] = (rg, len(rg), 1)
    return _rmf(72, 3, written_local, system_id, interval_start, interval_s, 7, sections, **kw)
