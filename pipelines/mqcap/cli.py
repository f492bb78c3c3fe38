"""The ``mqcap`` command: a thin layer over the library.

Exit codes: 0 ok, 1 data problems or an incomplete pipeline, 2 usage, 3 environment (disk
full), 130 interrupted.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import click
import duckdb

from mqcap import duplicates, interrupt, warehouse
from mqcap.errors import DataError, MqcapError, UsageError, os_problem
from mqcap.names import error_text, printable
from mqcap.progress import make_progress
from mqcap.settings import Settings


def _global_options() -> list[click.Option]:
    """Options every command accepts, before or after its name (``mqcap sql Q --warehouse X``)."""
    return [
        click.Option(
            ["--warehouse"],
            type=click.Path(dir_okay=False, path_type=Path),
            help="DuckDB warehouse file [env MQCAP_WAREHOUSE; mqcap.toml warehouse; "
            "default data/warehouse.duckdb].",
        ),
        click.Option(
            ["--raw"],
            type=click.Path(file_okay=False, path_type=Path),
            help="Raw drop folder, <raw>/<study>/<run>/ [env MQCAP_RAW; mqcap.toml raw; "
            "default data/raw].",
        ),
        click.Option(
            ["--reports"],
            type=click.Path(file_okay=False, path_type=Path),
            help="Report output folder [env MQCAP_REPORTS_OUT; mqcap.toml reports; default "
            "<warehouse stem>.mqcap/reports beside the warehouse].",
        ),
        click.Option(
            ["--engine"],
            type=click.Choice(["duckdb", "spark"], case_sensitive=False),
            help="What builds the models: duckdb (embedded) or spark (MQCAP_SPARK_MASTER: "
            "local[*], a cluster master or sc://host:15002; MQCAP_SPARK_PARSE: where raw files "
            "are parsed, auto, executors or local) [env MQCAP_ENGINE; mqcap.toml engine; "
            "default duckdb].",
        ),
        click.Option(["-q", "--quiet"], is_flag=True, help="No progress output."),
    ]


GLOBAL_NAMES = ("warehouse", "raw", "reports", "engine", "quiet")


class _Seconds(click.ParamType):
    """A finite number of seconds, at least ``low`` (more than it when ``above``); nan, inf and
    negative values are usage errors (``--wait nan`` would wait forever)."""

    name = "seconds"

    def __init__(self, low: float = 0.0, above: bool = False) -> None:
        self.low, self.above = low, above

    def convert(self, value, param, ctx):
        try:
            number = float(value)
        except (TypeError, ValueError):
            self.fail(f"{value!r} is not a number of seconds", param, ctx)
        too_low = number <= self.low if self.above else number < self.low
        if not math.isfinite(number) or too_low:
            bound = f"more than {self.low:g}" if self.above else f"at least {self.low:g}"
            self.fail(f"{value!r}: give a finite number of seconds, {bound}", param, ctx)
        return number


class _Command(click.Command):
    """A command that also takes the global options; given after the command, they win."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.params.extend(_global_options())

    def invoke(self, ctx: click.Context):
        options = ctx.find_object(dict).setdefault("options", {})
        for name in GLOBAL_NAMES:
            value = ctx.params.pop(name, None)
            if value:
                options[name] = value
        return super().invoke(ctx)


class _Group(click.Group):
    """Maps library exceptions to one clean line on stderr and the documented exit code."""

    command_class = _Command

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except MqcapError as exc:
            click.echo(f"mqcap: error: {error_text(exc)}", err=True)
            sys.exit(exc.exit_code)
        except duckdb.CatalogException as exc:
            # A warehouse without a table the command reads (not mqcap's, or never built).
            first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            click.echo(
                printable(
                    f"mqcap: error: the warehouse lacks what this command reads ({first}): "
                    "`mqcap run` lands and builds it"
                ),
                err=True,
            )
            sys.exit(2)
        except OSError as exc:
            # A path the command was given or must use: one line, 3 when the machine is the
            # problem (permissions, disk full), else 2.
            problem = os_problem(exc)
            click.echo(printable(f"mqcap: error: {problem}"), err=True)
            sys.exit(problem.exit_code)
        except KeyboardInterrupt:
            # Every step commits on its own: what finished is kept, the rest is owed.
            click.echo(
                "mqcap: interrupted; what completed is kept, `mqcap run` does the rest", err=True
            )
            sys.exit(130)


def _settings(ctx: click.Context) -> Settings:
    """Settings from the options given before and after the command (loaded once)."""
    obj = ctx.find_object(dict)
    if "settings" not in obj:
        o = obj.get("options", {})
        obj["settings"] = Settings.load(
            warehouse=o.get("warehouse"),
            raw=o.get("raw"),
            reports_out=o.get("reports"),
            quiet=bool(o.get("quiet")),
            engine=o.get("engine"),
        )
    return obj["settings"]


