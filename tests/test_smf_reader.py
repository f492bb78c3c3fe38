"""The SMF reader: RDW and NORDW dumps, spanned records, skipped records, bad input."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

from mqcap.errors import InputError
from mqcap.parsers import detect
from mqcap.parsers.base import ParseContext
from mqcap.parsers.smf.binary import PARSER
from mqcap.parsers.smf.reader import read_records

from helpers import parse_file
from smf_support import SMF, decoded

TESTCHL = (SMF / "TESTCHL.dat").read_bytes()


def segments(data: bytes) -> list[tuple[int, int, int]]:
    """(offset, length, segment flag) of every RDW segment."""
    out, off = [], 0
    while off < len(data):
        length, seg = struct.unpack_from(">HH", data, off)
        out.append((off, length, seg >> 8))
        off += length
    return out


def records(path: Path) -> list:
    return list(read_records(ParseContext(path=path, source_file=path.name)))


def write(tmp_path: Path, data: bytes, name: str = "dump.dat") -> Path:
    p = tmp_path / name
    p.write_bytes(data)
    return p


def test_spanned_records_are_reassembled_and_counted_once():
    segs = segments(TESTCHL)
    firsts = [s for s in segs if s[2] == 1]
    recs = records(SMF / "TESTCHL.dat")
    assert len(firsts) == 28
    assert len(recs) == len(segs) - len(firsts)  # a first+last pair is one record
    spanned = {r.offset: r for r in recs if r.offset in {f[0] for f in firsts}}
    assert len(spanned) == 28
    assert all(len(r.data) > 32760 - 4 or len(r.data) > 0 for r in spanned.values())
    assert [r.number for r in recs] == list(range(1, len(recs) + 1))


def test_dump_header_and_trailer_are_skipped_and_counted():
    parsed = decoded("TESTCHL")
    assert parsed.ctx.skipped == {"SMF type 2 record": 1, "SMF type 3 record": 1}


def test_lineage_names_file_offset_and_record_of_every_row():
    qcst = decoded("TESTCHL")["smf_qcst"]
    first = qcst.row(0, named=True)
    assert first["source_file"] == "TESTCHL.dat"
    assert first["source_offset"] == 131206
    assert TESTCHL[first["source_offset"] + 5] == 116
    assert qcst["source_record"].is_sorted()


def test_nordw_dump_decodes_to_the_same_rows(tmp_path):
    nordw = b"".join(r.data for r in records(SMF / "TESTCHL.dat"))
    path = write(tmp_path, nordw, "TESTCHL.dat")
    assert detect(path) is PARSER
    a, b = decoded("TESTCHL"), parse_file(PARSER, path)
    assert set(a.tables) == set(b.tables)
    for t in a.tables:
        assert a[t].drop("source_offset").equals(b[t].drop("source_offset")), t


def test_progress_is_reported_up_to_the_file_size():
    seen = []
    ctx = ParseContext(path=SMF / "TESTCHL.dat", source_file="x", on_progress=seen.append)
    list(PARSER.parse(ctx))
    assert seen and seen[-1] == len(TESTCHL)


def test_truncated_record_names_its_offset(tmp_path):
    # Cut the last record's RDW length so its triplets point past the end of its data.
    off, length, _ = segments(TESTCHL)[-2]
    data = bytearray(TESTCHL[: off + length])
    struct.pack_into(">H", data, off, 200)
    data = bytes(data[: off + 200])
    with pytest.raises(InputError) as exc:
        parse_file(PARSER, write(tmp_path, data))
    assert exc.value.offset == off
    assert f"at byte {off}" in str(exc.value) and "truncated record" in str(exc.value)


def test_rdw_length_past_end_of_file_names_its_offset(tmp_path):
    off, length, _ = segments(TESTCHL)[5]
    with pytest.raises(InputError) as exc:
        parse_file(PARSER, write(tmp_path, TESTCHL[: off + length - 10]))
    assert exc.value.offset == off
    assert "past the end of the file" in str(exc.value)


def test_last_segment_without_first_is_inconsistent(tmp_path):
    first = next(s for s in segments(TESTCHL) if s[2] == 1)
    data = TESTCHL[: first[0]] + TESTCHL[first[0] + first[1] :]  # drop a first segment
    with pytest.raises(InputError) as exc:
        parse_file(PARSER, write(tmp_path, data))
    assert exc.value.offset == first[0]
    assert "inconsistent segment flags" in str(exc.value)


def test_new_record_inside_a_spanned_record_is_inconsistent(tmp_path):
    segs = segments(TESTCHL)
    i = next(k for k, s in enumerate(segs) if s[2] == 1)
    last = segs[i + 1]
    data = TESTCHL[: last[0]] + TESTCHL[last[0] + last[1] :]  # drop its last segment
    with pytest.raises(InputError) as exc:
        parse_file(PARSER, write(tmp_path, data))
    assert exc.value.offset == last[0]
    assert "inconsistent segment flags" in str(exc.value)


def test_zero_length_file_is_an_error_at_byte_0(tmp_path):
    with pytest.raises(InputError) as exc:
        parse_file(PARSER, write(tmp_path, b""))
    assert exc.value.offset == 0 and "empty" in str(exc.value)


def test_text_file_named_dat_is_not_an_smf_dump(tmp_path):
    path = write(tmp_path, b"Date,Time,LPAR\nhello world\n", "notes.dat")
    assert detect(path) is not PARSER
    with pytest.raises(InputError) as exc:
        parse_file(PARSER, path)
    assert exc.value.offset == 0 and "not an SMF dump" in str(exc.value)


def test_unknown_record_types_are_skipped_not_fatal(tmp_path):
    rec = bytearray(TESTCHL[:18])  # the type 2 dump header, RDW included
    rec[5] = 30  # an SMF 30 record of the same size
    data = bytes(rec) + TESTCHL[18:]
    parsed = parse_file(PARSER, write(tmp_path, data))
    assert parsed.ctx.skipped["SMF type 30 record"] == 1
    assert parsed["smf_qcst"].height == 23
