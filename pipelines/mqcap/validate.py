"""Great Expectations checks at the boundaries: landing tables before dbt, marts before reports.

Suites are JSON files under ``expectations/`` named after their table (``landing.driver_results
.json``). GX validates pandas DataFrames read from DuckDB (the dependable path for GX 1.x), with
the lineage columns attached, so every failure names the suite, the expectation, the table, the
run and the source file (landing: the ledger's path and run; marts: ``source_file`` and
``run_key``, or ``study`` where a mart has no run). ``mqcap`` section of a suite's ``meta``:

- ``table``: ``landing.<name>`` or ``marts.<name>`` (also the file name and the suite name);
- ``description``; ``generated_by`` for the SMF suites (``python -m mqcap.codegen``).

Each expectation's ``meta`` gives its ``unit`` and ``why`` where they are not obvious.
Expectation kwargs may use ``{"$PARAMETER": "ledger_rows"}``, filled in at validation time;
``min_value`` / ``max_value`` written as ISO dates (``"1990-01-01"``) compare as timestamps.

Landing suites see only the rows of the files just landed, and only tables those files fed (the
ledger's ``rows_by_table``); a row count that disagrees with the ledger names the files whose
counts differ. Each suite runs once with ``BASIC`` results (the observed value of each check, for
Data Docs); only the expectations that fail run again with complete results, to name rows (GX's
cost is per expectation, not per row). Data Docs (GX's HTML) go to
``<reports_out>/data-docs/index.html``: a page per suite and pass, naming the table (the data
asset) and the pass (the run name: ``landing checks of 12 landed file(s)``, ``mart checks``; the
failed checks' second pass is ``mart checks, failure detail``).
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import json
import logging
import os
import re
import time
import warnings
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import duckdb

from mqcap import faults, gx_memo, warehouse
from mqcap.errors import EnvironmentProblem
from mqcap.ledger.files import landed_rows, tables_landed, with_ledger
from mqcap.ledger.steps import record_checks, record_validation
from mqcap.names import printable
from mqcap.offline import make_offline
from mqcap.progress import Progress
from mqcap.settings import Settings
from mqcap.untraced import untraced


@dataclass
class Failure:
    suite: str
    expectation: str
    column: str | None
    table: str
    unexpected: int
    examples: list[dict]

    def runs(self) -> list[str]:
        # A row made from several runs (a fit) names them "s/a, s/b".
        return sorted({r for e in self.examples if e.get("run") for r in str(e["run"]).split(", ")})

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
            who = [
                f"run {e['run']}" if e.get("run") else "",
                f"file {e['file']}" if e.get("file") else "",
            ]
            where.append(", ".join(w for w in who if w) + f"{pos}{val}")
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
    seconds: float = 0.0


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


# Expectation kwargs that name a column; a suite whose expectations name columns only through
# these reads only those columns (a wide SMF table need not travel whole into pandas).
_COLUMN_KWARGS = ("column", "column_A", "column_B")
_TABLE_LEVEL = {"expect_table_row_count_to_equal"}


def checked_columns(spec: dict) -> list[str] | None:
    """The columns a suite's expectations read, or None when one of them may read others.

    Example:
        >>> checked_columns({"expectations": [{"type": "expect_column_values_to_not_be_null",
        ...                  "kwargs": {"column": "rate_per_s"}}]})
        ['rate_per_s']
    """
    cols: list[str] = []
    for e in spec["expectations"]:
        named = [e["kwargs"][k] for k in _COLUMN_KWARGS if k in e["kwargs"]]
        if not named and e["type"] not in _TABLE_LEVEL:
            return None
        if "row_condition" in e["kwargs"] or any(
            k.startswith("column") and k not in _COLUMN_KWARGS for k in e["kwargs"]
        ):
            return None  # a condition or a list may name any column
        cols += [c for c in named if c not in cols]
    return cols


def _frame(
    con: duckdb.DuckDBPyConnection,
    table: str,
    file_ids: list[int] | None,
    columns: list[str] | None = None,
):
    """The rows to validate, with _file / _run / _position lineage columns attached;
    ``columns``: only these of the table's own (landing; default all)."""
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
    # Tables fed by text and binary formats have both: a row names whichever it has.
    positions = []
    if "source_line" in cols:
        positions.append("'line ' || t.source_line")
    if "source_offset" in cols:
        positions.append("'byte ' || t.source_offset")
    pos = f"coalesce({', '.join(positions)})" if positions else "null"
    if schema == warehouse.LANDING:
        own = "t.*"
        if columns is not None and set(columns) <= cols:
            own = ", ".join(['t."file_id"', *(f't."{c}"' for c in columns if c != "file_id")])
        sql = f"""select {own}, l.path as _file, l.study || '/' || l.run_id as _run,
                         {pos} as _position
                  from {with_ledger(f'{schema}."{name}"')}"""
        params: list = []
        if file_ids is not None:
            sql += " where t.file_id in (select unnest(?::bigint[]))"
            params = [file_ids]
        return con.execute(sql, params).df()
    return con.execute(_mart_sql(con, schema, name, cols, pos)).df()


