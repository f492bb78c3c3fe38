"""The warehouse, not the data: a full disk while the checks' results are stored, and a
truncated warehouse file, as a user meets them on the command line.

- The disk fills while the landing checks run: storing their results fails, which is an
  environment problem (one line, exit 3), not a failed check; nothing is recorded as checked,
  and once space is freed the checks are done again and recorded.
- A truncated warehouse file (cut after its headers, at half, inside its last block, or its
  last block gone) gets the damaged-warehouse line (exit 1, "a busy or damaged warehouse",
  README "Exit codes") from every command that opens it, never "Free space", never a
  traceback, and `status` never exits 0 on it. A whole file shorter than its header's block
  count (DuckDB cuts free blocks off the end) is not called damaged.
"""

from __future__ import annotations

import os

import duckdb
import pytest
from click.testing import CliRunner
from env_faults import FullDisk, fill_disk

from mqcap import validate as validate_mod
from mqcap.cli import main as cli
from mqcap.errors import EnvironmentProblem, WarehouseDamagedError

from helpers import PROJECT, landing_fingerprint

HEADERS = 3 * 4096  # DuckDB: three 4 KiB headers, then whole blocks


def _cli(settings, *args: str, input: str | None = None):
    return CliRunner().invoke(
        cli,
        ["--warehouse", str(settings.warehouse), "--raw", str(settings.raw_root), *args],
        input=input,
    )


def _lines(result) -> list[str]:
    return [line for line in result.output.splitlines() if line.strip()]


def _status_landing_line(settings) -> str:
    result = _cli(settings, "status")
    return next(line.strip() for line in result.output.splitlines() if "landing:" in line)


def _checked_suites(settings) -> int:
    con = duckdb.connect(str(settings.warehouse), read_only=True)
    try:
        return con.execute("select count(*) from meta.validation_result").fetchone()[0]
    finally:
        con.close()


def test_disk_full_while_storing_landing_check_results_is_exit_3_and_the_checks_stay_owed(
    settings, sample_study, monkeypatch
):
    landed = _cli(settings, "--quiet", "ingest")
    assert landed.exit_code == 0, landed.output
    assert _status_landing_line(settings).startswith("landing:      0/20 loaded file(s) checked")

    # The disk fills while the checks run: the next write, storing their results, fails. The
    # results go through the step's connection, opened before the disk filled: its writes meet
    # the full disk from then on, as those of every connection opened later do.
    real_run_suite = validate_mod._run_suite
    real_record = validate_mod.record_validation
    filled = []

    def run_suite_then_fill(*args, **kwargs):
        if not filled:
            fill_disk(monkeypatch)
            filled.append(True)
        return real_run_suite(*args, **kwargs)

    def record_validation(con, *args, **kwargs):
        if filled and not isinstance(con, FullDisk):
            con = FullDisk(con, f"{settings.warehouse}.wal", fail_after=0)
        return real_record(con, *args, **kwargs)

    monkeypatch.setattr(validate_mod, "_run_suite", run_suite_then_fill)
    monkeypatch.setattr(validate_mod, "record_validation", record_validation)
    result = _cli(settings, "--quiet", "run", "--no-reports")
    assert result.exit_code == EnvironmentProblem.exit_code == 3, result.output
    assert "Traceback" not in result.output
    lines = _lines(result)
    assert len(lines) == 1, result.output
    assert lines[0].startswith(
        f"mqcap: error: the results of the landing checks could not be stored in the "
        f"warehouse {settings.warehouse} (TransactionException: "
    )
    assert "No space left on device" in lines[0]
    assert "free space (or make the warehouse writable) and run the command again" in lines[0]
    assert filled == [True]

    # Space freed: nothing was recorded as checked, so the checks are owed and done again.
    monkeypatch.undo()
    assert _checked_suites(settings) == 0
    assert _status_landing_line(settings).startswith("landing:      0/20 loaded file(s) checked")
    again = _cli(settings, "--quiet", "validate", "--scope", "landing")
    assert again.exit_code == 0, again.output
    # Every landing suite, one stored result each.
    assert _checked_suites(settings) == len(list((PROJECT / "expectations").glob("landing.*.json")))
    assert _status_landing_line(settings) == (
        "landing:      20/20 loaded file(s) checked, 0 failure(s) standing"
    )


def test_disk_full_while_storing_mart_check_results_is_exit_3_too(
    settings, sample_study, monkeypatch
):
    """`mqcap validate` (every suite) stores through the same path: exit 3, one line."""
    assert _cli(settings, "--quiet", "ingest").exit_code == 0
    fill_disk(monkeypatch)
    result = _cli(settings, "--quiet", "validate")
    assert result.exit_code == 3, result.output
    assert "Traceback" not in result.output
    assert _lines(result)[-1].startswith("mqcap: error: the results of the all checks could not")


# ---- a truncated warehouse -----------------------------------------------------------------


@pytest.fixture
def landed(settings, sample_study):
    """The mini study landed (no build: every command below opens the file before it reads
    anything of the marts), and the file's layout: (size, block size, blocks in the file)."""
    assert _cli(settings, "--quiet", "ingest").exit_code == 0
    size = settings.warehouse.stat().st_size
    con = duckdb.connect(str(settings.warehouse), read_only=True)
    try:
        block = con.execute("select block_size from pragma_database_size()").fetchone()[0]
    finally:
        con.close()
    assert (size - HEADERS) % block == 0 and size > HEADERS + block
    return size, block


