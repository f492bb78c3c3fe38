"""Writer of z/OS ``NETSTAT ALL (CLIENT chin)`` poll series in the Communications Server V2R2+
layout (docs/formats.md section 4, ``parsers/netstat.py``): per poll a ``date -u`` line, the report
header with the time, one block per channel-initiator connection (the sender channel's outbound
socket and the receiver channel's inbound one), then ``READY``.

Scenario behaviour (``netstat`` of a group): ``poll_s``; ``cwnd`` ``{start, max, growth}`` (the
congestion window grows by ``growth`` per poll up to ``max``); ``reset_every_polls: [a, b]``
(congestion: the window halves into the slow-start threshold and restarts from it every a..b
polls, with a retransmission); ``srtt_ms`` and ``variance_ms`` ``[mean, jitter]``;
``send_queued_bytes: [low, high]`` with ``send_queued_zero_pct``; ``ttls`` (TTLSPolicy Yes).

Example:
    write_netstat(plan, folder)  # -> folder / "netstat.txt"
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from mqcap.generate._fmt import date_line, run_rng
from mqcap.generate.scenario import RunPlan

MSS = 8940


class _Conn:
    def __init__(self, spec: dict, rng, local: str, foreign: str, client_id: str) -> None:
        cw = spec.get("cwnd") or {}
        self.rng = rng
        self.spec = spec
        self.local, self.foreign, self.client_id = local, foreign, client_id
        self.cwnd = float(cw.get("start", 65535))
        self.max = float(cw.get("max", 2_097_152))
        self.growth = float(cw.get("growth", 1.2))
        self.ssthresh = int(cw.get("ssthresh", 65535))
        self.resets = spec.get("reset_every_polls")
        self.next_reset = self._draw()
        self.rexmt = 0
        self.bytes_in = 0
        self.bytes_out = 0

    def _draw(self) -> int | None:
        return self.rng.randint(*self.resets) if self.resets else None

    def step(self) -> None:
        if self.next_reset is not None:
            self.next_reset -= 1
            if self.next_reset <= 0:
                self.ssthresh = max(2 * MSS, int(self.cwnd) // 2)
                self.cwnd = float(self.ssthresh)
                self.rexmt += self.rng.randint(1, 4)
                self.next_reset = self._draw()
                return
        self.cwnd = min(self.max, self.cwnd * self.growth * (1 + self.rng.uniform(0, 0.02)))

    def _around(self, key: str, default: tuple[float, float]) -> float:
        mean, jitter = self.spec.get(key, default)
        return max(0.001, mean + self.rng.uniform(-jitter, jitter))

    def block(self, clock: str) -> list[str]:
        srtt = self._around("srtt_ms", (1.0, 0.2))
        var = self._around("variance_ms", (0.5, 0.1))
        lo, hi = self.spec.get("send_queued_bytes", [0, 0])
        zero = self.rng.uniform(0, 100) < self.spec.get("send_queued_zero_pct", 50)
        queued = 0 if zero else self.rng.randint(lo, hi)
        ttls = bool(self.spec.get("ttls", False))
        lines = [
            f" Client Name: {self.spec['client']:<24}Client Id: {self.client_id}",
            f"   Local Socket: {self.local}",
            f"   Foreign Socket: {self.foreign}",
            f"     BytesIn:             {self.bytes_in:020d}",
            f"     BytesOut:            {self.bytes_out:020d}",
            f"     Last Touched:        {clock}             State:               Establsh",
            f"     CongestionWindow:    {int(self.cwnd):010d}"
            f"           SlowStartThreshold:  {self.ssthresh:010d}",
            "     SndWnd:              0002097152           MaxSndWnd:           0002097152",
            f"     MaximumSegmentSize:  {MSS:010d}           DSField:             00",
            "     Round-trip information:",
            f"       Smooth trip time: {srtt:<24.3f}SmoothTripVariance:  {var:.3f}",
            f"     ReXmt:               {self.rexmt:010d}           ReXmtCount:          "
            f"{min(self.rexmt, 1):010d}",
            "     DupACKs:             0000000000           RcvWnd:              0002097152",
            f"     TTLSPolicy:          {'Yes' if ttls else 'No'}",
        ]
        if ttls:
            lines.append("       TTLSRule:          MQ_CHANNELS")
        lines += [
            "     ReceiveBufferSize:   0002097152           SendBufferSize:      0002097152",
            "     ReceiveDataQueued:   0000000000",
            f"     SendDataQueued:      {queued:010d}",
        ]
        return lines


def write_netstat(plan: RunPlan, folder: Path) -> list[Path]:
    """``netstat.txt``: the poll series of one run.

    Example:
        write_netstat(plan, Path("out/attls/attls-chacha-1m"))
    """
    spec = plan.netstat
    if not spec:
        return []
    spec = {"client": f"{plan.qmgr}CHIN", **spec}
    rng = run_rng(plan, "netstat")
    poll_s = max(1, round(float(spec.get("poll_s", 10)) / plan.density))
    polls = max(2, int(plan.interval_s // poll_s))
    conns = [
        _Conn(spec, rng, "::ffff:10.1.1.1..1046", "::ffff:10.1.1.2..1414", "000000B2"),
        _Conn(spec, rng, "::ffff:10.1.1.1..1414", "::ffff:10.1.1.2..1051", "000000B5"),
    ]
    per_poll = float(plan.rate_per_s) * (int(plan.workload.get("message_bytes", 1024)) + 400)
    stack = spec.get("stack", "TCPIP")
    path = folder / "netstat.txt"
    with open(path, "w", encoding="utf-8") as fh:
        for n in range(polls):
            t = plan.start + timedelta(seconds=(n + 1) * poll_s)
            clock = f"{t:%H:%M:%S}"
            lines = [
                date_line(t),
                f" MVS TCP/IP NETSTAT CS V2R4       TCPIP Name: {stack:<16}{clock}",
            ]
            for k, c in enumerate(conns):
                # The sender's socket carries the requests out, the receiver's the replies in.
                big, small = int(per_poll * poll_s), int(per_poll * poll_s * 0.01) + 84
                c.bytes_out += big if k == 0 else small
                c.bytes_in += small if k == 0 else big
                c.step()
                lines += c.block(clock)
            lines.append("READY")
            fh.write("\n".join(lines) + "\n")
    return [path]
