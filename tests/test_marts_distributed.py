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

RUA = FIXTURES / "amqsrua" / "constructed_cpu_statq_statmqi_log.txt"
REAL_RUA = FIXTURES / "amqsrua" / "colinpaice_disk_log_2019-03-03.txt"
MON = FIXTURES / "amqsmon" / "constructed_statistics_qmgr_queue_channel.txt"


def _manifest(run: str, start: str, end: str, qmgr: str, clock: str = "", study="dist") -> str:
    return (
        f"study: {study}\nrun: {run}\nconfiguration: distributed\nqmgr: {qmgr}\n"
        f"interval: {{start: {start}, end: {end}}}\nworkload: {{type: other}}\n{clock}"
    )


# Runs whose local clock is not UTC. The real DISK/Log publication (put 18:20:10.13 UTC, a
# 10-second interval) is dropped outside any run once per day below, dated so that it falls in
# exactly one run of each pair only when the run's offset is applied; its decoy would take it
# (and the right run would get nothing) if the offset were ignored or taken as fixed.
CLOCK_RUNS = {
    # UTC+1 stated as utc_offset: 19:15-19:25 local is 18:15-18:25 UTC.
    "r5": ("2019-03-04T19:15:00", "2019-03-04T19:25:00", 'utc_offset: "+01:00"\n'),
    "r6": ("2019-03-04T18:15:00", "2019-03-04T18:25:00", 'utc_offset: "+01:00"\n'),
    # UTC-5 stated as an IANA zone (New York keeps standard time on 5 March 2019).
    "r7": ("2019-03-05T13:15:00", "2019-03-05T13:25:00", "timezone: America/New_York\n"),
    "r8": ("2019-03-05T18:15:00", "2019-03-05T18:25:00", 'utc_offset: "-05:00"\n'),
    # The offset written on the interval's timestamps states the clock too.
    "r9": ("2019-03-06T19:15:00+01:00", "2019-03-06T19:25:00+01:00", ""),
}
# Study distny: study.yaml says America/New_York for all its runs; on 6 July 2019 New York is
# on summer time (UTC-4): n1 holds the publication, n2 would with a fixed UTC-5.
NY_RUNS = {
    "n1": ("2019-07-06T14:15:00", "2019-07-06T14:25:00"),
    "n2": ("2019-07-06T13:15:00", "2019-07-06T13:25:00"),
}


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory):
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
        # r3 is at UTC-5: amqsmon prints the queue manager's local clock, so it still matches.
        clock = 'utc_offset: "-05:00"\n' if run == "r3" else ""
        (raw / "dist" / run / "run.yaml").write_text(_manifest(run, start, end, qmgr, clock))
    for run, (start, end, clock) in CLOCK_RUNS.items():
        (raw / "dist" / run).mkdir(parents=True)
        (raw / "dist" / run / "run.yaml").write_text(_manifest(run, start, end, "QMA", clock))
    (raw / "distny").mkdir()
    (raw / "distny" / "study.yaml").write_text("study: distny\ntimezone: America/New_York\n")
    for run, (start, end) in NY_RUNS.items():
        (raw / "distny" / run).mkdir(parents=True)
        (raw / "distny" / run / "run.yaml").write_text(
            _manifest(run, start, end, "QMA", study="distny")
        )
    shutil.copy(RUA, raw / "dist" / "r1" / "amqsrua.txt")
    shutil.copy(MON, raw / "dist" / "r1" / "amqsmon.txt")
    (raw / "loose").mkdir()
    shutil.copy(REAL_RUA, raw / "loose" / "amqsrua_log.txt")
    for day in ("20190304", "20190305", "20190306", "20190706"):
        (raw / "loose" / f"amqsrua_log_{day}.txt").write_text(
            REAL_RUA.read_text().replace("PutDate:20190303", f"PutDate:{day}")
        )
    (raw / "loose" / "amqsmon_next_day.txt").write_text(
        MON.read_text().replace("'2024-05-06'", "'2024-05-07'")
    )
    report = ingest(settings)
    assert report.set_aside == []
    build(settings)
    return settings.warehouse


@pytest.fixture(scope="module")
def measures(warehouse) -> dict[tuple[str, str, str], tuple[float, str]]:
    con = duckdb.connect(str(warehouse), read_only=True)
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


def test_amqsrua_utc_times_meet_runs_at_their_stated_offset(measures):
    holders = sorted(k[0] for k in measures if k[1] == "log_write_latency_us" and k[0] != "dist/r1")
    # One run per day holds the publication: the one whose local interval, moved to UTC by
    # its offset (run.yaml, interval timestamps or study.yaml), holds 18:20:05 UTC.
    assert holders == ["dist/r2", "dist/r5", "dist/r7", "dist/r9", "distny/n1"]
    for run in holders:
        assert measures[(run, "log_write_latency_us", "RUN")][0] == 994
        assert measures[(run, "log_physical_bytes_per_s", "RUN")][0] == pytest.approx(3371827.2)