def _mart_sql(con: duckdb.DuckDBPyConnection, schema: str, name: str, cols: set, pos: str) -> str:
    """A mart's rows with lineage: the row's own source file, else the raw files of its run
    (``fct_run_files``), else of its study x configuration's runs (``fct_fit``): a failure
    always names a run and a file, never ``?``."""
    have = {
        r[0]
        for r in con.execute(
            "select table_name from information_schema.tables where table_schema = ?", [schema]
        ).fetchall()
    }
    # Up to three raw files of a run, then how many more.
    files_of_run = (
        f"""select run_key, study,
                   array_to_string(list(source_file order by source_file)[1:3], ', ')
                   || case when count(*) > 3 then ' and ' || (count(*) - 3) || ' more file(s)'
                      else '' end as files
            from {schema}.fct_run_files group by run_key, study"""
        if "fct_run_files" in have
        else "select null::varchar as run_key, null::varchar as study, null::varchar as files"
    )
    own_file = "t.source_file" if "source_file" in cols else "null"
    fallback = f"'(no single raw file: computed in {schema}.{name})'"
    if "run_key" in cols:
        return f"""select t.*, coalesce({own_file}, f.files, {fallback}) as _file,
                          t.run_key as _run, {pos} as _position
                   from {schema}."{name}" t left join ({files_of_run}) f using (run_key)"""
    if "study" in cols and "dim_run" in have:
        # A row made from several runs (a fit): the runs of its study (and configuration).
        by = ["study"] + (["configuration"] if "configuration" in cols else [])
        on = " and ".join(f"g.{c} is not distinct from t.{c}" for c in by)
        group = ", ".join(f"r.{c}" for c in by)
        return f"""select t.*, coalesce({own_file}, g.files, {fallback}) as _file,
                          coalesce(g.runs, t.study) as _run, {pos} as _position
                   from {schema}."{name}" t left join (
                       select {group},
                              array_to_string(list(r.run_key order by r.run_key)[1:3], ', ')
                              || case when count(*) > 3
                                 then ' and ' || (count(*) - 3) || ' more run(s)' else '' end
                                 as runs,
                              array_to_string(list(f.files order by r.run_key)[1:2], '; ')
                                 as files
                       from {schema}.dim_run r left join ({files_of_run}) f using (run_key)
                       group by {group}) g on {on}"""
    return f"""select t.*, coalesce({own_file}, {fallback}) as _file, null as _run,
                      {pos} as _position
               from {schema}."{name}" t"""


def _count_mismatches(df, ledger: dict[str, tuple[str | None, int]]) -> list[dict]:
    """Files whose rows in the table differ from the ledger's count, worst first."""
    got = df["_file"].value_counts().to_dict() if len(df) else {}
    diffs = []
    for path in sorted(set(got) | {p for p, (_, n) in ledger.items() if n}):
        run, expected = ledger.get(path, (None, 0))
        if got.get(path, 0) != expected:
            value = f"{got.get(path, 0)} row(s), ledger {expected}"
            diffs.append({"file": path, "run": run, "value": value})
    return diffs