CUTS = {
    "headers only": lambda size, block: HEADERS,
    "half": lambda size, block: size // 2,
    "inside the last block": lambda size, block: size - 4096,
    "last block gone": lambda size, block: size - block,
}
COMMANDS = {
    "status": ["status"],
    "sql": ["sql", "select 1"],
    "shell": ["shell"],
    "compare": ["compare", "attls-chacha-2k", "ssl-chacha-2k"],
    "export": ["export", "{out}"],
    "ingest": ["ingest"],
    "validate": ["validate"],
    "run": ["run", "--no-reports"],
}


@pytest.mark.parametrize("cut", CUTS)
def test_a_truncated_warehouse_gets_the_damaged_line_from_every_command(
    settings, landed, cut, tmp_path
):
    size, block = landed
    path = settings.warehouse
    os.truncate(path, CUTS[cut](size, block))
    for name, args in COMMANDS.items():
        args = [a.format(out=tmp_path / "export") for a in args]
        result = _cli(settings, "--quiet", *args, input="select 1;\n")
        where = f"{cut}, {name}: {result.output}"
        assert result.exit_code == WarehouseDamagedError.exit_code == 1, where
        assert "Traceback" not in result.output and "Free space" not in result.output, where
        last = _lines(result)[-1]
        assert last.startswith(f"mqcap: error: the warehouse {path} cannot be read: "), where
        assert "it is damaged or not a DuckDB file" in last, where
        assert f"mv {path} {path}.damaged" in last and "`mqcap run` to rebuild it" in last, where
    # Nothing was written into the damaged file by any of them.
    assert path.stat().st_size == CUTS[cut](size, block)


def test_a_truncated_warehouse_moved_aside_is_rebuilt_by_the_next_run(settings, landed):
    size, _block = landed
    before = landing_fingerprint(settings.warehouse)
    os.truncate(settings.warehouse, size - 4096)
    assert _cli(settings, "--quiet", "ingest").exit_code == 1
    settings.warehouse.rename(settings.warehouse.with_name("warehouse.duckdb.damaged"))
    assert _cli(settings, "--quiet", "ingest").exit_code == 0
    assert landing_fingerprint(settings.warehouse) == before


def test_a_whole_file_shorter_than_its_header_counts_is_not_damaged(tmp_path, settings):
    """DuckDB cuts free blocks off the end of the file and keeps counting them: such a file
    is whole, and every command reads it."""
    path = settings.warehouse
    path.parent.mkdir(parents=True)
    con = duckdb.connect(str(path))
    con.execute("create table keep as select range as i from range(200000)")
    con.execute("checkpoint")
    con.execute(
        "create table scratch as select md5(cast(range as varchar)) as s from range(300000)"
    )
    con.execute("checkpoint")
    con.execute("drop table scratch")
    con.execute("checkpoint")
    con.close()
    con = duckdb.connect(str(path), read_only=True)
    block, total = con.execute(
        "select block_size, total_blocks from pragma_database_size()"
    ).fetchone()
    con.close()
    size = path.stat().st_size
    assert size < HEADERS + total * block, (size, total, block)  # the case under test
    result = _cli(settings, "sql", "select count(*) as n from keep", "--format", "csv")
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[:2] == ["n", "200000"]


def test_a_damaged_block_met_while_landing_stops_the_batch_and_sets_nothing_aside(settings, landed):
    """A block of landing rows overwritten: replacing a changed file's rows meets it. That is
    the warehouse's damage, not the file's: the damaged line (not "Free space", not a file set
    aside), and the file lands once the warehouse is moved aside."""
    con = duckdb.connect(str(settings.warehouse), read_only=True)
    try:
        (block_id,) = con.execute(
            """select min(block_id) from pragma_storage_info('landing.driver_results')
               where persistent and block_id >= 0"""
        ).fetchone()
        (block,) = con.execute("select block_size from pragma_database_size()").fetchone()
    finally:
        con.close()
    with open(settings.warehouse, "r+b") as fh:
        fh.seek(HEADERS + block_id * block)
        fh.write(bytes(range(256)) * (block // 256))
    changed = settings.raw_root / "attls" / "ssl-chacha-2k" / "results.csv"
    changed.write_text("rate_per_s,round_trip_us,threads,message_bytes\n99.0,10101,1,2048\n")
    result = _cli(settings, "--quiet", "ingest")
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output and "set aside" not in result.output
    last = _lines(result)[-1]
    assert last.startswith(f"mqcap: error: the warehouse {settings.warehouse} cannot be read: ")
    assert "Free space" not in last
    settings.warehouse.rename(settings.warehouse.with_name("warehouse.duckdb.damaged"))
    again = _cli(settings, "--quiet", "ingest")
    assert again.exit_code == 0, again.output
    con = duckdb.connect(str(settings.warehouse), read_only=True)
    try:
        assert con.execute(
            """select count(*), sum(round_trip_us) from landing.driver_results
               where source_file = 'attls/ssl-chacha-2k/results.csv'"""
        ).fetchone() == (1, 10101.0)
        assert con.execute(
            "select count(*) from meta.ingest_ledger where status = 'set_aside'"
        ).fetchone() == (0,)
    finally:
        con.close()