@click.group(
    cls=_Group,
    params=_global_options(),
    context_settings={"help_option_names": ["-h", "--help"]},
)
@click.version_option(package_name="mqcap")
@click.pass_context
def main(ctx: click.Context, **options) -> None:
    """mqcap: raw IBM MQ performance measurements -> DuckDB warehouse -> MP16-style reports.

    Drop raw files in data/raw/<study>/<run>/ with a run.yaml manifest, then `mqcap run`.
    Settings come from flags, then MQCAP_* variables, then mqcap.toml (or [tool.mqcap] in
    pyproject.toml) in this folder or a parent. Paths given as flags or variables are relative
    to the current folder, those in mqcap.toml to its folder; the defaults (data/raw,
    data/warehouse.duckdb) are beside mqcap.toml, else in the current folder (in a source
    checkout: under the checkout).

    \b
    Example:
      mqcap run                      # ingest what is new, build, validate, render
      mqcap sql "select * from marts.fct_driver_results" --warehouse other.duckdb
    """
    ctx.ensure_object(dict)
    ctx.obj["options"] = {k: v for k, v in options.items() if v}
    interrupt.install()


def _jobs_option(fn):
    return click.option(
        "--jobs",
        "-j",
        type=click.IntRange(min=1),
        default=None,
        help="Processes parsing raw files in parallel; one writer lands them in the same order "
        "as one process would [env MQCAP_JOBS; mqcap.toml jobs; default: the cores].",
    )(fn)


def _with_jobs(s: Settings, jobs: int | None) -> Settings:
    return s.with_(jobs=jobs) if jobs else s


def _check_paths(paths: tuple[Path, ...]) -> None:
    """Paths given to ``ingest`` or ``run`` that cannot lead anywhere (a symlink loop, a NUL)
    are usage errors."""
    for path in paths:
        try:
            path.resolve()
        except (RuntimeError, ValueError, OSError) as exc:
            raise UsageError(f"{printable(path)}: cannot follow this path ({exc})") from None


@main.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@_jobs_option
@click.pass_context
def ingest(ctx: click.Context, paths: tuple[Path, ...], jobs: int | None) -> None:
    """Land new or changed raw files (default: the whole raw root) in the warehouse.

    Identical files are skipped; a changed file replaces its own rows; a file read by other
    parser code than this mqcap's is read again; bad files are set aside with the reason (see
    `mqcap status`). Exit 1 when a file was set aside.

    \b
    Example:
      mqcap ingest data/raw/attls/ssl-2k
    """
    from mqcap.ingest import ingest as do_ingest

    s = _with_jobs(_settings(ctx), jobs)
    _check_paths(paths)
    with make_progress(s.quiet) as progress:
        report = do_ingest(s, list(paths) or None, progress)
    click.echo(report.summary())
    for line in report.problem_lines():
        click.echo(f"  {line}")
    sys.exit(1 if report.problem_lines() else 0)


@main.command()
@click.option("--select", "-s", multiple=True, help="dbt node selection (default: everything).")
@click.option(
    "--docs",
    is_flag=True,
    help="Also write the dbt docs (models, columns, lineage) as one offline HTML file "
    "beside the reports (dbt-docs.html).",
)
@click.option(
    "--full",
    is_flag=True,
    help="Rebuild every mart whole (default: the run-keyed marts recompute only the runs "
    "touched since the last complete build).",
)
@click.option(
    "--unit-tests",
    is_flag=True,
    help="Also run the models' dbt unit tests (checks of the SQL on made-up rows; they depend "
    "on mqcap's code, not on your data, so a build leaves them out).",
)
@click.pass_context
def build(
    ctx: click.Context, select: tuple[str, ...], docs: bool, full: bool, unit_tests: bool
) -> None:
    """Build staging -> intermediate -> marts with dbt; each model checks its rows as it is built.

    \b
    Example:
      mqcap build --select +fct_driver_results
    """
    from mqcap.build import build as do_build

    s = _settings(ctx)
    with make_progress(s.quiet) as progress:
        result = do_build(
            s, list(select) or None, progress, docs=docs, full=full, unit_tests=unit_tests
        )
    click.echo(result.summary())
    if result.docs:
        click.echo(f"dbt docs: {result.docs}")


@main.command()
@click.option(
    "--scope",
    type=click.Choice(["landing", "mart", "all"]),
    default="all",
    show_default=True,
    help="Which boundary to check.",
)
@click.pass_context
def validate(ctx: click.Context, scope: str) -> None:
    """Run the Great Expectations suites in expectations/ on the warehouse.

    Exit 1 when a check fails; each failure names suite, expectation, table, run and file.

    \b
    Example:
      mqcap validate --scope mart
    """
    from mqcap.validate import validate as do_validate

    s = _settings(ctx)
    with make_progress(s.quiet) as progress:
        report = do_validate(s, scope, None, progress)
    click.echo(report.summary())
    if report.results:
        from mqcap.validate import data_docs_index

        click.echo(f"Data Docs: {data_docs_index(s)}")
    for f in report.failures:
        click.echo(printable(f"  FAILED {f.message()}"))
    sys.exit(0 if report.ok else 1)


