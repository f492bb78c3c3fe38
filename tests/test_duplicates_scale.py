"""Finding the records a drop repeats (``mqcap.duplicates.copies_in_files``) within ingest's
memory limit, however large the drop, and exactly.

The bench's 2 GB study (64,640 files landed in one ingest) ran out of ingest's 512 MB here,
after every file had landed: the CHSTATUS blocks' texts were built for the whole table at
once. A CHSTATUS landing of 1.7 M attribute rows (72,252 blocks) under 64 MB stands in for it:
the old query (every unit compared) fails at this size and limit (it fits in 512 MB, not in
256 MB); the copies dropped into it are found exactly. The hashes first only choose which
units to compare: what is found must be what comparing every unit finds (``prefilter=False``),
checked on invented drops (copies whole, cut, changed) of real captures, dumps and polls, and
on landed rows built to be awkward.
"""

from __future__ import annotations

import shutil
from datetime import datetime
from pathlib import Path

import duckdb
import pytest

from mqcap import duplicates
from mqcap.ingest import FileOutcome, ingest
from mqcap.ledger import schema
from mqcap.parsers.smf.binary import PARSER as SMF_PARSER
from mqcap.progress import Progress

from helpers import FIXTURES, PROJECT, parse_file

FILES = 300  # files of one CHSTATUS capture each
SNAPSHOTS, BLOCKS, PAIRS = 20, 12, 24  # per file; 5,760 attribute rows a file


@pytest.fixture
def landing(tmp_path):
    con = duckdb.connect(str(tmp_path / "warehouse.duckdb"))
    schema.ensure(con)
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
    files = {f: tables for f in range(1, FILES + 3)}
    found = duplicates.copies_in_files(landing, files)
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
    # Comparing every unit (every block's text built at once) does not fit in this limit.
    with pytest.raises(duckdb.OutOfMemoryException):
        duplicates.copies_in_files(landing, files, prefilter=False)


class Recorder(Progress):
    def __init__(self) -> None:
        self.lines: list[str] = []

    def log(self, message: str) -> None:
        self.lines.append(message)


SAMPLE = PROJECT / "data" / "sample"
CHSTATUS = SAMPLE / "streaming" / "tls12-64k" / "chstatus.txt"  # 6 snapshots of 2 blocks
ORIGINALS = {  # name under orig/ -> origin: every source with an identity that ingest describes
    "chstatus.txt": CHSTATUS,
    "chstatus-b.txt": SAMPLE / "attls" / "attls-chacha-16k" / "chstatus.txt",
    "netstat.txt": SAMPLE / "attls" / "attls-chacha-16k" / "netstat.txt",
    "rmf_workload.txt": SAMPLE / "attls" / "attls-chacha-16k" / "rmf_workload.txt",
    "mqsmf.bin": SAMPLE / "attls" / "attls-chacha-16k" / "mqsmf.bin",
    "TESTCHL.dat": FIXTURES / "smf" / "TESTCHL.dat",
    "ascpu.csv": FIXTURES / "ascpu" / "ascpu_intervals.csv",
}

MANIFEST = """\
study: dup
run: r1
configuration: TLS 1.2
interval: {start: 2026-02-10T09:10:05, end: 2026-02-10T09:12:05}
system: MPX2
qmgr: QMS1
workload: {type: streaming, message_bytes: 65536, persistence: nonpersistent, threads: 1}
transactions: 477600
jobs: {QMS1MSTR: MSTR, QMS1CHIN: CHIN, TCPIP: TCPIP}
"""


