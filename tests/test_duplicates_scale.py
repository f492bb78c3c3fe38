"""Finding the records a drop repeats (``mqcap.duplicates.copies_in_files``) after a large drop.

The bench's 2 GB study (64,640 files landed in one ingest) ran out of ingest's 512 MB here,
after every file had landed (the CHSTATUS blocks' texts are built for the whole table at once).
Ingest then says so in a note and goes on: the files have landed.
"""

from __future__ import annotations

import duckdb


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
