"""Writer of ``DISPLAY CHSTATUS(*) ALL`` captures in the ``runmqsc`` form (``parsers/chstatus.py``):
what a script running ``date -u; echo "DIS CHSTATUS(*) ALL" | runmqsc QMGR`` every N seconds
leaves behind. Each snapshot shows the sender channel to the partner queue manager (NETTIME,
XQTIME, XBATCHSZ short/long-term indicators in microseconds / messages) and the receiver
channel back (XBATCHSZ), with counters growing through the run.

Scenario behaviour (``chstatus`` of a group, ``default`` plus ``rules``): ``every_s`` (snapshot
period), ``nettime_us``, ``xqtime_us``, ``xbatchsz``: ``[low, high]`` ranges the short-term
indicator is drawn from; the long-term indicator is its running mean; ``xqtime_growth`` (default
1) multiplies XQTIME linearly up to that factor at the last snapshot (a growing backlog).

Example:
    write_chstatus(plan, folder)  # -> folder / "chstatus.txt"
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from mqcap.generate._fmt import date_line, run_rng
from mqcap.generate.scenario import RunPlan

BANNER = (
    "5724-H72 (C) Copyright IBM Corp. 1994, 2024.",
    "Starting MQSC for queue manager {qmgr}.",
    "",
    "",
    "     1 : DIS CHSTATUS(*) ALL",
)
TRAILER = (
    "One MQSC command read.",
    "No commands have a syntax error.",
    "All valid MQSC commands were processed.",
)
HEADER_BYTES = 400  # MQ transmission and message headers carried with each message


def _layout(attrs: list[str]) -> list[str]:
    """Two attributes a line in 40-character columns, as runmqsc prints them; a long one gets
    its own line."""
    out, i = [], 0
    while i < len(attrs):
        a = attrs[i]
        if len(a) >= 40 or i + 1 == len(attrs) or len(attrs[i + 1]) >= 40:
            out.append(f"   {a}")
            i += 1
        else:
            out.append(f"   {a:<40}{attrs[i + 1]}")
            i += 2
    return out


def _span(rng, rng_pair) -> int:
    lo, hi = rng_pair
    return round(rng.uniform(lo, hi))


def write_chstatus(plan: RunPlan, folder: Path) -> list[Path]:
    """``chstatus.txt``: timestamped snapshots through the run.

    Long because: a capture written top to bottom, as runmqsc prints it: each snapshot's two
    channels with their attributes in DISPLAY CHSTATUS order.

    Example:
        write_chstatus(plan, Path("out/attls/ssl-chacha-1m"))
    """
    spec = plan.chstatus
    if not spec:
        return []
    rng = run_rng(plan, "chstatus")
    every = max(1.0, float(spec.get("every_s", 60)) / plan.density)
    count = max(2, int(plan.interval_s / every))
    sdr = f"{plan.qmgr}.TO.{plan.remote_qmgr}"
    rcvr = f"{plan.remote_qmgr}.TO.{plan.qmgr}"
    tls = plan.sslciph or " "
    secprot = spec.get("secprot", "TLSV13" if plan.sslciph else "NONE")
    msg_bytes = int(plan.workload.get("message_bytes", 1024))
    started = plan.start - timedelta(minutes=5)
    means = {"NETTIME": 0.0, "XQTIME": 0.0, "XBATCHSZ": 0.0}
    path = folder / "chstatus.txt"
    with open(path, "w", encoding="utf-8") as fh:
        for n in range(count):
            t = plan.start + timedelta(seconds=round((n + 0.5) * plan.interval_s / count))
            done = plan.transactions * (t - plan.start).total_seconds() / plan.interval_s
            msgs = int(done)
            short = {
                "NETTIME": _span(rng, spec.get("nettime_us", [300, 900])),
                # xqtime_growth: a backlog building on the transmission queue makes XQTIME
                # grow steadily, to growth x its range by the last snapshot.
                "XQTIME": round(
                    _span(rng, spec.get("xqtime_us", [50, 400]))
                    * (1 + (float(spec.get("xqtime_growth", 1)) - 1) * n / max(1, count - 1))
                ),
                "XBATCHSZ": _span(rng, spec.get("xbatchsz", [1, 2])),
            }
            for k, v in short.items():
                means[k] = v if n == 0 else means[k] + (v - means[k]) / 4
            batchsz = max(1, short["XBATCHSZ"])
            batches = msgs // batchsz
            sent = msgs * (msg_bytes + HEADER_BYTES)
            common = [
                f"BATCHES({batches})",
                "BATCHSZ(50)",
                f"BUFSRCVD({batches + 2})",
                f"BUFSSENT({msgs + batches + 2})",
            ]
            lines = [date_line(t), *(b.format(qmgr=plan.qmgr) for b in BANNER)]
            sdr_attrs = [
                f"CHANNEL({sdr})",
                "CHLTYPE(SDR)",
                *common,
                f"BYTSRCVD({batches * 84 + 252})",
                f"BYTSSENT({sent})",
                f"CHSTADA({started:%Y-%m-%d})",
                f"CHSTATI({started:%H.%M.%S})",
                "COMPHDR(NONE,NONE)",
                "COMPMSG(NONE,NONE)",
                "COMPRATE(0,0)",
                "COMPTIME(0,0)",
                "CONNAME(10.1.1.2(1414))",
                "CURMSGS(0)",
                "CURRENT",
                f"CURSEQNO({msgs})",
                "EXITTIME(0,0)",
                "HBINT(300)",
                "INDOUBT(NO)",
                "LOCLADDR(10.1.1.1(1046))",
                "LONGRTS(999999999)",
                f"LSTMSGDA({t:%Y-%m-%d})",
                f"LSTMSGTI({t:%H.%M.%S})",
                f"LSTSEQNO({msgs})",
                "MCASTAT(RUNNING)",
                "MONCHL(HIGH)",
                f"MSGS({msgs})",
                f"NETTIME({short['NETTIME']},{round(means['NETTIME'])})",
                "NPMSPEED(FAST)",
                f"RQMNAME({plan.remote_qmgr})",
                f"SECPROT({secprot})",
                "SHORTRTS(10)",
                f"SSLCIPH({tls})",
                "SSLRKEYS(0)",
                "STATUS(RUNNING)",
                "STOPREQ(NO)",
                "SUBSTATE(MQGET)",
                f"XBATCHSZ({short['XBATCHSZ']},{round(means['XBATCHSZ'])})",
                f"XMITQ({plan.remote_qmgr})",
                f"XQTIME({short['XQTIME']},{round(means['XQTIME'])})",
            ]
            rcvr_attrs = [
                f"CHANNEL({rcvr})",
                "CHLTYPE(RCVR)",
                *common,
                f"BYTSRCVD({sent})",
                f"BYTSSENT({batches * 84 + 252})",
                f"CHSTADA({started:%Y-%m-%d})",
                f"CHSTATI({started:%H.%M.%S})",
                "CONNAME(10.1.1.2)",
                "CURRENT",
                f"MSGS({msgs})",
                "MONCHL(HIGH)",
                f"RQMNAME({plan.remote_qmgr})",
                f"SECPROT({secprot})",
                f"SSLCIPH({tls})",
                "STATUS(RUNNING)",
                "SUBSTATE(RECEIVE)",
                f"XBATCHSZ({short['XBATCHSZ']},{round(means['XBATCHSZ'])})",
            ]
            for attrs in (sdr_attrs, rcvr_attrs):
                lines.append("AMQ8417I: Display Channel Status details.")
                lines += _layout(attrs)
            lines += TRAILER
            fh.write("\n".join(lines) + "\n")
    return [path]
