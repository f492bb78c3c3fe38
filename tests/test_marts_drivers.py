"""Every driver format reaches fct_driver_results: mq-cph summaries through the run folder,
cphtestp rows matched to the study's run with the same message size and threads."""

from __future__ import annotations

import shutil

import duckdb
import pytest

from mqcap.build import build
from mqcap.ingest import ingest

from helpers import FIXTURES

pytestmark = pytest.mark.xdist_group("dbt")


def _manifest(run: str, size: int, threads: int) -> str:
    return (
        f"study: cph\nrun: {run}\nconfiguration: persistent\n"
        "interval: {start: 2018-10-16T15:00:00, end: 2018-10-16T15:01:00}\n"
        f"workload: {{type: request_reply, message_bytes: {size}, threads: {threads},"
        " persistence: persistent}\n"
    )


def test_cph_and_cphtestp_results_land_in_the_driver_mart(settings):
    study = settings.raw_root / "cph"
    for run, size, threads in (("r1", 2048, 1), ("p8", 2048, 8), ("p1-20k", 20480, 1)):
        (study / run).mkdir(parents=True)
        (study / run / "run.yaml").write_text(_manifest(run, size, threads))
    # One mq-cph run (the fixture's first summary) in run r1's folder.
    lines = (FIXTURES / "driver" / "cph_requester_output.txt").read_text().splitlines()
    (study / "r1" / "output").write_text("\n".join(lines[:9]) + "\n")
    # A cphtestp series for the whole study, at the study level.
    shutil.copy(FIXTURES / "driver" / "cphtestp_results.csv", study / "results.csv")
    report = ingest(settings)
    assert report.set_aside == []
    build(settings)
    con = duckdb.connect(str(settings.warehouse), read_only=True)
    try:
        rows = con.execute(
            """select run_id, driver_format, rate_per_s, threads, round(round_trip_us, 3),
                      transactions, transactions_source
               from marts.fct_driver_results order by run_id"""
        ).fetchall()
    finally:
        con.close()
    assert rows == [
        ("p1-20k", "cphtestp", 903.11, 1, round(1e6 / 903.11, 3), 54187, "driver rate x interval"),
        ("p8", "cphtestp", 7321.40, 8, round(8e6 / 7321.40, 3), 439284, "driver rate x interval"),
        ("r1", "mq_cph", 1150.56, 1, round(1e6 / 1150.56, 3), 69034, "driver count"),
    ]
