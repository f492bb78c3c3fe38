"""SMF 30 subtypes 2 and 3 (address-space interval records) -> ``landing.ascpu_interval`` rows.

Layout: IBM "z/OS MVS System Management Facilities (SMF)", record type 30 (mapped by IFASMFR):
header with ``SMF30WID`` (work type) at record offset 18 and ``SMF30STP`` (subtype) at 22;
section triplets from offset 24: identification ``SMF30IOF/ILN/ION`` at 32, processor
accounting ``SMF30COF/CLN/CON`` at 56. "Identification Section": ``SMF30JBN`` (job name) at 0,
``SMF30PGM`` (program) at 8, ``SMF30STM`` (step) at 16, ``SMF30STN`` (step number) at 40.
"Processor Accounting Section" (all binary, hundredths of a second): ``SMF30CPT`` (step TCB,
includes zIIP-eligible work that ran on a CP and enclave time) at 4, ``SMF30CPS`` (step SRB) at
8, ``SMF30ICU`` / ``SMF30ISB`` (initiator TCB / SRB) at 12 / 16, ``SMF30IST`` (interval start,
hundredths since midnight, local) at 36 with ``SMF30IDT`` (its packed date) at 40,
``SMF30IIP`` (I/O interrupt) at 44, ``SMF30RCT`` (region control task) at 48, ``SMF30HPT``
(hiperspace) at 52, ``SMF30_TIME_ON_zIIP`` at 116 and ``SMF30_TIME_zIIP_ON_CP`` at 128.

What lands (``cpu_source = 'smf30'``):

- ``cpu_s`` = (CPT + CPS + ICU + ISB + IIP + RCT + HPT + TIME_ON_zIIP) / 100: all CPU of the
  interval on general CPs plus the time on zIIPs (actual, not normalised). SMF30ASR, ENC, DET
  and TIME_zIIP_ON_CP are parts of CPT/CPS and are not added again;
- ``srb_s`` = (CPS + ISB) / 100; ``ziip_s`` = TIME_ON_zIIP / 100;
- ``interval_start`` = SMF30IDT + SMF30IST, ``interval_end`` = the record's write time (header
  ``SMF30DTE`` + ``SMF30TME``), both local time as z/OS keeps them;
- ``extra`` (JSON): subtype, work type, step, program, step number, TCB and zIIP-on-CP
  seconds (the record's byte offset and number are the row's lineage columns).

Example:
    row = decode_30(rec.data)  # {"jobname": "CSQ1CHIN", "cpu_s": 41.53, ...}
"""

from __future__ import annotations

from datetime import timedelta

from mqcap.parsers.base import extra_json
from mqcap.parsers.smf.fields import parse_layout
from mqcap.parsers.smf.zos_common import (
    ZosRecordError,
    header_time,
    local_datetime,
    text,
    triplet,
    u16,
    u32,
)

INTERVAL_SUBTYPES = (2, 3)
ID = parse_layout("jbn:8s pgm:8s stm:8s uif:8s jnm:8s stn:H")
CAS = parse_layout(
    "pty:B r1:B tfl:H cpt:I cps:I icu:I isb:I jvu:I ivu:I jva:I iva:I ist:I idt:4s iip:I "
    "rct:I hpt:I csc:I dmi:I dmo:I asr:I enc:I det:I cep:I tf2:B t32:B t33:B r2:B "
    "ifa:I eifa:I difa:I ifacp:I eifacp:I difacp:I cepi:I ziip:I eziip:I dziip:I ziipcp:I"
)
CAS_MIN = CAS["hpt"].offset + 4
# Hundredths of a second that make up cpu_s (zIIP time is added when the section has it).
CPU_FIELDS = ("cpt", "cps", "icu", "isb", "iip", "rct", "hpt")


def decode_30(data: bytes) -> dict:
    """The ``ascpu_interval`` values of one SMF 30 subtype 2/3 record (lineage added by caller)."""
    ioff, _iln, ion = triplet(data, 32, "identification", ID["stn"].offset + 2)
    coff, cln, con = triplet(data, 56, "processor accounting", CAS_MIN)
    if ion != 1 or con != 1:
        raise ZosRecordError(
            f"SMF 30 interval record with {ion} identification and {con} processor accounting "
            "section(s) (1 of each expected)"
        )
    hundredths = {name: u32(data, coff + CAS[name].offset) for name in CPU_FIELDS}
    ziip = ziip_cp = None
    if cln >= CAS["ziipcp"].offset + 4:
        ziip = u32(data, coff + CAS["ziip"].offset)
        ziip_cp = u32(data, coff + CAS["ziipcp"].offset)
        if ziip_cp > hundredths["cpt"]:
            raise ZosRecordError(
                f"impossible SMF30_TIME_zIIP_ON_CP {ziip_cp} above SMF30CPT "
                f"{hundredths['cpt']} at record offset {coff + CAS['ziipcp'].offset + 4}"
            )
    ist = u32(data, coff + CAS["ist"].offset)
    if ist >= 8_640_000:
        raise ZosRecordError(
            f"SMF30IST {ist} at record offset {coff + CAS['ist'].offset + 4} is not a time of day"
        )
    idt = coff + CAS["idt"].offset
    start = local_datetime(data[idt : idt + 4], timedelta(milliseconds=ist * 10))
    end = header_time(data)
    if start is None or end is None:
        raise ZosRecordError(f"bad SMF30IDT interval start date at record offset {idt + 4}")
    if end < start:
        raise ZosRecordError(
            f"interval start {start} (SMF30IDT/IST) is after the record time {end}"
        )
    jobname = text(data, ioff + ID["jbn"].offset, 8)
    if jobname is None:
        raise ZosRecordError(f"blank SMF30JBN job name at record offset {ioff + 4}")
    extra = {
        "smf_subtype": u16(data, 18),
        "work_type": text(data, 14, 4),
        "step": text(data, ioff + ID["stm"].offset, 8),
        "program": text(data, ioff + ID["pgm"].offset, 8),
        "step_number": u16(data, ioff + ID["stn"].offset),
        "tcb_s": hundredths["cpt"] / 100,
        "ziip_on_cp_s": None if ziip_cp is None else ziip_cp / 100,
    }
    return {
        "interval_start": start,
        "interval_end": end,
        "system_id": text(data, 10, 4),
        "jobname": jobname,
        "cpu_s": (sum(hundredths.values()) + (ziip or 0)) / 100,
        "srb_s": (hundredths["cps"] + hundredths["isb"]) / 100,
        "ziip_s": None if ziip is None else ziip / 100,
        "cpu_source": "smf30",
        "extra": extra_json(extra),
    }
