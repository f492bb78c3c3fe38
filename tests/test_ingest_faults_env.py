"""Environment errors are not input errors; any byte sequence is a file name.

A disk that fills up, a file that vanishes, becomes a folder or cannot be read between listing
and reading: the file is never set aside, the rest of the batch goes on (or, for a warehouse
that cannot be written, stops keeping what was committed), and the next ingest loads it.
Names that are not UTF-8, or hold newlines and terminal escapes, land and print safely.
"""

from __future__ import annotations

import os
import shutil
import subprocess

import duckdb
import pytest
from click.testing import CliRunner
from env_faults import deny, fill_disk

from mqcap import ingest as ingest_mod
from mqcap.cli import main as cli
from mqcap.errors import EnvironmentProblem
from mqcap.ingest import ingest
from mqcap.ledger.files import cap
from mqcap.names import original_name, printable, stored_name

from helpers import landing_fingerprint, tree_hashes


def _rows(settings, sql: str, params: list | None = None):
    con = duckdb.connect(str(settings.warehouse), read_only=True)
    try:
        return con.execute(sql, params or []).fetchall()
    finally:
        con.close()


def _cli(settings, *args: str):
    return CliRunner().invoke(
        cli, ["--warehouse", str(settings.warehouse), "--raw", str(settings.raw_root), *args]
    )


def _results_total(settings) -> tuple[int, float]:
    return _rows(
        settings, "select count(*), coalesce(sum(round_trip_us), 0) from landing.driver_results"
    )[0]


@pytest.fixture
def mini_sum(sample_study) -> float:
    """Sum of round_trip_us of the mini study's ten results rows (one per run)."""
    total = sum(
        float(p.read_text().splitlines()[1].split(",")[1])
        for p in sample_study.rglob("results.csv")
    )
    assert total == 1823793.0
    return total


def test_disk_full_stops_the_batch_sets_nothing_aside_and_space_freed_loads_all(
    settings, sample_study, monkeypatch, mini_sum
):
    raw_before = tree_hashes(settings.raw_root)
    # The landing tables and the schema's migrations commit once each, then the batch of the
    # 10 manifests; the batch of the data files fails, and so does its first file on its own.
    fill_disk(monkeypatch, fail_after=3)
    with pytest.raises(EnvironmentProblem) as err:
        ingest(settings)
    message = str(err.value)
    assert "could not be written while landing attls/" in message
    assert "No space left on device" in message and "Nothing was set aside" in message
    assert "10 file(s) landed before stay" in message, message
    assert EnvironmentProblem.exit_code == 3
    monkeypatch.undo()
    # Everything committed before stays; nothing set aside; the failed file left no row.
    assert _rows(settings, "select status, count(*) from meta.ingest_ledger group by 1") == [
        ("loaded", 10)
    ]
    assert _rows(settings, "select count(*) from landing.run_manifest") == [(10,)]
    assert _rows(settings, "select count(*) from landing.driver_results") == [(0,)]
    # Space freed: the next ingest (files untouched) lands the rest, exact counts.
    report = ingest(settings)
    assert len(report.landed) == 10 and report.set_aside == [] and report.skipped == []
    assert _results_total(settings) == (10, mini_sum)
    assert _rows(settings, "select count(*) from landing.run_manifest") == [(10,)]
    assert tree_hashes(settings.raw_root) == raw_before


def test_disk_full_through_the_cli_is_one_line_and_exit_code_3(settings, sample_study, monkeypatch):
    fill_disk(monkeypatch, fail_after=1)
    result = _cli(settings, "--quiet", "ingest")
    assert result.exit_code == 3, result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("mqcap: error: the warehouse ")
    assert "Traceback" not in result.output


