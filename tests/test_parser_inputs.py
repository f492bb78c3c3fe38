"""What every parser reads the same way: BOMs, gzip, block descriptors, hostile sizes, hints.

Each format's real sample (the reliability suite's catalogue) is transformed (a UTF-8 BOM in
front, gzip-compressed, RDWs packed into RECFM=VB blocks) and must give exactly the rows of the
original, with lineage that refers to the content; hostile inputs (a line without end, a YAML
alias bomb) are refused fast with the file and the position.
"""

from __future__ import annotations

import gzip
import json
import time
import tracemalloc
from pathlib import Path

import duckdb
import polars as pl
import pytest

from mqcap.errors import InputError
from mqcap.ingest import ingest
from mqcap.parsers import detect, manifest, refusal_hint
from mqcap.parsers.base import MAX_LINE_BYTES, ParseContext
from mqcap.settings import Settings

from helpers import FIXTURES, parse_file
from reliability_summary import FORMATS, PROJECT

TEXT_FORMATS = [f for f in FORMATS if f != "smf_mq"]
TEST116 = FIXTURES / "smf" / "TEST116.dat"


def _parsed(path: Path, name: str) -> dict[str, pl.DataFrame]:
    parser = detect(path, name)
    assert parser is not None, f"{name} not recognised"
    return parse_file(parser, path, name).tables


def _same_tables(got: dict[str, pl.DataFrame], want: dict[str, pl.DataFrame]) -> None:
    """The same rows, lineage included. Not their order: a gzip file is read by the Python
    parser and the same text, plain, by the compiled one, and the two emit a batch's rows in
    different orders (tests/test_native*.py compare them the same way)."""
    assert sorted(got) == sorted(want)
    for table, frame in want.items():
        assert frame.height > 0
        assert got[table].height == frame.height, table
        cols = frame.columns
        assert got[table].sort(cols, nulls_last=True).equals(frame.sort(cols, nulls_last=True)), (
            table
        )


@pytest.mark.parametrize("fmt", TEXT_FORMATS)
def test_utf8_bom_changes_no_row_of_any_text_format(fmt, tmp_path):
    name, src, _ = FORMATS[fmt]
    bom = tmp_path / name
    bom.write_bytes(b"\xef\xbb\xbf" + src.read_bytes())
    _same_tables(_parsed(bom, name), _parsed(src, name))


