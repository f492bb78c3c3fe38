"""Writers of RMF Postprocessor text reports: WORKLOAD ACTIVITY (one REPORT CLASS per address
space) and CRYPTO HARDWARE ACTIVITY (one CCA coprocessor card), in the layouts the parsers in
``parsers/rmf_workload.py`` and ``parsers/rmf_crypto.py`` read from the real samples: ASA
carriage control in column 1, a page header per interval, the V2R3+ SERVICE / SERVICE TIME /
APPL % block, and the V2R3+ LPAR / CPC column groups of the crypto report.

A run's interval is cut into ``rmf_intervals`` report intervals; each class's CPU milliseconds
over the run (exact: cost x transactions / 1000) are shared out over them with a little noise
and sum back exactly. SRB, RCT, IIT and HST are printed as zero: the CPU figure carries the
whole cost of the address space, which is the column the marts read.

Example:
    write_workload(plan, folder)  # -> folder / "rmf_workload.txt"
"""

from __future__ import annotations

from datetime import datetime
from fractions import Fraction
from pathlib import Path

from mqcap.generate._fmt import mmss, run_rng, split_exact
from mqcap.generate.scenario import RunPlan

DESCRIPTIONS = {
    "MSTR": "MQ queue manager",
    "CHIN": "MQ channel initiator",
    "TCPIP": "TCP/IP stack",
    "AMSM": "Message security services",
    "APP": "Application jobs",
    "OTHER": "Other address space",
}


def _page_header(title: str, ident: str, plan: RunPlan, start: datetime, ms: int, page: int):
    zos = plan.rmf.get("zos", "V2R4")
    spaced = "   ".join(" ".join(word) for word in title.split())
    return [
        f"1{' ' * 20}{spaced}",
        f" {' ' * 100}PAGE {page:4d}",
        f"{' ' * 11}z/OS {zos:<17}{ident:<27}DATE {start:%m/%d/%Y}{' ' * 12}INTERVAL {mmss(ms)}",
        f"{' ' * 35}RPT VERSION {zos} RMF       TIME {start:%H.%M.%S}",
    ]


def _su(value: int) -> str:
    return f"{value // 1000}K" if value >= 10_000_000 else str(value)


def _class_section(plan: RunPlan, job: str, cpu_ms: int, ms: int) -> list[str]:
    cpu_s = cpu_ms / 1000
    appl = cpu_ms / ms * 100
    su = round(cpu_s * plan.rmf["su_per_s"])
    per_s = round(su / (ms / 1000))
    role = plan.jobs[job]
    return [
        f"0REPORT BY: POLICY={plan.rmf['policy']:<9}REPORT CLASS={job:<9}PERIOD=1",
        f"{' ' * 30}DESCRIPTION  ={DESCRIPTIONS[role]}",
        "0-TRANSACTIONS--  TRANS-TIME HHH.MM.SS.FFFFFF  TRANS-APPL%-----CP-IIPCP/AAPCP-IIP/AAP"
        "  ---ENCLAVES---",
        f" AVG        1.00  ACTUAL                    0  TOTAL      {appl:7.2f}       0.00    0.00"
        "  AVG ENC   0.00",
        " MPL        1.00  EXECUTION                 0  MOBILE        0.00       0.00    0.00"
        "  REM ENC   0.00",
        " ENDED         0  QUEUED                    0  CATEGORYA     0.00       0.00    0.00"
        "  MS ENC    0.00",
        " END/S      0.00  R/S AFFIN                 0  CATEGORYB     0.00       0.00    0.00",
        " #SWAPS        0  INELIGIBLE                0",
        " EXCTD         0  CONVERSION                0",
        "                  STD DEV                   0",
        "0----SERVICE----   SERVICE TIME  ---APPL %---  --PROMOTED--  --DASD I/O---"
        "  ----STORAGE----  -PAGE-IN RATES-",
        f" IOC           0   CPU {cpu_s:8.3f}  CP    {appl:6.2f}  BLK    0.000  SSCHRT    0.0"
        "  AVG     4118.93  SINGLE      0.0",
        f" CPU {_su(su):>11}   SRB    0.000  IIPCP   0.00  ENQ    0.000  RESP      0.0"
        "  TOTAL  191482.5  BLOCK       0.0",
        " MSO           0   RCT    0.000  IIP     0.00  CRM    0.000  CONN      0.0"
        "  SHARED     0.00  SHARED      0.0",
        " SRB           0   IIT    0.000  AAPCP   0.00  LCK    0.000  DISC      0.0"
        "                   HSP         0.0",
        f" TOT {_su(su):>11}   HST    0.000  AAP      N/A  SUP    0.000  Q+PEND    0.0",
        f" /SEC {per_s:>10}   IIP    0.000                              IOSQ      0.0",
        f" ABSRPTN {per_s:>7}   AAP      N/A",
        f" TRX SERV {per_s:>6}",
    ]