@main.command()
@click.option("--study", multiple=True, help="Study to render (repeatable; default: all).")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["html", "pdf", "all"]),
    default="all",
    show_default=True,
)
@click.option("--force", is_flag=True, help="Render studies with failed checks too (listed).")
@click.pass_context
def report(ctx: click.Context, study: tuple[str, ...], fmt: str, force: bool) -> None:
    """Render the study reports (Quarto documents) to HTML and/or PDF.

    Uses the Quarto CLI when it is on PATH, else mqcap's own renderer. A study whose checks
    failed is not rendered unless --force (its first page then lists the failures). Exit 1
    when a report was not rendered.

    \b
    Example:
      mqcap report --study attls --format pdf
    """
    from mqcap.publish import render_reports

    s = _settings(ctx)
    with make_progress(s.quiet) as progress:
        result = render_reports(s, list(study) or None, fmt, force=force, progress=progress)
    for path in result.paths():
        click.echo(str(path))
    _print_report_problems(result)
    sys.exit(1 if result.skipped or result.failed else 0)


def _print_report_problems(result) -> None:
    for name, path in result.withdrawn.items():
        click.echo(printable(f"  removed {path}: study {name.rsplit('.', 1)[0]} has no runs now"))
    for study, why in result.skipped.items():
        click.echo(f"  report of {study} not rendered: {why}")
    for study, why in result.failed.items():
        click.echo(f"  report of {study} FAILED to render (retried by the next run): {why}")


@main.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("--format", "fmt", type=click.Choice(["html", "pdf", "all"]), default="all")
@click.option(
    "--force", is_flag=True, help="Rebuild and render even with nothing new or failed checks."
)
@click.option("--no-reports", is_flag=True, help="Stop after validating the marts.")
@_jobs_option
@click.pass_context
def run(
    ctx: click.Context,
    paths: tuple[Path, ...],
    fmt: str,
    force: bool,
    no_reports: bool,
    jobs: int | None,
) -> None:
    """Ingest what changed, build, validate, and render the affected reports.

    \b
    Example:
      mqcap run                # everything new under the raw root
      mqcap run --force        # render even where checks failed (the report says which)
    """
    from mqcap.pipeline import run as do_run

    s = _with_jobs(_settings(ctx), jobs)
    _check_paths(paths)
    with make_progress(s.quiet) as progress:
        result = do_run(s, list(paths) or None, fmt, force, not no_reports, progress)
    _print_run(s, result)


def _print_run(s: Settings, result, docs: Path | None = None) -> None:
    from mqcap.pipeline import report_paths, warehouse_totals

    click.echo(result.ingest.summary())
    for line in result.ingest.problem_lines():
        click.echo(f"  {line}")
    for line in result.notes:
        click.echo(f"  note: {line}")
    if result.nothing_new:
        if result.problems:
            click.echo("nothing new, but not everything is right (see `mqcap status`):")
            for line in result.problems:
                click.echo(f"  {line}")
        else:
            click.echo("nothing new: warehouse and reports are up to date")
        sys.exit(1 if result.data_problems else 0)
    if result.build:
        click.echo(result.build.summary())
    for v in (result.landing, result.marts):
        for f in v.failures if v else []:
            click.echo(printable(f"  FAILED {f.message()}"))
    if result.reports:
        _print_report_problems(result.reports)
        for path in report_paths(result):
            click.echo(f"report: {path}")
    shown = {f"study {s}" for s in (result.reports.skipped if result.reports else {})}
    for line in result.problems:
        if not any(line.startswith(x + ":") for x in shown):
            click.echo(f"  {line}")
    if result.marts and result.marts.results:
        from mqcap.validate import data_docs_index

        click.echo(f"Data Docs: {data_docs_index(s)}")
    if docs is not None:
        click.echo(f"dbt docs: {docs}")
    t = warehouse_totals(s)
    click.echo(
        f"summary: {t['runs']} runs, {t['files']} files, {t['rows']} rows, "
        f"{_checks_phrase(*result.checks())}"
        + (f", {t['set_aside']} file(s) set aside" if t["set_aside"] else "")
    )
    sys.exit(1 if result.data_problems else 0)


def _checks_phrase(passed: int, total: int) -> str:
    """The checks of this command for its summary line; a run that only rendered reports ran
    none (its data was checked when it landed and was built: `mqcap status` has those results).

    Example:
        >>> _checks_phrase(837, 837), _checks_phrase(0, 0)
        ('837/837 checks passed', 'no checks due (nothing landed or built)')
    """
    return f"{passed}/{total} checks passed" if total else "no checks due (nothing landed or built)"


