"""Finding the records a drop repeats (``mqcap.duplicates.copies_in_files``) within ingest's
memory limit, however large the drop.

The bench's 2 GB study (64,640 files landed in one ingest) ran out of ingest's 512 MB here,
after every file had landed: the CHSTATUS blocks' texts were built for the whole table at
once. A CHSTATUS landing of a few million rows under a much smaller limit stands in for it
(the old query fails at this size and limit); the copies dropped into it are found exactly.
"""

from __future__ import annotations

import duckdb
import pytest

from mqcap import duplicates, warehouse

FILES = 300  # files of one CHSTATUS capture each
SNAPSHOTS, BLOCKS, PAIRS = 20, 12, 24  # per file; 5,760 attribute rows a file


@pytest.fixture
def landing(tmp_path):
    con = duckdb.connect(str(tmp_path / "warehouse.duckdb"))
    warehouse.ensure_schema(con)
    # File f: snapshots at times of its own (every file a distinct capture), blocks of channels
    # CH<b>, KEY<p>(value of file, snapshot, block, pair).
    con.execute(
        f"""insert into landing.chstatus_attr
                (file_id, source_file, source_line, snapshot_no, snapshot_time, block_no,
                 channel, pair_no, key, value)
            select f, 'cap' || f || '.txt', s * 1000 + b * {PAIRS} + p, s,
                   timestamp '2026-01-01' + to_seconds(f * 100000 + s * 60),
                   s * {BLOCKS} + b, 'CH' || b, p, 'KEY' || p,
                   'V-' || f || '-' || s || '-' || b || '-' || p || repeat('x', 20)
            from range(1, {FILES} + 1) t(f), range({SNAPSHOTS}) u(s), range({BLOCKS}) v(b),
                 range(1, {PAIRS} + 1) w(p)"""
    )
    con.execute(
        f"""insert into landing.chstatus_snapshot
                (file_id, source_file, source_line, snapshot_no, snapshot_time, qmgr, form,
                 channel_count, expected_count)
            select f, 'cap' || f || '.txt', s * 1000, s,
                   timestamp '2026-01-01' + to_seconds(f * 100000 + s * 60), 'QM1', 'zos',
                   {BLOCKS}, {BLOCKS}
            from range(1, {FILES} + 1) t(f), range({SNAPSHOTS}) u(s)"""
    )
    # File FILES + 1 repeats file 7's capture whole; file FILES + 2 repeats snapshot 3 of file
    # 9 (under other line numbers) and has a snapshot of its own.
    for table in ("chstatus_attr", "chstatus_snapshot"):
        con.execute(
            f"""insert into landing.{table} by name
                select * exclude (file_id, source_file), {FILES + 1} as file_id,
                       'copy7.txt' as source_file
                from landing.{table} where file_id = 7"""
        )
        con.execute(
            f"""insert into landing.{table} by name
                select * exclude (file_id, source_file, source_line), {FILES + 2} as file_id,
                       'part9.txt' as source_file, source_line + 5 as source_line
                from landing.{table} where file_id = 9 and snapshot_no = 3"""
        )
    con.execute(
        f"""insert into landing.chstatus_snapshot
                (file_id, source_file, source_line, snapshot_no, snapshot_time, qmgr, form,
                 channel_count, expected_count)
            values ({FILES + 2}, 'part9.txt', 1, 99, timestamp '2030-01-01', 'QM1', 'zos', 0, 0)"""
    )
    yield con
    con.close()


def test_the_copies_of_a_large_drop_are_found_within_a_small_memory_limit(landing):
    rows = landing.execute("select count(*) from landing.chstatus_attr").fetchone()[0]
    assert rows == (FILES * SNAPSHOTS + SNAPSHOTS + 1) * BLOCKS * PAIRS
    landing.execute("set memory_limit = '64MB'; set threads = 2")
    tables = ["chstatus_attr", "chstatus_snapshot"]
    # Every file is new: the whole drop landed in one ingest.
    found = duplicates.copies_in_files(landing, {f: tables for f in range(1, FILES + 3)})
    assert sorted(found) == [FILES + 1, FILES + 2]
    whole, part = found[FILES + 1], found[FILES + 2]
    # Units: the blocks and the snapshots. The whole copy repeats all of file 7's.
    assert (whole.records, whole.copies) == (SNAPSHOTS * (BLOCKS + 1),) * 2
    assert whole.first_files == (("cap7.txt", "line 0"),)
    # The part repeats one snapshot and its blocks; its own snapshot is no copy.
    assert (part.records, part.copies) == (BLOCKS + 2, BLOCKS + 1)
    assert part.first_files == (("cap9.txt", "line 3000"),)
    assert part.sentence("part9.txt") == (
        f"part9.txt: {BLOCKS + 1} of {BLOCKS + 2} records already loaded from cap9.txt "
        "(first at line 3000); they count once"
    )


def test_a_failed_comparison_after_landing_is_a_note_not_a_stopped_ingest(
    settings, sample_study, monkeypatch
):
    """Every file has landed when ingest compares the new files with earlier ones; a warehouse
    that cannot answer that question (out of memory) leaves a note, not exit 3 and a claim
    that the warehouse could not be written."""
    from mqcap import ingest as ingest_mod

    def out_of_memory(con, landed):
        raise duckdb.OutOfMemoryException("Out of Memory Error: failed to allocate 4.0 MiB")

    monkeypatch.setattr(ingest_mod.duplicates, "describe_landed", out_of_memory)
    report = ingest_mod.ingest(settings)
    assert len(report.landed) == 20 and not report.set_aside  # the ten runs: manifest, results
    assert report.notes == [
        "the new files could not be compared with earlier ones (OutOfMemoryException: Out of "
        "Memory Error: failed to allocate 4.0 MiB); every file landed, and "
        "marts.fct_duplicate_records lists the copies"
    ]
    monkeypatch.undo()
    again = ingest_mod.ingest(settings)  # nothing to land again: the files were settled
    assert again.landed == [] and again.notes == []