def _drops(orig: Path) -> dict[str, bytes]:
    """Invented drops of the originals: whole copies, heads cut at several byte offsets (inside
    a line, a block), tails, a value changed, lines swapped within a block; an SMF dump cut at
    record boundaries (cut inside a record, it is set aside)."""
    data = {name: (orig / name).read_bytes() for name in ORIGINALS}
    cap = data["chstatus.txt"]
    lines = cap.splitlines(keepends=True)
    drops = {f"copy-{name}": body for name, body in data.items()}
    for n in (400, 700, 1500, 2600, 5000):  # 1500: the cut after the first block
        drops[f"chstatus-head{n}.txt"] = cap[:n]
    drops["chstatus-b-head3000.txt"] = data["chstatus-b.txt"][:3000]
    drops["chstatus-tail-snapshots.txt"] = b"".join(lines[44:])  # from the 2nd snapshot on
    drops["chstatus-tail-bytes.txt"] = cap[-1500:]  # inside a block, no time stamp before it
    drops["chstatus-changed.txt"] = cap.replace(b"MSGS(39800)", b"MSGS(39801)", 1)
    # the same KEY(value)s in another order: another text, although the same parts
    drops["chstatus-swapped.txt"] = b"".join([*lines[:8], lines[9], lines[8], *lines[10:]])
    drops["netstat-head.txt"] = data["netstat.txt"][:10000]
    # another foreign socket in the first poll: another connection (a counter is no identity)
    drops["netstat-changed.txt"] = data["netstat.txt"].replace(
        b"10.1.1.2..1414", b"10.1.1.2..1415", 1
    )
    drops["rmf-head.txt"] = data["rmf_workload.txt"][:7000]
    parsed = parse_file(SMF_PARSER, orig / "TESTCHL.dat")
    offsets = sorted({o for f in parsed.tables.values() for o in f["source_offset"].to_list()})
    third = len(offsets) // 3
    drops["TESTCHL-head.dat"] = data["TESTCHL.dat"][: offsets[third]]
    drops["TESTCHL-tail.dat"] = data["TESTCHL.dat"][offsets[2 * third] :]  # other offsets
    drops["ascpu-changed.csv"] = data["ascpu.csv"].replace(b"41.532", b"41.533")
    return drops


def _sentences(
    con: duckdb.DuckDBPyConnection, landed: list[FileOutcome], prefilter: bool
) -> list[str]:
    outcomes = {o.file_id: o for o in landed}
    found = duplicates.copies_in_files(
        con, {f: o.tables for f, o in outcomes.items()}, prefilter=prefilter
    )
    return [found[f].sentence(outcomes[f].path) for f in sorted(found)]


def test_the_prefilter_finds_what_comparing_every_unit_finds(settings):
    """Ingest's notes (hashes first) equal those of the exact comparison of every unit, for
    drops of many kinds at once, whatever DuckDB's thread count; among them the CHSTATUS
    capture cut after its first block beside the whole one, which the first prefilter missed."""
    orig = settings.raw_root / "orig"
    orig.mkdir()
    for name, origin in ORIGINALS.items():
        shutil.copy(origin, orig / name)
    # a run folder: the same bytes outside it are another run's, landed (not set aside)
    (orig / "run.yaml").write_text(MANIFEST)
    first = ingest(settings)
    assert first.set_aside == []
    drop = settings.raw_root / "drop"
    drop.mkdir()
    drops = _drops(orig)
    for name, body in drops.items():
        (drop / name).write_bytes(body)
    said = Recorder()
    report = ingest(settings, progress=said)
    assert report.set_aside == []
    landed = [o for o in report.landed if o.file_id is not None]
    assert len(landed) == len(drops)
    notes = [line for line in said.lines if "already loaded from" in line]

    # Whatever DuckDB's thread count, and as if both drops had landed in one ingest (every
    # file new: the originals repeat nothing), with the hashes first or every unit compared.
    everything = [o for o in first.landed if o.file_id is not None] + landed
    con = duckdb.connect(str(settings.warehouse))
    try:
        for threads in (1, 2, 8):
            con.execute(f"set threads = {threads}")
            for prefilter in (True, False):
                assert _sentences(con, landed, prefilter) == notes, (threads, prefilter)
                assert _sentences(con, everything, prefilter) == notes, (threads, prefilter)
        _assert_unit_texts_are_their_own(con)
    finally:
        con.close()

    by_file = dict(line.split(": ", 1) for line in notes)
    # The capture cut after its first block: its snapshot (cut short) and the second block's
    # first line are no copies, the first block is.
    assert by_file["drop/chstatus-head1500.txt"] == (
        "1 of 3 records already loaded from orig/chstatus.txt (first at line 8); they count once"
    )
    for name in ORIGINALS:  # every whole copy, all of its records
        n = by_file[f"drop/copy-{name}"].split(" ", 1)[0]
        assert by_file[f"drop/copy-{name}"].startswith(f"{n} of {n} records already loaded ")
    # One value changed, or two lines of a block swapped: that block and its snapshot count,
    # the other 11 blocks and 5 snapshots do not.
    assert by_file["drop/chstatus-changed.txt"].startswith("16 of 18 records already loaded ")
    assert by_file["drop/chstatus-swapped.txt"].startswith("16 of 18 records already loaded ")
    assert by_file["drop/chstatus-tail-snapshots.txt"].startswith("15 of 15 records ")
    assert by_file["drop/netstat-changed.txt"].startswith("29 of 30 records already loaded ")
    assert by_file["drop/ascpu-changed.csv"].startswith("4 of 5 records already loaded ")
    assert "drop/chstatus-tail-bytes.txt" not in by_file  # no time before it: no identity


