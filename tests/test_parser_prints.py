"""Landing rows are up to date with the parser code, not only with the raw bytes (README
"Reliability": state is computed, never assumed).

The ledger keeps, per file, the print of the parser code that read it
(``codeprint.parser_print``: the parser's module, every mqcap module it imports, the compiled
library, polars' version). A file whose print is not its parser's print now is read again by
the next ingest: its rows are replaced (or withdrawn, when the same bytes are now refused), and
only the files of the parser that changed are read. A warehouse of an mqcap that kept no prints
has its files read again once.
"""

from __future__ import annotations

import dataclasses
import shutil

import mqcap.parsers
from mqcap.ingest import ingest
from mqcap.ledger import codeprint, schema
from mqcap.parsers import driver_csv

from helpers import query

DRIVER = "mqcap.parsers.driver_csv"


def _driver_rows(settings) -> list[tuple]:
    return query(
        settings,
        """select source_file, source_line, rate_per_s, round_trip_us, threads
           from landing.driver_results order by all""",
    )


def _changed(monkeypatch, module: str, tag: str = "changed") -> None:
    """The code of ``module``'s parser is other than what read the files (as after an upgrade)."""
    real = codeprint.parser_print

    def parser_print(name: str) -> str:
        printed = real(name)
        return f"{printed}-{tag}" if name == module else printed

    monkeypatch.setattr(codeprint, "parser_print", parser_print)


def test_prints_follow_the_code_each_parser_imports(tmp_path, monkeypatch):
    copy = tmp_path / "mqcap"
    shutil.copytree(
        codeprint.package_root(), copy, ignore=shutil.ignore_patterns("__pycache__", "_lib")
    )
    monkeypatch.setattr(codeprint, "package_root", lambda: copy)
    names = [DRIVER, "mqcap.parsers.chstatus", "mqcap.parsers.netstat", "mqcap.parsers.smf.binary"]

    def prints() -> dict[str, str]:
        # (read once per process, as the code a process runs is the code it loaded)
        for cached in (codeprint.parser_print, codeprint._source, codeprint._source_bytes):
            cached.cache_clear()
        return {n: codeprint.parser_print(n) for n in names}

    try:
        before = prints()
        assert all(p.startswith(f"{n}@") and len(p) == len(n) + 33 for n, p in before.items())
        assert prints() == before  # the same code, the same print
        # _kv (time stamps) is imported by the CHSTATUS and NETSTAT parsers, not the others
        kv = copy / "parsers" / "_kv.py"
        kv.write_bytes(kv.read_bytes() + b"\n# changed\n")
        after = prints()
        assert {n for n in names if after[n] != before[n]} == {
            "mqcap.parsers.chstatus",
            "mqcap.parsers.netstat",
        }
        # mqcap's plumbing (settings' defaults, the environment variables, the error classes) is
        # no parser's: changed, it reads no file again
        for name in codeprint.PARSER_PLUMBING:
            plumbing = copy / name
            plumbing.write_bytes(plumbing.read_bytes() + b"\n# changed\n")
        assert prints() == after
        # the compiled parsers' library is the print of the parsers that can use it
        lib = tmp_path / "libmqcap_native.so"
        lib.write_bytes(b"one build")
        monkeypatch.setenv("MQCAP_NATIVE_LIB", str(lib))
        one = prints()
        lib.write_bytes(b"another build")
        another = prints()
        assert {n for n in names if one[n] != another[n]} == {
            "mqcap.parsers.chstatus",
            "mqcap.parsers.netstat",
            "mqcap.parsers.smf.binary",  # (SMF 70/72 reach the RMF parsers, which use it)
        }
        monkeypatch.delenv("MQCAP_NATIVE_LIB")
        assert prints() == after
        # base.py is every parser's
        base = copy / "parsers" / "base.py"
        base.write_bytes(base.read_bytes() + b"\n# changed\n")
        assert all(prints()[n] != after[n] for n in names)
        # a module that is gone prints as nothing
        assert codeprint.parser_print("mqcap.parsers.gone").endswith(
            "@e3b0c44298fc1c149afbf4c8996fb924"
        )
    finally:
        codeprint.parser_print.cache_clear()
        codeprint._source.cache_clear()
        codeprint._source_bytes.cache_clear()


def test_a_stored_print_is_current_only_when_it_is_the_parsers_print_now():
    now = codeprint.parser_print(DRIVER)
    assert codeprint.print_is_current(now)
    assert not codeprint.print_is_current(now[:-1] + ("0" if now[-1] != "0" else "1"))
    assert not codeprint.print_is_current(None)  # landed by an mqcap that kept no prints
    assert not codeprint.print_is_current("mqcap.parsers.gone@" + now.partition("@")[2])