def test_bom_keeps_the_first_rmf_interval(tmp_path):
    # A report whose title is on line 1: the BOM used to hide the first page header, and the
    # first interval (3 of 6 rows) was dropped without an error.
    src = FIXTURES / "rmf" / "WLMGL_generated_two_intervals.txt"
    bom = tmp_path / src.name
    bom.write_bytes(b"\xef\xbb\xbf" + src.read_bytes())
    got = _parsed(bom, bom.name)["rmf_workload"]
    assert got.height == 6 and got["interval_start"].n_unique() == 2
    assert got.equals(_parsed(src, src.name)["rmf_workload"])


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_gzip_input_gives_the_rows_of_its_content(fmt, tmp_path):
    name, src, _ = FORMATS[fmt]
    packed = tmp_path / (name + ".gz" if fmt != "manifest" else name)
    packed.write_bytes(gzip.compress(src.read_bytes(), mtime=0))
    # Positions (lines, byte offsets) refer to the decompressed content: identical lineage.
    _same_tables(_parsed(packed, name), _parsed(src, name))


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_damaged_gzip_is_bad_input_with_a_position(fmt, tmp_path):
    # A text format names the line the damage begins on (of the decompressed content), a binary
    # one the byte.
    name, src, _ = FORMATS[fmt]
    content = src.read_bytes()
    data = gzip.compress(content, mtime=0)
    cut = tmp_path / name
    cut.write_bytes(data[: len(data) // 2])
    parser = detect(src, name)  # half a small file may leave detection too little to see
    with pytest.raises(InputError) as err:
        parse_file(parser, cut, name)
    assert "damaged gzip data" in err.value.reason, err.value
    if fmt == "smf_mq":
        assert err.value.offset is not None and 0 < err.value.offset < len(content)
    else:
        assert err.value.line is not None and 1 <= err.value.line <= content.count(b"\n") + 1


@pytest.mark.parametrize("fmt", TEXT_FORMATS)
def test_gzip_magic_before_plain_text_is_refused_at_line_1(fmt, tmp_path):
    # Found by the fuzz test (tests/test_reliability_fuzz.py): b"\x1f\x8b" in front of an
    # mq-smf-csv file was refused "at byte 0", where a text format names a line. Detection
    # already refuses such a file; a parser named for it must still name a line.
    name, src, _ = FORMATS[fmt]
    bad = tmp_path / name
    bad.write_bytes(b"\x1f\x8b" + src.read_bytes())
    parser = detect(src, name)  # detection refuses the file; its parser is asked directly
    with pytest.raises(InputError) as err:
        parse_file(parser, bad, name)
    assert "damaged gzip data" in err.value.reason, err.value
    assert err.value.line == 1, err.value


def _to_blocks(rdw_dump: bytes, block_size: int, extended: bool) -> bytes:
    """The RDW segments of a dump packed into RECFM=VB blocks, each with its BDW."""
    segments, at = [], 0
    while at < len(rdw_dump):
        length = int.from_bytes(rdw_dump[at : at + 2], "big")
        segments.append(rdw_dump[at : at + length])
        at += length
    out, block = [], b""
    for seg in segments:
        if block and 4 + len(block) + len(seg) > block_size:
            out.append(block)
            block = b""
        block += seg
    out.append(block)
    words = [
        ((4 + len(b)) | 0x80000000).to_bytes(4, "big")
        if extended
        else (4 + len(b)).to_bytes(2, "big") + b"\0\0"
        for b in out
    ]
    return b"".join(w + b for w, b in zip(words, out, strict=True))


@pytest.mark.parametrize("extended", [False, True], ids=["bdw", "extended-bdw"])
def test_smf_dump_with_block_descriptors_reads_like_its_rdw_form(extended, tmp_path):
    data = TEST116.read_bytes()
    blocked = tmp_path / "TEST116.dat"
    # Small blocks: many BDWs, and records longer than a block get a block of their own.
    blocked.write_bytes(_to_blocks(data, 2048, extended))
    got, want = _parsed(blocked, blocked.name), _parsed(TEST116, TEST116.name)
    assert sorted(got) == sorted(want)
    for table, frame in want.items():
        assert frame.height > 0
        g = got[table]
        assert g.drop("source_offset").equals(frame.drop("source_offset")), table
        # Offsets name each record's RDW in the blocked file: same RDW bytes as the original.
        raw = blocked.read_bytes()
        for new, old in zip(g["source_offset"], frame["source_offset"], strict=True):
            assert raw[new : new + 64] == data[old : old + 64]


def test_bad_block_descriptor_names_its_offset(tmp_path):
    data = bytearray(_to_blocks(TEST116.read_bytes(), 2048, extended=False))
    second = int.from_bytes(data[0:2], "big")
    data[second + 2 : second + 4] = b"\x12\x34"  # second BDW's reserved half not zero
    bad = tmp_path / "TEST116.dat"
    bad.write_bytes(bytes(data))
    with pytest.raises(InputError) as err:
        _parsed(bad, bad.name)
    assert err.value.offset == second and "bad BDW" in err.value.reason


@pytest.mark.parametrize("fmt", ["driver_csv", "chstatus", "rmf_crypto"])
def test_line_without_end_is_refused_with_bounded_memory(fmt, tmp_path):
    # read_text_lines (CSV), the chunked reader (CHSTATUS) and the RMF reader: a file of one
    # endless line is refused at the cap, never read whole.
    name, src, _ = FORMATS[fmt]
    lines = src.read_bytes().split(b"\n")
    head = lines[: len(lines) // 2]
    path = tmp_path / name
    with open(path, "wb") as fh:
        fh.write(b"\n".join(head) + b"\n")
        for _ in range(MAX_LINE_BYTES // (1 << 20) + 4):
            fh.write(b"x" * (1 << 20))
    tracemalloc.start()
    try:
        with pytest.raises(InputError) as err:
            _parsed(path, name)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert err.value.line == len(head) + 1 and "line longer than" in err.value.reason
    assert peak < 4 * MAX_LINE_BYTES


LOL = ",".join(['"lol"'] * 9)
BOMB = (f"a: &a [{LOL}]\n" + "".join(
    f"{k}: &{k} [{','.join(['*' + p] * 9)}]\n" for p, k in zip("abcdefgh", "bcdefghi", strict=True)
)).encode()  # fmt: skip


def test_yaml_alias_bomb_is_refused_fast_with_its_line(tmp_path):
    assert len(BOMB) < 420  # the size of the reported attack
    path = tmp_path / "run.yaml"
    path.write_bytes(BOMB)
    started = time.process_time()
    with pytest.raises(InputError) as err:
        manifest.load(ParseContext(path=path, source_file="s/r/run.yaml"))
    assert time.process_time() - started < 2  # linear work, not an expansion
    assert err.value.line == 5  # e: the first list of more than 10,000 values
    assert err.value.reason.startswith("YAML aliases expand to 490,329,064 values")
    assert len(str(err.value)) < 200


def test_recursive_yaml_alias_is_refused(tmp_path):
    path = tmp_path / "run.yaml"
    path.write_bytes(b"study: s\nrun: r\nlabels: &x\n  self: *x\n")
    with pytest.raises(InputError) as err:
        manifest.load(ParseContext(path=path, source_file="run.yaml"))
    assert "refers to itself" in err.value.reason or "YAML" in err.value.reason


def test_manifest_larger_than_the_cap_is_refused_at_its_line(tmp_path):
    path = tmp_path / "run.yaml"
    path.write_bytes(b"study: s\nrun: r\n" + b"# filler\n" * 10000)
    with pytest.raises(InputError) as err:
        manifest.load(ParseContext(path=path, source_file="run.yaml"))
    assert err.value.line == 2 + (manifest.MAX_MANIFEST_BYTES - 16) // 9 + 1
    assert "not a run manifest" in err.value.reason


@pytest.mark.parametrize(
    ("content", "hint"),
    [
        (b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj", "looks like a PDF: extract its text first"),
        (gzip.compress(b"%PDF-1.4\n" + b"x" * 100), "gzip-compressed; looks like a PDF"),
        (gzip.compress(b"just some notes\n"), "gzip-compressed; the decompressed content is"),
        (b"PK\x03\x04" + b"\0" * 40, "looks like a ZIP archive"),
        ("RMF report".encode("utf-16"), "looks like UTF-16 text"),
        ("C P U  ACTIVITY REPORT".encode("cp500") * 4, "looks like EBCDIC text"),
        # A VB block whose record is no SMF record this reader knows.
        (b"\x00\x40\x00\x00\x00\x3c\x00\x00" + b"\x11" * 56, "looks like an SMF dump with block"),
    ],
    ids=["pdf", "gzip-pdf", "gzip-text", "zip", "utf16", "ebcdic", "bdw"],
)
def test_refusal_hint_names_the_likely_format(content, hint, tmp_path):
    path = tmp_path / "capture.bin"
    path.write_bytes(content)
    assert detect(path) is None
    assert refusal_hint(path).startswith(hint)


def test_plain_unknown_text_gets_no_hint(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_bytes(b"shopping list\nmilk\n")
    assert detect(path) is None and refusal_hint(path) is None


def test_ingest_sets_a_pdf_aside_with_the_hint_and_lands_gzip(tmp_path):
    raw = tmp_path / "raw"
    (raw / "loose").mkdir(parents=True)
    (raw / "loose" / "report.pdf").write_bytes(b"%PDF-1.7\n1 0 obj\n")
    _, crypto, _ = FORMATS["rmf_crypto"]
    (raw / "loose" / "crypto.txt.gz").write_bytes(gzip.compress(crypto.read_bytes(), mtime=0))
    settings = Settings.load(
        warehouse=tmp_path / "wh.duckdb", raw=raw, reports_out=tmp_path / "out",
        project_root=PROJECT,
    )  # fmt: skip
    ingest(settings)
    con = duckdb.connect(str(settings.warehouse), read_only=True)
    try:
        ledger = dict(
            con.execute("select path, status || ': ' || coalesce(reason, '') "
                        "from meta.ingest_ledger").fetchall()
        )  # fmt: skip
        rows = con.execute("select count(*) from landing.rmf_crypto").fetchone()[0]
    finally:
        con.close()
    assert (
        ledger["loose/report.pdf"].startswith(
            "set_aside: unrecognised format (looks like a PDF: extract its text first"
        )
        or "looks like a PDF" in ledger["loose/report.pdf"]
    )
    assert ledger["loose/crypto.txt.gz"].startswith("loaded")
    assert rows == _parsed(crypto, crypto.name)["rmf_crypto"].height


def test_csv_quoted_line_end_stays_in_its_field_and_lines_stay_true(tmp_path):
    path = tmp_path / "results.csv"
    path.write_text(
        "rate_per_s,round_trip_us,comment\n"
        '100.5,900,"first line\nsecond line"\n'
        "# a comment\n"
        '200,800,"a;b=c, ""quoted"""\n'
    )
    rows = _parsed(path, path.name)["driver_results"]
    assert rows["source_line"].to_list() == [2, 5]
    assert [json.loads(e) for e in rows["extra"]] == [
        {"comment": "first line\nsecond line"},
        {"comment": 'a;b=c, "quoted"'},
    ]


def test_csv_error_names_the_line_the_reader_reached(tmp_path):
    path = tmp_path / "results.csv"
    path.write_text("rate_per_s,round_trip_us\n1,2\n3,4\n5,6\r7\n")
    with pytest.raises(InputError) as err:
        _parsed(path, path.name)
    assert err.value.line == 4 and "not a valid CSV line" in err.value.reason
