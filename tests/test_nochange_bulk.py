"""A no-change ingest settles files in bulk: the same files, outcomes and deletions as one by one.

``Changes.settled_in_bulk`` compares the listing's sizes and mtimes with the ledger's loaded rows
(``FileLedger.loaded_as_read``) in one pass; the sweep finds deletions from the ledger's paths
(``FileLedger.current_paths``) by one set difference; the unchanged outcomes are counted and made
only when read (``IngestReport``, ``UnchangedFiles``). Each is held here against the per-file
path on an invented raw folder with changed sizes, changed mtimes, deletions, new files, a file
set aside and a file read by other parser code.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import astuple
from datetime import datetime

import duckdb
import pytest

from mqcap.ingest import ingest
from mqcap.ingest.changes import Changes, unchanged, unchanged_outcomes
from mqcap.ingest.discovery import RawNames, discover_names, order_key
from mqcap.ingest.report import FileOutcome, IngestReport, UnchangedFiles
from mqcap.ledger.files import FileLedger

from helpers import query

SIZE = "attls/ssl-chacha-2k/results.csv"  # bytes appended: a new size
MTIME = "attls/attls-chacha-1m/results.csv"  # same bytes, another mtime
GONE = "attls/attls-chacha-2k/results.csv"  # deleted
STALE = "attls/ssl-chacha-1m/results.csv"  # read by other parser code (its print changed)
BAD = "attls/ssl-chacha-1m/notes.bin"  # set aside (unrecognised), unchanged since
NEW = ("attls/zz-new/run.yaml", "attls/zz-new/results.csv")  # never seen


def _invent_changes(settings, sample_study) -> None:
    """Land the sample study (and a file set aside), then change the raw folder as named above."""
    root = settings.raw_root
    (root / BAD).write_bytes(b"\x00\x01 not a measurement\n")
    first = ingest(settings)
    assert len(first.landed) == 20 and [o.path for o in first.set_aside] == [BAD]
    with (root / SIZE).open("a") as fh:
        fh.write("510.0,1960,1,2048\n")
    st = (root / MTIME).stat()
    os.utime(root / MTIME, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
    (root / GONE).unlink()
    shutil.copytree(sample_study / "ssl-chacha-2k", root / "attls" / "zz-new")
    text = (root / NEW[0]).read_text().replace("ssl-chacha-2k", "zz-new")
    (root / NEW[0]).write_text(text)
    with duckdb.connect(str(settings.warehouse)) as con:
        con.execute(
            "update meta.ingest_ledger set parser_print = 'mqcap.parsers.driver_csv@old' "
            "where path = ? and status = 'loaded'",
            [STALE],
        )


def test_bulk_comparison_settles_what_the_per_file_path_settles(settings, sample_study):
    _invent_changes(settings, sample_study)
    names = discover_names(settings)
    rels = RawNames(settings.raw_root).rels(names)
    with duckdb.connect(str(settings.warehouse)) as con:
        bulk_ledger = FileLedger(con, datetime.now())
        bulk = Changes(bulk_ledger, sha256=None).settled_in_bulk(names, rels)
        one_by_one = Changes(FileLedger(con, datetime.now()), sha256=None)
        per_file = {}  # path -> the entry that stands for it, when settled by its stat
        for name in names:
            if one_by_one.settled(name, rels[name]):
                per_file[name] = one_by_one.take_settled(name)
        deleted = bulk_ledger.current_paths() - set(rels.values())
        entries = FileLedger(con, datetime.now()).entries()
    changed = {SIZE, MTIME, STALE}
    listed = set(rels.values())
    assert len(names) == 22 and GONE not in listed and set(NEW) <= listed
    # Bulk: every loaded file as the ledger has it, read by today's parser code; nothing else.
    assert {rels[n] for n in bulk} == listed - changed - set(NEW) - {BAD}
    assert len(bulk) == 16
    # The per-file path settles the same loaded files, and the file set aside (left to it).
    assert {rels[n] for n in per_file} == {rels[n] for n in bulk} | {BAD}
    assert per_file[next(n for n in names if rels[n] == BAD)].status == "set_aside"
    assert one_by_one.reread == {STALE}
    # The outcomes made of the bulk rows are those the per-file path makes of its entries.
    order = [n for n in names if n in bulk]
    assert unchanged_outcomes(order, rels, bulk) == [unchanged(rels[n], per_file[n]) for n in order]
    # Deletions: the ledger's paths not listed, as the entries have them.
    assert deleted == {p for p in entries if p not in listed} == {GONE}


def _outcomes(report: IngestReport) -> list[tuple]:
    return sorted(astuple(o) for o in report.outcomes)


def test_ingest_with_bulk_settling_equals_ingest_file_by_file(
    settings, sample_study, tmp_path, monkeypatch
):
    _invent_changes(settings, sample_study)
    twin = settings.with_(
        raw_root=tmp_path / "raw2", warehouse=tmp_path / "wh2" / "warehouse.duckdb"
    )
    shutil.copytree(settings.raw_root, twin.raw_root)  # (copy2: the same mtimes)
    twin.warehouse.parent.mkdir()
    shutil.copy(settings.warehouse, twin.warehouse)
    bulk = ingest(settings)
    monkeypatch.setattr(Changes, "settled_in_bulk", lambda self, names, rels: {})
    one_by_one = ingest(twin)
    assert _outcomes(bulk) == _outcomes(one_by_one)
    assert bulk.summary() == one_by_one.summary()
    # The touched file is hashed and found unchanged (17 = 16 settled by their stat + 1).
    assert bulk.summary() == "4 file(s) landed (12 rows), 17 unchanged, 1 set aside, 1 deleted"
    assert {(o.path, o.status) for o in bulk.outcomes if o.status != "unchanged"} == {
        (SIZE, "replaced"),
        (STALE, "replaced"),
        (NEW[0], "loaded"),
        (NEW[1], "loaded"),
        (BAD, "set_aside"),
        (GONE, "deleted"),
    }
    ledger = (
        "select path, status, bytes, mtime_ns, study, run_id from meta.ingest_ledger "
        "order by path, status, bytes"
    )
    assert query(settings, ledger) == query(twin, ledger)


def test_report_counts_unchanged_files_and_makes_their_outcomes_when_read():
    made = []

    def make(paths):
        return lambda: made.append(paths) or [FileOutcome(p, "unchanged") for p in paths]

    report = IngestReport([FileOutcome("gone.csv", "deleted")])
    report.add_unchanged(UnchangedFiles(2, make(["a.csv", "b.csv"])))
    report.add_unchanged(UnchangedFiles(0, make([])))  # (an empty stretch is not held)
    report.add_unchanged(UnchangedFiles(1, make(["d.csv"])))
    # Counted, filtered and summed without making the unchanged outcomes.
    assert report.count("unchanged") == 3 and report.count("deleted") == 1
    assert report.landed == [] and report.rows == 0
    assert [o.path for o in report.deleted] == ["gone.csv"]
    assert report.summary() == "0 file(s) landed (0 rows), 3 unchanged, 0 set aside, 1 deleted"
    assert made == []
    # Read: every outcome in the batch's order, each stretch made once; what is added after
    # (as the writer adds a file's outcome) follows them.
    report.outcomes.append(FileOutcome("e.csv", "loaded", rows=5))
    assert made == [["a.csv", "b.csv"], ["d.csv"]]
    assert [o.path for o in report.outcomes] == ["gone.csv", "a.csv", "b.csv", "d.csv", "e.csv"]
    assert [o.path for o in report.by_status("unchanged")] == ["a.csv", "b.csv", "d.csv"]
    assert report.count("unchanged") == 3 and report.rows == 5
    assert len(made) == 2


def test_run_folders_followed_from_the_rows_as_read_as_from_the_entries(
    settings, sample_study, tmp_path
):
    ingest(settings)
    copy = tmp_path / "copy.duckdb"
    shutil.copy(settings.warehouse, copy)
    edited = {"attls/ssl-chacha-2k": ("attls", "renamed-run")}
    with duckdb.connect(str(settings.warehouse)) as con:
        led = FileLedger(con, datetime.now())
        folders = {**led.run_folders(), **edited}
        led.loaded_as_read()  # (the entries not read: the rows as read stand for them)
        from_rows = led.reattribute(folders)
        assert led._current is not None  # (written: the entries read, the rows as read dropped)
    with duckdb.connect(str(copy)) as con:
        led = FileLedger(con, datetime.now())
        led.entries()
        from_entries = led.reattribute(folders)
    assert from_rows == from_entries == ["attls/ssl-chacha-2k/results.csv"]
    sql = (
        "select study, run_id from meta.ingest_ledger "
        "where path = 'attls/ssl-chacha-2k/results.csv' and status = 'loaded'"
    )
    assert query(settings, sql) == [("attls", "renamed-run")]
    with duckdb.connect(str(copy), read_only=True) as con:
        assert con.execute(sql).fetchall() == [("attls", "renamed-run")]


@pytest.mark.parametrize("read_entries", [False, True])
def test_current_paths_are_the_entries_paths(settings, sample_study, read_entries):
    (settings.raw_root / BAD).write_bytes(b"\x00\x01 not a measurement\n")
    ingest(settings)
    with duckdb.connect(str(settings.warehouse)) as con:
        led = FileLedger(con, datetime.now())
        if read_entries:
            led.entries()
        paths = led.current_paths()
        assert paths == set(FileLedger(con, datetime.now()).entries())
    assert len(paths) == 21 and BAD in paths


def test_listing_order_is_order_key_order(settings):
    root = settings.raw_root
    for rel in ("a/x.csv", "a-b/x.csv", "a/RUN.YAML", "a-b/run.yml", "z.csv", "a/b/c.csv"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("x\n")
    (root / ".hidden.csv").write_text("x\n")
    os.symlink(root / "z.csv", root / "link.csv")  # (a link inside the root is listed)
    names = discover_names(settings)
    base = str(root.resolve()) + "/"
    assert [n.removeprefix(base) for n in names] == [
        "a/RUN.YAML",
        "a-b/run.yml",
        "a/b/c.csv",
        "a/x.csv",
        "a-b/x.csv",
        "link.csv",
        "z.csv",
    ]
    assert names == sorted(names, key=order_key)


def test_rows_as_read_keep_the_newest_row_of_a_path_loaded_twice(settings, sample_study):
    ingest(settings)
    rel = "attls/ssl-chacha-2k/results.csv"
    with duckdb.connect(str(settings.warehouse)) as con:
        con.execute(
            "insert into meta.ingest_ledger by name select * replace (file_id + 1000 as file_id, "
            "bytes + 1 as bytes) from meta.ingest_ledger where path = ? and status = 'loaded'",
            [rel],
        )
        rows = FileLedger(con, datetime.now()).loaded_as_read()
        entry = FileLedger(con, datetime.now()).current(rel)
    assert len(rows) == 20
    assert (rows[rel][4], rows[rel][1]) == (entry.file_id, entry.bytes)
    assert entry.file_id > 1000