def test_files_set_aside_for_disk_full_by_an_older_mqcap_are_retried(settings, sample_study):
    ingest(settings)
    rel = "attls/ssl-chacha-2k/results.csv"
    path = settings.raw_root / rel
    con = duckdb.connect(str(settings.warehouse))
    try:
        # What the old version left behind: the file set aside (not retried), its rows gone.
        fid = con.execute("select file_id from meta.ingest_ledger where path = ?", [rel]).fetchall()
        con.execute("delete from landing.driver_results where file_id = ?", [fid[0][0]])
        con.execute(
            """update meta.ingest_ledger set status = 'set_aside', rows_landed = 0, reason =
               'could not land (TransactionException: TransactionContext Error: cannot rollback'
               || ' - no transaction is active)', retry = false where file_id = ?""",
            [fid[0][0]],
        )
        con.execute("drop table meta.ledger_version")  # an older warehouse
    finally:
        con.close()
    assert _results_total(settings)[0] == 9
    report = ingest(settings)
    assert [(o.path, o.status, o.rows) for o in report.landed] == [(rel, "loaded", 1)]
    assert _rows(
        settings, "select round_trip_us from landing.driver_results where source_file = ?", [rel]
    ) == [(float(path.read_text().splitlines()[1].split(",")[1]),)]


def _disk_full_needs_root() -> str | None:
    if os.geteuid() != 0 or shutil.which("mount") is None:
        return "mounting a small tmpfs needs root (the injected disk-full tests run everywhere)"
    return None


@pytest.mark.skipif(_disk_full_needs_root() is not None, reason=str(_disk_full_needs_root()))
def test_real_full_tmpfs_then_space_freed_loads_the_file(tmp_path, settings, sample_study):
    """A real disk full: the warehouse on a 16 MB tmpfs, a filler leaves little room."""
    mnt = tmp_path / "small"
    mnt.mkdir()
    proc = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", str(mnt)])
    if proc.returncode != 0:
        pytest.skip("tmpfs mount refused in this container")
    try:
        small = settings.with_(warehouse=mnt / "warehouse.duckdb")
        ingest(small)
        assert _rows(small, "select count(*) from landing.driver_results") == [(10,)]
        big = settings.raw_root / "attls" / "ssl-chacha-2k" / "big.csv"
        lines = ["rate_per_s,round_trip_us,threads,message_bytes,comment"]
        lines += [f"{i}.5,{i},1,2048,{'x' * 40}{i}" for i in range(60000)]
        big.write_text("\n".join(lines) + "\n")
        free = shutil.disk_usage(mnt).free
        filler = mnt / "filler"
        filler.write_bytes(b"\0" * max(0, free - 200_000))
        with pytest.raises(EnvironmentProblem) as err:
            ingest(small)
        assert "No space left on device" in str(err.value)
        filler.unlink()
        assert _rows(small, "select status, count(*) from meta.ingest_ledger group by 1") == [
            ("loaded", 20)
        ]
        report = ingest(small)
        assert [(o.path, o.rows) for o in report.landed] == [("attls/ssl-chacha-2k/big.csv", 60000)]
        assert _rows(
            small,
            "select count(*), sum(round_trip_us) from landing.driver_results "
            "where source_file like '%big.csv'",
        ) == [(60000, float(sum(range(60000))))]
    finally:
        subprocess.run(["umount", "-l", str(mnt)])


def test_unreadable_file_is_skipped_not_set_aside_and_loads_once_readable(
    settings, sample_study, monkeypatch, mini_sum
):
    rel = "attls/attls-chacha-1m/results.csv"
    deny(monkeypatch, settings.raw_root / rel)
    result = _cli(settings, "--quiet", "ingest")
    monkeypatch.undo()
    assert result.exit_code == 1, result.output
    assert result.output.splitlines() == [
        "19 file(s) landed (79 rows), 0 unchanged, 0 set aside, 1 skipped (retried next time)",
        f"  skipped: {rel}: not readable (permission denied); not set aside, "
        "retried on the next ingest",
    ]
    assert _rows(settings, "select count(*) from meta.ingest_ledger where path = ?", [rel]) == [
        (0,)
    ]
    assert _results_total(settings) == (9, mini_sum - 956592)
    report = ingest(settings)  # readable again, untouched: retried
    assert [(o.path, o.status) for o in report.landed] == [(rel, "loaded")]
    assert _results_total(settings) == (10, mini_sum)


