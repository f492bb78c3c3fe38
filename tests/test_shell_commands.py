"""`mqcap shell`'s dot commands as a user meets them: `.help` lists them, `.tables` groups by
schema, `.schema` says what each schema holds and gives a table's columns as a `create`,
`.describe` gives columns, types, nulls and the row count; a mistyped name is an error line and
the session goes on."""

from __future__ import annotations

from click.testing import CliRunner

from mqcap.cli import main
from mqcap.ingest import ingest


def _shell(settings, script: str):
    return CliRunner().invoke(
        main,
        ["shell", "--warehouse", str(settings.warehouse), "--raw", str(settings.raw_root), "-q"],
        input=script,
    )


def test_help_lists_every_dot_command(settings, sample_study):
    ingest(settings)
    result = _shell(settings, ".help\n")
    assert result.exit_code == 0, result.output
    for command in (".tables [SCHEMA]", ".schema [NAME]", ".describe NAME", ".help", ".quit"):
        assert f"  {command}" in result.output
    assert "mqcap sql is read-only" in result.output  # the sandbox's rules follow


def test_tables_are_grouped_by_schema(settings, sample_study):
    ingest(settings)
    result = _shell(settings, ".tables\n.tables landing\n.tables nosuch\n")
    out = result.output
    # One heading per schema with its count, the names wrapped under it.
    assert "\nlanding (" in out and "\nmeta (" in out
    heading = next(line for line in out.splitlines() if line.startswith("landing ("))
    count = int(heading.split("(")[1].split(")")[0])
    listed = out.split(heading, 1)[1].split("\nmeta (", 1)[0]
    assert len([n for n in listed.replace("\n", ",").split(",") if n.strip()]) == count
    # .tables landing: one per line, with its kind.
    assert "landing.driver_results  (table)" in out
    assert "error: no schema 'nosuch' (schemas: " in out
    assert result.exit_code == 1  # the one failed command


def test_schema_and_describe_a_table(settings, sample_study):
    ingest(settings)
    script = ".schema\n.schema landing.run_manifest\n.describe driver_results\n"
    out = _shell(settings, script).output
    assert "landing " in out and "rows as parsed from the raw files" in out
    assert "create table landing.run_manifest (\n" in out
    assert "    study " in out.split("create table landing.run_manifest", 1)[1]
    # .describe without the schema: ten runs of two results rows each in the mini study.
    rows = sum(
        1
        for p in sample_study.rglob("results.csv")
        for line in p.read_text().splitlines()[1:]
        if line.strip()
    )
    assert "landing.driver_results: table, " in out
    assert f" columns, {rows:,} rows" in out
    assert "│ source_file" in out or "source_file " in out


def test_a_name_that_is_not_there_is_said_and_the_session_goes_on(settings, sample_study):
    ingest(settings)
    out = _shell(settings, ".describe nosuch\n.describe\n.frobnicate\nselect 41 + 1 as a;\n")
    assert "error: no table or view 'nosuch' (.tables lists them)" in out.output
    assert "error: .describe needs a table or view name" in out.output
    assert "error: unknown command .frobnicate: .help lists the commands" in out.output
    assert "│ 42 │" in out.output
    assert out.exit_code == 1