_GX: dict = {}

# Optional integrations GX imports at its own import when they are installed, and mqcap never
# validates through: Spark DataFrames (pyspark, in the venv for the Spark engine), BigQuery and
# Google Cloud's storage, secrets and credentials (google-cloud-bigquery, which apache-otava
# requires, brings them). Seen as missing while GX imports, they leave GX's import about a
# second shorter (pyspark and BigQuery: 4.0-4.2 -> 3.0-3.2 CPU-s in three pairs on this
# machine; the Google Cloud rest: a median 4.08 -> 3.77 user CPU-s in six pairs, 2026-11-27);
# once GX is in, they import as usual, and one already imported is left alone.
_GX_SKIPPED_IMPORTS = (
    "pyspark",
    "google.cloud.bigquery",
    "google.cloud.storage",
    "google.cloud.secretmanager",
    "google.api_core",
    "google.auth",
    "google.oauth2",
)


def import_gx():
    """``great_expectations``, imported without the integrations mqcap does not use.

    Example:
        >>> import sys
        >>> import_gx().__name__, sys.modules.get("pyspark", "absent") is not None
        ('great_expectations', True)
    """
    import sys

    hidden = [m for m in _GX_SKIPPED_IMPORTS if m not in sys.modules]
    for name in hidden:
        sys.modules[name] = None  # type: ignore[assignment]  # import raises ImportError
    try:
        great_expectations = untraced(importlib.import_module, "great_expectations")
    finally:
        for name in hidden:
            if sys.modules.get(name, "") is None:
                del sys.modules[name]
    return great_expectations


def _gx_context():
    """GX and one ephemeral context per process: the import costs seconds, a context does not
    hold much, and keeping it lets ``mqcap run``'s landing and mart passes share Data Docs."""
    if not _GX:
        os.environ.setdefault("GX_ANALYTICS_ENABLED", "False")
        logging.getLogger("great_expectations").setLevel(logging.ERROR)
        warnings.filterwarnings("ignore", module="great_expectations")
        gx = import_gx()

        ctx = untraced(gx.get_context, mode="ephemeral")
        with contextlib.suppress(Exception):  # progress bars are cosmetic; API varies by release
            ctx.variables.progress_bars = {"globally": False}
        source = ctx.data_sources.add_pandas("mqcap")
        _GX.update(gx=gx, ctx=ctx, source=source, sites={}, batches={})
    return _GX["gx"], _GX["ctx"], _GX["source"]


def validate(
    settings: Settings,
    scope: str = "all",
    file_ids: list[int] | None = None,
    progress: Progress | None = None,
    docs: bool | None = None,
    only: set[str] | None = None,
    con: duckdb.DuckDBPyConnection | None = None,
) -> ValidationReport:
    """Run the suites of ``scope`` (landing, mart or all); landing rows limited to ``file_ids``.

    ``only``: suite names to run (default: all of ``scope``).
    ``docs``: also write Data Docs (HTML) under ``settings.reports_out / "data-docs"``; by
    default yes, except for landing rows of given files (the pass before dbt: its results go
    into the next pass's Data Docs).
    ``con``: the (read-write) connection to check and record through, the one a step of
    ``mqcap run`` receives; without it the checks read through a read-only connection and
    their results are stored through a second one.

    Example:
        report = validate(Settings.load(), scope="landing", file_ids=[3, 4])
        print(report.summary())
    """
    progress = progress or Progress()
    suites = [
        s
        for s in load_suites(settings)
        if (scope == "all" or s["meta"]["mqcap"]["table"].startswith(_SCHEMA[scope]))
        and (only is None or s["name"] in only)
    ]
    report = ValidationReport()
    if not suites:
        return report
    gx, ctx, source = _gx_context()
    run_id = _run_id(scope, file_ids)
    progress.start(f"validate {scope}", total=len(suites), unit="suites")
    checks = (gx, ctx, source, run_id)
    if con is None:
        with warehouse.connect(settings.warehouse, read_only=True) as reading:
            _check(reading, suites, file_ids, checks, report, progress)
    else:
        _check(con, suites, file_ids, checks, report, progress)
    _store(settings, report, scope, file_ids, complete=only is None, con=con)
    if docs is None:
        # The pass before dbt leaves its results for the mart pass's Data Docs (same process).
        docs = not (scope == "landing" and file_ids is not None)
        if not docs:
            return report
    keys = ctx.validation_results_store.list_keys()
    if docs and keys:
        _name_assets(ctx, keys)
        _data_docs(ctx, settings, keys)
    # Each page is rendered once. The next process's Data Docs start from an empty store, and
    # GX's index drops the pages of results not in it: the site shows the passes of the last
    # `mqcap run` (or validate), as mqcap status shows the last result per suite.
    for key in keys:
        ctx.validation_results_store.remove_key(key)
    return report