def write_workload(plan: RunPlan, folder: Path) -> list[Path]:
    """``rmf_workload.txt``: one page per RMF interval, one REPORT CLASS per job with CPU.

    Example:
        write_workload(plan, Path("out/attls/ssl-chacha-1m"))
    """
    # A class with no CPU in the scenario (a paper's part that is 0) gets no section: a zero
    # cost per transaction would read as a measurement.
    jobs = [job for job in plan.cpu_us if plan.cpu_ms(job) > 0]
    if not jobs:
        return []
    rng = run_rng(plan, "rmf_workload")
    intervals = plan.intervals()
    weights = [ms for _, ms in intervals]
    shares = {job: split_exact(plan.cpu_ms(job), weights, rng, 0.03) for job in jobs}
    sysplex = plan.rmf.get("sysplex", f"{plan.system}PLEX")
    path = folder / "rmf_workload.txt"
    with open(path, "w", encoding="latin-1") as fh:
        for i, (start, ms) in enumerate(intervals):
            lines = _page_header("WORKLOAD ACTIVITY", f"SYSPLEX {sysplex}", plan, start, ms, i + 1)
            lines[2] += "   MODE = GOAL"
            lines += [
                f"0{' ' * 42}POLICY ACTIVATION DATE/TIME {plan.start:%m/%d/%Y} 07.00.00",
                "0" + "-" * 108 + " REPORT CLASS(ES)",
            ]
            for job in jobs:
                lines += _class_section(plan, job, shares[job][i], ms)
            fh.write("\n".join(lines) + "\n")
    return [path]


def write_crypto(plan: RunPlan, folder: Path) -> list[Path]:
    """``rmf_crypto.txt``: the CCA coprocessor card's rate, execution time and UTIL% per interval
    (the same figures in the LPAR and CPC groups: only this LPAR uses the card).

    UTIL% is printed as the scenario gives it; execution time gets a little noise and the rate
    follows from both (rate x exec ms / 10 = UTIL%).

    Example:
        write_crypto(plan, Path("out/keysize/tls12-rsa-aes256-high-start"))
    """
    spec = plan.crypto
    if not spec:
        return []
    rng = run_rng(plan, "rmf_crypto")
    card, card_id = spec.get("card", "CEX8C"), int(spec.get("id", 0))
    util: Fraction = spec["util_pct"]
    path = folder / "rmf_crypto.txt"
    with open(path, "w", encoding="latin-1") as fh:
        for i, (start, ms) in enumerate(plan.intervals()):
            exec_ms = float(spec["exec_time_ms"]) * (1 + rng.uniform(-0.02, 0.02))
            rate = float(util) * 10 / exec_ms if exec_ms else 0.0
            cells = f"{rate:7.2f}  {exec_ms:7.3f}  {float(util):6.1f}"
            lines = _page_header(
                "CRYPTO HARDWARE ACTIVITY", f"SYSTEM ID {plan.system}", plan, start, ms, i + 1
            )
            lines[3] += "              CYCLE 1.000 SECONDS"
            lines += [
                "0-------- CRYPTOGRAPHIC CCA COPROCESSOR " + "-" * 50,
                "             -------- LPAR --------- --------- CPC ---------"
                " --- LPAR --- ---- CPC ---",
                " TYPE   ID   RATE  EXEC TIME  UTIL%   RATE  EXEC TIME  UTIL%"
                "  KEY-GEN RATE   KEY-GEN RATE",
                f" {card:<6}{card_id:2d} {cells} {cells}       0.00           0.00",
            ]
            fh.write("\n".join(lines) + "\n")
    return [path]
