"""``Table.arrow``: a batch of rows as Arrow without a polars frame when every value has its
column's own Python type, otherwise through ``Table.frame``; the same table (schema and values)
or the same error either way.

Held three ways: every fixture file any parser reads (every batch, both ways, compared), rows
written to hit each fallback (a str to cast, a bool, a tz-aware time, an int past 2**53 for a
DOUBLE, past int32, an unknown column), and random rows of mixed types (hypothesis).
"""

from __future__ import annotations

from datetime import date, datetime, time, timedelta, timezone
from pathlib import Path

import polars as pl
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mqcap.errors import InputError
from mqcap.parsers import base, detect
from mqcap.parsers.base import ParseContext, Table

FIXTURES = Path(__file__).resolve().parent / "fixtures"

T = Table(
    "t",
    {
        "source_file": "VARCHAR",
        "source_line": "BIGINT",
        "x": "DOUBLE",
        "n": "INTEGER",
        "u": "UBIGINT",
        "flag": "BOOLEAN",
        "day": "DATE",
        "at": "TIMESTAMP",
        "clock": "TIME",
        "raw": "BLOB",
    },
)


def _both(table: Table, rows):
    """(fast, frame) results: each an Arrow table or the exception's type and text."""

    def run(f):
        try:
            return f()
        except Exception as exc:  # compared, not swallowed
            return (type(exc).__name__, str(exc))

    return run(lambda: table.arrow(rows)), run(lambda: table.frame(rows).to_arrow())


def _same(a, b) -> None:
    if isinstance(a, pa.Table) and isinstance(b, pa.Table):
        assert a.schema == b.schema
        # (equals first: to_pylist cannot give a date before year 1, which polars can cast to)
        assert a.equals(b) or _nan_free(a.to_pylist()) == _nan_free(b.to_pylist())
    elif isinstance(a, tuple) and isinstance(b, tuple) and a[0] == "InvalidOperationError":
        # polars evaluates the casts in parallel: which column's failure it reports varies from
        # one call to the next on the same rows (seen: two failing columns), the kind does not
        assert a[0] == b[0]
    else:
        assert a == b


def _nan_free(rows: list[dict]) -> list[dict]:
    return [{k: "NaN" if v != v else v for k, v in r.items()} for r in rows]


def _fixture_batches():
    for path in sorted(p for p in FIXTURES.rglob("*") if p.is_file()):
        if "golden" in path.parts or "render" in path.parts or "spark-conf" in path.parts:
            continue
        parser = detect(path, path.name)
        if parser is None:
            continue
        ctx = ParseContext(path=path, source_file=path.name, size=path.stat().st_size)
        try:
            for table, rows in parser.parse(ctx):
                yield path, parser.table(table), rows
        except InputError:
            continue


def test_every_fixture_batch_is_the_same_either_way():
    seen = fast = 0
    kinds = set()
    for path, table, rows in _fixture_batches():
        a, b = _both(table, rows)
        assert isinstance(b, pa.Table), (path, b)
        _same(a, b)
        seen += 1
        if isinstance(rows, list) and base._arrow_of_rows(table, rows) is not None:
            fast += 1
            kinds.add(table.name)
    # The fixtures exercise the straight path on many tables, not on one by chance.
    assert seen > 50 and fast > 20, (seen, fast)
    assert {"driver_results", "driver_cphtestp", "amqsrua_value", "ascpu_interval"} <= kinds, kinds


def test_plain_rows_take_the_straight_path_and_match():
    rows = [
        {
            "source_file": "a.csv",
            "source_line": 2,
            "x": 1,  # an int in a DOUBLE column
            "n": 7,
            "u": 2**63,  # past int64, fits UBIGINT
            "flag": True,
            "day": date(2026, 11, 30),
            "at": datetime(2026, 11, 30, 10, 0, 0, 123456),
            "clock": time(10, 1, 2, 5),
            "raw": b"\x00\x01",
        },
        {"source_file": "a.csv", "source_line": 3, "x": 2.5, "at": None},
        {"source_file": "a.csv", "source_line": 4, "x": float("nan")},
    ]
    assert base._arrow_of_rows(T, rows) is not None
    a, b = _both(T, rows)
    assert a.schema == b.schema
    assert a.slice(0, 2).equals(b.slice(0, 2))
    assert a["x"][2].as_py() != a["x"][2].as_py()  # NaN kept as NaN, not NULL
    assert b["x"][2].as_py() != b["x"][2].as_py()


@pytest.mark.parametrize(
    "row",
    [
        {"x": "1.5"},  # a str cast to a number by polars
        {"source_line": True},  # a bool in an integer column
        {"x": 2**60 + 1},  # an int a double cannot hold exactly
        {"n": 2**40},  # past INTEGER: polars' strict cast refuses it
        {"u": -1},  # a negative UBIGINT: refused
        {"at": datetime(2026, 1, 1, tzinfo=timezone(timedelta(hours=2)))},  # tz-aware
        {"day": datetime(2026, 1, 1, 5)},  # a datetime (a date subclass) for a DATE
        {"source_file": 5},  # an int for a VARCHAR
        {"nope": 1},  # an unknown column: ValueError, the same text
    ],
)
def test_other_values_go_through_polars_with_the_same_result_or_error(row):
    rows = [{"source_file": "a", "source_line": 1}, {"source_file": "a", "source_line": 2, **row}]
    assert base._arrow_of_rows(T, rows) is None
    a, b = _both(T, rows)
    _same(a, b)


