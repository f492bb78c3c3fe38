"""End to end: a run manifest plus an SMF 30 dump -> ``marts.fct_address_space_cost``."""

from __future__ import annotations

from datetime import datetime

import duckdb
import pytest

from mqcap.build import build
from mqcap.ingest import ingest
from mqcap.synth.smf_mq import write_dump
from mqcap.synth.smf_zos import record_30

# Runs dbt, like the other end-to-end tests.
pytestmark = pytest.mark.e2e

MANIFEST = """\
study: zos
run: smf30-2k
configuration: MQ + System SSL
interval:
  start: 2024-03-01T10:00:00
  end: 2024-03-01T10:15:00
system: MV41
qmgr: CSQ1
workload:
  type: request_reply
  message_bytes: 2048
  persistence: nonpersistent
  threads: 1
transactions: 300000
jobs:
  CSQ1MSTR: MSTR
  CSQ1CHIN: CHIN
  TCPIP: TCPIP
"""


def test_smf30_dump_gives_the_cost_per_transaction_by_address_space(settings):
    run = settings.raw_root / "zos" / "smf30-2k"
    run.mkdir(parents=True)
    (run / "run.yaml").write_text(MANIFEST)
    t = [datetime(2024, 3, 1, 9, 45), datetime(2024, 3, 1, 10, 0), datetime(2024, 3, 1, 10, 15)]
    write_dump(
        run / "smf.dat",
        [
            # The interval before the run: no overlap, must not count.
            record_30(t[1], "MV41", "CSQ1CHIN", t[0], tcb_s=99.0),
            record_30(t[2], "MV41", "CSQ1CHIN", t[1], tcb_s=38.40, srb_s=1.28, ziip_s=2.25),
            record_30(t[2], "MV41", "CSQ1MSTR", t[1], subtype=3, tcb_s=5.10, srb_s=0.90),
            record_30(t[2], "MV41", "BATCHJOB", t[1], tcb_s=7.0),  # not in the manifest
        ],
    )
    report = ingest(settings)
    assert report.set_aside == []
    assert sorted(o.kind for o in report.landed) == ["manifest", "smf_mq"]
    result = build(settings)
    assert result.ok
    con = duckdb.connect(str(settings.warehouse), read_only=True)
    try:
        rows = con.execute(
            """select role, cpu_source, address_spaces, cpu_s, interval_covered_pct,
                      transactions, cpu_us_per_txn
               from marts.fct_address_space_cost where run_id = 'smf30-2k' order by role"""
        ).fetchall()
    finally:
        con.close()
    assert [r[:3] for r in rows] == [("CHIN", "smf30", 1), ("MSTR", "smf30", 1)]
    chin, mstr = rows
    # CHIN: 38.40 TCB + 1.28 SRB + 2.25 zIIP = 41.93 s over 300,000 round trips.
    assert chin[3] == pytest.approx(41.93, rel=1e-12) and chin[4] == pytest.approx(100.0)
    assert chin[5] == 300000 and chin[6] == pytest.approx(41.93e6 / 300000, rel=1e-12)
    assert mstr[6] == pytest.approx(6.0e6 / 300000, rel=1e-12)  # 20 us per transaction