def test_runs_carry_their_clock_in_dim_run(warehouse):
    con = duckdb.connect(str(warehouse), read_only=True)
    try:
        rows = con.execute(
            """select run_key, clock_source, utc_offset_minutes, interval_start_local,
                      interval_start_utc
               from marts.dim_run where run_key in
               ('dist/r2', 'dist/r3', 'dist/r5', 'dist/r7', 'dist/r9', 'distny/n1')
               order by run_key"""
        ).fetchall()
    finally:
        con.close()
    got = {r[0]: (r[1], r[2], str(r[3]), str(r[4])) for r in rows}
    assert got == {
        "dist/r2": ("none", 0, "2019-03-03 18:15:00", "2019-03-03 18:15:00"),
        "dist/r3": ("run", -300, "2024-05-07 09:00:00", "2024-05-07 14:00:00"),
        "dist/r5": ("run", 60, "2019-03-04 19:15:00", "2019-03-04 18:15:00"),
        "dist/r7": ("run", -300, "2019-03-05 13:15:00", "2019-03-05 18:15:00"),
        "dist/r9": ("run", 60, "2019-03-06 19:15:00", "2019-03-06 18:15:00"),
        "distny/n1": ("study", -240, "2019-07-06 14:15:00", "2019-07-06 18:15:00"),
    }


def test_series_give_each_interval_in_the_runs_local_clock(warehouse):
    con = duckdb.connect(str(warehouse), read_only=True)
    try:
        rows = con.execute(
            """select run_key, measure_source, measure, subject, strftime(interval_end_local,
                      '%Y-%m-%d %H:%M:%S.%g'), seconds_into_run, interval_s, measure_value,
                      source_file, source_line
               from marts.fct_distributed_series
               where (measure = 'log_write_latency_us'
                      and run_key in ('dist/r2', 'dist/r5', 'dist/r7', 'distny/n1'))
                  or (run_key = 'dist/r1' and subject in ('APP.REPLY', 'APP.REQUEST')
                      and measure = 'mqput_rate_per_s')
               order by run_key, subject, measure_source"""
        ).fetchall()
        count = con.execute("select count(*) from marts.fct_distributed_series").fetchone()[0]
    finally:
        con.close()
    assert rows == [
        # r1 has no offset: amqsrua's put time is shown as printed; amqsmon's 5-minute record.
        (
            "dist/r1",
            "amqsmon",
            "mqput_rate_per_s",
            "APP.REPLY",
            "2024-05-06 09:05:00.000",
            300.0,
            300.0,
            2501.0,
            "dist/r1/amqsmon.txt",
            26,
        ),
        (
            "dist/r1",
            "amqsmon",
            "mqput_rate_per_s",
            "APP.REQUEST",
            "2024-05-06 09:05:00.000",
            300.0,
            300.0,
            2501.0,
            "dist/r1/amqsmon.txt",
            26,
        ),
        (
            "dist/r1",
            "amqsrua",
            "mqput_rate_per_s",
            "APP.REQUEST",
            "2024-05-06 09:00:05.130",
            5.13,
            10.002,
            pytest.approx(50020 / 10.002),
            "dist/r1/amqsrua.txt",
            13,
        ),
        (
            "dist/r2",
            "amqsrua",
            "log_write_latency_us",
            "RUN",
            "2019-03-03 18:20:10.130",
            310.13,
            10.0,
            994.0,
            "loose/amqsrua_log.txt",
            1,
        ),
        # UTC+1: 18:20:10.13 UTC is 19:20:10.13 local, 310.13 s after the run's 19:15 start.
        (
            "dist/r5",
            "amqsrua",
            "log_write_latency_us",
            "RUN",
            "2019-03-04 19:20:10.130",
            310.13,
            10.0,
            994.0,
            "loose/amqsrua_log_20190304.txt",
            1,
        ),
        (
            "dist/r7",
            "amqsrua",
            "log_write_latency_us",
            "RUN",
            "2019-03-05 13:20:10.130",
            310.13,
            10.0,
            994.0,
            "loose/amqsrua_log_20190305.txt",
            1,
        ),
        # New York summer time (UTC-4) from the study file's timezone.
        (
            "distny/n1",
            "amqsrua",
            "log_write_latency_us",
            "RUN",
            "2019-07-06 14:20:10.130",
            310.13,
            10.0,
            994.0,
            "loose/amqsrua_log_20190706.txt",
            1,
        ),
    ]
    # amqsrua in r1: host CPU, qmgr CPU, APP.REQUEST puts and gets, QMGR puts, and the 5-minute
    # DISK/Log publication's latency, physical and logical bytes (8); the real DISK/Log capture
    # gives 3 in each of r2, r5, r7, r9, n1 (15); amqsmon gives QMGR puts and gets, two queues'
    # puts and gets, the channel's messages and network time (8) in r1 and r3 (16).
    assert count == 8 + 15 + 16