def _check(
    con: duckdb.DuckDBPyConnection,
    suites: list[dict],
    file_ids: list[int] | None,
    checks: tuple,
    report: ValidationReport,
    progress: Progress,
) -> None:
    """Each suite on its table's rows (landing: of ``file_ids``, and only the tables those
    files fed), its result added to ``report``; ``checks``: GX, its context and data source,
    and the run the results are filed under."""
    gx, ctx, source, run_id = checks
    landed = (
        {f"{warehouse.LANDING}.{t}" for t in tables_landed(con, file_ids)}
        if file_ids is not None
        else None
    )
    for spec in suites:
        table = spec["meta"]["mqcap"]["table"]
        is_landing = table.startswith(warehouse.LANDING + ".")
        progress.advance(1, table)
        if is_landing and landed is not None and table not in landed:
            continue
        df = _frame(con, table, file_ids if is_landing else None, checked_columns(spec))
        if df is None:
            continue
        ledger = landed_rows(con, table.split(".", 1)[1], file_ids) if is_landing else None
        params = {"ledger_rows": sum(n for _, n in ledger.values())} if ledger is not None else {}
        started = time.perf_counter()
        result = _run_suite(gx, ctx, source, spec, df, params, ledger, run_id)
        result.seconds = time.perf_counter() - started
        report.results.append(result)


def _run_name(scope: str, file_ids: list[int] | None) -> str:
    """What a pass checked, as Data Docs name its run (GX's default is ``__none__``).

    Example:
        >>> _run_name("landing", [3, 4]), _run_name("mart", None)
        ('landing checks of 2 landed file(s)', 'mart checks')
    """
    landing = "landing checks"
    if file_ids is not None:
        landing += f" of {len(file_ids)} landed file(s)"
    return {"landing": landing, "mart": "mart checks", "all": f"{landing} and mart checks"}[scope]


def _run_id(scope: str, file_ids: list[int] | None):
    """The run Data Docs file this pass's results under: its name, and now (UTC)."""
    import_gx()
    from great_expectations.core.run_identifier import RunIdentifier

    return RunIdentifier(run_name=_run_name(scope, file_ids), run_time=datetime.now(UTC))


def _name_assets(ctx, keys) -> None:
    """Each stored result's data asset (its table) written where a Data Docs page reads it: a
    DataFrame batch's ``batch_spec`` holds only the frame, so the page would say "Data asset:
    None" though the result's batch definition names the asset."""
    store = ctx.validation_results_store
    for key in keys:
        result = store.get(key)
        spec = result.meta.setdefault("batch_spec", {})
        if result.asset_name and spec.get("data_asset_name") != result.asset_name:
            spec["data_asset_name"] = result.asset_name
            store.set(key, result)


def data_docs_index(settings: Settings) -> Path:
    """Where Data Docs are written: beside the reports."""
    return settings.reports_out / "data-docs" / "index.html"


