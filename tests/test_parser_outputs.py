"""The text and SMF parsers give the rows, lineage, counters and errors they gave before they
were made fast: every input of the corpus (tests/parser_corpus.py: fixtures, variants of each,
benchmark generators, generated studies, damaged dumps) against the committed fingerprints."""

from __future__ import annotations

import json

import pytest
from parser_corpus import GOLDEN, PARSERS, cases, fingerprint

WANT: dict[str, dict] = json.loads(GOLDEN.read_text())


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    work = tmp_path_factory.mktemp("corpus")
    return {name: (kind, path) for name, kind, path in cases(work)}


def test_corpus_is_the_one_fingerprinted(corpus):
    assert sorted(corpus) == sorted(WANT)
    kinds = {name.split("/")[0] for name in corpus}
    assert kinds == set(PARSERS)
    # Errors and counters are part of what is compared: the corpus has both.
    assert sum("error" in v for v in WANT.values()) >= 10
    assert sum(bool(v["unknown"]) for v in WANT.values()) >= 20


@pytest.mark.parametrize("kind", sorted(PARSERS))
def test_every_input_gives_the_fingerprinted_output(corpus, kind):
    differ = []
    for name, (k, path) in sorted(corpus.items()):
        if k != kind:
            continue
        got = fingerprint(PARSERS[k], path, path.name)
        if got != WANT[name]:
            differ.append(f"{name}: got {got}, want {WANT[name]}")
    assert not differ, (
        "\n".join(differ[:5]) + f"\n({len(differ)} input(s) differ; when only generated/ inputs"
        " differ, check whether `mqcap generate` changed its output before blaming the parser)"
    )


def _lines_both_ways(path, chunk: int, encoding: str) -> tuple[list, list]:
    """(lines or error) of read_text_lines and of the chunked reader of the encoding's parsers
    (latin-1: _rmf.line_chunks; utf-8: _kv.iter_line_chunks) for one file."""
    from mqcap.errors import InputError
    from mqcap.parsers import _kv, _rmf
    from mqcap.parsers.base import ParseContext, read_text_lines

    chunks = _rmf.line_chunks if encoding == "latin-1" else _kv.iter_line_chunks
    out = []
    for reader in (
        lambda ctx: ((n, t) for n, t in read_text_lines(ctx, encoding=encoding)),
        lambda ctx: (
            (n, t.rstrip("\r"))
            for first, lines in chunks(ctx, chunk)
            for n, t in enumerate(lines, first)
        ),
    ):
        ctx = ParseContext(path=path, source_file=path.name)
        try:
            out.append(list(reader(ctx)))
        except InputError as exc:
            out.append([str(exc)])
    return out[0], out[1]


@pytest.mark.parametrize("encoding", ["latin-1", "utf-8"])
@pytest.mark.parametrize("chunk", [3, 5, 16, 64, 1000])
def test_chunked_lines_equal_line_by_line_reading(tmp_path, monkeypatch, chunk, encoding):
    # The RMF (latin-1) and capture (utf-8) parsers read chunks, split at once; the lines,
    # their numbers and the refusals (NUL byte, a line over the cap, counted with a BOM on
    # line 1) must be those of read_text_lines at every chunk size, the cap lowered to 40
    # bytes to reach it. (Bad UTF-8 is left out: the capture reader words its message
    # differently.)
    import random

    from mqcap.parsers import base

    monkeypatch.setattr(base, "MAX_LINE_BYTES", 40)
    rng = random.Random(chunk)
    inputs = [
        b"",
        b"\n",
        b"one line no end",
        b"\xef\xbb\xbf" + b"x" * 36 + b"\n",  # 40 bytes with the BOM and the line end: kept
        b"\xef\xbb\xbf" + b"x" * 37 + b"\n",  # 41: refused on line 1
        b"a\r\nb\r\n\r\nt\xc3\xa9t\xc3\xa9\r\n",
        b"ok\n" + b"y" * 39 + b"\nnext\n",  # exactly the cap with its line end
        b"ok\n" + b"y" * 40 + b"\nnext\n",  # one over
        b"ok\nok\n" + b"z" * 50,  # no line end, over the cap
        b"ok\nbad \x00 here\nmore\n",
        b"x" * 39,
    ]
    for _ in range(40):
        lines = [
            bytes(rng.choice(b"ab \r\t") for _ in range(rng.choice([0, 1, 5, 20, 38, 39, 45])))
            for _ in range(rng.randint(1, 12))
        ]
        inputs.append(b"\n".join(lines) + rng.choice([b"", b"\n", b"\r\n"]))
    for i, data in enumerate(inputs):
        path = tmp_path / f"in{i}.txt"
        path.write_bytes(data)
        want, got = _lines_both_ways(path, chunk, encoding)
        assert got == want, (data, got, want)


def test_smf_pending_budget_flushes_without_changing_rows(tmp_path, monkeypatch):
    # All pending SMF batches share one budget of values (memory flat in the dump size); a
    # small budget makes many more, smaller batches of exactly the same rows.
    from mqcap.parsers.base import ParseContext
    from mqcap.parsers.smf import binary

    from helpers import FIXTURES

    dump = tmp_path / "three.dat"
    dump.write_bytes(b"".join((FIXTURES / "smf" / f).read_bytes() for f in ("TESTCHL.dat",) * 3))

    def batches() -> list[tuple[str, int]]:
        ctx = ParseContext(path=dump, source_file=dump.name)
        return [(t, len(b)) for t, b in binary.PARSER.parse(ctx)]

    default = batches()
    want = fingerprint(binary.PARSER, dump, dump.name)
    monkeypatch.setattr(binary, "PENDING_CELLS", 5_000)
    small = batches()
    assert len(small) > 2 * len(default)
    widest = max(binary.WIDTH[t] for t, _ in small)
    assert all(n * binary.WIDTH[t] <= 5_000 + 40 * widest for t, n in small)
    assert fingerprint(binary.PARSER, dump, dump.name) == want
