"""Great Expectations checks at the boundaries: landing tables before dbt, marts before reports.

Suites are JSON files under ``expectations/`` named after their table (``landing.driver_results
.json``). GX validates pandas DataFrames read from DuckDB (the dependable path for GX 1.x), with
the lineage columns attached, so every failure names the suite, the expectation, the table, the
run and the source file. ``mqcap`` section of a suite's ``meta``:

- ``table``: ``landing.<name>`` or ``marts.<name>``;
- ``row_identity``: columns that locate a row in its source (``source_file``, ``source_line``...);
- ``row_count_matches_ledger``: compare the rows validated with the ledger's count per file.

Expectation kwargs may use ``{"$PARAMETER": "ledger_rows"}``, filled in at validation time.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import warnings
from dataclasses import dataclass, field
from datetime import datetime

import duckdb

from mqcap import warehouse
from mqcap.progress import Progress
from mqcap.settings import Settings

LEDGER = f"{warehouse.META}.ingest_ledger"


@dataclass
class Failure:
    suite: str
    expectation: str
    column: str | None
    table: str
    unexpected: int
    examples: list[dict]

    def runs(self) -> list[str]:
        return sorted({str(e["run"]) for e in self.examples if e.get("run")})

    def files(self) -> list[str]:
        return sorted({str(e["file"]) for e in self.examples if e.get("file")})

    def studies(self) -> set[str]:
        return {r.split("/")[0] for r in self.runs()}

    def message(self) -> str:
        col = f" on column {self.column}" if self.column else ""
        where = []
        for e in self.examples[:3]:
            pos = f" {e['position']}" if e.get("position") else ""
            val = f" (value {e['value']!r})" if "value" in e else ""
            where.append(f"run {e.get('run') or '?'}, file {e.get('file') or '?'}{pos}{val}")
        shown = "; ".join(where) or "table level"
        return (
            f"suite {self.suite}: {self.expectation}{col} failed in table {self.table} "
            f"for {self.unexpected} row(s): {shown}"
        )


@dataclass
class SuiteResult:
    suite: str
    table: str
    scope: str
    success: bool
    evaluated: int
    rows: int
    failures: list[Failure] = field(default_factory=list)


@dataclass
class ValidationReport:
    results: list[SuiteResult] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(r.success for r in self.results)

    @property
    def failures(self) -> list[Failure]:
        return [f for r in self.results for f in r.failures]

    @property
    def checks_passed(self) -> int:
        return sum(r.evaluated - len(r.failures) for r in self.results)

    @property
    def checks(self) -> int:
        return sum(r.evaluated for r in self.results)

    def failed_studies(self) -> set[str]:
        out: set[str] = set()
        for f in self.failures:
            out |= f.studies() or {"*"}
        return out

    def summary(self) -> str:
        bad = len([r for r in self.results if not r.success])
        return (
            f"{self.checks_passed}/{self.checks} checks passed in {len(self.results)} suite(s)"
            + (f", {bad} suite(s) failed" if bad else "")
        )


def load_suites(settings: Settings) -> list[dict]:
    """Every suite file, parsed; the file name must be the table name."""
    suites = []
    for path in sorted(settings.expectations_dir.glob("*.json")):
        data = json.loads(path.read_text())
        meta = data.get("meta", {}).get("mqcap", {})
        table = meta.get("table")
        if table != path.stem or data.get("name") != path.stem:
            raise ValueError(f"{path}: suite name and meta.mqcap.table must both be {path.stem!r}")
        suites.append(data)
    return suites


def _frame(con: duckdb.DuckDBPyConnection, table: str, file_ids: list[int] | None):
    """The rows to validate, with _file / _run / _position lineage columns attached."""
    schema, name = table.split(".", 1)
    cols = {
        r[0]
        for r in con.execute(
            "select column_name from information_schema.columns "
            "where table_schema = ? and table_name = ?",
            [schema, name],
        ).fetchall()
    }
    if not cols:
        return None
    pos = (
        "'line ' || t.source_line"
        if "source_line" in cols
        else ("'byte ' || t.source_offset" if "source_offset" in cols else "null")
    )
    if schema == warehouse.LANDING:
        sql = f"""select t.*, l.path as _file, l.study || '/' || l.run_id as _run,
                         {pos} as _position
                  from {schema}."{name}" t join {LEDGER} l using (file_id)"""
        params: list = []
        if file_ids is not None:
            sql += " where t.file_id in (select unnest(?::bigint[]))"
            params = [file_ids]
        return con.execute(sql, params).df()
    file_col = "t.source_file" if "source_file" in cols else "null"
    run_col = "t.run_key" if "run_key" in cols else "null"
    return con.execute(
        f"""select t.*, {file_col} as _file, {run_col} as _run, {pos} as _position
            from {schema}."{name}" t"""
    ).df()


def _ledger_rows(con: duckdb.DuckDBPyConnection, table: str, file_ids: list[int] | None) -> int:
    name = table.split(".", 1)[1]
    sql = (
        f"select rows_by_table from {LEDGER} where status = 'loaded' and rows_by_table is not null"
    )
    params: list = []
    if file_ids is not None:
        sql += " and file_id in (select unnest(?::bigint[]))"
        params = [file_ids]
    return sum(json.loads(r[0]).get(name, 0) for r in con.execute(sql, params).fetchall())


def _gx_context():
    os.environ.setdefault("GX_ANALYTICS_ENABLED", "False")
    logging.getLogger("great_expectations").setLevel(logging.ERROR)
    warnings.filterwarnings("ignore", module="great_expectations")
    import great_expectations as gx

    ctx = gx.get_context(mode="ephemeral")
    with contextlib.suppress(Exception):  # progress bars are cosmetic; API varies by release
        ctx.variables.progress_bars = {"globally": False}
    return gx, ctx


def validate(
    settings: Settings,
    scope: str = "all",
    file_ids: list[int] | None = None,
    progress: Progress | None = None,
) -> ValidationReport:
    """Run the suites of ``scope`` (landing, mart or all); landing rows limited to ``file_ids``.

    Example:
        report = validate(Settings.load(), scope="landing", file_ids=[3, 4])
        print(report.summary())
    """
    progress = progress or Progress()
    suites = [
        s
        for s in load_suites(settings)
        if scope == "all" or s["meta"]["mqcap"]["table"].startswith(_SCHEMA[scope])
    ]
    report = ValidationReport()
    if not suites:
        return report
    gx, ctx = _gx_context()
    source = ctx.data_sources.add_pandas("mqcap")
    progress.start(f"validate {scope}", total=len(suites), unit="suites")
    with warehouse.connect(settings.warehouse, read_only=True) as con:
        for n, spec in enumerate(suites):
            table = spec["meta"]["mqcap"]["table"]
            is_landing = table.startswith(warehouse.LANDING + ".")
            df = _frame(con, table, file_ids if is_landing else None)
            progress.advance(1, table)
            if df is None or (is_landing and file_ids is not None and df.empty):
                continue
            params = {"ledger_rows": _ledger_rows(con, table, file_ids)} if is_landing else {}
            report.results.append(_run_suite(gx, ctx, source, n, spec, df, params))
    _store(settings, report)
    return report


_SCHEMA = {"landing": "landing.", "mart": "marts.", "all": ""}


def _run_suite(gx, ctx, source, n: int, spec: dict, df, params: dict) -> SuiteResult:
    table = spec["meta"]["mqcap"]["table"]
    suite = gx.ExpectationSuite(
        name=spec["name"],
        expectations=[
            gx.expectations.registry.get_expectation_impl(e["type"])(
                **e["kwargs"], meta=e.get("meta") or {}
            )
            for e in spec["expectations"]
        ],
    )
    suite = ctx.suites.add(suite)
    asset = source.add_dataframe_asset(f"asset_{n}")
    batch = asset.add_batch_definition_whole_dataframe(f"batch_{n}")
    vd = ctx.validation_definitions.add(
        gx.ValidationDefinition(name=f"vd_{n}", data=batch, suite=suite)
    )
    result = vd.run(
        batch_parameters={"dataframe": df},
        expectation_parameters=params,
        result_format={
            "result_format": "COMPLETE",
            "unexpected_index_column_names": ["_file", "_run", "_position"],
        },
    )
    out = SuiteResult(
        suite=spec["name"],
        table=table,
        scope="landing" if table.startswith("landing.") else "mart",
        success=bool(result.success),
        evaluated=len(result.results),
        rows=len(df),
    )
    for r in result.results:
        if r.success:
            continue
        cfg = r.expectation_config
        res = r.result or {}
        examples = []
        for item in (res.get("unexpected_index_list") or [])[:20]:
            column = cfg.kwargs.get("column")
            example = {
                "file": item.get("_file"),
                "run": item.get("_run"),
                "position": item.get("_position"),
            }
            if column and column in item:
                example["value"] = item[column]
            examples.append(example)
        if not examples:
            examples = [
                {"file": f, "run": r_}
                for f, r_ in sorted({(a, b) for a, b in zip(df["_file"], df["_run"], strict=True)})[
                    :5
                ]
            ]
            detail = res.get("observed_value")
            if detail is not None:
                for e in examples:
                    e["value"] = detail
        out.failures.append(
            Failure(
                suite=spec["name"],
                expectation=cfg.type,
                column=cfg.kwargs.get("column"),
                table=table,
                unexpected=int(res.get("unexpected_count") or len(df)),
                examples=examples,
            )
        )
    return out


def _store(settings: Settings, report: ValidationReport) -> None:
    """Remember the last result per suite for ``mqcap status`` (written after the read-only pass)."""
    now = datetime.now().replace(microsecond=0)
    with warehouse.connect(settings.warehouse) as con:
        for r in report.results:
            con.execute(
                f"insert into {warehouse.META}.validation_result values (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    now,
                    r.suite,
                    r.table,
                    r.scope,
                    r.success,
                    r.evaluated,
                    len(r.failures),
                    r.rows,
                    json.dumps([f.message() for f in r.failures]),
                ],
            )
