"""SMF 72 subtype 3 (RMF workload activity) -> ``landing.rmf_workload`` rows.

Layout: IBM "z/OS MVS System Management Facilities (SMF)", record type 72 subtype 3 (mapped by
ERBSMFR): header triplets at record offset 36 (workload manager control section,
``SMF72WMS/WML/WMN``), 52 (resource group, ``SMF72RGS``) and 60 (service/report class period
data, ``SMF72SCS/SCL/SCN``). One record describes one service or report class: the control
section ("Workload Manager Control Section", R723M*: policy R723MNSP, workload R723MWNM, class
R723MCNM, report-class flag R723MRCL in R723MSCF, coefficients R723MCPU / R723MSRB (x 10,000),
adjustment R723MADJ) and one "Service/Report Class Period Data Section" (R723C*) per period.

Service times, as the RMF WORKLOAD ACTIVITY report derives them:

- service units -> seconds: ``SU x R723MADJ / (1600 x coefficient)`` (R723MADJ is sixteenths of
  a CPU microsecond per unweighted service unit; the coefficient is stored x 10,000): CPU from
  R723CCPU (TCB SU, includes normalised zIIP/zAAP SU) with R723MCPU, SRB from R723CSRB with
  R723MSRB, IIP from R723CSUP and AAP from R723CIFA with R723MCPU; IIPCP / AAPCP (eligible work
  that ran on CPs) from R723CSUC / R723CIFC;
- RCT, IIT, HST from R723CRCT, R723CIIT, R723CHST (microseconds);
- APPL %: CP = (CPU + SRB + RCT + IIT + HST - AAP - IIP) / interval x 100, the others
  time / interval x 100.

All period-section counters are 8-byte floating point (HFP). Fields past the section's length
(older releases) land NULL.

Example:
    rows = decode_72_3(rec.data)  # [{"class_name": "CHIN", "cpu_s": 41.5, ...}]
"""

from __future__ import annotations

import math

from mqcap.parsers.smf.fields import parse_layout
from mqcap.parsers.smf.zos_common import (
    ZosRecordError,
    hfp,
    rmf_interval,
    text,
    triplet,
    u16,
    u32,
)

WMS = parse_layout(
    "mscf:B mflg:B mfl2:B mrs2:B mnsp:8s mdsp:32s mtpa:8s mcpu:I mioc:I mmso:I msrb:I "
    "mtvl:I mtv_:I mopt:2s mrs3:2x mwnm:8s mwde:32s mcnm:8s mcde:32s mcpg:H msub:B mrs4:3x "
    "merf:6s madj:I"
)
# R723SCS through R723CIFC, in the mapping's order (every 8-byte counter is HFP).
SCS = parse_layout(
    "crtx:H cwmx:H cwmn:H crs1:B cadf:B cper:B crtf:B crgf:B crs4:B cval:I cpct:H cimp:H "
    "cdur:I csrv:8s ccpu:8s cioc:8s cmso:8s csrb:8s cpir:8s chpi:8s cbpi:8s cpie:8s cbpe:8s "
    "cbka:8s cbke:8s cprs:8s cers:8s ctrr:8s ctat:8s crct:8s ciit:8s chst:8s cswc:I ccrm:I "
    "crcp:I carc:I cncp:I canc:I ctet:8s cxet:8s cets:8s ccus:I ctot:I ccde:I ccca:I cswi:I "
    "cmpl:I capr:I caco:I caxm:I cvio:I chsp:I cchs:I cunk:I cidl:I cpde:I cpqu:I csac:I "
    "csrs:8s cspa:8s cspe:8s cict:8s ciwt:8s cidt:8s circ:I ctou:I ciou:I ciod:I cq:I cspv:I "
    "csvi:I cshs:I csmp:I cssw:I cndi:I ctdq:I ctsa:8s ciot:8s cqdt:8s cadt:8s ccvt:8s "
    "ciqt:8s ciea:8s cxea:8s cfea:8s camu:I camd:I apu:I apd:I fqd:I plsc:8s rcod:I rcou:I "
    "ectc:8s ifau:I ifcu:I ifad:I ifat:8s ifct:8s supu:I sucu:I supd:I csup:8s csuc:8s "
    "cifa:8s cifc:8s"
)
REPORT_CLASS = 0x80  # R723MRCL in R723MSCF


