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
    assert not differ, "\n".join(differ[:5]) + f"\n({len(differ)} input(s) differ)"
