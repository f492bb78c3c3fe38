"""One SMF dump in parts (``mqcap.parsers.smf.binary.split``): the parts, each parsed on its own
from its window, give exactly the rows (every column, lineage included) and the skip counts of
the whole dump parsed at once, in every layout (RDW, BDW blocks, no RDW), with spanned records
and with storage-manager records whose statistics interval is in an earlier part. A dump that
cannot be read through is not split (its whole parse says where), nor is a gzip file.
"""

from __future__ import annotations

import gzip
import itertools
from collections import Counter
from pathlib import Path

import polars as pl
import pytest

from mqcap.errors import InputError
from mqcap.parsers.base import ParseContext
from mqcap.parsers.smf.binary import PARSER, split

from smf_support import DUMPS, decoded, mixed_records, write_layout

PART = 120_000  # bytes: the dumps below are about 2.4 MB, so about 20 parts


def _parse(path: Path, window=None) -> tuple[dict[str, pl.DataFrame], Counter]:
    ctx = ParseContext(path=path, source_file="day.dat", window=window)
    out: dict[str, list[pl.DataFrame]] = {}
    for table, rows in PARSER.parse(ctx):
        out.setdefault(table, []).append(PARSER.table(table).frame(rows))
    return {t: pl.concat(f) for t, f in out.items()}, ctx.skipped


@pytest.mark.parametrize("layout", ["rdw", "bdw", "nordw"])
def test_the_parts_of_a_dump_give_the_rows_of_the_whole(tmp_path, layout):
    dump = write_layout(tmp_path / "day.dat", mixed_records(), layout)
    parts = split(dump, "day.dat", PART)
    assert parts is not None
    size = dump.stat().st_size
    assert len(parts) == pytest.approx(size / PART, abs=3)
    # Contiguous from byte 0 to the end; record numbers carry on from part to part.
    assert parts[0].start == 0 and parts[0].before == 0 and parts[-1].end is None
    assert [p.end for p in parts[:-1]] == [p.start for p in parts[1:]]
    assert all(a.before < b.before for a, b in itertools.pairwise(parts))
    # Parts start with the intervals the records before them left (our two queue managers').
    ours = {("MPX1", "QMA"), ("MPX1", "QMB")}
    assert parts[0].state == ()
    assert all(ours <= {key for key, _ in p.state} for p in parts[1:])

    whole, skipped = _parse(dump)
    got: dict[str, list[pl.DataFrame]] = {}
    skipped_parts: Counter = Counter()
    for window in parts:
        rows, skips = _parse(dump, window)
        for table, frame in rows.items():
            got.setdefault(table, []).append(frame)
        skipped_parts.update(skips)
    assert sorted(got) == sorted(whole)
    for table, frames in got.items():
        assert pl.concat(frames).equals(whole[table], null_equal=True), table
    assert skipped_parts == skipped

    # What the whole dump holds, exactly (so the equality above is not of empty tables).
    heights = {t: f.height for t, f in whole.items()}
    assert heights["smf_qsph"] == heights["smf_qsrs"] == 6  # 3 intervals x 2 queue managers
    samples = {
        t: sum(decoded(d).tables[t].height for d in DUMPS if t in decoded(d).tables)
        for t in ("smf_qlst", "smf_qcst")
    }
    assert samples == {"smf_qlst": 17, "smf_qcst": 23}  # the sample dumps hold, once
    assert heights["smf_qlst"] == 6 + 3 * 17  # ours and three copies of the samples'
    assert heights["smf_qcst"] == 3 * 23
    # The storage-manager rows took their own queue manager's interval, megabytes before them.
    qsph = whole["smf_qsph"].sort("source_offset")
    assert qsph["qmgr"].to_list() == ["QMB", "QMA"] * 3
    assert qsph["interval_duration_us"].to_list() == [1_800_000_124, 1_800_000_123] * 3
    assert qsph["interval_start_utc"].null_count() == 0
    # ... and some of them are decoded in a part after their statistics record's part.
    stats = whole["smf_qlst"].filter(pl.col("qmgr").is_in(["QMA", "QMB"]))["source_offset"]
    starts = [p.start for p in parts]

    def part_of(offset: int) -> int:
        return max(i for i, s in enumerate(starts) if s <= offset)

    assert any(part_of(o) > part_of(s) for o, s in zip(qsph["source_offset"], stats, strict=False))


def test_a_dump_with_bad_framing_or_compressed_or_small_is_not_split(tmp_path):
    records = mixed_records(intervals=2)
    dump = write_layout(tmp_path / "day.dat", records, "rdw")
    data = dump.read_bytes()
    cut = tmp_path / "cut.dat"
    cut.write_bytes(data[: len(data) - 100])  # the last record runs past the end
    assert split(cut, "cut.dat", PART) is None
    with pytest.raises(InputError, match="runs past the end of the file"):
        _parse(cut)
    packed = tmp_path / "day.dat.gz"
    packed.write_bytes(gzip.compress(data, mtime=0))
    assert split(packed, "day.dat.gz", PART) is None  # no seeking in a gzip stream
    assert split(dump, "day.dat", len(data)) is None  # one part: nothing to split
    assert len(split(dump, "day.dat", len(data) // 2 + 1) or []) == 2


def test_bad_input_in_a_part_is_the_error_of_the_whole_dump(tmp_path):
    dump = write_layout(tmp_path / "day.dat", mixed_records(corrupt_at=2), "rdw")
    parts = split(dump, "day.dat", PART)  # the framing is sound: it splits
    assert parts is not None
    with pytest.raises(InputError) as whole:
        _parse(dump)
    errors = []
    for window in parts:
        try:
            _parse(dump, window)
        except InputError as exc:
            errors.append(exc)
    assert [(e.reason, e.position) for e in errors] == [(whole.value.reason, whole.value.position)]
    assert whole.value.reason.startswith("SMF 115.2 record ")
    assert "QLST section" in whole.value.reason and "runs past the end" in whole.value.reason
