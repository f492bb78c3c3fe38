"""mq-cph console output and cphtestp results CSV parsers."""

from __future__ import annotations

from datetime import datetime

import pytest

from mqcap.errors import InputError
from mqcap.parsers import ascpu_csv, cphtestp, driver_csv, mqcph

from helpers import FIXTURES, parse_file

DRIVER = FIXTURES / "driver"
CPH = DRIVER / "cph_requester_output.txt"
AGG = DRIVER / "cph_agg_output.txt"
CSV = DRIVER / "cphtestp_results.csv"
LOG = DRIVER / "cphtestp_docker_log.txt"


def test_cph_summaries_close_runs_and_own_their_statistics_lines():
    parsed = parse_file(mqcph.PARSER, CPH)
    runs = parsed["driver_cph"]
    assert runs.height == 2
    first, second = runs.to_dicts()
    assert (first["total_iterations"], first["total_s"], first["avg_rate_per_s"]) == (
        69034, 60.0, 1150.56,
    )  # fmt: skip
    assert (first["run_seq"], first["stats_lines"], first["threads"], first["source_line"]) == (
        1, 6, 1, 9,
    )  # fmt: skip
    assert first["proc_id"] is None and first["summary_kind"] == "process"
    assert (second["total_iterations"], second["avg_rate_per_s"], second["proc_id"]) == (
        528600, 8802.66, "1",
    )  # fmt: skip
    assert (second["threads"], second["stats_lines"]) == (8, 2)
    stats = parsed["driver_cph_interval"]
    assert stats.height == 8
    assert stats.filter(stats["run_seq"] == 1)["rate_per_s"].to_list() == [
        1148.30, 1152.10, 1151.28, 1150.56, 1149.97, 1151.15,
    ]  # fmt: skip
    per_thread = stats.filter(stats["run_seq"] == 2).row(0, named=True)
    assert per_thread["thread_iterations"] == "1101 1098 1112 1095 1090 1104 1099 1101"
    assert (per_thread["rate_per_s"], per_thread["threads"], per_thread["source_line"]) == (
        8800.0, 8, 13,
    )  # fmt: skip
    # controlThread START/STOP (x2), Timer (x2), "Starting test with 8 requesters"
    assert parsed.ctx.unknown_lines["mq-cph output line"] == 7


def test_cph_aggregator_job_summary_and_pid_prefix():
    parsed = parse_file(mqcph.PARSER, AGG)
    runs = parsed["driver_cph"]
    assert runs["summary_kind"].to_list() == ["process", "process", "job"]
    assert runs["total_iterations"].to_list() == [34520, 34401, 68921]
    job = runs.row(2, named=True)
    assert (job["avg_rate_per_s"], job["avg_rate_per_process_per_s"], job["total_s"]) == (
        2296.22, 1148.11, 30.02,
    )  # fmt: skip
    stats = parsed["driver_cph_interval"]
    assert stats["processes"].to_list() == [2, 2]
    assert stats["rate_per_s"].to_list() == [2301.12, 2298.40]


def test_cph_malformed_summary_is_an_error(tmp_path):
    bad = tmp_path / "cph.txt"
    bad.write_text("rate=10.00,threads=1\ntotalIterations=600,totalSeconds=sixty,avgRate=10\n")
    with pytest.raises(InputError) as err:
        parse_file(mqcph.PARSER, bad)
    assert err.value.line == 2 and "summary" in err.value.reason


def test_cph_file_without_cph_lines_is_an_error(tmp_path):
    other = tmp_path / "other.txt"
    other.write_text("controlThread START\ncontrolThread STOP\n")
    with pytest.raises(InputError, match="no mq-cph"):
        parse_file(mqcph.PARSER, other)


def test_cphtestp_csv_by_header_names():
    parsed = parse_file(cphtestp.PARSER, CSV)
    df = parsed["driver_cphtestp"]
    assert df.height == 6
    first = df.row(0, named=True)
    assert first["run_started"] == datetime(2018, 10, 16, 15, 47, 52)
    assert (first["persistence"], first["message_bytes"], first["threads"]) == ("1", 2048, 1)
    assert (first["rate_per_s"], first["client_cpu_pct"], first["qm_cpu_pct"]) == (
        1150.56, 1.35, 2.70,
    )  # fmt: skip
    assert (first["net_recv_gbit_per_s"], first["net_send_gbit_per_s"]) == (0.06, 0.05)
    assert first["source_line"] == 3
    last = df.row(5, named=True)
    assert (last["message_bytes"], last["io_read_mb_per_s"], last["qm_cpu_pct"]) == (
        204800,
        -1.0,
        -1.0,
    )  # fmt: skip  (-1 = no sample; NULL in staging)
    assert df["io_write_mb_per_s"].to_list()[1:3] == [31.84, 52.40]


