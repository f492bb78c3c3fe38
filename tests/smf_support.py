"""Shared bits of the SMF tests: fixture paths and parsed dumps (cached per test session)."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from mqcap.parsers.smf.binary import PARSER as BINARY
from mqcap.parsers.smf.csv_loader import PARSER as CSV

from helpers import FIXTURES, Parsed, parse_file

DUMPS = ("TESTCHL", "TEST115", "TEST116")
SMF = FIXTURES / "smf"
GOLDEN = FIXTURES / "golden" / "mq-smf-csv"


@cache
def decoded(dump: str) -> Parsed:
    return parse_file(BINARY, SMF / f"{dump}.dat")


def golden_files(dump: str, form: str) -> list[Path]:
    return sorted((GOLDEN / dump / form).glob("SMF-*.csv"))


@cache
def loaded(path: Path) -> Parsed:
    return parse_file(CSV, path)