def _suite_pages_owed(base: Path) -> tuple[list, dict[str, str]]:
    """The suites whose Data Docs page is missing or shows other expectations than this
    process ran (a new mqcap, a suite edited), and the record of what each page shows.

    GX renders a page for every suite in its store on every build: about 40 pages that
    seldom change, most of a small pass's Data Docs time. The record
    (``expectations/.mqcap-pages.json``: suite -> digest of the expectations rendered) is read
    from the site, and a page that is gone is rendered again whatever it says.
    """
    import_gx()
    from great_expectations.data_context.types.resource_identifiers import (
        ExpectationSuiteIdentifier,
    )

    record_path = base / "expectations" / ".mqcap-pages.json"
    try:
        record = json.loads(record_path.read_text())
    except (OSError, ValueError):
        record = {}
    record = record if isinstance(record, dict) else {}
    owed = []
    for name, (key, _checkpoint) in sorted(_GX.get("runs", {}).items()):
        digest = hashlib.sha1(key.encode()).hexdigest()
        page = base / "expectations" / Path(*name.split(".")).with_suffix(".html")
        if record.get(name) != digest or not page.exists():
            owed.append(ExpectationSuiteIdentifier(name=name))
            record[name] = digest
    return owed, record


def _data_docs(ctx, settings: Settings, keys: list) -> None:
    """GX Data Docs of this process's validations (``keys``: the landing pass before the
    build and the mart pass of a ``mqcap run``), as static HTML (works offline); GX removes
    the pages of earlier results. A suite's page is rendered again only when what it shows
    changed (``_suite_pages_owed``)."""
    base = data_docs_index(settings).parent
    sites = _GX["sites"]
    if base not in sites:
        name = "mqcap_" + hashlib.sha1(str(base).encode()).hexdigest()[:10]
        ctx.add_data_docs_site(
            site_name=name,
            site_config={
                "class_name": "SiteBuilder",
                "store_backend": {
                    "class_name": "TupleFilesystemStoreBackend",
                    "base_directory": str(base),
                },
                "site_index_builder": {"class_name": "DefaultSiteIndexBuilder"},
            },
        )
        sites[base] = name
    owed, record = _suite_pages_owed(base)
    # Never an empty list: GX reads that as "every resource".
    untraced(ctx.build_data_docs, site_names=[sites[base]], resource_identifiers=[*keys, *owed])
    if owed:
        (base / "expectations").mkdir(parents=True, exist_ok=True)
        (base / "expectations" / ".mqcap-pages.json").write_text(
            json.dumps(record, indent=1, sort_keys=True) + "\n"
        )
    # GX's pages load their libraries from CDNs; make them open offline.
    make_offline(base)


_SCHEMA = {"landing": "landing.", "mart": "marts.", "all": ""}


_ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}([ T]\d{2}:\d{2}(:\d{2})?)?$")


def _kwargs(kwargs: dict) -> dict:
    """Suite kwargs as GX wants them: ISO date bounds as datetimes (GX compares values as given)."""
    out = dict(kwargs)
    for k in ("min_value", "max_value"):
        v = out.get(k)
        if isinstance(v, str) and _ISO_DATE.match(v):
            out[k] = datetime.fromisoformat(v)
    return out


def _batch(source, table: str):
    """The batch definition of ``table``'s own DataFrame asset, made once per process: the
    asset's name is the data asset Data Docs name, and adding an asset rewrites the context's
    configuration (made per validation, that costs more than the checks of a small drop)."""
    batches = _GX["batches"]
    if table not in batches:
        asset = source.add_dataframe_asset(table)
        batches[table] = asset.add_batch_definition_whole_dataframe(table)
    return batches[table]


