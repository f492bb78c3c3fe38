"""Distributed MQ sources (amqsrua, amqsmon) reach fct_run_measures: queue manager and host
CPU, log latency and bytes, MQPUT/MQGET rates per queue, channel rates; attributed to runs by
their folder, else by time (and queue manager for amqsmon, which prints it)."""

from __future__ import annotations

import shutil

import duckdb
import pytest

from mqcap.build import build
from mqcap.ingest import ingest

from helpers import FIXTURES

pytestmark = pytest.mark.xdist_group("dbt")

RUA = FIXTURES / "amqsrua" / "constructed_cpu_statq_statmqi_log.txt"
REAL_RUA = FIXTURES / "amqsrua" / "colinpaice_disk_log_2019-03-03.txt"
MON = FIXTURES / "amqsmon" / "constructed_statistics_qmgr_queue_channel.txt"


def _manifest(run: str, start: str, end: str, qmgr: str) -> str:
    return (
        f"study: dist\nrun: {run}\nconfiguration: distributed\nqmgr: {qmgr}\n"
        f"interval: {{start: {start}, end: {end}}}\nworkload: {{type: other}}\n"
    )


@pytest.fixture(scope="module")
def measures(tmp_path_factory) -> dict[tuple[str, str, str], tuple[float, str]]:
    from mqcap.settings import Settings

    from helpers import PROJECT

    root = tmp_path_factory.mktemp("distributed")
    raw = root / "raw"
    settings = Settings.load(
        warehouse=root / "wh" / "warehouse.duckdb", raw=raw, project_root=PROJECT
    )
    runs = {
        # r1: both captures dropped in its folder.
        "r1": ("2024-05-06T09:00:00", "2024-05-06T09:06:00", "QML1"),
        # r2: the real DISK/Log capture dropped outside any run, attributed by time.
        "r2": ("2019-03-03T18:15:00", "2019-03-03T18:25:00", "QMA"),
        # r3 / r4: same interval, different queue managers: amqsmon names QML1.
        "r3": ("2024-05-07T09:00:00", "2024-05-07T09:10:00", "QML1"),
        "r4": ("2024-05-07T09:00:00", "2024-05-07T09:10:00", "QML9"),
    }
    for run, (start, end, qmgr) in runs.items():
        (raw / "dist" / run).mkdir(parents=True)
        (raw / "dist" / run / "run.yaml").write_text(_manifest(run, start, end, qmgr))
    shutil.copy(RUA, raw / "dist" / "r1" / "amqsrua.txt")
    shutil.copy(MON, raw / "dist" / "r1" / "amqsmon.txt")
    (raw / "loose").mkdir()
    shutil.copy(REAL_RUA, raw / "loose" / "amqsrua_log.txt")
    (raw / "loose" / "amqsmon_next_day.txt").write_text(
        MON.read_text().replace("'2024-05-06'", "'2024-05-07'")
    )
    report = ingest(settings)
    assert report.set_aside == []
    build(settings)
    con = duckdb.connect(str(settings.warehouse), read_only=True)
    try:
        rows = con.execute(
            """select m.run_key, m.measure, m.subject, m.measure_value, d.measure_source
               from marts.fct_run_measures m
               join intermediate.int_distributed_measures d using (run_measure_key)"""
        ).fetchall()
    finally:
        con.close()
    return {(r, m, s): (v, src) for r, m, s, v, src in rows}


def test_queue_manager_and_host_cpu_are_user_plus_system(measures):
    assert measures[("dist/r1", "qmgr_cpu_pct", "QMGR")] == (pytest.approx(7.40 + 2.10), "amqsrua")
    assert measures[("dist/r1", "host_cpu_pct", "HOST")] == (
        pytest.approx(12.34 + 3.21),
        "amqsrua",
    )


def test_log_latency_and_bytes_per_second_over_the_interval(measures):
    assert measures[("dist/r1", "log_write_latency_us", "RUN")][0] == 1210
    assert measures[("dist/r1", "log_physical_bytes_per_s", "RUN")][0] == pytest.approx(
        1230000128 / 303.25
    )
    assert measures[("dist/r1", "log_logical_bytes_per_s", "RUN")][0] == pytest.approx(
        204800000 / 303.25
    )


def test_real_capture_dropped_outside_runs_is_attributed_by_time(measures):
    # Colin Paice's publication (put 18:20:10.13 UTC, 10 s) falls in r2 only.
    assert measures[("dist/r2", "log_write_latency_us", "RUN")][0] == 994
    assert measures[("dist/r2", "log_physical_bytes_per_s", "RUN")][0] == pytest.approx(3371827.2)
    assert measures[("dist/r2", "log_logical_bytes_per_s", "RUN")][0] == pytest.approx(541895.4)
    assert not [k for k in measures if k[0] == "dist/r2" and "cpu" in k[1]]


def test_rates_per_queue_prefer_amqsrua_and_fall_back_to_amqsmon(measures):
    # APP.REQUEST: both sources; amqsrua's STATQ 10-second figures are kept.
    assert measures[("dist/r1", "mqput_rate_per_s", "APP.REQUEST")] == (
        pytest.approx(50020 / 10.002),
        "amqsrua",
    )
    assert measures[("dist/r1", "mqget_rate_per_s", "APP.REQUEST")] == (
        pytest.approx(50010 / 10.002),
        "amqsrua",
    )
    # APP.REPLY: amqsmon only, (PutCount + Put1Count) over the 300-second record.
    assert measures[("dist/r1", "mqput_rate_per_s", "APP.REPLY")] == (2501.0, "amqsmon")
    assert measures[("dist/r1", "mqget_rate_per_s", "APP.REPLY")] == (2500.5, "amqsmon")
    # Queue manager wide: amqsrua STATMQI puts, amqsmon MQIStatistics gets.
    assert measures[("dist/r1", "mqput_rate_per_s", "QMGR")] == (
        pytest.approx(50031 / 10.002),
        "amqsrua",
    )
    assert measures[("dist/r1", "mqget_rate_per_s", "QMGR")] == (5001.0, "amqsmon")


def test_channel_statistics_give_message_rate_and_network_time(measures):
    assert measures[("dist/r1", "channel_msgs_per_s", "QML1.TO.QML2")] == (2501.0, "amqsmon")
    assert measures[("dist/r1", "channel_net_time_avg_us", "QML1.TO.QML2")] == (
        242.0,
        "amqsmon",
    )


def test_amqsmon_dropped_outside_runs_goes_to_the_run_of_its_queue_manager(measures):
    r3 = {k[1:] for k in measures if k[0] == "dist/r3"}
    assert ("mqput_rate_per_s", "APP.REPLY") in r3 and ("channel_msgs_per_s", "QML1.TO.QML2") in r3
    assert not [k for k in measures if k[0] == "dist/r4"]
