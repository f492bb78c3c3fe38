"""Parallel equals serial: ``--jobs 2`` (workers parse, one writer lands) gives exactly what
``--jobs 1`` gives, on a mixed drop with bad files, duplicates and dumps of spanned
(multi-segment) SMF records: every landing row with every column (lineage and file ids
included), every ledger row, the outcomes, set-aside reasons, duplicate-copy messages and the
progress lines. Then the same after a second drop (a file changed, one fixed, one deleted).

The batch transaction of small files is also checked on its own: one bad file in a batch is set
aside alone and the others land, whether the batch fails in the parser or in DuckDB.
"""

from __future__ import annotations

import gzip
import os
import shutil
import time
from dataclasses import astuple
from pathlib import Path

import duckdb
import pytest

from mqcap import ingest_pool
from mqcap.ingest import ingest, parsing
from mqcap.ingest.landing import Writer
from mqcap.progress import Progress

from helpers import PROJECT, tree_hashes

FIXTURES = PROJECT / "tests" / "fixtures"
# Columns that say when, not what: the only ones allowed to differ between two ingests.
CLOCK = {"seen_at", "landed_at", "deleted_at"}


class Recorder(Progress):
    """Every progress call but byte counts within a file (those depend on timing)."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def start(self, task, total=None, unit=""):
        self.lines.append(f"start {task} {total} {unit}")

    def advance(self, n=1, detail=""):
        self.lines.append(f"advance {n} {detail}")

    def log(self, message):
        self.lines.append(f"log {message}")


def _drop(raw: Path) -> None:
    """A mixed drop: ten runs, bad and unknown files, duplicates, SMF dumps in and out of run
    folders (the same dump twice: its records count once), gzip, CHSTATUS."""
    shutil.copytree(FIXTURES / "mini_study" / "attls", raw / "attls")
    run = raw / "attls" / "ssl-chacha-2k"
    (run / "bad.csv").write_text("rate_per_s,round_trip_us\n100,2000\n101,fast\n")
    (run / "good.csv").write_text("rate_per_s,round_trip_us\n99,2001\n")
    shutil.copy(run / "results.csv", run / "results-copy.csv")  # duplicate in its run folder
    (run / "blob.bin").write_bytes(bytes(range(256)) * 40)  # no known format
    smf = FIXTURES / "smf"
    shutil.copy(smf / "TESTCHL.dat", raw / "attls" / "ssl-chacha-16k" / "TESTCHL.dat")
    (raw / "day").mkdir()
    shutil.copy(smf / "TESTCHL.dat", raw / "day" / "TESTCHL.dat")  # its records count once
    shutil.copy(smf / "TEST115.dat", raw / "day" / "TEST115.dat")
    data = (smf / "TEST116.dat").read_bytes()
    (raw / "day" / "cut116.dat").write_bytes(data[: len(data) // 2 + 7])  # cut inside a record
    (raw / "day" / "TEST116.dat.gz").write_bytes(gzip.compress(data, mtime=0))
    for p in sorted((FIXTURES / "chstatus").glob("*.txt"))[:3]:
        shutil.copy(p, raw / "day" / p.name)
    # A run folder whose manifest is invalid: its files wait for it.
    waiting = raw / "attls" / "waiting"
    waiting.mkdir()
    (waiting / "run.yaml").write_text("study: attls\nrun: waiting\nworkload: 12\n")
    (waiting / "results.csv").write_text("rate_per_s,round_trip_us\n5,6\n")


def _second_drop(raw: Path) -> None:
    run = raw / "attls" / "ssl-chacha-2k"
    (run / "bad.csv").write_text("rate_per_s,round_trip_us\n100,2000\n101,2001\n")  # fixed
    (run / "good.csv").write_text("rate_per_s,round_trip_us\n98,2002\n97,2003\n")  # changed
    (raw / "day" / "TEST115.dat").unlink()  # deleted: its rows leave
    (raw / "day" / "more.csv").write_text("rate_per_s,round_trip_us\n1,x\n")  # bad


def _state(settings) -> dict:
    """Every landing row (all columns) and every ledger row but clock columns, sorted."""
    con = duckdb.connect(str(settings.warehouse), read_only=True)
    try:
        tables = [
            r[0]
            for r in con.execute(
                "select table_name from information_schema.tables where table_schema = 'landing'"
                " order by 1"
            ).fetchall()
        ]
        out = {}
        for t in [*(f'landing."{t}"' for t in tables), "meta.ingest_ledger"]:
            df = con.sql(f"select * from {t}").pl()
            df = df.select([c for c in df.columns if c not in CLOCK])
            out[t] = df.sort(df.columns, nulls_last=True) if df.height else df
        return out
    finally:
        con.close()


def count_parsed_here(monkeypatch) -> list[str]:
    """The files (and, as "part of <file>", the parts of split dumps) this process parses itself
    from now on: the writer's own work, not its workers' (or Spark tasks')."""
    done_here: list[str] = []
    real_prepare, real_part = parsing.prepare, ingest_pool.prepare_part

    def counting(path, rel, *args, **kwargs):
        done_here.append(rel)
        return real_prepare(path, rel, *args, **kwargs)

    def counting_part(path, rel, *args, **kwargs):
        done_here.append(f"part of {rel}")
        return real_part(path, rel, *args, **kwargs)

    monkeypatch.setattr(parsing, "prepare", counting)
    monkeypatch.setattr(ingest_pool, "prepare_part", counting_part)
    return done_here


def _ingest(settings, jobs: int) -> tuple[list, list[str]]:
    rec = Recorder()
    report = ingest(settings.with_(jobs=jobs), progress=rec)
    outcomes = [astuple(o) for o in report.outcomes]  # every field of every outcome
    return outcomes, rec.lines


def _twin(settings, tmp_path: Path, name: str):
    raw = tmp_path / name / "raw"
    return settings.with_(raw_root=raw, warehouse=tmp_path / name / "wh" / "warehouse.duckdb"), raw


def _same_times(src: Path, dst: Path) -> None:
    """The twin drop's files get the same mtimes (the ledger records them)."""
    for p in src.rglob("*"):
        if p.is_file():
            st = p.stat()
            os.utime(dst / p.relative_to(src), ns=(st.st_atime_ns, st.st_mtime_ns))


def _assert_same(a: dict, b: dict) -> None:
    assert a.keys() == b.keys()
    for table in a:
        assert a[table].equals(b[table], null_equal=True), (table, a[table], b[table])


@pytest.mark.parametrize("spool", [False, True], ids=["in-memory", "spooled"])
def test_parallel_ingest_equals_serial(settings, tmp_path, monkeypatch, spool):
    if spool:  # every parsed batch goes through the spool files, workers and writer alike
        monkeypatch.setattr(ingest_pool, "SPOOL_BYTES", 1)
    monkeypatch.setattr(ingest_pool, "POOL_MIN_SECONDS", 0)  # workers even for a small drop
    monkeypatch.setattr(ingest_pool, "GROUP_FILES", 3)  # files travel in groups of three
    serial, raw_s = _twin(settings, tmp_path, "serial")
    parallel, raw_p = _twin(settings, tmp_path, "parallel")
    for raw in (raw_s, raw_p):
        _drop(raw)
    _same_times(raw_s, raw_p)
    before = tree_hashes(raw_p)

    # Count what the writer prepares itself: with workers, nothing.
    done_here = count_parsed_here(monkeypatch)

    out_s, lines_s = _ingest(serial, 1)
    manifests = [r for r in done_here if r.endswith("run.yaml")]
    assert len(done_here) == 34 and len(manifests) == 11, done_here
    done_here.clear()
    out_p, lines_p = _ingest(parallel, 2)
    assert done_here == []  # every file came from the workers

    assert out_p == out_s
    assert lines_p == lines_s
    _assert_same(_state(parallel), _state(serial))
    assert tree_hashes(raw_p) == before
    assert not (parallel.outputs / "spool").exists()

    # What the drop holds, exactly (so equality is not of two empty warehouses).
    status = {}
    for o in out_s:
        status[o[1]] = status.get(o[1], 0) + 1
    assert status == {"loaded": 28, "set_aside": 6}, out_s
    reasons = {o[0]: (o[4], o[5]) for o in out_s if o[1] == "set_aside"}
    assert reasons["attls/ssl-chacha-2k/bad.csv"] == (
        "column round_trip_us: expected a number, got 'fast'",
        "line 3",
    )
    assert reasons["attls/ssl-chacha-2k/results.csv"][0] == (  # results-copy.csv sorts first
        "duplicate of attls/ssl-chacha-2k/results-copy.csv (same content already loaded)"
    )
    assert reasons["day/cut116.dat"] == (
        "record length 8324 runs past the end of the file (4160 byte(s) left)",
        "byte 454",
    )
    assert reasons["attls/waiting/results.csv"][0].startswith("run manifest attls/waiting/")
    assert lines_s[-1] == (
        "log day/TESTCHL.dat: 317 of 317 records already loaded from "
        "attls/ssl-chacha-16k/TESTCHL.dat (first at byte 18); they count once"
    )
    rows = _state(serial)
    assert rows["meta.ingest_ledger"].height == 34
    assert rows['landing."smf_qcst"'].height == 2 * 23  # two copies land; staging counts one

    # A second drop: a file fixed, one changed, one deleted, one bad.
    for raw in (raw_s, raw_p):
        _second_drop(raw)
    _same_times(raw_s, raw_p)
    out_s, lines_s = _ingest(serial, 1)
    out_p, lines_p = _ingest(parallel, 2)
    assert out_p == out_s
    assert lines_p == lines_s
    _assert_same(_state(parallel), _state(serial))
    by = {o[0]: o[1] for o in out_s}
    assert by["attls/ssl-chacha-2k/bad.csv"] == "loaded"
    assert by["attls/ssl-chacha-2k/good.csv"] == "replaced"
    assert by["day/TEST115.dat"] == "deleted"
    assert by["day/more.csv"] == "set_aside"


def test_a_bad_file_in_a_batch_is_set_aside_alone(settings, monkeypatch):
    """One transaction per batch of small files; a file DuckDB refuses rolls the batch back,
    which lands again file by file: the bad one set aside with DuckDB's reason, the rest in."""
    raw = settings.raw_root
    for i in range(6):
        d = raw / "s" / f"r{i}"
        d.mkdir(parents=True)
        (d / "results.csv").write_text(f"run_id,rate_per_s,round_trip_us\nr{i},{i}.5,{i + 1}\n")
    real = Writer._insert

    def refuse_r3(self, table, frame):  # a type error only DuckDB finds
        if "r3" in frame.column("run_id").to_pylist():
            raise duckdb.ConversionException("Conversion Error: refused r3")
        return real(self, table, frame)

    monkeypatch.setattr(Writer, "_insert", refuse_r3)
    commits = []
    real_commit = Writer._commit

    def counting(self, batch):
        commits.append(len(batch))
        return real_commit(self, batch)

    monkeypatch.setattr(Writer, "_commit", counting)
    report = ingest(settings.with_(jobs=1))
    assert commits == [6, 1, 1, 1, 1, 1, 1]  # the batch, then each file on its own
    by = {o.path: o for o in report.outcomes}
    assert [o.status for o in report.outcomes] == ["loaded"] * 3 + ["set_aside"] + ["loaded"] * 2
    assert by["s/r3/results.csv"].reason == (
        "could not land (ConversionException: Conversion Error: refused r3)"
    )
    con = duckdb.connect(str(settings.warehouse), read_only=True)
    try:
        got = con.execute(
            "select run_id, file_id from landing.driver_results order by run_id"
        ).fetchall()
        ledger = con.execute(
            "select path, status from meta.ingest_ledger order by file_id"
        ).fetchall()
    finally:
        con.close()
    assert [r for r, _ in got] == ["r0", "r1", "r2", "r4", "r5"]
    assert [s for _, s in ledger] == ["loaded"] * 3 + ["set_aside"] + ["loaded"] * 2
    # The next ingest changes nothing (the bad file is not retried: it is proven bad).
    again = ingest(settings.with_(jobs=1))
    assert {o.status for o in again.outcomes} == {"unchanged", "set_aside"}


def test_jobs_setting_comes_from_flag_env_then_file(tmp_path, monkeypatch):
    from mqcap.errors import UsageError
    from mqcap.settings import Settings, default_jobs

    monkeypatch.delenv("MQCAP_JOBS", raising=False)
    monkeypatch.chdir(tmp_path)
    assert Settings.load(project_root=PROJECT).jobs == default_jobs() >= 1
    (tmp_path / "mqcap.toml").write_text("jobs = 3\n")
    assert Settings.load(project_root=PROJECT).jobs == 3
    monkeypatch.setenv("MQCAP_JOBS", "5")
    assert Settings.load(project_root=PROJECT).jobs == 5
    assert Settings.load(project_root=PROJECT, jobs=1).jobs == 1
    monkeypatch.setenv("MQCAP_JOBS", "many")
    with pytest.raises(UsageError, match="MQCAP_JOBS: expected a whole number of jobs"):
        Settings.load(project_root=PROJECT)
    monkeypatch.delenv("MQCAP_JOBS")
    (tmp_path / "mqcap.toml").write_text('jobs = "2"\n')
    with pytest.raises(UsageError, match=r"mqcap.toml: setting jobs: expected a whole number"):
        Settings.load(project_root=PROJECT)


def test_cli_jobs_option(settings, sample_study):
    from click.testing import CliRunner

    from mqcap.cli import main as cli

    args = ["--warehouse", str(settings.warehouse), "--raw", str(settings.raw_root), "--quiet"]
    bad = CliRunner().invoke(cli, [*args, "ingest", "--jobs", "0"])
    assert bad.exit_code == 2 and "--jobs" in bad.output
    ok = CliRunner().invoke(cli, [*args, "ingest", "--jobs", "2"])
    assert ok.exit_code == 0, ok.output
    assert ok.output == "20 file(s) landed (80 rows), 0 unchanged, 0 set aside\n"


def test_a_large_dump_lands_in_parts_as_it_would_whole(settings, tmp_path, monkeypatch):
    """``--jobs 2`` parses a large SMF dump in parts (split at record boundaries, each part
    starting with the statistics intervals before it) and lands them as they finish: the same
    landing rows, ledger, outcomes and progress as ``--jobs 1``. A dump with bad input in a
    later part is set aside whole with the reason and position of the whole-file parse, and a
    file queued before it (a small CSV) lands as it does with ``--jobs 1``."""
    from smf_support import mixed_records, write_layout

    monkeypatch.setattr(ingest_pool, "POOL_MIN_SECONDS", 0)
    monkeypatch.setattr(ingest_pool, "SPLIT_BYTES", 1 << 20)  # the dumps: about 2.4 MB
    monkeypatch.setattr(ingest_pool, "PART_MIN_BYTES", 200_000)
    monkeypatch.setattr(ingest_pool, "SPOOL_BYTES", 1 << 20)  # some parts spool, some do not
    serial, raw_s = _twin(settings, tmp_path, "serial")
    parallel, raw_p = _twin(settings, tmp_path, "parallel")
    for raw in (raw_s, raw_p):
        day = raw / "day"
        day.mkdir(parents=True)
        (day / "a-results.csv").write_text("rate_per_s,round_trip_us\n100,2000\n")
        write_layout(day / "b-good.dat", mixed_records(), "rdw")
        write_layout(day / "c-bad.dat", mixed_records(corrupt_at=2), "bdw")
        (day / "d-results.csv").write_text("rate_per_s,round_trip_us\n101,2001\n")
    _same_times(raw_s, raw_p)

    splits: list[tuple[str, int]] = []
    real_split = ingest_pool.Prefetcher._split

    def counting(self, path, kind):
        real_split(self, path, kind)
        found = self.where.get(path)
        splits.append((path.name, len(found.windows) if found is not None else 0))

    monkeypatch.setattr(ingest_pool.Prefetcher, "_split", counting)
    out_s, lines_s = _ingest(serial, 1)
    assert splits == []  # one process: nothing is split
    out_p, lines_p = _ingest(parallel, 2)
    assert [name for name, _ in splits] == ["b-good.dat", "c-bad.dat"]
    assert all(n >= 6 for _, n in splits), splits  # 2.4 MB / (4 parts per job x 2 jobs)

    assert out_p == out_s
    assert lines_p == lines_s
    _assert_same(_state(parallel), _state(serial))
    assert not (parallel.outputs / "spool").exists() or not any(
        (parallel.outputs / "spool").iterdir()
    )
    by = {o[0]: o for o in out_s}
    assert [by[f"day/{n}"][1] for n in ("a-results.csv", "b-good.dat", "d-results.csv")] == [
        "loaded"
    ] * 3
    bad = by["day/c-bad.dat"]
    assert bad[1] == "set_aside"
    assert bad[4].startswith("SMF 115.2 record ") and "QLST section" in bad[4], bad
    assert bad[5].startswith("byte ")
    rows = _state(serial)
    assert rows['landing."smf_qsph"'].height == 6
    assert rows['landing."smf_qsph"']["interval_start_utc"].null_count() == 0
    assert rows['landing."smf_qcst"'].height == 3 * 23


def test_a_split_dump_set_aside_keeps_its_id_taken_after_a_crash(settings):
    """A dump with bad input in a part is set aside under the id its rolled-back landing took.
    That id must stay taken if the process dies before DuckDB checkpoints (a sequence's use is
    kept only when the transaction that used it commits): the next ingest's files get new ids,
    not a primary-key collision."""
    import subprocess
    import sys

    from smf_support import mixed_records, write_layout

    raw = settings.raw_root
    write_layout(raw / "bad.dat", mixed_records(corrupt_at=2), "rdw")
    # A child process that dies right after setting the dump aside: no close, no checkpoint.
    script = f"""
import os
from pathlib import Path
from mqcap import ingest as ingest_mod, ingest_pool
from mqcap.ingest.landing import Writer
from mqcap.settings import Settings
ingest_pool.POOL_MIN_SECONDS = 0
ingest_pool.SPLIT_BYTES = 1 << 20
ingest_pool.PART_MIN_BYTES = 200_000
real = Writer.set_aside
def then_die(self, *args, **kwargs):
    real(self, *args, **kwargs)
    os._exit(0)
Writer.set_aside = then_die
settings = Settings.load(warehouse={str(settings.warehouse)!r}, raw={str(raw)!r}, jobs=2,
                         project_root=Path({str(PROJECT)!r}), quiet=True)
ingest_mod.ingest(settings)
os._exit(3)  # not reached: the dump is set aside
"""
    # (output to a file: the child's worker processes outlive it for a moment)
    log = settings.raw_root.parent / "child.log"
    with open(log, "w") as out:
        child = subprocess.Popen(
            [sys.executable, "-c", script], stdout=out, stderr=out, start_new_session=True
        )
        assert child.wait(timeout=300) == 0, log.read_text()
    # Its pool goes with it (each worker watches the PID of the process that started it): no
    # process of its group is left, though it could not stop them.
    deadline = time.monotonic() + 30
    while True:
        try:
            os.killpg(child.pid, 0)
        except ProcessLookupError:
            break
        assert time.monotonic() < deadline, "the crashed ingest's pool outlived it"
        time.sleep(0.1)
    (raw / "late.csv").write_text("rate_per_s,round_trip_us\n1,2\n")
    report = ingest(settings.with_(jobs=2))
    assert [(o.path, o.status) for o in report.outcomes] == [
        ("bad.dat", "set_aside"),
        ("late.csv", "loaded"),
    ]
    con = duckdb.connect(str(settings.warehouse), read_only=True)
    try:
        ledger = con.execute(
            "select path, status from meta.ingest_ledger order by file_id"
        ).fetchall()
    finally:
        con.close()
    assert ledger == [("bad.dat", "set_aside"), ("late.csv", "loaded")]
