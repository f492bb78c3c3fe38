"""The encoder writes SMF 115/231 and 116/10 records the decoder reads back unchanged."""

from __future__ import annotations

from datetime import datetime

import polars as pl

from mqcap.parsers.smf.binary import PARSER
from mqcap.parsers.smf.fields import F
from mqcap.parsers.smf.structures import QCST
from mqcap.parsers.smf.tables import HEAD_COLUMNS
from mqcap.synth.smf_mq import Ident, record_115_231, record_116_10, write_dump

from helpers import parse_file
from smf_support import decoded

TASKS = {"smf_qctdsp": "dispatchers", "smf_qctadp": "adapters", "smf_qctssl": "ssl"}


def fields_only(df: pl.DataFrame) -> pl.DataFrame:
    return df.drop([c for c in HEAD_COLUMNS if c in df.columns])


def ident_of(row: dict) -> Ident:
    return Ident(
        row["record_time_local"],
        row["system_id"],
        row["qmgr"],
        row["mq_version"],
        row["interval_start_utc"],
        row["interval_duration_us"] or 0,
        lengths={"QCCT": 48},  # the dump is MQ 8.0: QCCT without the 64-bit storage fields
    )


def test_real_channel_records_round_trip(tmp_path):
    """Every QCST and CHIN statistics row of the real dump, re-encoded, decodes the same."""
    real = decoded("TESTCHL")
    records = []
    qcst = real["smf_qcst"]
    for _, group in qcst.group_by("source_record", maintain_order=True):
        rows = fields_only(group).to_dicts()
        records.append(record_116_10(ident_of(group.row(0, named=True)), rows))
    for (rec,), qcct in real["smf_qcct"].group_by("source_record", maintain_order=True):
        kw = {}
        for table, arg in TASKS.items():
            part = real.tables.get(table, pl.DataFrame({"source_record": []}))
            kw[arg] = fields_only(part.filter(pl.col("source_record") == rec)).to_dicts()
        records.append(
            record_115_231(ident_of(qcct.row(0, named=True)), fields_only(qcct).to_dicts()[0], **kw)
        )
    again = parse_file(PARSER, write_dump(tmp_path / "re.dat", records))
    for table in ("smf_qcst", "smf_qcct", *TASKS):
        if table not in real.tables:
            continue
        a = real[table].sort("source_record", "source_item")
        b = again[table]
        assert fields_only(a).equals(fields_only(b)), table
        for col in ("record_time_local", "system_id", "qmgr", "mq_version", "interval_start_utc"):
            assert a[col].to_list() == b[col].to_list(), (table, col)


def test_long_channel_record_is_spanned_and_reassembled(tmp_path):
    channels = [
        {
            "chl_name": f"TO.QM{i:03d}",
            "type": "Sender",
            "msg_all_count": i,
            "bytes_sent": i * 1000,
            "net_time_avg": 250 + i,
            "collection_time_utc": datetime(2026, 1, 2, 3, 4, 5, 678901),
        }
        for i in range(150)
    ]
    ident = Ident(datetime(2026, 1, 2, 3, 5), "MVS1", "QM01", "940")
    rec = record_116_10(ident, channels)
    assert len(rec) > 32756
    path = write_dump(tmp_path / "span.dat", [rec])
    data = path.read_bytes()
    assert data[2] == 1  # first segment of a spanned record
    got = parse_file(PARSER, path)["smf_qcst"]
    assert got.height == 150
    assert got["chl_name"].to_list() == [c["chl_name"] for c in channels]
    assert got["bytes_sent"].to_list() == [c["bytes_sent"] for c in channels]
    assert got["collection_time_utc"][0] == datetime(2026, 1, 2, 3, 4, 5, 678901)
    assert got["type"][0] == "Sender" and got["mq_version"][0] == "940"
    # A 10.0 field without a published layout stays NULL, never 0.
    assert got["remote_product_id"].null_count() == 150


def test_nordw_encoding_decodes_like_rdw(tmp_path):
    ident = Ident(
        datetime(2026, 5, 6, 7, 8, 9),
        interval_start_utc=datetime(2026, 5, 6, 7, 7, 9),
        interval_us=60_000_000,
    )
    recs = [
        record_115_231(
            ident,
            {"job_name": "QM01CHIN", "current_chl_max": 200},
            dispatchers=[{"task_number": 7, "request_count": 3, "task_cpu_time_us": 12}],
            dns=[{"task_number": 9, "max_dns_request_duration_us": 40}],
        ),
        record_116_10(ident, [{"chl_name": "A"}]),
    ]
    a = parse_file(PARSER, write_dump(tmp_path / "a.dat", recs))
    b = parse_file(PARSER, write_dump(tmp_path / "b.dat", recs, rdw=False))
    for t in a.tables:
        assert (
            a[t]
            .drop("source_offset", "source_file")
            .equals(b[t].drop("source_offset", "source_file"))
        )
    assert a["smf_qctdns"]["max_dns_request_duration_us"].to_list() == [40]
    assert a["smf_qcct"]["interval_duration_s"].to_list() == [60]
    assert a["smf_qcct"]["storage_usage_64"].to_list() == [0]  # in the 10.0 layout: present


def test_every_qcst_field_has_a_layout_or_a_reason():
    no_layout = [f for f in QCST.fields if f.member is None]
    assert [f.heading for f in no_layout] == ["Remote_Product_ID", "Remote_Product_Version"]
    assert all(isinstance(f, F) and f.min_version == 1000 for f in no_layout)