def _gx_run(
    gx,
    ctx,
    source,
    name: str,
    expectations: list[dict],
    df,
    params: dict,
    fmt,
    run_id=None,
    table: str | None = None,
):
    """One GX validation of ``df``, the rows of ``table`` (default: the suite's name), filed
    under ``run_id`` (a RunIdentifier; default GX's own).

    The suite, its validation definition and checkpoint are made once per process and suite
    (and made again when the expectations or the result format differ: the detail pass of
    failures); every run binds its own DataFrame to the table's DataFrame asset. A new suite
    is compared with the store on every run: made per validation, that costs more than the
    checks of a small drop.
    """
    table = table or name
    key = json.dumps([expectations, fmt, table], sort_keys=True, default=str)
    runs = _GX.setdefault("runs", {})
    cached = runs.get(name)
    if cached is None or cached[0] != key:
        runs.pop(name, None)
        for kind in ("checkpoints", "validation_definitions", "suites"):
            with contextlib.suppress(Exception):
                getattr(ctx, kind).delete(name)
        suite = ctx.suites.add(
            gx.ExpectationSuite(
                name=name,
                expectations=[
                    gx.expectations.registry.get_expectation_impl(e["type"])(
                        **_kwargs(e["kwargs"]), meta={**(e.get("meta") or {}), "mqcap_index": i}
                    )
                    for i, e in enumerate(expectations)
                ],
            )
        )
        vd = ctx.validation_definitions.add(
            gx.ValidationDefinition(name=name, data=_batch(source, table), suite=suite)
        )
        # A checkpoint (not vd.run) so the result lands in the store Data Docs are built from.
        cp = ctx.checkpoints.add(
            gx.Checkpoint(name=name, validation_definitions=[vd], result_format=fmt)
        )
        runs[name] = cached = (key, cp)
    with gx_memo.kept():
        result = untraced(
            cached[1].run,
            batch_parameters={"dataframe": df},
            expectation_parameters=params,
            run_id=run_id,
        )
    return next(iter(result.run_results.values()))


def _detail_run_id(run_id):
    """The run of a failure detail pass: the first pass's, named apart (a result filed under
    the same run, suite and batch would replace the first pass's in the store)."""
    if run_id is None:
        return None
    import_gx()
    from great_expectations.core.run_identifier import RunIdentifier

    return RunIdentifier(run_name=f"{run_id.run_name}, failure detail", run_time=run_id.run_time)


def _plain(value):
    """A numpy / pandas scalar as the Python value it stands for, so messages read 101.0 and
    '1970-01-01 00:00:00', not np.float64(101.0) or Timestamp(...)."""
    if hasattr(value, "isoformat"):
        return str(value)
    return value.item() if hasattr(value, "item") else value


def _text(value) -> str:
    """A lineage value as text; NULL (None or NaN from pandas) as ''."""
    return "" if value is None or value != value else str(value)


def _run_suite(
    gx, ctx, source, spec: dict, df, params: dict, ledger=None, run_id=None
) -> SuiteResult:
    """One suite on ``df``: every expectation with ``BASIC`` results (the cheapest format whose
    results show an observed value in Data Docs), then the failed ones with complete results
    (a run of its own in Data Docs, "... failure detail", else it would replace the first)."""
    table = spec["meta"]["mqcap"]["table"]
    first = _gx_run(
        gx, ctx, source, spec["name"], spec["expectations"], df, params, "BASIC", run_id, table
    )
    out = SuiteResult(
        suite=spec["name"],
        table=table,
        scope="landing" if table.startswith("landing.") else "mart",
        success=bool(first.success),
        evaluated=len(first.results),
        rows=len(df),
    )
    # GX orders results its own way: the index in meta says which expectation each one is.
    failed = [
        spec["expectations"][r.expectation_config.meta["mqcap_index"]]
        for r in first.results
        if not r.success
    ]
    if not failed:
        return out
    # Only the failed expectations again, now naming the rows (COMPLETE is the slow format).
    detail = _gx_run(
        gx,
        ctx,
        source,
        spec["name"],
        failed,
        df,
        params,
        {
            "result_format": "COMPLETE",
            "unexpected_index_column_names": ["_file", "_run", "_position"],
        },
        _detail_run_id(run_id),
        table,
    )
    for r in detail.results:
        out.failures.append(_failure(spec["name"], table, r, df, params, ledger))
    return out