def test_a_changed_parser_reads_its_files_again_and_only_them(settings, sample_study, monkeypatch):
    first = ingest(settings)
    assert len(first.landed) == 20
    rows = _driver_rows(settings)
    assert len(rows) == 10
    stored = query(
        settings, "select distinct parser_print from meta.ingest_ledger where kind = 'driver_csv'"
    )
    assert stored == [(codeprint.parser_print(DRIVER),)]

    _changed(monkeypatch, DRIVER)
    again = ingest(settings)
    # the ten results files, read again and replaced; the ten manifests left as they are
    assert sorted((o.status, o.kind) for o in again.landed) == [("replaced", "driver_csv")] * 10
    assert len(again.by_status("unchanged")) == 10
    assert any("10 file(s) read again" in n for n in again.notes), again.notes
    assert _driver_rows(settings) == rows  # the same rows, once (not twice)
    assert query(
        settings,
        """select status, count(*) from meta.ingest_ledger where kind = 'driver_csv'
           group by all order by all""",
    ) == [("loaded", 10), ("replaced", 10)]
    assert query(
        settings,
        "select distinct parser_print from meta.ingest_ledger "
        "where kind = 'driver_csv' and status = 'loaded'",
    ) == [(codeprint.parser_print(DRIVER),)]

    # read once: the next ingest has nothing to do
    third = ingest(settings)
    assert third.landed == [] and len(third.by_status("unchanged")) == 20
    assert not any("read again" in n for n in third.notes)


def test_a_warehouse_of_an_mqcap_without_prints_has_its_files_read_again_once(
    settings, sample_study
):
    ingest(settings)
    rows = _driver_rows(settings)
    with_prints = query(settings, "select count(*) from meta.ingest_ledger")
    import duckdb

    with duckdb.connect(str(settings.warehouse)) as con:
        # as an mqcap before migration 5 left it: no column, the version before
        con.execute("alter table meta.ingest_ledger drop column parser_print")
        con.execute(f"update {schema.VERSION} set version = 4")
    again = ingest(settings)
    assert len(again.landed) == 20 and {o.status for o in again.landed} == {"replaced"}
    assert _driver_rows(settings) == rows
    assert query(settings, "select count(*) from meta.ingest_ledger") == [(with_prints[0][0] + 20,)]
    assert ingest(settings).landed == []


def test_bytes_now_refused_take_their_old_rows_out_of_landing(settings, sample_study, monkeypatch):
    settings = settings.with_(jobs=1)  # (the parser below is this process's)
    ingest(settings)
    run = "attls-chacha-2k"
    rel = f"attls/{run}/results.csv"
    assert query(
        settings, "select count(*) from landing.driver_results where source_file = ?", [rel]
    ) == [(1,)]

    # This mqcap's driver CSV parser refuses the file that older code landed.
    def parse(ctx):
        if ctx.source_file == rel:
            raise ctx.error("refused by the new parser", line=2)
        yield from driver_csv.PARSER.parse(ctx)

    parse.__module__ = DRIVER
    newer = dataclasses.replace(driver_csv.PARSER, parse=parse)
    parsers = tuple(newer if p.kind == "driver_csv" else p for p in mqcap.parsers.all_parsers())
    monkeypatch.setattr(mqcap.parsers, "all_parsers", lambda: parsers)
    _changed(monkeypatch, DRIVER)

    report = ingest(settings)
    assert [(o.path, o.status) for o in report.set_aside] == [(rel, "set_aside")]
    assert "refused by the new parser" in report.set_aside[0].reason
    assert len(report.landed) == 9  # the other results files: read again, replaced
    assert query(
        settings, "select count(*) from landing.driver_results where source_file = ?", [rel]
    ) == [(0,)]
    assert query(settings, "select count(*) from landing.driver_results") == [(9,)]
    ledger = query(
        settings,
        "select status, reason from meta.ingest_ledger where path = ? order by file_id",
        [rel],
    )
    assert [s for s, _ in ledger] == ["replaced", "deleted", "set_aside"]
    assert ledger[1][1].startswith("read again by this mqcap's parser and refused: 1 row(s)")

    # the verdict stands: the next ingest neither reads it again nor counts anything twice
    again = ingest(settings)
    assert again.landed == [] and [o.path for o in again.set_aside] == [rel]
    assert query(settings, "select count(*) from meta.ingest_ledger where path = ?", [rel]) == [
        (3,)
    ]


def test_a_file_of_no_known_format_is_not_read_again(settings):
    # An unrecognised file has no parser and no print: it stays as the ledger has it.
    (settings.raw_root / "notes.bin").write_bytes(b"\x00\x01 not a measurement")
    first = ingest(settings)
    assert [o.status for o in first.outcomes] == ["set_aside"]
    assert query(settings, "select kind, parser_print from meta.ingest_ledger") == [(None, None)]
    again = ingest(settings)
    assert [o.status for o in again.outcomes] == ["set_aside"]
    assert query(settings, "select count(*) from meta.ingest_ledger") == [(1,)]
