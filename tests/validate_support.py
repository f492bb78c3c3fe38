"""A warehouse that feeds every landing table the fixtures can and every mart, for the GX tests:
the bundled sample (channel status, NETSTAT, SMF, RMF, crypto, channel starts; generated crypto
runs if it has none), the real SMF / RMF / CHSTATUS / NETSTAT / driver /
address-space CPU / amqsrua / amqsmon fixtures, and an address-space CPU export agreeing with RMF for one run (so
``fct_cpu_source_agreement`` has rows)."""

from __future__ import annotations

import shutil
from pathlib import Path

import duckdb

from mqcap.generate import generate, load_scenario
from mqcap.generate.history import Shift, write_history_study
from mqcap.settings import Settings

PROJECT = Path(__file__).resolve().parent.parent
FIXTURES = PROJECT / "tests" / "fixtures"
FIXTURE_DIRS = ("smf", "rmf", "chstatus", "netstat", "driver", "ascpu", "amqsrua", "amqsmon")
# Files the parsers set aside on purpose (not a format mqcap reads): they land nothing.
NOT_LANDED = {"Port.md_L19-25_MONPORT_INFO_per_connection.txt", "CPU_PP_V2R2_CB88_2015-04-21.txt"}


def _scenarios(raw: Path) -> None:
    """Crypto (RMF CRYPTO HARDWARE ACTIVITY) runs, for a sample without any."""
    key = load_scenario(PROJECT / "data" / "scenarios" / "keysize.yaml")
    key["study"] = "crypto"  # apart from any study the sample holds
    key["groups"] = [g for g in key["groups"] if g.get("crypto") and g.get("smf")]
    key["groups"][0]["configurations"] = ["rkey0-2048", "rkey1m-4096"]
    generate(key, raw)


# Fixture files put in run folders (so failures on their rows name a run), with the run interval
# around their records; the others land outside any run, as files dropped at the raw root do.
FIXTURE_RUNS = {
    "smf-chl": (["smf/TESTCHL.dat"], "2016-02-27T18:00:00", "2016-02-27T18:20:00", "MPX1", "QML1"),
    "smf-mqpc": (["smf/TEST115.dat", "smf/TEST116.dat"], "2015-11-23T10:00:00",
                 "2015-11-23T22:00:00", "H019", "MQPC"),
    "driver": (["driver/cph_agg_output.txt", "driver/cph_requester_output.txt",
                "driver/cphtestp_results.csv", "driver/cphtestp_docker_log.txt"],
               "2018-10-16T15:00:00", "2018-10-16T16:00:00", "SYSA", "QM1"),
    "distributed": (["amqsrua/constructed_cpu_statq_statmqi_log.txt",
                     "amqsmon/constructed_statistics_qmgr_queue_channel.txt"],
                    "2024-05-06T09:00:00", "2024-05-06T09:06:00", "DST1", "QML1"),
    # TCPIPMonitor print-outs reach a run only from its folder (fct_tcpip_throughput, which the
    # report's TCP/IP throughput section reads).
    "tcpipmon": (["tcpipmon/Port.md_L9-14_MONPORT_SYSPRINT.csvish.txt"], "2024-05-06T17:09:00",
                 "2024-05-06T17:11:00", "SYSA", "QML1"),
}  # fmt: skip


def _fixtures(raw: Path) -> None:
    in_runs = set()
    for run, (files, start, end, system, qmgr) in FIXTURE_RUNS.items():
        d = raw / "fixtures" / run
        d.mkdir(parents=True)
        (d / "run.yaml").write_text(
            f"study: fixtures\nrun: {run}\nconfiguration: fixture\nsystem: {system}\n"
            f"qmgr: {qmgr}\ninterval: {{start: {start}, end: {end}}}\n"
            "workload: {type: other}\n"
        )
        for f in files:
            shutil.copy(FIXTURES / f, d / Path(f).name)
            in_runs.add(f)
    for sub in FIXTURE_DIRS:
        dest = raw / "loose" / sub
        dest.mkdir(parents=True)
        for f in sorted((FIXTURES / sub).iterdir()):
            if f.name != "README.md" and f"{sub}/{f.name}" not in in_runs:
                shutil.copy(f, dest / f.name)


def _agreeing_cpu_csv(settings: Settings) -> str:
    """An address-space CPU export of one sample run with RMF's CPU seconds for the same
    intervals; returns the run (study/run_id)."""
    con = duckdb.connect(str(settings.warehouse), read_only=True)
    try:
        study, run = con.execute(
            """select l.study, l.run_id from meta.ingest_ledger l
               where l.kind = 'rmf_workload' and l.study = 'attls' and l.run_id like '%-2k'
               order by l.run_id limit 1"""
        ).fetchone()
        rows = con.execute(
            """select w.interval_start, w.interval_start + to_microseconds(
                          cast(w.interval_s * 1000000 as bigint)),
                      m.system_id, w.class_name, w.cpu_s + w.srb_s
               from landing.rmf_workload w
               join meta.ingest_ledger l using (file_id)
               join landing.run_manifest m on m.study = l.study and m.run_id = l.run_id
               where l.study = ? and l.run_id = ?
               order by 1, 4""",
            [study, run],
        ).fetchall()
    finally:
        con.close()
    lines = ["interval_start,interval_end,system,jobname,cpu_seconds"]
    lines += [
        f"{a:%Y-%m-%d %H:%M:%S},{b:%Y-%m-%d %H:%M:%S},{s},{j},{c:.6f}" for a, b, s, j, c in rows
    ]
    (settings.raw_root / study / run / "ascpu.csv").write_text("\n".join(lines) + "\n")
    return f"{study}/{run}"


def build_warehouse(settings: Settings) -> str:
    """Land and build everything above into ``settings.warehouse``; returns the run whose CPU
    comes from two sources that agree.

    Example:
        build_warehouse(settings)  # then validate(settings, "all")
    """
    from mqcap import warehouse
    from mqcap.build import run_dbt
    from mqcap.ingest import ingest
    from mqcap.ledger import schema

    raw = settings.raw_root
    for study in sorted((PROJECT / "data" / "sample").iterdir()):
        if study.is_dir():
            shutil.copytree(study, raw / study.name)
    if not any(raw.rglob("rmf_crypto.txt")):
        _scenarios(raw)
    # Replicates over builds with a planted step, so fct_change_points has rows to check.
    write_history_study(
        raw, builds=[f"b{i:02d}" for i in range(1, 7)], shifts=[Shift("round_trip_us", 4.0, "b04")]
    )
    _fixtures(raw)
    first = ingest(settings)
    unexpected = [o for o in first.set_aside if Path(o.path).name not in NOT_LANDED]
    # The generator writes identical results.csv for identical figures: a duplicate, not an error.
    assert all("duplicate of" in (o.reason or "") for o in unexpected), unexpected
    agree_run = _agreeing_cpu_csv(settings)
    ingest(settings)
    with warehouse.connect(settings.warehouse) as con:
        schema.ensure(con)
    # Models and seeds only: dbt's own tests run in the dbt test modules, and take as long again.
    proc = run_dbt(settings, ["build", "--exclude-resource-type", "test", "unit_test"])
    assert proc.returncode == 0, proc.stdout[-3000:]
    return agree_run