@main.command()
@click.argument("studies", nargs=-1)
@click.pass_context
def demo(ctx: click.Context, studies: tuple[str, ...]) -> None:
    """Run the whole pipeline on the bundled sample studies (data/sample/), or on the STUDIES
    named (e.g. `streaming`, the smallest).

    Uses its own warehouse (data/demo/warehouse.duckdb: in the checkout when run from it, else
    under the current folder) so your data is untouched, and ends by printing where it wrote
    the reports, Data Docs and dbt docs (data/demo/warehouse.mqcap/), and a one-line summary.

    \b
    Example:
      mqcap demo && mqcap --warehouse data/demo/warehouse.duckdb status
      mqcap demo streaming
    """
    from mqcap.build import write_dbt_docs
    from mqcap.pipeline import demo_settings
    from mqcap.pipeline import run as do_run

    s = demo_settings(_settings(ctx))
    known = sorted(p.name for p in s.raw_root.iterdir() if p.is_dir())
    unknown = [name for name in studies if name not in known]
    if unknown:
        raise UsageError(f"no sample study {', '.join(unknown)}; known: {', '.join(known)}")
    click.echo(f"demo: raw files {s.raw_root}, warehouse {s.warehouse}")
    with make_progress(s.quiet) as progress:
        paths = [str(s.raw_root / name) for name in studies] or None
        # Only what is owed, like `mqcap run`: a demo run again with nothing changed renders
        # nothing and says so (`mqcap report --force` renders again on purpose).
        result = do_run(s, paths, "all", False, True, progress)
        docs = write_dbt_docs(s, progress) if result.build else None
    if result.nothing_new:
        click.echo(f"reports (unchanged): {s.reports_out / 'index.html'}")
    _print_run(s, result, docs)


# `sql` and `shell` read while a pipeline step may hold the warehouse: how long they wait.
_WAIT_OPTION = click.option(
    "--wait",
    "wait_s",
    type=_Seconds(),
    default=30.0,
    show_default=True,
    help="Seconds to wait while a pipeline step holds the warehouse.",
)


def _result_options(max_rows: int):
    """--format, -o and --max-rows: how `sql` and `compare` give their rows."""

    def wrap(f):
        f = click.option(
            "--max-rows",
            type=click.IntRange(min=0),
            default=max_rows,
            show_default=True,
            help="Rows shown as a table.",
        )(f)
        f = click.option(
            "-o",
            "--output",
            type=click.Path(dir_okay=False, path_type=Path),
            help="Write to a file.",
        )(f)
        return click.option(
            "--format",
            "fmt",
            type=click.Choice(["table", "csv", "json", "parquet"]),
            default="table",
            show_default=True,
        )(f)

    return wrap


def _emit(frame, fmt: str, output: Path | None, table_text: str, rows: int) -> None:
    """Write one result: parquet to ``output``; table (``table_text``), csv or json to
    ``output`` or stdout, with a "N rows -> FILE" line when written to a file."""
    if fmt == "parquet":
        _write(output, lambda: frame.write_parquet(output))
        click.echo(f"{rows} rows -> {output}", err=True)
        return
    if fmt == "table":
        text_out = table_text
    elif fmt == "csv":
        text_out = frame.write_csv()
    else:
        text_out = json.dumps(frame.to_dicts(), default=str, indent=1) + "\n"
    if output is not None:
        _write(output, lambda: output.write_text(text_out))
        click.echo(f"{rows} rows -> {output}", err=True)
    else:
        click.echo(text_out, nl=False)


def _write(output: Path, write) -> None:
    """Run ``write`` (which writes ``output``); a folder that is missing, a full disk... is one
    line with its exit code (2 for the path, 3 for the machine), not a traceback."""
    import polars as pl

    try:
        write()
    except OSError as exc:
        if exc.filename is None:
            exc.filename = str(output)
        raise os_problem(exc, "write") from None
    except pl.exceptions.PolarsError as exc:  # polars' own file writing, e.g. Parquet
        import re

        text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        code = re.search(r"os error (\d+)", text)
        errno_ = int(code.group(1)) if code else 0
        raise os_problem(OSError(errno_, text, str(output)), "write") from None