def _assert_unit_texts_are_their_own(con: duckdb.DuckDBPyConnection) -> None:
    """A CHSTATUS unit's text depends on the unit alone, not on which files the query reads
    nor on the thread count (ordered by pair_no alone, the tied parts came in read order)."""
    ids = [
        f
        for (f,) in con.execute(
            "select distinct file_id from landing.chstatus_attr order by 1"
        ).fetchall()
    ]
    wheres = [
        "true",
        f"file_id < {ids[-1]}",
        f"file_id in ({ids[-1]}, {ids[0]})",
        f"file_id in ({', '.join(map(str, ids[:3]))})",
        f"file_id in ({', '.join(map(str, ids[1::2]))})",
        *(f"file_id = {f}" for f in ids),
    ]
    for name, content in duplicates.CONTENT_COLUMN.items():
        table = duplicates.identity_tables()[name]
        texts: dict[tuple[int, str], str] = {}
        for threads in (1, 2, 8):
            con.execute(f"set threads = {threads}")
            for where in wheres:
                sql = f"select file_id, pos, {content} from ({duplicates._units(table, where)})"
                for file_id, pos, text in con.execute(sql).fetchall():
                    assert texts.setdefault((file_id, pos), text) == text, (name, file_id, pos)
        assert texts, name


def _block(file_id: int, parts: list[tuple[int, int, str | None, str | None]], block_no=1):
    """Rows of one CHSTATUS block (channel CH1 at a fixed time): (line, pair_no, key, value)."""
    return [
        (file_id, f"f{file_id}.txt", line, 1, datetime(2026, 1, 1), block_no, "CH1", pair, k, v)
        for line, pair, k, v in parts
    ]


def test_equal_texts_are_found_however_their_parts_split(tmp_path):
    """A block is a copy when its text is (its ``KEY(value)`` parts in printed order): equal
    texts from parts that split differently (a value holding ``) K2(``, a blank), NULL and ''
    values, and ties of pair_no across lines; the same parts in another order are no copy."""
    con = duckdb.connect(str(tmp_path / "warehouse.duckdb"))
    schema.ensure(con)
    first = [(10, 1, "K1", "a"), (10, 2, "K2", "b"), (11, 1, "K3", "x y"), (11, 2, "K4", None)]
    rows = [
        *_block(1, first),
        *_block(1, [(20, 1, None, "orphan")], block_no=2),  # no part: text NULL
        # the text "K1(a) K2(b) K3(x y) K4()" from other parts: one value holds ") K2(b"
        *_block(2, [(3, 1, "K1", "a) K2(b"), (4, 1, "K3", "x y"), (4, 2, "K4", "")]),
        *_block(3, [(5, 1, "K2", "b"), (5, 2, "K1", "a"), (6, 1, "K3", "x y"), (6, 2, "K4", "")]),
        *_block(4, [(7, 1, None, None)], block_no=5),  # text NULL again
        *_block(
            5, [(30, 1, "K1", "a"), (30, 2, "K2", "b"), (31, 1, "K3", "x y"), (31, 2, "K4", "")]
        ),
    ]
    con.executemany(
        """insert into landing.chstatus_attr (file_id, source_file, source_line, snapshot_no,
               snapshot_time, block_no, channel, pair_no, key, value)
           values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
        rows,
    )
    files = {f: ["chstatus_attr"] for f in range(1, 6)}
    try:
        for threads in (1, 4):
            con.execute(f"set threads = {threads}")
            found = duplicates.copies_in_files(con, files)
            assert found == duplicates.copies_in_files(con, files, prefilter=False)
            assert {f: (c.records, c.copies, c.first_files) for f, c in found.items()} == {
                2: (1, 1, (("f1.txt", "line 10"),)),
                4: (1, 1, (("f1.txt", "line 20"),)),
                5: (1, 1, (("f1.txt", "line 10"),)),
            }
    finally:
        con.close()


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
