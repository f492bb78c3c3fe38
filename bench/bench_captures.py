"""Text-capture parsing throughput: DISPLAY CHSTATUS captures and NETSTAT ALL poll series, each
on a >= 200 MB file, against a plain Python line scan of the same file.

The CHSTATUS capture is what a polling script leaves: per snapshot a ``date`` line, the runmqsc
banner and command echo, eight AMQ8417I blocks taken from the real samples (the monitoring SDR
block of the splunk capture, the TLS RCVR block with its long SSLCERTI/SSLPEER values, the
SVRCONN block), counters and NETTIME/XQTIME changing per snapshot, and the runmqsc trailer.
The NETSTAT series is one V2R4 report per poll (header line with the time), eight connection
blocks of the documented layout (two pairs per line, Round-trip and TTLS nesting).
Parse time includes building the typed polars frames the ingest layer lands (the DuckDB
insert, shared by every parser, is excluded). The reference reads the file line by line as
text (``for line in open(...)``): the floor any line-oriented parser pays. The notes also give
the CPU time of the parse (all threads): on a shared, loaded machine wall time includes waiting.
Goal (issue 18): >= 150 MB/s, at most 6x the line scan's time. A parser with a compiled path
(``native/``: ``parse`` goes to ``parse_native`` for plain text) is also timed in Python
(``MQCAP_NATIVE=0``, the same file, the same run): the compiled path against the Python one.

Peak memory: every text parser (CHSTATUS, NETSTAT, RMF CRYPTO and WORKLOAD) and the SMF decoder
parse a file of S MB and of 4S MB in a fresh process each; the peak RSS of the larger over that
of the smaller shows whether memory grows with the file (goal: < 1 GB for a 10 GB study, so
flat). Two hostile line lengths too: a file of lines just under the 16 MB line cap, and a file
of 4S MB without any line end (refused with an error naming line 1), against the same S MB
capture. The 10 GB run itself is replaced by this documented smaller one (S = 100 MB).
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from pathlib import Path

from bench.common import line_scan, measure, parse_rows, result
from mqcap.parsers import chstatus, netstat
from mqcap.parsers.base import ParseContext

ROOT = Path(__file__).resolve().parents[1]
FIX = ROOT / "tests" / "fixtures"
TARGET_MB = 200
MEMORY_MB = 100


def _blocks() -> list[str]:
    """Three AMQ8417I block templates from the real samples, counters as {placeholders}."""
    splunk = (FIX / "chstatus" / "runmqsc_sdr_monitoring_splunk-ta.txt").read_text()
    sdr = splunk.split("\n\n")[0].split("\n", 1)[1]
    tls = (FIX / "chstatus" / "runmqsc_dis_chs_all_tls_mq800.txt").read_text()
    rcvr = tls.split("AMQ8417: Display Channel Status details.\n")[2].split("\n\n")[0]
    svr = (FIX / "chstatus" / "runmqsc_dis_chstatus_all_mq942_svrconn.txt").read_text()
    svrconn = svr.split("AMQ8417I: Display Channel Status details.\n")[1].split("One MQSC")[0]
    out = []
    for text in (sdr, rcvr, svrconn):
        text = text.replace("{", "{{").replace("}", "}}")
        for key in ("MSGS", "BYTSSENT", "BYTSRCVD", "BATCHES"):
            text = re.sub(rf"(?<![A-Z]){key}\([^)]*\)", f"{key}({{{key.lower()}}})", text, count=1)
        text = text.replace("NETTIME(25,0)", "NETTIME({nettime},{nettime_l})")
        text = text.replace("XQTIME(3151,1099)", "XQTIME({xqtime},1099)")
        out.append("AMQ8417I: Display Channel Status details.\n" + text.rstrip("\n") + "\n")
    return out


def make_chstatus(work: Path, target_mb: float) -> tuple[Path, int]:
    blocks = _blocks()
    path = work / "chstatus_bench.txt"
    start = datetime(2026, 11, 21, 5, 0, 0)
    written, n = 0, 0
    with open(path, "w") as fh:
        while written < target_mb * 1e6:
            t = start + timedelta(seconds=10 * n)
            parts = [
                t.strftime("%a %b %d %H:%M:%S UTC %Y") + "\n",
                "5724-H72 (C) Copyright IBM Corp. 1994, 2025.\n",
                "Starting MQSC for queue manager QM1.\n\n\n",
                "     1 : DISPLAY CHSTATUS(*) ALL\n",
            ]
            for b in range(8):
                k = n * 8 + b
                parts.append(
                    blocks[b % 3].format(
                        msgs=k * 3,
                        bytssent=k * 1024,
                        bytsrcvd=k * 96,
                        batches=k,
                        nettime=k % 400,
                        nettime_l=k % 97,
                        xqtime=k % 5000,
                    )
                )
            parts.append(
                "One MQSC command read.\nNo commands have a syntax error.\n"
                "All valid MQSC commands were processed.\n"
            )
            text = "".join(parts)
            fh.write(text)
            written += len(text)
            n += 1
    return path, n


CONN = """\
Client Name: CSQ1CHIN                 Client Id: {cid:08X}
  Local Socket: ::ffff:10.1.1.1..1414
  Foreign Socket: ::ffff:10.1.1.2..{port}
    BytesIn:             {bin:020d}
    BytesOut:            {bout:020d}
    SegmentsIn:          {sin:019d}
    SegmentsOut:         {sout:019d}
    StartDate:           11/21/2026           StartTime:           05:00:00
    Last Touched:        {clock}             State:               Establsh
    RcvNxt:              3117316227           SndNxt:              2419498614
    ClientRcvNxt:        3117316227           ClientSndNxt:        2419498614
    InitRcvSeqNum:       3117315101           InitSndSeqNum:       2419497467
    CongestionWindow:    {cwnd:010d}           SlowStartThreshold:  0000065535
    IncomingWindowNum:   3117447299           OutgoingWindowNum:   2419629686
    SndWl1:              3117316227           SndWl2:              2419498614
    SndWnd:              0000131072           MaxSndWnd:           0000262144
    SndUna:              2419498614           rtt_seq:             2419498575
    MaximumSegmentSize:  0000008940           DSField:             00
    Round-trip information:
      Smooth trip time: {srtt:.3f}                 SmoothTripVariance:  1.500
    ReXmt:               {rexmt:010d}           ReXmtCount:          0000000000
    DupACKs:             0000000000           RcvWnd:              0000131072
    SockOpt:             8800                 TcpTimer:            00
    TcpSig:              05                   TcpSel:              40
    TcpDet:              E0                   TcpPol:              00
    QOSPolicy:           No
    TTLSPolicy:          Yes
      TTLSRule:          MQ_CHANNELS
        TTLSGrpAction:   grp_mq
        TTLSEnvAction:   env_mq_server
        TTLSConnAction:  conn_mq
    RoutingPolicy:       No
    ReceiveBufferSize:   0000065536           SendBufferSize:      0000065536
    ReceiveDataQueued:   0000000000
      OldestDate:        00/00/00             OldestTime:          00:00:00
    SendDataQueued:      {sq:010d}
      OldestDate:        11/21/2026           OldestTime:          {clock}
    SendStalled:         No
    Ancillary Input Queue: N/A
