"""Every mqcap command ends with one line and a documented exit code, never a traceback.

The cases of issue 31 as a user meets them (through the CLI): every DuckDB type in every
`mqcap sql` output format (128-bit integers exact), Ctrl-C of a query (`sql` exits 130, `shell`
goes on), outputs that cannot be written, SQL files that are not UTF-8, settings files and
paths that lead nowhere, option values that are not numbers of seconds, `compare` without marts
or with one thing on both sides, `open` outside the reports folder or with a name a terminal
would act on, `init` through a symlink or into a file, `export` beside the user's files, and
`watch` stopped with Ctrl-C. Last, a hypothesis fuzz test drives every command with random
options, settings files, paths and SQL: exit codes stay in {0, 1, 2, 3, 130}, no traceback.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import polars as pl
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mqcap.cli import main

from helpers import PROJECT

# Every command driven with random options, settings and SQL (hypothesis): minutes.
pytestmark = pytest.mark.slow

EXIT_CODES = {0, 1, 2, 3, 130}
UHUGEINT_MAX = "340282366920938463463374607431768211455"


@pytest.fixture(scope="module")
def wh(tmp_path_factory) -> Path:
    """A small hand-made warehouse: a `marts` schema with a study-partitioned mart, an empty one
    and `dim_run_set` without measures (enough for sql, export and compare)."""
    base = tmp_path_factory.mktemp("robust")
    path = base / "w.duckdb"
    con = duckdb.connect(str(path))
    con.execute("create schema marts; create schema meta")
    con.execute("create table marts.fct_x as select 'attls' as study, range as x from range(3)")
    con.execute("create table marts.fct_empty (x integer)")
    con.execute("create table marts.dim_plain as select 1 as a")
    con.close()
    (base / "w.mqcap" / "reports").mkdir(parents=True)
    (base / "w.mqcap" / "reports" / "attls.html").write_text("<html></html>")
    (base / "w.mqcap" / "reports" / "index.html").write_text("<html></html>")
    return path


def _cli(wh: Path, *args: str, input: str | None = None, env: dict | None = None):
    return CliRunner().invoke(
        main,
        ["-q", *args, "--warehouse", str(wh), "--raw", str(wh.parent / "raw")],
        input=input,
        env=env,
        catch_exceptions=True,
    )


def _clean(result, code: int) -> None:
    """Ended on its own (no traceback) with ``code``."""
    assert result.exception is None or isinstance(result.exception, SystemExit), (
        result.exception,
        result.output,
    )
    assert result.exit_code == code, result.output
    assert "Traceback" not in result.output


# --- every type in every format --------------------------------------------------------------

TYPES = {
    "interval": "interval 1 day + interval 3 hours",
    "infinite date": "'infinity'::date",
    "-infinite timestamp": "'-infinity'::timestamp",
    "infinite timestamptz": "'infinity'::timestamptz",
    "year 300000": "'300000-01-01'::date",
    "union": "union_value(k := 1)",
    "uhugeint max": f"{UHUGEINT_MAX}::uhugeint",
    "hugeint min": "(-170141183460469231731687303715884105727)::hugeint - 1",
    "small hugeint": "sum(1::bigint) over ()",
    "blob": "'\\xAA\\x00ab'::blob",
    "bit": "'10110'::bit",
    "list": "[1, 2, null]",
    "struct": "{'a': 1, 'b': 'x'}",
    "map": "map {'k': 1}",
    "array": "[1, 2]::integer[2]",
    "list of intervals": "[interval 1 day]",
    "struct of infinity": "{'d': 'infinity'::date}",
    "nested": "[{'a': [1, 2]}]",
    "time with time zone": "'10:00:00+02'::timetz",
    "timestamp_ns": "'2024-01-01 10:00:00.123456789'::timestamp_ns",
    "uuid": "'00000000-0000-0000-0000-000000000001'::uuid",
    "enum": "'a'::enum('a', 'b')",
    "decimal": "123456789012345678.123::decimal(38, 3)",
    "double nan": "'nan'::double",
    "json": "'{\"a\": 1}'::json",
    "varchar controls": "chr(27) || '[2J' || chr(10)",
    "null": "null",
}
FORMATS = ["table", "csv", "json", "parquet"]


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("kind", sorted(TYPES))
def test_sql_shows_every_type_in_every_format(wh, tmp_path, kind, fmt):
    out = ["-o", str(tmp_path / "r.parquet")] if fmt == "parquet" else []
    result = _cli(wh, "sql", f"select {TYPES[kind]} as v", "--format", fmt, *out)
    _clean(result, 0)


def test_sql_128_bit_integers_are_exact_in_every_format(wh, tmp_path):
    query = f"select {UHUGEINT_MAX}::uhugeint as u, 5::uhugeint as small"
    for fmt in ("table", "csv", "json"):
        result = _cli(wh, "sql", query, "--format", fmt)
        _clean(result, 0)
        assert UHUGEINT_MAX in result.output and "-1" not in result.output
    assert json.loads(_cli(wh, "sql", query, "--format", "json").output) == [
        {"u": UHUGEINT_MAX, "small": 5}
    ]
    _cli(wh, "sql", query, "--format", "parquet", "-o", str(tmp_path / "u.parquet"))
    frame = pl.read_parquet(tmp_path / "u.parquet")
    assert frame["u"].to_list() == [UHUGEINT_MAX] and frame.schema["small"] == pl.Int64


def test_sql_csv_gives_nested_types_as_json_text_and_infinity_as_text(wh):
    result = _cli(
        wh,
        "sql",
        "select [1, 2] as l, {'a': 1} as s, 'infinity'::date as d, interval 1 day as i",
        "--format",
        "csv",
    )
    _clean(result, 0)
    assert result.output.splitlines() == ["l,s,d,i", '"[1,2]","{""a"":1}",infinity,1 day']


def test_shell_goes_on_after_errors(wh):
    script = (
        "select interval 1 day as i;\nselect * from nowhere;\n"
        "select 'infinity'::date as d;\nselect 42 as answer;\n"
    )
    result = _cli(wh, "shell", input=script)
    _clean(result, 1)  # one statement failed
    assert "1 day" in result.output and "infinity" in result.output
    assert "nowhere" in result.output and "42" in result.output


# --- Ctrl-C ----------------------------------------------------------------------------------

LONG_QUERY = "select count(*) from range(100000000000) t(x) where x % 7 = 3"


def _interrupted(wh: Path, args: list[str], stdin: str | None = None):
    """Start the real command, let the long query run, press Ctrl-C (SIGINT)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "mqcap.cli", "-q", *args, "--warehouse", str(wh)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=PROJECT,
    )
    try:
        if stdin is not None:
            assert proc.stdout.readline().startswith("mqcap shell on")  # the session is up
            proc.stdin.write(stdin)
            proc.stdin.flush()
            time.sleep(1.5)
        else:
            time.sleep(4)
        proc.send_signal(signal.SIGINT)
        if stdin is not None:
            time.sleep(1)
            proc.stdin.write("select 42 as answer;\n")
        proc.stdin.close()
        out, err = proc.stdout.read(), proc.stderr.read()
        proc.wait(60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return proc.returncode, out, err


def test_ctrl_c_stops_a_long_sql_query_with_exit_130_and_one_line(wh):
    code, _out, err = _interrupted(wh, ["sql", LONG_QUERY])
    assert code == 130, err
    assert err.strip().splitlines() == [
        "mqcap: interrupted: the query was stopped (nothing was changed)"
    ]


def test_ctrl_c_in_shell_cancels_the_query_and_the_session_goes_on(wh):
    code, out, err = _interrupted(wh, ["shell"], stdin=LONG_QUERY + ";\n")
    assert "Traceback" not in err, err
    assert "cancelled (Ctrl-C)" in out and "42" in out
    assert code == 0, err


# --- outputs and inputs ----------------------------------------------------------------------


def test_sql_output_into_a_missing_folder_is_a_usage_error(wh, tmp_path):
    for fmt in ("csv", "parquet"):
        result = _cli(wh, "sql", "select 1", "--format", fmt, "-o", str(tmp_path / "no" / "x"))
        _clean(result, 2)
        assert "cannot write" in result.output


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full")
def test_sql_output_to_a_full_disk_is_an_environment_problem(wh):
    for fmt in ("csv", "json", "parquet"):
        result = _cli(wh, "sql", "select 1", "--format", fmt, "-o", "/dev/full")
        _clean(result, 3)
        assert "No space left on device" in result.output


def test_sql_file_not_utf8_is_a_usage_error(wh, tmp_path):
    path = tmp_path / "q.sql"
    path.write_bytes(b"select '\xff\xfe' as x")
    result = _cli(wh, "sql", "-f", str(path))
    _clean(result, 2)
    assert "not UTF-8" in result.output


@pytest.mark.parametrize(
    "args",
    [
        ["sql", "select 1", "--wait", "nan"],
        ["sql", "select 1", "--wait", "-1"],
        ["sql", "select 1", "--max-rows", "-1"],
        ["shell", "--max-rows", "-1"],
        ["shell", "--wait", "inf"],
        ["watch", "--interval", "nan"],
        ["watch", "--interval", "0"],
        ["watch", "--settle", "-inf"],
        ["compare", "a", "b", "--max-rows", "-5"],
        ["generate", "x.yaml", "--scale", "nan"],
    ],
)
def test_option_values_are_validated_as_usage_errors(wh, args):
    _clean(_cli(wh, *args, input=""), 2)


def test_max_rows_zero_shows_the_count_only(wh):
    result = _cli(wh, "sql", "select * from range(3)", "--max-rows", "0")
    _clean(result, 0)
    assert "(3 rows, 0 shown" in result.output and "-1 shown" not in result.output


def test_watch_ctrl_c_exits_130(wh, monkeypatch):
    import mqcap.watch

    def interrupted(_seconds):
        raise KeyboardInterrupt

    monkeypatch.setattr(mqcap.watch.time, "sleep", interrupted)
    (wh.parent / "raw").mkdir(exist_ok=True)
    result = _cli(wh, "watch")
    _clean(result, 130)
    assert "stopped" in result.output


# --- settings ----------------------------------------------------------------------------------


def _settings_case(tmp_path: Path, case: str) -> list[str]:
    """Make the folder of one settings case; the args given to mqcap."""
    toml = tmp_path / "mqcap.toml"
    if case == "nul":
        toml.write_text('warehouse = "a\\u0000b.duckdb"\n')
    elif case == "nosuchuser":
        toml.write_text('warehouse = "~nosuchuser_mqcap/w.duckdb"\n')
    elif case == "root as warehouse":
        toml.write_text('warehouse = "/"\n')
    elif case == "dot as warehouse":
        toml.write_text('warehouse = "."\n')
    elif case == "symlink loop":
        (tmp_path / "l1").symlink_to(tmp_path / "l2")
        (tmp_path / "l2").symlink_to(tmp_path / "l1")
        toml.write_text('raw = "l1/raw"\n')
    elif case == "deep array":
        toml.write_text("raw = " + "[" * 5000 + "]" * 5000 + "\n")
    elif case == "not utf-8":
        toml.write_bytes(b'raw = "\xff"\n')
    elif case == "flag nosuchuser":
        return ["--warehouse", "~nosuchuser_mqcap/w.duckdb", "status"], None
    return ["status"], None


@pytest.mark.parametrize(
    "case",
    [
        "nul",
        "nosuchuser",
        "root as warehouse",
        "dot as warehouse",
        "symlink loop",
        "deep array",
        "not utf-8",
        "flag nosuchuser",
    ],
)
def test_settings_that_lead_nowhere_are_usage_errors(tmp_path, monkeypatch, case):
    monkeypatch.chdir(tmp_path)
    args, env = _settings_case(tmp_path, case)
    result = CliRunner().invoke(main, ["-q", *args], env=env, catch_exceptions=True)
    _clean(result, 2)
    assert result.output.startswith(("mqcap: error:", "Usage:")), result.output


def test_an_unreadable_settings_file_is_an_environment_problem(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    toml = tmp_path / "mqcap.toml"
    toml.write_text('raw = "r"\n')
    toml.chmod(0)
    if os.geteuid() == 0:  # root reads it anyway: the read fails as it would for a user
        real = Path.read_text

        def read_text(self, *args, **kwargs):
            if self == toml:
                raise PermissionError(13, "Permission denied", str(self))
            return real(self, *args, **kwargs)

        monkeypatch.setattr(Path, "read_text", read_text)
    result = CliRunner().invoke(main, ["-q", "status"], catch_exceptions=True)
    _clean(result, 3)
    assert "cannot read the settings file" in result.output


def test_ingest_of_a_symlink_loop_is_a_usage_error(tmp_path):
    raw = tmp_path / "raw"
    raw.mkdir()
    (raw / "a").symlink_to(raw / "b")
    (raw / "b").symlink_to(raw / "a")
    result = CliRunner().invoke(
        main,
        ["-q", "ingest", str(raw / "a"), "--raw", str(raw), "--warehouse", str(tmp_path / "w.db")],
        catch_exceptions=True,
    )
    _clean(result, 2)
    assert "cannot follow" in result.output


# --- compare ---------------------------------------------------------------------------------


def test_compare_without_marts_says_to_build(tmp_path):
    path = tmp_path / "bare.duckdb"
    duckdb.connect(str(path)).close()
    result = CliRunner().invoke(
        main, ["-q", "compare", "a", "b", "--warehouse", str(path)], catch_exceptions=True
    )
    _clean(result, 2)
    assert "mqcap build" in result.output


def test_compare_a_thing_with_itself_is_a_usage_error(wh):
    result = _cli(wh, "compare", "ssl-1", "ssl-1")
    _clean(result, 2)
    assert "the same" in result.output


# --- open ------------------------------------------------------------------------------------


@pytest.fixture
def browser(monkeypatch):
    import webbrowser

    opened: list[str] = []
    monkeypatch.setattr(webbrowser, "open", lambda url: opened.append(url))
    return opened


def test_open_shows_a_report_mqcap_wrote(wh, browser):
    result = _cli(wh, "open", "attls", "-b")
    _clean(result, 0)
    assert result.output.strip().endswith("attls.html") and len(browser) == 1


@pytest.mark.parametrize("name", ["../../x", "../w", "/etc/passwd", "a/../attls", "..", "a" * 5000])
def test_open_refuses_names_outside_the_reports_folder(wh, browser, name):
    outside = wh.parent / "w.html"
    outside.write_text("not a report")
    result = _cli(wh, "open", name, "-b")
    _clean(result, 2)
    assert browser == []
    assert len(result.output.splitlines()) == 1


def test_open_refuses_a_symlink_in_the_reports_folder(wh, browser, tmp_path):
    secret = tmp_path / "secret.html"
    secret.write_text("secret")
    link = wh.parent / "w.mqcap" / "reports" / "linked.html"
    link.symlink_to(secret)
    try:
        result = _cli(wh, "open", "linked", "-b")
    finally:
        link.unlink()
    _clean(result, 2)
    assert browser == []


def test_open_escapes_a_study_names_terminal_controls(wh):
    reports = wh.parent / "w.mqcap" / "reports"
    evil = reports / "evil\x1b]0;owned\x07.html"
    evil.write_text("<html></html>")
    try:
        found = _cli(wh, "open", "evil\x1b]0;owned\x07")
        missing = _cli(wh, "open", "gone\x1b[2J")
    finally:
        evil.unlink()
    _clean(found, 0)
    _clean(missing, 2)
    for result in (found, missing):
        assert "\x1b" not in result.output and "\x07" not in result.output
        assert "\\x1b" in result.output


# --- init ------------------------------------------------------------------------------------


def test_init_refuses_to_write_through_a_dangling_mqcap_toml_symlink(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    target = tmp_path / "elsewhere" / "victim.txt"
    target.parent.mkdir()
    (tmp_path / "mqcap.toml").symlink_to(target)
    result = CliRunner().invoke(main, ["-q", "init"], catch_exceptions=True)
    _clean(result, 2)
    assert "symlink" in result.output and not target.exists()


def test_init_refuses_to_write_through_a_dangling_run_yaml_symlink(tmp_path):
    raw = tmp_path / "raw"
    (raw / "attls" / "run-1").mkdir(parents=True)
    target = tmp_path / "victim.yaml"
    (raw / "attls" / "run-1" / "run.yaml").symlink_to(target)
    result = CliRunner().invoke(
        main,
        ["-q", "init", "attls", "--raw", str(raw), "--warehouse", str(tmp_path / "w.duckdb")],
        catch_exceptions=True,
    )
    _clean(result, 2)
    assert not target.exists()


def test_init_where_a_file_stands_for_a_folder_is_a_usage_error(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "raw").write_text("a file")
    for args in (["init"], ["init", "attls"]):
        result = CliRunner().invoke(
            main,
            ["-q", *args, "--raw", str(tmp_path / "raw" / "drops"), "--warehouse", "w.duckdb"],
            catch_exceptions=True,
        )
        _clean(result, 2)
        assert "a file is in the way" in result.output


def test_init_in_a_read_only_folder_is_an_environment_problem(tmp_path, monkeypatch):
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o555)
    monkeypatch.chdir(folder)
    if os.geteuid() == 0:  # root writes anyway: the create fails as it would for a user
        real = os.open

        def deny(path, flags, *args, **kwargs):
            if str(path).startswith(str(folder)) and flags & os.O_CREAT:
                raise PermissionError(13, "Permission denied", str(path))
            return real(path, flags, *args, **kwargs)

        monkeypatch.setattr(os, "open", deny)
    try:
        result = CliRunner().invoke(
            main,
            ["-q", "init", "--raw", str(tmp_path / "raw"), "--warehouse", "w.duckdb"],
            catch_exceptions=True,
        )
    finally:
        folder.chmod(0o755)
    _clean(result, 3)
    assert "Permission denied" in result.output


# --- export ----------------------------------------------------------------------------------


def test_export_keeps_the_users_files_and_removes_only_its_own(wh, tmp_path):
    out = tmp_path / "export"
    first = _cli(wh, "export", str(out), "--mart", "fct_x", "--mart", "fct_empty")
    _clean(first, 0)
    assert "fct_empty: no rows" in first.output
    assert not (out / "fct_empty").exists()  # no empty folder for a mart with no rows
    mine = sorted(p.relative_to(out).as_posix() for p in (out / "fct_x").rglob("*.parquet"))
    assert mine and json.loads((out / ".mqcap-export.json").read_text())["marts"]["fct_x"] == mine
    # Again: its own files are replaced, nothing else is there to touch.
    _clean(_cli(wh, "export", str(out), "--mart", "fct_x"), 0)
    # A file of the user's in the mart folder: refused, nothing deleted.
    users = out / "fct_x" / "notes.txt"
    users.write_text("mine")
    refused = _cli(wh, "export", str(out), "--mart", "fct_x")
    _clean(refused, 2)
    assert users.read_text() == "mine"
    assert sorted(p.relative_to(out).as_posix() for p in (out / "fct_x").rglob("*.parquet"))
    # A folder the user made before any export: refused, untouched.
    theirs = tmp_path / "theirs"
    (theirs / "dim_plain").mkdir(parents=True)
    (theirs / "dim_plain" / "data.parquet").write_text("theirs")
    _clean(_cli(wh, "export", str(theirs), "--mart", "dim_plain"), 2)
    assert (theirs / "dim_plain" / "data.parquet").read_text() == "theirs"


# --- fuzz ------------------------------------------------------------------------------------

WORDS = [
    "attls",
    "ssl-1",
    "",
    ".",
    "..",
    "../../x",
    "/",
    "~nosuchuser",
    "a\x1b[2J",
    "x" * 300,
    "nan",
    "inf",
    "-1",
    "0",
    "1e309",
    "run:a",
    "config:",
    "marts",
    "index",
    "\u202e",
]
SQL = [
    "select 1",
    "select interval 1 day",
    "select 'infinity'::date",
    f"select {UHUGEINT_MAX}::uhugeint",
    "select union_value(k := 1)",
    "select [1], {'a': 1}, map {'a': 1}, 'x'::blob, '1'::bit",
    "select * from marts.fct_x",
    "select * from nowhere",
    "copy marts.fct_x to '/tmp/x.csv'",
    "attach '/tmp/x.duckdb'",
    "set threads = 1",
    "select 1; select 2",
    "create temp table t as select 1 as a; select * from t",
    ";",
    "",
    "select 1 as a, 2 as a",
    "pragma version",
    "explain select 1",
    "select 1/0",
    "select 'a' + 1",
]
OPTION_VALUES = st.sampled_from(WORDS) | st.text(max_size=12)
SETTINGS_FILES = [
    None,
    'raw = "r"\n',
    'warehouse = "."\n',
    'warehouse = "/"\n',
    'warehouse = "~nosuchuser/w"\n',
    'warehouse = "a\\u0000b"\n',
    "jobs = 0\n",
    "jobs = true\n",
    'engine = "oracle"\n',
    "unknown = 1\n",
    "raw = [[[[]]]]\n",
    "raw = " + "[" * 3000 + "]" * 3000 + "\n",
    "not toml at all = = =\n",
    'spark_parse = "nowhere"\n',
]
COMMANDS = {
    "sql": lambda d: (
        [
            "sql",
            d(st.sampled_from(SQL) | st.text(max_size=30)),
            *d(
                st.sampled_from(
                    [[], ["--format", "csv"], ["--format", "json"], ["--format", "table"]]
                )
            ),
            *d(
                st.sampled_from(
                    [[], ["--max-rows", d(OPTION_VALUES)], ["--wait", d(OPTION_VALUES)]]
                )
            ),
        ]
    ),
    "shell": lambda d: ["shell", "--max-rows", d(st.sampled_from(["0", "1", "-1", "x"]))],
    "compare": lambda d: (
        [
            "compare",
            d(OPTION_VALUES),
            d(OPTION_VALUES),
            *d(st.sampled_from([[], ["--study", "attls"], ["--format", "json"]])),
        ]
    ),
    "open": lambda d: (
        [
            "open",
            d(OPTION_VALUES),
            *d(st.sampled_from([[], ["--format", "pdf"], ["--format", "html"]])),
        ]
    ),
    "open_default": lambda d: ["open", *d(st.sampled_from([[], ["--format", "pdf"]]))],
    "init": lambda d: (
        ["init", d(OPTION_VALUES), *d(st.sampled_from([[], ["--run", d(OPTION_VALUES)]]))]
    ),
    "export": lambda d: (
        [
            "export",
            "{tmp}/e-" + d(OPTION_VALUES).replace("/", "_"),
            "--mart",
            d(st.sampled_from(["fct_x", "fct_empty", "dim_plain", "nope", ""])),
        ]
    ),
    "watch": lambda d: ["watch", "--interval", d(OPTION_VALUES), "--settle", d(OPTION_VALUES)],
    "status": lambda d: ["status"],
    "validate": lambda d: ["validate", "--scope", d(st.sampled_from(["all", "x", "landing"]))],
    "report": lambda d: (
        ["report", "--format", d(st.sampled_from(["html", "docx"])), "--study", d(OPTION_VALUES)]
    ),
    "ingest": lambda d: (
        [
            "ingest",
            d(st.sampled_from(["{tmp}/loop", "{tmp}/loop/x"])),
            *d(st.sampled_from([[], ["--jobs", d(OPTION_VALUES)]])),
        ]
    ),
    "generate": lambda d: ["generate", "{tmp}/scenario.yaml", "--scale", d(OPTION_VALUES)],
    "run": lambda d: (
        ["run", "--format", d(st.sampled_from(["html", "x"])), "--jobs", d(OPTION_VALUES)]
    ),
    "build": lambda d: ["build", "--select", d(OPTION_VALUES)],
    "demo": lambda d: ["demo", d(OPTION_VALUES)],
    "unknown": lambda d: [d(OPTION_VALUES)],
}
# Commands that would really build, check or render (dbt, Great Expectations, reports: seconds
# each) get an unknown option too: the fuzz keeps to their option and settings layer.
SLOW = {"validate", "report", "run", "build", "demo"}


@st.composite
def invocations(draw):
    name = draw(st.sampled_from(sorted(COMMANDS)))
    args = COMMANDS[name](draw)
    settings_file = draw(st.sampled_from(SETTINGS_FILES))
    warehouse = draw(st.sampled_from(["{wh}", "{tmp}/missing.duckdb", "{tmp}", "{tmp}/loop/w"]))
    stdin = draw(st.sampled_from(["", "select 1;\n", "select interval 1 day;\n.tables\nbad;\n"]))
    return name, args, settings_file, warehouse, stdin


@settings(
    max_examples=150,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(invocations())
def test_fuzz_every_command_ends_with_a_documented_exit_code(wh, tmp_path_factory, case):
    name, args, settings_file, warehouse, stdin = case
    tmp = tmp_path_factory.mktemp("fuzz")
    loop = tmp / "loop"
    if not loop.is_symlink():
        loop.symlink_to(loop)
    (tmp / "scenario.yaml").write_text("[" * 3000 + "]" * 3000)
    if settings_file is not None:
        (tmp / "mqcap.toml").write_text(settings_file)
    fill = {"{wh}": str(wh), "{tmp}": str(tmp)}

    def filled(text: str) -> str:
        for key, value in fill.items():
            text = text.replace(key, value)
        return text

    argv = ["-q", *(filled(a) for a in args), "--raw", str(tmp / "raw")]
    argv += ["--warehouse", filled(warehouse)]
    if name in SLOW:
        argv.append("--no-such-option")  # a usage error before any work
    if name == "watch":
        argv += ["--interval", "nan"]
    old = Path.cwd()
    os.chdir(tmp)
    try:
        result = CliRunner().invoke(main, argv, input=stdin, catch_exceptions=True)
    finally:
        os.chdir(old)
    ok = result.exception is None or isinstance(result.exception, SystemExit)
    assert ok, (argv, settings_file, repr(result.exception), result.output)
    assert result.exit_code in EXIT_CODES, (argv, result.exit_code, result.output)
