"""Progress output: piped lines are whole (never cut inside a word); the terminal bar's short
detail is cut between words."""

from __future__ import annotations

import io

import pytest

from mqcap.errors import UsageError
from mqcap.progress import PlainProgress, make_progress, plain_every_s, shorten

DBT_LINE = "17:02:11  12 of 68 OK created sql view model staging.stg_driver__results_cphtestp"


def test_piped_lines_carry_the_whole_detail():
    out = io.StringIO()
    p = PlainProgress(out, every_s=0)
    p.start("dbt build", unit="nodes")
    p.advance(1, DBT_LINE)
    p.advance(1, "attls/ssl-chacha-2k/a file  with\tspaces.csv")
    lines = out.getvalue().splitlines()
    assert lines == [
        "dbt build...",
        "  dbt build: 1 nodes (" + " ".join(DBT_LINE.split()) + ")",
        "  dbt build: 2 nodes (attls/ssl-chacha-2k/a file with spaces.csv)",
    ]


@pytest.mark.parametrize("width", range(5, 90, 7))
def test_shortened_detail_is_made_of_whole_words(width):
    short = shorten(DBT_LINE, width)
    words = DBT_LINE.split()
    kept = short.removeprefix("… ").split(" ")
    assert kept == words[len(words) - len(kept) :]  # a tail of whole words
    assert len(short) <= width or kept == [words[-1]]  # a single too-long word stays whole


def test_short_text_is_unchanged():
    assert shorten("ingest a.csv", 40) == "ingest a.csv"


def test_progress_interval_comes_from_the_environment(monkeypatch, capsys):
    monkeypatch.setattr("sys.stderr.isatty", lambda: False, raising=False)
    monkeypatch.delenv("MQCAP_PROGRESS_EVERY_S", raising=False)
    assert plain_every_s() == 5.0
    monkeypatch.setenv("MQCAP_PROGRESS_EVERY_S", "0")
    assert plain_every_s() == 0.0
    with make_progress() as p:
        p.start("ingest", total=3, unit="files")
        for name in ("a.csv", "b.csv", "c.csv"):
            p.advance(1, name)
    assert capsys.readouterr().err.splitlines() == [
        "ingest... (3 files)",
        "  ingest: 1 of 3 files (a.csv)",
        "  ingest: 2 of 3 files (b.csv)",
        "  ingest: 3 of 3 files (c.csv)",
    ]


@pytest.mark.parametrize("bad", ["soon", "-1"])
def test_a_bad_progress_interval_is_named(monkeypatch, bad):
    monkeypatch.setenv("MQCAP_PROGRESS_EVERY_S", bad)
    with pytest.raises(UsageError, match="MQCAP_PROGRESS_EVERY_S"):
        plain_every_s()


def test_dbt_node_lines_give_the_total_and_a_short_detail():
    from mqcap.build import dbt_node_line

    out = io.StringIO()
    p = PlainProgress(out, every_s=0)
    p.start("dbt build", unit="nodes")
    for line in (
        "17:02:10  Concurrency: 2 threads (target='dev')",
        DBT_LINE + " ........ [OK in 0.05s]",
        "17:02:12  13 of 68 PASS not_null_dim_run_run_key .......... [PASS in 0.02s]",
        "17:02:13  14 of 68 ERROR creating sql table model marts.fct_fit ... [ERROR in 0.3s]",
    ):
        node = dbt_node_line(line)
        if node is not None:
            p.set_total(node[0])
            p.advance(1, node[1])
    assert out.getvalue().splitlines() == [
        "dbt build...",
        "  dbt build: 1 of 68 nodes (staging.stg_driver__results_cphtestp OK)",
        "  dbt build: 2 of 68 nodes (not_null_dim_run_run_key PASS)",
        "  dbt build: 3 of 68 nodes (marts.fct_fit ERROR)",
    ]