@pytest.mark.parametrize("how", ["vanished", "folder"])
def test_file_gone_between_listing_and_reading_is_skipped_and_the_batch_goes_on(
    settings, sample_study, monkeypatch, mini_sum, how
):
    rel = "attls/ssl-chacha-64k/results.csv"
    target = settings.raw_root / rel
    saved = target.read_bytes()
    real_discover = ingest_mod.discover_names

    def discover_then_lose(*args, **kwargs):
        found = real_discover(*args, **kwargs)
        target.unlink()
        if how == "folder":
            target.mkdir()
        return found

    monkeypatch.setattr(ingest_mod, "discover_names", discover_then_lose)
    report = ingest(settings)
    monkeypatch.undo()
    want = "vanished between listing and reading" if how == "vanished" else "is a folder now"
    assert [(o.path, o.reason.split(" (")[0].split(";")[0]) for o in report.skipped] == [
        (rel, want)
    ]
    assert report.set_aside == [] and len(report.landed) == 19
    assert _results_total(settings) == (9, mini_sum - 44452)
    if how == "folder":
        target.rmdir()
    target.write_bytes(saved)
    report = ingest(settings)
    assert [(o.path, o.status) for o in report.landed] == [(rel, "loaded")]
    assert _results_total(settings) == (10, mini_sum)


def test_watch_poll_survives_files_vanishing_and_reports_deletions(settings, sample_study):
    from mqcap.watch import Watcher

    now = [0.0]
    w = Watcher(settings, settle_s=1, clock=lambda: now[0])
    assert w.poll() == []  # everything is new: wait until it settles
    now[0] = 1.0
    first = w.poll()  # the whole study, handed out once
    assert len(first) == len(list(sample_study.rglob("*.*"))) and w.poll() == []
    gone = sample_study / "ssl-chacha-16k" / "results.csv"
    gone.unlink()
    (sample_study / "ssl-chacha-1m" / "results.csv").unlink()
    (sample_study / "ssl-chacha-1m" / "results.csv").mkdir()  # replaced by a folder
    assert w.poll() == sorted(
        [gone, sample_study / "ssl-chacha-1m" / "results.csv"]
    )  # deletions hand out a batch at once
    assert w.poll() == []


# -- odd names ------------------------------------------------------------------------------


def test_stored_names_are_reversible_for_any_bytes():
    for raw in [b"plain.csv", b"r\xff\xfe.csv", b"a\\x80b", b"a\\\\b\\", b"\x80\\x80\\\x80"]:
        name = os.fsdecode(raw)
        stored = stored_name(name)
        stored.encode("utf-8")  # storable in DuckDB
        assert os.fsencode(original_name(stored)) == raw
    assert stored_name(os.fsdecode(b"r\xff.csv")) == "r\\xff.csv"
    assert printable("a\nb\x1b[31mc\u202e\udcff") == "a\\nb\\x1b[31mc\\u202e\\xff"


def test_non_utf8_names_land_reingest_and_delete_without_crashing(settings, sample_study):
    folder = os.fsencode(sample_study / "ssl-chacha-2k")
    odd_file = folder + b"/r\xff\xfe.csv"
    with open(odd_file, "wb") as fh:
        fh.write(b"rate_per_s,round_trip_us\n1.5,777\n")
    odd_dir = os.fsencode(settings.raw_root) + b"/day\xe9"
    os.mkdir(odd_dir)
    with open(odd_dir + b"/bad\xc0.csv", "wb") as fh:
        fh.write(b"rate_per_s,round_trip_us\nfast,1\n")
    report = ingest(settings)
    assert sorted((o.path, o.status) for o in report.outcomes if "\\x" in o.path) == [
        ("attls/ssl-chacha-2k/r\\xff\\xfe.csv", "loaded"),
        ("day\\xe9/bad\\xc0.csv", "set_aside"),
    ]
    assert _rows(
        settings,
        "select source_file, round_trip_us from landing.driver_results where round_trip_us = 777",
    ) == [("attls/ssl-chacha-2k/r\\xff\\xfe.csv", 777.0)]
    result = _cli(settings, "--quiet", "ingest")  # the second ingest crashed before
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert result.output.splitlines()[0] == "0 file(s) landed (0 rows), 21 unchanged, 1 set aside"
    assert "  set aside: day\\xe9/bad\\xc0.csv (line 2): " in result.output
    status = _cli(settings, "status")
    assert "day\\xe9/bad\\xc0.csv line 2: " in status.output
    os.unlink(odd_file)
    report = ingest(settings)
    assert [(o.path, o.rows) for o in report.deleted] == [
        ("attls/ssl-chacha-2k/r\\xff\\xfe.csv", 1)
    ]
    assert _rows(settings, "select count(*) from landing.driver_results") == [(10,)]