def test_empty_and_frame_inputs():
    a, b = _both(T, [])
    _same(a, b)
    assert a.num_rows == 0
    df = pl.DataFrame({"source_file": ["a"], "x": [1.0]})
    _same(*_both(T, df))


_VALUES = st.one_of(
    st.none(),
    st.integers(min_value=-(2**64), max_value=2**64),
    st.floats(allow_nan=False),
    st.booleans(),
    st.text(max_size=5),
    st.datetimes(min_value=datetime(1900, 1, 1), max_value=datetime(2100, 1, 1)),
    st.dates(min_value=date(1900, 1, 1), max_value=date(2100, 1, 1)),
    st.binary(max_size=4),
)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.fixed_dictionaries(
            {},
            optional={c: _VALUES for c in ("source_line", "x", "n", "u", "flag", "day", "raw")},
        ),
        min_size=1,
        max_size=6,
    )
)
def test_random_rows_give_the_same_table_or_error(rows):
    rows = [{"source_file": "f", **r} for r in rows]
    a, b = _both(T, rows)
    _same(a, b)


def test_arrow_schema_is_the_one_polars_gives_every_landing_table():
    # Batches built both ways meet in one pa.concat_tables per landing table (landing.Writer).
    from mqcap.parsers import all_tables

    for table in all_tables():
        assert (
            base.arrow_schema(table) == pl.DataFrame(schema=table.polars_schema()).to_arrow().schema
        )


def test_landing_small_files_imports_neither_pandas_nor_polars(tmp_path):
    # pyarrow's pa.array / pa.scalar of Python objects import pandas (0.2 s); polars 0.1 s:
    # more than landing a few hundred small files costs (bench/bench_ingest.py).
    import subprocess
    import sys
    import textwrap

    raw = tmp_path / "raw"
    for i in range(3):
        run = raw / "s" / f"r{i}"
        run.mkdir(parents=True)
        (run / "results.csv").write_text(
            f"study,run_id,rate_per_s,round_trip_us,threads\ns,r{i},10.5,900,4\n"
        )
    code = textwrap.dedent(
        f"""
        import sys
        from pathlib import Path
        from mqcap.settings import Settings
        from mqcap.ingest import ingest
        s = Settings.load(warehouse=Path({str(tmp_path / "w.duckdb")!r}),
                          raw=Path({str(raw)!r})).with_(jobs=1)
        r = ingest(s)
        print(r.rows, len(r.landed), "pandas" in sys.modules, "polars" in sys.modules)
        """
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["3", "3", "False", "False"], out.stdout + out.stderr


def test_a_frame_already_typed_skips_the_casts_and_matches():
    typed = pl.DataFrame(
        {"source_line": [2, 3], "source_file": ["a", "a"], "x": [1.5, None]},
        schema={"source_line": pl.Int64, "source_file": pl.Utf8, "x": pl.Float64},
    )
    assert base._arrow_of_typed_frame(T, typed) is not None  # (columns in another order)
    _same(*_both(T, typed))
    # A column of another type (Int64 for DOUBLE) needs polars' cast: not taken, same result.
    untyped = pl.DataFrame({"source_line": [2], "x": [1]})
    assert base._arrow_of_typed_frame(T, untyped) is None
    _same(*_both(T, untyped))


def test_small_smf_batches_as_arrow_equal_the_polars_frames(monkeypatch):
    # binary.frame makes a small batch's columns with arrowcols, a large one with polars: the
    # same landing rows either way, batch for batch, on every SMF fixture dump.
    from mqcap.parsers.smf import binary

    def batches(path):
        ctx = ParseContext(path=path, source_file=path.name, size=path.stat().st_size)
        return [
            (t, binary.PARSER.table(t).arrow(b), type(b).__module__.split(".")[0])
            for t, b in binary.PARSER.parse(ctx)
        ]

    dumps = [p for p in sorted((FIXTURES / "smf").rglob("*")) if p.is_file()]
    dumps = [p for p in dumps if detect(p, p.name) is binary.PARSER]
    compared = 0
    for path in dumps:
        small = batches(path)
        with monkeypatch.context() as m:
            m.setattr(binary, "SMALL_BATCH_ROWS", 0)
            large = batches(path)
        assert [t for t, _, _ in small] == [t for t, _, _ in large], path
        for (_, a, kind_a), (_, b, kind_b) in zip(small, large, strict=True):
            assert kind_b == "polars"
            assert a.schema == b.schema and a.equals(b), path
            compared += kind_a == "pyarrow"
    assert compared > 20, compared