def test_cphtestp_older_csv_in_a_docker_log():
    parsed = parse_file(cphtestp.PARSER, LOG)
    df = parsed["driver_cphtestp"]
    assert df["threads"].to_list() == [1, 8]
    assert df["persistence"].to_list() == [None, None]
    assert df["rate_per_s"].to_list() == [1150.56, 7321.40]
    assert df["source_line"].to_list() == [10, 11]
    assert parsed.ctx.unknown_lines["line outside the results CSV"] == 10


def test_cphtestp_row_with_wrong_field_count_is_an_error(tmp_path):
    bad = tmp_path / "r.csv"
    bad.write_text(CSV.read_text() + "1,2048,32,14000.5,12.1\n")
    with pytest.raises(InputError) as err:
        parse_file(cphtestp.PARSER, bad)
    assert err.value.line == 9 and "fields" in err.value.reason


def test_cphtestp_text_in_a_number_column_is_an_error(tmp_path):
    bad = tmp_path / "r.csv"
    bad.write_text(CSV.read_text().replace("1,2048,8,7321.40", "1,2048,8,fast"))
    with pytest.raises(InputError) as err:
        parse_file(cphtestp.PARSER, bad)
    assert err.value.line == 4


def test_sniffing_keeps_the_driver_formats_apart():
    sniffers = {
        p.kind: p for p in (mqcph.PARSER, cphtestp.PARSER, ascpu_csv.PARSER, driver_csv.PARSER)
    }
    expected = {
        CPH: "driver_cph",
        AGG: "driver_cph",
        CSV: "driver_cphtestp",
        LOG: "driver_cphtestp",
    }
    for path, kind in expected.items():
        head = path.read_bytes()
        claims = sorted(k for k, p in sniffers.items() if p.sniff(head, path.name))
        assert claims == [kind], path.name
    assert max(mqcph.PARSER.priority, cphtestp.PARSER.priority) < driver_csv.PARSER.priority


@pytest.mark.parametrize(
    ("parser", "path"),
    [
        (mqcph.PARSER, CPH),
        (cphtestp.PARSER, CSV),
        (ascpu_csv.PARSER, FIXTURES / "ascpu" / "ascpu_intervals.csv"),
    ],
    ids=["cph", "cphtestp", "ascpu"],
)
def test_binary_data_is_an_error_naming_the_line(tmp_path, parser, path):
    lines = path.read_bytes().split(b"\n")
    binary = tmp_path / path.name
    binary.write_bytes(b"\n".join([*lines[:3], b"\x00\x17\xfe\xff" * 8, *lines[3:]]))
    with pytest.raises(InputError) as err:
        parse_file(parser, binary)
    assert err.value.line == 4 and "binary" in err.value.reason


def test_streaming_results_without_round_trip_land_with_their_target(tmp_path):
    path = tmp_path / "results.csv"
    path.write_text(
        "study,run_id,rate_per_s,threads,message_bytes,transactions,target_rate_per_s\n"
        "streaming,tls13-1m,160,1,1048576,19200,250\n"
    )
    assert driver_csv.PARSER.sniff(path.read_bytes(), path.name)
    row = parse_file(driver_csv.PARSER, path)["driver_results"].row(0, named=True)
    assert (row["rate_per_s"], row["round_trip_us"], row["target_rate_per_s"]) == (
        160.0, None, 250.0,
    )  # fmt: skip


def test_a_row_with_neither_round_trip_nor_target_is_an_error(tmp_path):
    path = tmp_path / "results.csv"
    path.write_text("run_id,rate_per_s,round_trip_us,target_rate_per_s\nr1,160,,250\nr2,90,,\n")
    with pytest.raises(InputError) as err:
        parse_file(driver_csv.PARSER, path)
    assert err.value.line == 3 and "round_trip_us is empty" in err.value.reason