def _read_sql(path: Path) -> str:
    """The SQL in ``path`` as UTF-8 text (a BOM is allowed); anything else is a usage error."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise os_problem(exc, "read") from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise UsageError(
            f"{path}: not UTF-8 text (byte {exc.start}: {data[exc.start : exc.start + 1]!r}); "
            "save the SQL as UTF-8"
        ) from None


@main.command()
@click.argument("query", required=False)
@click.option(
    "-f", "--file", "sql_file", type=click.Path(exists=True, dir_okay=False, path_type=Path)
)
@_result_options(max_rows=100)
@_WAIT_OPTION
@click.pass_context
def sql(
    ctx: click.Context,
    query: str | None,
    sql_file: Path | None,
    fmt: str,
    output: Path | None,
    max_rows: int,
    wait_s: float,
) -> None:
    """Run SQL on the warehouse, read-only: every statement's result, in order.

    Schemas: landing (raw rows), staging, intermediate, marts, meta (ledger, checks).

    \b
    Allowed: queries on every schema, temporary tables, describe / summarize / explain.
    Refused: writing files (COPY TO, EXPORT DATABASE), ATTACH, INSTALL / LOAD, changing
    settings, reading any file but the warehouse (read_csv, glob...; the raw files' rows are
    in landing.* with their file and line). mqcap writes results for you: --format
    csv|json|parquet -o FILE, or `mqcap export`.
    With several statements, --format table shows each one's rows; csv, json and parquet
    write one table, so exactly one statement may return rows.

    \b
    Example:
      mqcap sql "select configuration, message_bytes, round_trip_us from marts.fct_driver_results"
      mqcap sql -f my_query.sql --format csv -o out.csv
    """
    from mqcap.sqlquery import QueryCancelled, format_table, run_sql, sandbox

    if (query is None) == (sql_file is None):
        raise UsageError("give a QUERY or -f FILE (one of them)")
    if fmt == "parquet" and output is None:
        raise UsageError("--format parquet needs --output FILE")
    text = query if query is not None else _read_sql(sql_file)
    s = _settings(ctx)
    try:
        with warehouse.connect(
            s.warehouse, read_only=True, wait_s=wait_s, on_wait=lambda m: click.echo(m, err=True)
        ) as con:
            sandbox(con)
            results = [r for r in run_sql(con, text, s.warehouse, fmt) if r.frame is not None]
    except QueryCancelled:
        click.echo("mqcap: interrupted: the query was stopped (nothing was changed)", err=True)
        sys.exit(130)
    if not results:
        return
    if fmt != "table" and len(results) > 1:
        numbers = ", ".join(str(r.number) for r in results)
        raise UsageError(
            f"--format {fmt} writes one table, but statements {numbers} return rows: "
            "keep one query (temporary tables may prepare it), or use --format table"
        )
    parts = []
    for r in results if fmt == "table" else []:
        part = format_table(r.frame, max_rows)
        if len(results) > 1:
            head = " ".join(r.text.split())
            head = head if len(head) <= 70 else head[:67] + "..."
            part = f"-- statement {r.number}: {head}\n{part}"
        parts.append(part)
    table_text = "\n\n".join(parts) + "\n"
    _emit(results[0].frame, fmt, output, table_text, sum(r.frame.height for r in results))


@main.command()
@click.argument("a")
@click.argument("b")
@click.option("--study", default=None, help="The study, when A or B is a name in several.")
@_result_options(max_rows=200)
@click.pass_context
def compare(
    ctx: click.Context,
    a: str,
    b: str,
    study: str | None,
    fmt: str,
    output: Path | None,
    max_rows: int,
) -> None:
    """Compare B with A (the baseline): every measure, % change, 95% interval, verdict.

    A and B are two runs (run id or study/run), two configurations or two builds (a run.yaml
    `build` or `version`); prefix run:, config: or build: when a name is several things.
    Configurations are paired by workload point, builds by configuration and point; the runs
    on a side at a point are its replicates. The verdict is better / worse (by the measure's
    direction: lower cost and latency, higher throughput) when the 95% Welch interval of the
    change excludes 0 and the change is at least the study's min_change_pct (study.yaml
    noise, default 1%), else "no significant change"; a side with one run gives "one run: no
    interval". Reads the marts only (`mqcap build` first).

    \b
    Example:
      mqcap compare b06 b07 --study history
      mqcap compare "MQ + System SSL" "MQ + AT-TLS" --format csv -o attls.csv
      mqcap compare run:ssl-chacha-2k run:attls-chacha-2k
    """
    import polars as pl

    from mqcap.compare import compare_frame, table_frame
    from mqcap.sqlquery import format_table, sandbox

    if fmt == "parquet" and output is None:
        raise UsageError("--format parquet needs --output FILE")
    if a == b:
        raise UsageError(
            f"A and B are the same ({a!r}): compare two different runs, configurations or builds"
        )
    s = _settings(ctx)
    with warehouse.connect(s.warehouse, read_only=True) as con:
        sandbox(con)
        frame, threshold = compare_frame(con, a, b, study)
    table_text = ""
    if fmt == "table":
        table_text = f"{b} against {a}\n{format_table(table_frame(frame), max_rows)}\n"
        table_text += f"verdict: {threshold}\n"
    elif fmt != "parquet":
        frame = frame.with_columns(pl.lit(threshold).alias("threshold"))
    _emit(frame, fmt, output, table_text, frame.height)


@main.command("compare-warehouses")
@click.argument("a", type=click.Path(path_type=Path, dir_okay=False))
@click.argument("b", type=click.Path(path_type=Path, dir_okay=False))
@click.option(
    "--rel",
    type=click.FloatRange(min=0),
    default=1e-9,
    show_default=True,
    help="Relative tolerance for floating-point values (text, whole numbers, times: exact).",
)
def compare_warehouses(a: Path, b: Path, rel: float) -> None:
    """Do warehouses A and B hold the same marts? Mart names, columns and their types, then
    every row (in any order). Exit 0 when they do, 1 when they differ (each difference
    printed, at most five rows per mart).

    For a warehouse built by each engine from the same raw files (`--engine duckdb` and
    `--engine spark`), or one built before and one after a change of mqcap or of the project.

    \b
    Example:
      mqcap compare-warehouses duck/warehouse.duckdb spark/warehouse.duckdb
    """
    from mqcap.parity import mart_counts, mart_differences

    problems = mart_differences(a, b, rel=rel)
    if problems:
        click.echo("\n".join(problems))
        raise DataError(f"the marts of {a} and {b} differ: {len(problems)} difference(s) above")
    marts, rows = mart_counts(a)
    click.echo(f"the same marts: {marts} marts, {rows:,} rows, floats to {rel:g} relative")


@main.command()
@click.option(
    "--max-rows",
    type=click.IntRange(min=0),
    default=100,
    show_default=True,
    help="Rows shown per result.",
)
@_WAIT_OPTION
@click.pass_context
def shell(ctx: click.Context, max_rows: int, wait_s: float) -> None:
    """Interactive read-only SQL on the warehouse (same sandbox as `mqcap sql`).

    Statements end with ; and may span lines. .tables lists tables and views, .help says
    what is allowed, .quit or Ctrl-D ends. Reads standard input, so a script can be piped in.
    Exit 1 when a statement failed. The session holds a read lock: pipeline steps wait.

    \b
    Example:
      mqcap shell --warehouse data/demo/warehouse.duckdb
      echo "select count(*) from marts.dim_run;" | mqcap shell
    """
    from mqcap.shell import session
    from mqcap.sqlquery import sandbox

    s = _settings(ctx)
    with warehouse.connect(
        s.warehouse, read_only=True, wait_s=wait_s, on_wait=lambda m: click.echo(m, err=True)
    ) as con:
        sandbox(con)
        failures = session(con, s.warehouse, max_rows=max_rows)
    sys.exit(1 if failures else 0)


@main.command()
@click.argument("study", required=False)
@click.option("--run", "run_id", default="run-1", show_default=True, help="First run folder.")
@click.pass_context
def init(ctx: click.Context, study: str | None, run_id: str) -> None:
    """Start a work folder (mqcap.toml) or a study (templates to fill in).

    Without STUDY: writes mqcap.toml here (every setting commented) and creates the raw root.
    With STUDY: <raw>/<study>/study.yaml and <raw>/<study>/<run>/run.yaml, commented
    templates; drop the run's files beside its run.yaml. Existing files are never overwritten.

    \b
    Example:
      mqcap init attls && $EDITOR data/raw/attls/run-1/run.yaml
    """
    from mqcap.scaffold import init_config, init_study, make_folder

    s = _settings(ctx)
    if study is None:
        path = init_config(Path.cwd())
        ctx.find_object(dict).pop("settings", None)  # again: the file written here counts now
        s = _settings(ctx)
        make_folder(s.raw_root)
        click.echo(f"wrote {path}" if path else f"kept {Path.cwd() / 'mqcap.toml'} (exists)")
        click.echo(f"raw root: {s.raw_root}")
        click.echo(f"warehouse: {s.warehouse}")
        return
    written = init_study(s.raw_root, study, run_id)
    for path in written:
        click.echo(f"wrote {path}")
    if not written:
        click.echo(f"kept the files of {s.raw_root / study} (they exist)")
    click.echo(
        f"next: fill in {s.raw_root / study / run_id / 'run.yaml'}, drop the run's files "
        "beside it, then `mqcap run`"
    )


@main.command(name="open")
@click.argument("study", required=False)
@click.option(
    "--format", "fmt", type=click.Choice(["html", "pdf"]), default="html", show_default=True
)
@click.option("--browser", "-b", is_flag=True, help="Open it with the system's viewer.")
@click.pass_context
def open_(ctx: click.Context, study: str | None, fmt: str, browser: bool) -> None:
    """Print the path of a study's report (default: the overview, index.html); -b opens it.

    \b
    Example:
      mqcap open attls -b
      mqcap open --format pdf attls
    """
    s = _settings(ctx)
    if study is None and fmt == "pdf":
        raise UsageError("the overview is HTML only: give a STUDY for a PDF")
    path = _report_path(s.reports_out, study, fmt)
    click.echo(printable(path))
    if browser:
        import webbrowser

        webbrowser.open(path.as_uri())


def _report_path(reports: Path, study: str | None, fmt: str) -> Path:
    """The report ``mqcap open`` may show: a regular file mqcap writes (``<study>.<fmt>`` or
    ``index.html``) directly in the reports folder, never a path that leads out of it (``..``, a
    separator, a symlink)."""
    name = "index.html" if study is None else f"{study}.{fmt}"

    def known() -> str:
        try:
            stems = sorted(p.stem for p in reports.glob(f"*.{fmt}") if p.stem != "index")
        except OSError:
            stems = []
        return f" (reports there: {', '.join(stems)})" if stems else ""

    if study is not None and (
        study in ("", ".", "..") or any(c in study for c in "/\\\0") or len(name) > 255
    ):
        shown = study if len(study) <= 80 else study[:77] + "..."
        raise UsageError(f"no report named {shown!r}: give a study name{known()}")
    path = reports / name
    try:
        inside = path.is_file() and not path.is_symlink()
        inside = inside and path.resolve().parent == reports.resolve()
    except (OSError, RuntimeError):
        inside = False
    if not inside:
        raise UsageError(f"no report at {path}: run `mqcap run` or `mqcap report`{known()}")
    return path


@main.command()
@click.argument("out_dir", type=click.Path(file_okay=False, path_type=Path), default="data/export")
@click.option("--mart", "only", multiple=True, help="Only this mart (repeatable).")
@click.pass_context
def export(ctx: click.Context, out_dir: Path, only: tuple[str, ...]) -> None:
    """Write the marts as Parquet, partitioned by study, for other tools.

    \b
    Example:
      mqcap export data/export --mart fct_address_space_cost
      # -> data/export/fct_address_space_cost/study=attls/data_0.parquet
    """
    from mqcap.export import export_marts

    s = _settings(ctx)
    for name, path in export_marts(s, out_dir, list(only) or None).items():
        click.echo(f"{name}: {path}" if path is not None else f"{name}: no rows, nothing written")


@main.command()
@click.option(
    "--interval",
    type=_Seconds(above=True),
    default=2.0,
    show_default=True,
    help="Seconds between scans.",
)
@click.option(
    "--settle",
    type=_Seconds(),
    default=5.0,
    show_default=True,
    help="A file is read once its size and mtime have not changed for this long.",
)
@click.option("--format", "fmt", type=click.Choice(["html", "pdf", "all"]), default="all")
@click.pass_context
def watch(ctx: click.Context, interval: float, settle: float, fmt: str) -> None:
    """Watch the raw root and run the pipeline when dropped files have settled.

    Files still being copied are never read half-written. Ctrl-C stops cleanly.

    \b
    Example:
      mqcap watch --settle 10     # then copy runs into data/raw/<study>/<run>/
    """
    from datetime import datetime

    from mqcap.pipeline import run as do_run
    from mqcap.watch import watch as do_watch

    s = _settings(ctx)

    def log(message: str) -> None:
        click.echo(printable(f"{datetime.now():%H:%M:%S} {message}"))

    def on_batch(paths: list[Path]) -> None:
        try:
            with make_progress(True) as progress:
                result = do_run(s, None, fmt, False, True, progress)
            log(result.ingest.summary())
            for line in result.ingest.problem_lines():
                log(line)
            if result.build:
                log(result.build.summary())
            for path in result.reports.paths() if result.reports else []:
                log(f"report: {path}")
            for line in result.problems:
                log(line)
        except MqcapError as exc:
            log(f"error: {exc}")
        except Exception as exc:  # watching goes on: the next batch retries what failed
            log(f"error: {type(exc).__name__}: {exc}")

    do_watch(s, on_batch, interval_s=interval, settle_s=settle, log=log)


@main.command()
@click.argument(
    "scenarios",
    nargs=-1,
    required=True,
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
)
@click.option(
    "--out",
    "out_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Where to write <study>/<run>/ folders [default: the raw root].",
)
@click.option("--seed", type=int, default=None, help="Noise seed [default: the scenario's].")
@click.option(
    "--scale", type=_Seconds(above=True), default=1.0, show_default=True, help="Volume multiplier."
)
@click.option("--clean", is_flag=True, help="Remove OUT/<study> first.")
@click.pass_context
def generate(
    ctx: click.Context,
    scenarios: tuple[Path, ...],
    out_dir: Path | None,
    seed: int | None,
    scale: float,
    clean: bool,
) -> None:
    """Write a study's raw files in the real formats from a scenario file (generated data).

    Deterministic for a seed; --scale makes big studies for benchmarks. The scenario format is
    documented at the top of data/scenarios/attls.yaml.

    \b
    Example:
      mqcap generate data/scenarios/protection.yaml --out /tmp/raw && mqcap --raw /tmp/raw run
    """
    import shutil

    from mqcap.generate import generate as do_generate
    from mqcap.generate import load_scenario
    from mqcap.generate.scenario import ScenarioError

    s = _settings(ctx)
    target = out_dir or s.raw_root
    for path in scenarios:
        try:
            doc = load_scenario(path)
            if clean:
                shutil.rmtree(target / str(doc["study"]), ignore_errors=True)
            files = do_generate(doc, target, seed=seed, scale=scale)
        except (ScenarioError, KeyError) as exc:
            raise UsageError(f"{path}: {exc}") from None
        except RecursionError:
            raise UsageError(f"{path}: nested too deeply to be a scenario") from None
        size = sum(f.stat().st_size for f in files)
        click.echo(f"{doc['study']}: {len(files)} files, {size / 1e6:.2f} MB under {target}")


@main.command()
@click.pass_context
def status(ctx: click.Context) -> None:
    """What is loaded (per study and run), what was set aside and why, and the last checks.

    \b
    Example:
      mqcap status
    """
    from mqcap.ledger import files as ledger_files
    from mqcap.ledger.steps import last_checks, pipeline_state

    s = _settings(ctx)
    if not s.warehouse.exists():
        click.echo(
            f"no warehouse yet at {s.warehouse}; drop files under {s.raw_root} and `mqcap run`"
        )
        return
    with warehouse.connect(s.warehouse, read_only=True) as con:
        click.echo(f"warehouse: {s.warehouse}\nraw root:  {s.raw_root}\n")
        rows = ledger_files.loaded_by_study(con)
        click.echo("loaded:")
        for study, runs, files, nrows in rows or [("(nothing)", 0, 0, 0)]:
            click.echo(f"  {study:<30} {runs:>5} runs {files:>6} files {nrows or 0:>12} rows")
        aside = ledger_files.set_aside_files(con)
        click.echo(f"\nset aside: {len(aside)} file(s)")
        for path, pos, reason, retry in aside:
            when = " [retried on next ingest]" if retry else ""
            click.echo(printable(f"  {path}{' ' + pos if pos else ''}: {reason}{when}"))
        copies = duplicates.summary(con) or []
        click.echo(f"\nrecords loaded twice (counted once): {len({c[0] for c in copies})} file(s)")
        for path, first, n, pos, first_pos in copies:
            click.echo(
                printable(f"  {path}: {n:,} record(s) from {pos} repeat {first} ({first_pos} on)")
            )
        checks = last_checks(con)
        click.echo(f"\nlast checks: {len(checks)} suite(s)")
        for suite, ok, n, failed, nrows, at in checks:
            verdict = "ok    " if ok else "FAILED"
            click.echo(f"  {verdict} {suite:<45} {n - failed}/{n} on {nrows} rows at {at}")
        _print_state(pipeline_state(s, con))


def _print_state(state) -> None:
    """The step ledger: build, checks and reports per study, then one verdict line."""
    from mqcap.ledger.steps import OVERVIEW

    click.echo("\npipeline:")
    build = state.latest("build")
    if build is None:
        click.echo("  dbt build:    never run")
    else:
        when = build.finished_at or build.started_at
        word = {"done": "done", "failed": "FAILED", "running": "INTERRUPTED (or running)"}
        fresh = "" if state.built() or build.status != "done" else ", files landed since"
        click.echo(
            f"  dbt build:    {word.get(build.status, build.status)} at {when}, "
            f"{len(build.covered or [])} file(s){fresh}"
        )
    click.echo(
        f"  landing:      {len(state.loaded) - len(state.landing_pending())}/{len(state.loaded)}"
        f" loaded file(s) checked, {len(state.landing_failures())} failure(s) standing"
    )
    marts = "checked" if state.mart_checked() else "not checked on the current build"
    click.echo(f"  mart checks:  {marts}, {len(state.mart_failures())} failure(s)")
    formats = sorted({k[2] for k in state.rows if k[0] == "report" and k[1] != OVERVIEW}) or [
        "html",
        "pdf",
    ]
    for study in [*state.studies, OVERVIEW]:
        fmts = ["html"] if study == OVERVIEW else formats
        shown = ", ".join(f"{f} {state.report_state(study, f)}" for f in fmts)
        click.echo(f"  report {study if study != OVERVIEW else '(index)':<22} {shown}")
    if state.notes:
        click.echo(f"\nnotes: {len(state.notes)}")
        for line in state.notes:
            click.echo(f"  note: {line}")
    problems = state.problems(tuple(formats))
    if problems:
        click.echo(f"\nNOT OK: {len(problems)} problem(s):")
        for line in problems:
            click.echo(f"  {line}")
    else:
        click.echo("\nOK: every check passed, every report is up to date")


if __name__ == "__main__":
    main()