def test_names_with_newlines_and_escapes_print_as_one_safe_line(settings, sample_study):
    name = "evil\n  set aside: nothing\x1b[2J\x1b]0;pwned\x07.csv"
    (settings.raw_root / "attls" / name).write_text("rate_per_s,round_trip_us\nfast,1\n")
    result = _cli(settings, "--quiet", "ingest")
    assert result.exit_code == 1
    assert "\x1b" not in result.output and "\x07" not in result.output
    lines = result.output.splitlines()
    assert lines[1:] == [
        "  set aside: attls/evil\\n  set aside: nothing\\x1b[2J\\x1b]0;pwned\\x07.csv (line 2): "
        "column rate_per_s: expected a number, got 'fast'"
    ]
    # Stored as it is (valid UTF-8): the ledger and status name the real file.
    assert _rows(
        settings, "select count(*) from meta.ingest_ledger where path = ?", [f"attls/{name}"]
    ) == [(1,)]
    status = _cli(settings, "status").output
    assert "\x1b" not in status and "attls/evil\\n  set aside: nothing\\x1b[2J" in status


def test_reasons_are_capped_in_the_ledger(settings, sample_study):
    assert cap("y" * 2000) == "y" * 2000
    assert cap("y" * 2001) == "y" * 2000 + "… (1 more characters)"
    (settings.raw_root / "attls" / "long.csv").write_text(
        "rate_per_s,round_trip_us\n" + "9" * 3 + "x" * 5000 + ",1\n"
    )
    ingest(settings)
    ((reason,),) = _rows(
        settings, "select reason from meta.ingest_ledger where path = 'attls/long.csv'"
    )
    assert len(reason) == 2000 + len("… (NNNN more characters)")
    assert reason.startswith("column rate_per_s: expected a number, got '999xxx")
    assert reason.endswith(" more characters)")


# -- deletions, renames, run-id edits, unattributed files ---------------------------------


def test_deleted_file_rows_leave_landing_and_the_ledger_says_when(settings, sample_study, mini_sum):
    ingest(settings)
    (sample_study / "ssl-chacha-1m" / "results.csv").unlink()
    report = ingest(settings)
    assert [(o.path, o.status, o.rows, o.tables) for o in report.deleted] == [
        ("attls/ssl-chacha-1m/results.csv", "deleted", 1, ("driver_results",))
    ]
    assert _results_total(settings) == (9, mini_sum - 693844)
    rows = _rows(
        settings,
        """select status, reason, deleted_at is not null from meta.ingest_ledger
           where path = 'attls/ssl-chacha-1m/results.csv' order by file_id""",
    )
    assert rows[0][0] == "replaced" and rows[0][1].startswith("deleted (file ")
    old_id = _rows(
        settings,
        "select min(file_id) from meta.ingest_ledger where path = 'attls/ssl-chacha-1m/results.csv'",
    )[0][0]
    assert rows[1] == (
        "deleted",
        f"deleted from the raw folder: 1 row(s) of file {old_id} left landing",
        True,
    )
    # Dropped again: it loads again, once.
    (sample_study / "ssl-chacha-1m" / "results.csv").write_text(
        "rate_per_s,round_trip_us,threads,message_bytes\n1.441,693844,1,1048576\n"
    )
    assert [o.status for o in ingest(settings).landed] == ["loaded"]
    assert _results_total(settings) == (10, mini_sum)


def test_empty_raw_root_deletes_nothing(settings, sample_study):
    ingest(settings)
    before = landing_fingerprint(settings.warehouse)
    moved = settings.raw_root.parent / "elsewhere"
    shutil.move(str(sample_study), moved)
    report = ingest(settings)
    assert report.deleted == [] and report.notes[0].startswith("the raw root ")
    assert landing_fingerprint(settings.warehouse) == before