def _failure(suite: str, table: str, r, df, params: dict, ledger) -> Failure:
    """A failed expectation's result (COMPLETE format) as a Failure naming up to 20 rows by
    file, run and position; a table-level one (a row count) names the files and runs
    validated, the ledger's count against the table's when it is the row count."""
    cfg = r.expectation_config
    res = r.result or {}
    column = cfg.kwargs.get("column")
    examples = []
    for item in (res.get("unexpected_index_list") or [])[:20]:
        example = {
            "file": _text(item.get("_file")) or None,
            "run": _text(item.get("_run")) or None,
            "position": _text(item.get("_position")) or None,
        }
        if column and column in item:
            example["value"] = _plain(item[column])
        examples.append(example)
    unexpected = int(res.get("unexpected_count") or len(df))
    if cfg.type == "expect_table_row_count_to_equal" and ledger is not None:
        examples = _count_mismatches(df, ledger)
        unexpected = abs(len(df) - int(params.get("ledger_rows", 0)))
    if not examples and res.get("unexpected_index_list") is None:
        # Table-level expectation (row count...): every file and run validated is suspect.
        pairs = sorted({(_text(a), _text(b)) for a, b in zip(df["_file"], df["_run"], strict=True)})
        examples = [{"file": f or None, "run": r_ or None} for f, r_ in pairs[:5]]
        if res.get("observed_value") is not None:
            for e in examples:
                e["value"] = res["observed_value"]
    if not examples and r.exception_info and r.exception_info.get("raised_exception"):
        examples = [{"value": r.exception_info.get("exception_message")}]
    return Failure(
        suite=suite,
        expectation=cfg.type,
        column=column,
        table=table,
        unexpected=unexpected,
        examples=examples,
    )


def _store(
    settings: Settings,
    report: ValidationReport,
    scope: str,
    file_ids: list[int] | None,
    complete: bool,
    con: duckdb.DuckDBPyConnection | None = None,
) -> None:
    """Remember the last result per suite for ``mqcap status`` (written after the checks, through
    ``con`` or else a connection of its own), and, for a pass over every suite of a scope, that
    the checks were done (step ledger).

    A warehouse that cannot take the results (disk full, read-only) is an environment problem
    (exit 3), not a failed check: nothing is recorded as checked, so the next run checks again.
    """
    try:
        if con is None:
            with warehouse.connect(settings.warehouse) as own:
                _write_results(own, settings, report, scope, file_ids, complete)
        else:
            _write_results(con, settings, report, scope, file_ids, complete)
    except (duckdb.Error, OSError) as exc:
        if not faults.is_warehouse_problem(exc):
            raise
        if warehouse.damaged(exc):
            raise warehouse.damaged_error(settings.warehouse, exc) from None
        first = (str(exc).splitlines() or [type(exc).__name__])[0]
        raise EnvironmentProblem(
            printable(
                f"the results of the {scope} checks could not be stored in the warehouse "
                f"{settings.warehouse} ({type(exc).__name__}: {first}). Nothing is recorded as "
                "checked: free space (or make the warehouse writable) and run the command "
                "again; the checks are done again."
            )
        ) from exc


def _write_results(
    con: duckdb.DuckDBPyConnection,
    settings: Settings,
    report: ValidationReport,
    scope: str,
    file_ids: list[int] | None,
    complete: bool,
) -> None:
    now = datetime.now().replace(microsecond=0)
    record_validation(
        con,
        now,
        [
            (
                r.suite,
                r.table,
                r.scope,
                r.success,
                r.evaluated,
                len(r.failures),
                r.rows,
                json.dumps([f.message() for f in r.failures]),
            )
            for r in report.results
        ],
    )
    # After the results: a pass killed before this line is simply done again.
    if complete:
        for part in ("landing", "mart"):
            if scope in (part, "all"):
                failures = [f for r in report.results if r.scope == part for f in r.failures]
                ids = file_ids if part == "landing" else None
                record_checks(con, settings, part, failures, ids)