"""


def make_netstat(work: Path, target_mb: float) -> tuple[Path, int]:
    path = work / "netstat_bench.txt"
    start = datetime(2026, 11, 21, 5, 0, 0)
    written, n = 0, 0
    with open(path, "w") as fh:
        fh.write(start.strftime("%a %b %d %H:%M:%S UTC %Y") + "\n")
        while written < target_mb * 1e6:
            clock = (start + timedelta(seconds=5 * n)).strftime("%H:%M:%S")
            parts = [f"MVS TCP/IP NETSTAT CS V2R4       TCPIP Name: TCPIP           {clock}\n"]
            for c in range(8):
                k = n * 8 + c
                parts.append(
                    CONN.format(
                        cid=0xB0 + c,
                        port=1046 + c,
                        bin=k * 1000,
                        bout=k * 2000,
                        sin=k * 9,
                        sout=k * 8,
                        clock=clock,
                        cwnd=65536 + (k * 4096) % 196608,
                        srtt=1.5 + (k % 7) * 0.25,
                        rexmt=k % 5,
                        sq=(k * 17) % 8192,
                    )
                )
            parts.append("READY\n")
            text = "".join(parts)
            fh.write(text)
            written += len(text)
            n += 1
    return path, n


PARSERS = {"chstatus": chstatus.PARSER, "netstat": netstat.PARSER}


def run(work: Path, quick: bool) -> list[dict]:
    target = 2 if quick else TARGET_MB
    out = []
    for kind, make, unit in (
        ("chstatus", make_chstatus, "snapshots"),
        ("netstat", make_netstat, "polls"),
    ):
        path, count = make(work, target)
        size_mb = path.stat().st_size / 1e6
        t_parse, mem_parse, (rows, cpu) = measure(lambda p=path, k=kind: parse_rows(PARSERS[k], p))
        t_scan, mem_scan, lines = measure(lambda p=path: line_scan(p))
        out.append(
            result(
                f"{kind} parse",
                "throughput",
                size_mb / t_parse,
                "MB/s",
                "plain Python line scan (for line in open(...))",
                size_mb / t_scan,
                peak_rss_mb=mem_parse,
                notes=(
                    f"{size_mb:.0f} MB, {count:,} {unit}, {lines:,} lines -> {rows:,} rows "
                    f"in {t_parse:.1f}s, {cpu:.1f}s CPU = {size_mb / cpu:.0f} MB/s of CPU "
                    f"(scan {t_scan:.1f}s, {mem_scan:.0f} MB RSS); time {t_parse / t_scan:.1f}x "
                    "the scan; goal >= 150 MB/s, <= 6x the scan"
                ),
            )
        )
        module = chstatus if kind == "chstatus" else netstat
        if hasattr(module, "parse_native"):
            t_py, mem_py, (_, cpu_py) = measure(
                lambda p=path, k=kind: _in_python(lambda: parse_rows(PARSERS[k], p))
            )
            out.append(
                result(
                    f"{kind} parse",
                    "compiled parser, seconds",
                    t_parse,
                    "s",
                    "the Python parser on the same file (MQCAP_NATIVE=0)",
                    t_py,
                    peak_rss_mb=mem_parse,
                    notes=(
                        f"{t_py / t_parse:.1f}x faster (CPU {cpu:.1f}s against {cpu_py:.1f}s); "
                        f"Python peak RSS {mem_py:.0f} MB; the same rows (tests/test_native.py)"
                    ),
                )
            )
        path.unlink()
    out.extend(memory_rows(work, 1 if quick else MEMORY_MB))
    return out


def _in_python(fn):
    """``fn()`` with the compiled parsers switched off (in the forked child only)."""
    import os

    os.environ["MQCAP_NATIVE"] = "0"
    return fn()


def parse_any(kind: str, path: Path) -> tuple[int, str]:
    """(rows, error message or "") of one parser on one file: peak memory is what counts."""
    from mqcap.errors import InputError
    from mqcap.parsers import rmf_crypto, rmf_workload
    from mqcap.parsers.smf import binary

    parser = {
        "chstatus": chstatus.PARSER,
        "netstat": netstat.PARSER,
        "rmf_crypto": rmf_crypto.PARSER,
        "rmf_workload": rmf_workload.PARSER,
        "smf_mq": binary.PARSER,
    }[kind]
    ctx = ParseContext(path=path, source_file=path.name, size=path.stat().st_size)
    rows = 0
    try:
        for table, batch in parser.parse(ctx):
            rows += parser.table(table).frame(batch).height
    except InputError as exc:
        return rows, str(exc)
    return rows, ""


def _make(kind: str, work: Path, mb: float) -> Path:
    from bench import bench_reports, bench_smf

    if kind == "chstatus":
        return make_chstatus(work, mb)[0]
    if kind == "netstat":
        return make_netstat(work, mb)[0]
    if kind == "smf_mq":
        one_mb = sum((bench_smf.SAMPLES / f"{d}.dat").stat().st_size for d in bench_smf.DUMPS)
        return bench_smf.make_dump(work, max(1, int(mb * 1e6 / one_mb)))
    samples = bench_reports.CRYPTO if kind == "rmf_crypto" else bench_reports.WORKLOAD
    return bench_reports.make_report(work, f"{kind}.txt", samples, mb)[0]


def _hostile(work: Path, mb: float, line_mb: float | None) -> Path:
    """``mb`` MB of text: lines of ``line_mb`` MB, or no line end at all (None)."""
    path = work / f"lines_{line_mb}.txt"
    piece = b"lorem ipsum " * 100_000  # 1.2 MB of text that is no capture
    with open(path, "wb") as fh:
        written, line = 0, 0
        while written < mb * 1e6:
            fh.write(piece)
            written += len(piece)
            line += len(piece)
            if line_mb is not None and line + len(piece) > line_mb * 1e6:
                fh.write(b"\n")
                line = 0
    return path


def memory_rows(
    work: Path,
    mb: float,
    kinds: tuple[str, ...] = ("chstatus", "netstat", "rmf_crypto", "rmf_workload", "smf_mq"),
) -> list[dict]:
    out = []
    for kind in kinds:
        peaks = []
        for size in (mb, 4 * mb):
            sub = work / f"mem_{kind}_{size}"
            sub.mkdir()
            path = _make(kind, sub, size)
            real_mb = path.stat().st_size / 1e6
            _, peak, (rows, err) = measure(lambda p=path, k=kind: parse_any(k, p))
            assert not err, err
            peaks.append((real_mb, peak, rows))
            path.unlink()
        (small_mb, small_peak, _), (big_mb, big_peak, big_rows) = peaks
        out.append(
            result(
                f"{kind} parse",
                f"peak RSS, {big_mb:,.0f} MB file",
                big_peak,
                "MB",
                f"peak RSS, {small_mb:,.0f} MB file of the same kind",
                small_peak,
                peak_rss_mb=big_peak,
                notes=f"{big_rows:,} rows; ratio ~1 = memory flat in file size; goal < 1,024 MB",
                higher_is_better=False,
            )
        )
    base = work / "mem_base"
    base.mkdir()
    ref = make_chstatus(base, mb)[0]
    _, ref_peak, _ = measure(lambda: parse_any("chstatus", ref))
    for what, line_mb in (("lines of 15 MB (just under the cap)", 15.0), ("no line end", None)):
        path = _hostile(work, 4 * mb, line_mb)
        size_mb = path.stat().st_size / 1e6
        _, peak, (rows, err) = measure(lambda p=path: parse_any("chstatus", p))
        out.append(
            result(
                "chstatus parse",
                f"peak RSS, {size_mb:,.0f} MB of {what}",
                peak,
                "MB",
                f"peak RSS, {ref.stat().st_size / 1e6:,.0f} MB capture",
                ref_peak,
                peak_rss_mb=peak,
                notes=(f"refused: {err[:90]}" if err else f"{rows:,} rows") + "; goal < 1,024 MB",
                higher_is_better=False,
            )
        )
        path.unlink()
    return out


if __name__ == "__main__":
    import sys
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        for row in run(Path(tmp), quick="--quick" in sys.argv):
            print(row)