def _value(data: bytes, base: int, ln: int, name: str) -> float | None:
    m = SCS[name]
    if m.offset + 8 > ln:
        return None
    v = hfp(data, base + m.offset)
    if not math.isfinite(v) or v < 0:
        raise ZosRecordError(
            f"impossible R723{name.upper()} {v!r} at record offset {base + m.offset + 4}"
        )
    return v


def decode_72_3(data: bytes) -> list[dict]:
    """One row per period of the record's service or report class."""
    iv = rmf_interval(data)
    woff, _wln, wn = triplet(data, 36, "workload manager control", WMS["madj"].offset + 4)
    if wn != 1:
        raise ZosRecordError(f"SMF 72-3 record with {wn} workload manager control sections (1)")
    mcpu, msrb = u32(data, woff + WMS["mcpu"].offset), u32(data, woff + WMS["msrb"].offset)
    madj = u32(data, woff + WMS["madj"].offset)
    if not mcpu or not msrb or not madj:
        raise ZosRecordError(
            f"impossible service coefficients (R723MCPU {mcpu}, R723MSRB {msrb}, R723MADJ "
            f"{madj}) in the control section at record offset {woff + 4}"
        )
    report = bool(data[woff + WMS["mscf"].offset] & REPORT_CLASS)
    roff, _rln, rn = triplet(data, 52, "resource group", 8)
    head = {
        "sysplex": iv.sysplex,
        "zos_level": iv.zos_level,
        "interval_start": iv.start,
        "interval_s": iv.seconds,
        "policy": text(data, woff + WMS["mnsp"].offset, 8),
        "workload": text(data, woff + WMS["mwnm"].offset, 8),
        "class_kind": "report" if report else "service",
        "class_name": text(data, woff + WMS["mcnm"].offset, 8),
        "resource_group": text(data, roff, 8) if rn else None,
    }
    off, ln, n = triplet(data, 60, "service/report class period", SCS["chst"].offset + 8)
    rows = []
    for j in range(n):
        b = off + ln * j

        def su_s(name: str, coefficient: int, b: int = b) -> float | None:
            v = _value(data, b, ln, name)
            return None if v is None else v * madj / (1600 * coefficient)

        def us_s(name: str, b: int = b) -> float | None:
            v = _value(data, b, ln, name)
            return None if v is None else v / 1e6

        times = {
            "cpu_s": su_s("ccpu", mcpu),
            "srb_s": su_s("csrb", msrb),
            "rct_s": us_s("crct"),
            "iit_s": us_s("ciit"),
            "hst_s": us_s("chst"),
            "aap_s": su_s("cifa", mcpu),
            "iip_s": su_s("csup", mcpu),
        }
        on_cp = {"aapcp": su_s("cifc", mcpu), "iipcp": su_s("csuc", mcpu)}
        cp = sum(times[k] or 0.0 for k in ("cpu_s", "srb_s", "rct_s", "iit_s", "hst_s"))
        cp -= (times["aap_s"] or 0.0) + (times["iip_s"] or 0.0)

        def pct(v: float | None) -> float | None:
            return None if v is None else v / iv.seconds * 100

        importance = u16(data, b + SCS["cimp"].offset)
        rows.append(
            {
                **head,
                "period": data[b + SCS["cper"].offset] or None,
                "importance": None if report or not importance else str(importance),
                **times,
                "appl_cp_pct": pct(cp),
                "appl_aapcp_pct": pct(on_cp["aapcp"]),
                "appl_iipcp_pct": pct(on_cp["iipcp"]),
                "appl_aap_pct": pct(times["aap_s"]),
                "appl_iip_pct": pct(times["iip_s"]),
            }
        )
    return rows