def test_renamed_run_folder_is_a_rename_not_a_conflict(settings, sample_study, mini_sum):
    ingest(settings)
    (sample_study / "attls-chacha-16k").rename(sample_study / "attls-chacha-16k-moved")
    report = ingest(settings)
    assert report.set_aside == []
    assert sorted(o.path for o in report.deleted) == [
        "attls/attls-chacha-16k/results.csv",
        "attls/attls-chacha-16k/run.yaml",
    ]
    assert sorted(o.path for o in report.landed) == [
        "attls/attls-chacha-16k-moved/results.csv",
        "attls/attls-chacha-16k-moved/run.yaml",
    ]
    assert _results_total(settings) == (10, mini_sum)
    assert _rows(
        settings,
        "select study, run_id from meta.ingest_ledger where status = 'loaded' "
        "and path = 'attls/attls-chacha-16k-moved/results.csv'",
    ) == [("attls", "attls-chacha-16k")]


def test_moved_run_folder_ingested_alone_is_a_rename_too(settings, sample_study):
    ingest(settings)
    (sample_study / "ssl-chacha-32k").rename(settings.raw_root / "ssl-chacha-32k")
    report = ingest(settings, [settings.raw_root / "ssl-chacha-32k"])
    assert report.set_aside == []
    assert _rows(
        settings,
        "select path from meta.ingest_ledger where status = 'loaded' and run_id = 'ssl-chacha-32k'"
        " order by path",
    ) == [("ssl-chacha-32k/results.csv",), ("ssl-chacha-32k/run.yaml",)]
    assert _rows(settings, "select count(*) from landing.run_manifest") == [(10,)]


def test_run_id_edit_takes_the_whole_folder_along(settings, sample_study):
    ingest(settings)
    manifest = sample_study / "attls-chacha-2k" / "run.yaml"
    manifest.write_text(manifest.read_text().replace("run: attls-chacha-2k", "run: attls-2k-b"))
    ingest(settings)
    assert _rows(
        settings,
        "select path, run_id from meta.ingest_ledger where status = 'loaded' "
        "and path like 'attls/attls-chacha-2k/%' order by path",
    ) == [
        ("attls/attls-chacha-2k/results.csv", "attls-2k-b"),
        ("attls/attls-chacha-2k/run.yaml", "attls-2k-b"),
    ]


def test_unattributed_files_land_are_flagged_and_follow_a_late_manifest(settings, sample_study):
    ingest(settings)
    orphan = sample_study / "orphan-run"
    orphan.mkdir()
    (orphan / "results.csv").write_text("rate_per_s,round_trip_us\n12.5,999\n")
    (settings.raw_root / "named.csv").write_text(
        "study,run_id,rate_per_s,round_trip_us\nattls,ssl-chacha-2k,1.5,5\n"
    )
    result = _cli(settings, "--quiet", "ingest")
    assert result.exit_code == 1
    assert result.output.splitlines() == [
        "2 file(s) landed (2 rows), 20 unchanged, 0 set aside, 1 unattributed",
        "  unattributed: attls/orphan-run/results.csv: unattributed: no run.yaml in its folder "
        "or above, and 1 results row(s) without study and run_id columns: its rows reach no "
        "mart (put it in a run folder with a run.yaml)",
    ]
    assert _rows(
        settings,
        "select path, attribution from meta.ingest_ledger where status = 'loaded' "
        "and path in ('named.csv', 'attls/orphan-run/results.csv') order by path",
    ) == [("attls/orphan-run/results.csv", "none"), ("named.csv", "by_columns")]
    # The run.yaml arrives: the file follows its folder without being landed again.
    yaml = (sample_study / "ssl-chacha-2k" / "run.yaml").read_text()
    (orphan / "run.yaml").write_text(
        yaml.replace("run: ssl-chacha-2k", "run: orphan-run").replace(
            "baseline: ssl-chacha-2k", "baseline: orphan-run"
        )
    )
    report = ingest(settings)
    assert report.unattributed == []
    assert [o.path for o in report.landed] == ["attls/orphan-run/run.yaml"]
    assert _rows(
        settings,
        "select study, run_id, attribution from meta.ingest_ledger where status = 'loaded' "
        "and path = 'attls/orphan-run/results.csv'",
    ) == [("attls", "orphan-run", "run_folder")]
