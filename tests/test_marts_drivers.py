"""Every driver format reaches fct_driver_results: mq-cph summaries through the run folder,
cphtestp rows matched to the study's run with the same message size and threads."""

from __future__ import annotations

import shutil

import duckdb

from mqcap.build import build
from mqcap.ingest import ingest

from helpers import FIXTURES


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


def _series_csv(rate_8: float) -> str:
    return (
        "# Tue Oct 16 15:47:52 UTC 2018\n"
        "# Persistence, Msg Size, Threads, Rate (RT/s), Client CPU, IO Read (MB/s), "
        "IO Write (MB/s), Net Recv (Gb/s), Net Send (Gb/s), QM CPU\n"
        "1,2048,1,1150.56,1.35,0.00,0.00,0.06,0.05,2.70\n"
        f"1,2048,8,{rate_8:.2f},6.12,0.00,31.84,0.37,0.36,14.95\n"
    )


def _run(study: str, run: str, configuration: str, series: str | None) -> str:
    return (
        f"study: {study}\nrun: {run}\nconfiguration: {configuration}\nplatform: distributed\n"
        "host: perf1\n"
        + (f"series: {series}\n" if series else "")
        + "workload: {type: request_reply, message_bytes: 2048, threads: 8,"
        " persistence: persistent}\n"
    )


def test_cphtestp_series_attach_by_the_manifest_and_never_to_two_runs(settings):
    """Two configurations measured at the same size and threads: each run names its series
    file and takes its row from it; a series no manifest names that matches both runs of
    another study attaches to neither (and says why) instead of failing the build."""
    named = settings.raw_root / "named"
    for run, cfg, series in (("off-8", "Feature off", "off.csv"), ("on-8", "Feature on", "on.csv")):
        (named / run).mkdir(parents=True)
        (named / run / "run.yaml").write_text(_run("named", run, cfg, series))
    (named / "off.csv").write_text(_series_csv(7321.40))
    (named / "on.csv").write_text(_series_csv(6100.25))
    amb = settings.raw_root / "amb"
    for run, cfg in (("off-8", "Feature off"), ("on-8", "Feature on")):
        (amb / run).mkdir(parents=True)
        (amb / run / "run.yaml").write_text(_run("amb", run, cfg, None))
    (amb / "series.csv").write_text(_series_csv(5000.00))
    report = ingest(settings)
    assert report.set_aside == []
    build(settings)  # no unique-test failure on fct_driver_results
    con = duckdb.connect(str(settings.warehouse), read_only=True)
    try:
        rows = con.execute(
            """select run_key, rate_per_s, source_file from marts.fct_driver_results
               order by run_key"""
        ).fetchall()
        reasons = con.execute(
            """select distinct source_file, unattached_reason
               from intermediate.int_driver_series_matches where not is_attached"""
        ).fetchall()
        platforms = con.execute(
            "select distinct platform, host, interval_start_local from marts.dim_run"
        ).fetchall()
    finally:
        con.close()
    assert rows == [
        ("named/off-8", 7321.40, "named/off.csv"),
        ("named/on-8", 6100.25, "named/on.csv"),
    ]
    assert reasons == [
        (
            "amb/series.csv",
            "the row matches 2 runs (same size, threads, persistence): "
            "name the series in each run.yaml",
        )
    ]
    assert platforms == [("distributed", "perf1", None)]
