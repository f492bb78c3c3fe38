"""amqsmon statistics output: every value lands with its record's queue manager, interval and
object (the fixture is built from IBM's documented layout: no real capture was retrievable)."""

from __future__ import annotations

from datetime import datetime

import polars as pl
import pytest

from mqcap.errors import InputError
from mqcap.parsers import amqsmon as mod
from mqcap.parsers import detect

from helpers import FIXTURES, parse_file

STATS = FIXTURES / "amqsmon" / "constructed_statistics_qmgr_queue_channel.txt"


def _frame(path=STATS):
    parsed = parse_file(mod.PARSER, path)
    return parsed, parsed["amqsmon_value"]


def _get(df, **where):
    for k, v in where.items():
        df = df.filter(pl.col(k) == v) if v is not None else df.filter(pl.col(k).is_null())
    return df


def test_amqsmon_output_is_recognised_from_its_content():
    assert detect(STATS, "stats.txt").kind == "amqsmon"


def test_every_value_lands_once_lists_one_row_per_element():
    parsed, df = _frame()
    assert not parsed.ctx.unknown_lines
    # 3 records; lists give one row per element (PutCount [np, p] -> 2 rows, OpenCount 13):
    # MQI 6 header + 48 values; queues 7 header + 2 x 30; channel 7 header + 16.
    assert df.height == 144
    assert df.group_by("monitoring_type").len().sort("monitoring_type").rows() == [
        ("ChannelStatistics", 23),
        ("MQIStatistics", 54),
        ("QueueStatistics", 67),
    ]
    keys = df.select("source_line", pl.col("item").fill_null(-1))
    assert keys.unique().height == df.height


def test_queue_statistics_carry_queue_interval_and_persistent_split():
    _, df = _frame()
    q = _get(df, monitoring_type="QueueStatistics", object_name="APP.REQUEST")
    assert set(q["group_name"]) == {"QueueStatistics"} and set(q["group_index"]) == {0}
    puts = _get(q, name="PutCount").sort("item")
    assert puts.select("item", "value_number").rows() == [(0, 0.0), (1, 750300.0)]
    assert _get(q, name="QMaxDepth")["value_number"].to_list() == [17.0]
    assert _get(q, name="AverageQueueTime", item=1)["value_number"].to_list() == [412.0]
    assert _get(q, name="QueueType")["value_text"].to_list() == ["Local"]
    row = q.row(0, named=True)
    assert row["qmgr"] == "QML1"
    assert row["interval_start_local"] == datetime(2024, 5, 6, 9, 0, 0)
    assert row["interval_end_local"] == datetime(2024, 5, 6, 9, 5, 0)
    assert _get(df, object_name="APP.REPLY", name="QMaxDepth")["value_number"].to_list() == [9.0]


def test_mqi_and_channel_statistics():
    _, df = _frame()
    mqi = _get(df, monitoring_type="MQIStatistics")
    assert mqi["object_name"].null_count() == mqi.height
    assert _get(mqi, name="ConnHighwater")["value_number"].to_list() == [10.0]
    assert _get(mqi, name="OpenCount")["item"].to_list() == list(range(13))
    ch = _get(df, monitoring_type="ChannelStatistics", object_name="QML1.TO.QML2")
    got = {n: v for n, v in ch.select("name", "value_number").rows() if v is not None}
    assert got["MsgCount"] == 750300 and got["NetMinAverage"] == 242
    assert got["FullBatchCount"] == 14800 and got["AverageBatchSize"] == 42
    assert _get(ch, name="ConnName")["value_text"].to_list() == ["10.1.1.2(1414)"]


@pytest.mark.parametrize(
    ("text", "line", "what"),
    [
        ("no records here\n", 1, "MonitoringType"),
        ("MonitoringType: QueueStatistics\n  QueueName: 'A'\n", 2, "outside a statistics group"),
        ("MonitoringType: MQIStatistics\nPutCount: [0, 12\n", 2, "closing ']'"),
        ("MonitoringType: MQIStatistics\nPutCount: [0, x]\n", 2, "not a number"),
        ("MonitoringType: MQIStatistics\nQueueManager: 'QM1\n", 2, "closing quote"),
        (
            "MonitoringType: MQIStatistics\nIntervalStartDate: '2024-05-06'\n"
            "IntervalStartTime: '09.61.00'\n",
            3,
            "not a date",
        ),
        (
            "MonitoringType: MQIStatistics\nIntervalStartDate: '2024-05-06'\n"
            "IntervalStartTime: '09.10.00'\nIntervalEndDate: '2024-05-06'\n"
            "IntervalEndTime: '09.00.00'\n",
            5,
            "before it starts",
        ),
    ],
)
def test_bad_input_names_the_line(tmp_path, text, line, what):
    f = tmp_path / "mon.txt"
    f.write_text(text)
    with pytest.raises(InputError) as exc:
        parse_file(mod.PARSER, f)
    assert exc.value.line == line and what in str(exc.value)
