"""One configuration: flags > MQCAP_* environment > mqcap.toml / [tool.mqcap] > defaults; user
paths relative to the current folder, file paths relative to the file; global options before or
after any command; outputs in a folder beside the warehouse; the project root is mqcap's."""

from __future__ import annotations

import subprocess
import sys

import duckdb
import pytest
from click.testing import CliRunner

from mqcap.cli import main
from mqcap.errors import UsageError
from mqcap.settings import Settings, find_config, find_project_root

from helpers import PROJECT


@pytest.fixture(autouse=True)
def clean_env(monkeypatch):
    for name in (
        "MQCAP_WAREHOUSE",
        "MQCAP_RAW",
        "MQCAP_REPORTS_OUT",
        "MQCAP_ENGINE",
        "MQCAP_SPARK_MASTER",
        "MQCAP_LAKE",
    ):
        monkeypatch.delenv(name, raising=False)


def _load(cwd, **kw) -> Settings:
    return Settings.load(project_root=PROJECT, cwd=cwd, **kw)


def test_precedence_flag_over_environment_over_file_over_default(tmp_path, monkeypatch):
    work = tmp_path / "team"
    sub = work / "analysis" / "deep"
    sub.mkdir(parents=True)
    (work / "mqcap.toml").write_text(
        'warehouse = "wh/team.duckdb"\nraw = "drops"\nreports = "/srv/reports"\n'
    )
    s = _load(sub)
    assert s.config_file == work / "mqcap.toml"
    # File paths are relative to the file's folder, wherever mqcap runs below it.
    assert s.warehouse == work / "wh" / "team.duckdb"
    assert s.raw_root == work / "drops"
    assert s.reports_out.as_posix() == "/srv/reports"
    monkeypatch.setenv("MQCAP_WAREHOUSE", "env.duckdb")
    s = _load(sub)
    assert s.warehouse == sub / "env.duckdb"  # environment, relative to the current folder
    assert s.raw_root == work / "drops"  # still the file's
    s = _load(sub, warehouse="flag.duckdb", raw="here")
    assert (s.warehouse, s.raw_root) == (sub / "flag.duckdb", sub / "here")
    assert s.reports_out.as_posix() == "/srv/reports"


def test_defaults_are_under_the_project_root_and_outputs_beside_the_warehouse(tmp_path):
    s = _load(tmp_path)
    assert s.config_file is None or s.config_file.parent != tmp_path
    if s.config_file is None:
        assert s.warehouse == PROJECT / "data" / "warehouse.duckdb"
        assert s.raw_root == PROJECT / "data" / "raw"
        assert s.reports_out == PROJECT / "data" / "warehouse.mqcap" / "reports"
    a = _load(tmp_path, warehouse="a.duckdb")
    assert a.reports_out == tmp_path / "a.mqcap" / "reports"
    assert a.dbt_target == tmp_path / "a.mqcap" / "dbt" / "target"
    assert a.dbt_env["DBT_LOG_PATH"] == str(tmp_path / "a.mqcap" / "dbt" / "logs")
    b = _load(tmp_path, warehouse="b.duckdb")
    assert {a.reports_out, a.dbt_target}.isdisjoint({b.reports_out, b.dbt_target})


def test_pyproject_tool_table_and_the_nearest_file_wins(tmp_path):
    (tmp_path / "mqcap.toml").write_text('raw = "outer"\n')
    inner = tmp_path / "proj"
    inner.mkdir()
    (inner / "pyproject.toml").write_text('[project]\nname = "x"\n')  # no [tool.mqcap]: skipped
    assert find_config(inner) == (tmp_path / "mqcap.toml", {"raw": "outer"})
    (inner / "pyproject.toml").write_text('[project]\nname = "x"\n[tool.mqcap]\nraw = "inner"\n')
    assert _load(inner).raw_root == inner / "inner"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('warehose = "x.duckdb"\n', "unknown setting(s) warehose; known: warehouse, raw, reports"),
        ("raw = 3\n", "setting raw: expected a path, got 3"),
        ("raw = [\n", "not valid TOML"),
    ],
)
def test_a_bad_configuration_file_is_a_usage_error_naming_it(tmp_path, text, message):
    (tmp_path / "mqcap.toml").write_text(text)
    with pytest.raises(UsageError, match=r"mqcap\.toml: ") as info:
        _load(tmp_path)
    assert message in str(info.value)


def test_another_dbt_project_is_never_taken_for_mqcaps(tmp_path):
    other = tmp_path / "their_dbt"
    (other / "models").mkdir(parents=True)
    (other / "dbt_project.yml").write_text("name: analytics\nprofile: x\n")
    assert find_project_root(other) == PROJECT
    assert _load(other).project_root == PROJECT


def _warehouse(path, value: int) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with duckdb.connect(str(path)) as con:
        con.execute(f"create table t as select {value} as v")


def test_global_options_before_or_after_the_command_relative_to_the_current_folder(
    tmp_path, monkeypatch
):
    _warehouse(tmp_path / "one.duckdb", 1)
    _warehouse(tmp_path / "sub" / "two.duckdb", 2)
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()

    def ask(*args: str) -> str:
        result = runner.invoke(main, list(args))
        assert result.exit_code == 0, result.output
        return result.output

    query = ("sql", "select v from t", "--format", "csv")
    assert ask("--warehouse", "one.duckdb", *query) == "v\n1\n"
    assert ask(*query, "--warehouse", "sub/two.duckdb") == "v\n2\n"
    # Given on both sides, the one after the command wins (it is the closer to what was meant).
    assert ask("--warehouse", "one.duckdb", *query, "--warehouse", "sub/two.duckdb") == "v\n2\n"
    # A relative path is from the current folder, even with a config file elsewhere above.
    (tmp_path / "mqcap.toml").write_text('warehouse = "sub/two.duckdb"\n')
    monkeypatch.chdir(tmp_path / "sub")
    assert ask(*query) == "v\n2\n"
    assert ask(*query, "--warehouse", "../one.duckdb") == "v\n1\n"
    status = runner.invoke(main, ["status", "--warehouse", "two.duckdb", "-q"])
    assert f"warehouse: {tmp_path / 'sub' / 'two.duckdb'}" in status.output


def test_numpy_import_in_dbt_leaves_the_environment_alone(tmp_path):
    """dbt runs Python models (which import numpy) on one thread while another reads the
    environment: numpy's import must not delete variables under it (KeyError
    'OPENBLAS_MAIN_FREE' failed a dbt build once)."""
    s = Settings.load(warehouse=tmp_path / "a.duckdb", raw=tmp_path / "raw", project_root=PROJECT)
    probe = (
        "import os\n"
        "deleted = []\n"
        "cls = type(os.environ)\n"
        "orig = cls.__delitem__\n"
        "def spy(self, key):\n"
        "    deleted.append(key)\n"
        "    orig(self, key)\n"
        "cls.__delitem__ = spy\n"
        "import numpy\n"
        "print(deleted)\n"
    )
    env = s.dbt_env
    done = subprocess.run(
        [sys.executable, "-c", probe], env=env, capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "[]"
    # Without those two variables set, the same import deletes them (what the fix prevents).
    bare = {k: v for k, v in env.items() if not k.endswith("BLAS_MAIN_FREE")}
    done = subprocess.run(
        [sys.executable, "-c", probe], env=bare, capture_output=True, text=True, check=True
    )
    assert "OPENBLAS_MAIN_FREE" in done.stdout


def test_the_engine_and_spark_settings_follow_the_same_order(tmp_path, monkeypatch):
    (tmp_path / "mqcap.toml").write_text(
        'engine = "spark"\nspark_master = "spark://head:7077"\nlake = "shared/lake"\n'
        'spark_parse = "local"\n'
    )
    s = _load(tmp_path)
    assert (s.engine, s.spark_master, s.lake, s.spark_parse) == (
        "spark",
        "spark://head:7077",
        tmp_path / "shared" / "lake",
        "local",
    )
    monkeypatch.setenv("MQCAP_ENGINE", "DuckDB")
    monkeypatch.setenv("MQCAP_SPARK_MASTER", "sc://head:15002")
    monkeypatch.setenv("MQCAP_SPARK_PARSE", "Executors")
    s = _load(tmp_path)
    assert (s.engine, s.spark_master, s.spark_parse) == ("duckdb", "sc://head:15002", "executors")
    monkeypatch.setenv("MQCAP_SPARK_PARSE", "cluster")
    with pytest.raises(UsageError, match="MQCAP_SPARK_PARSE: expected auto, executors, local"):
        _load(tmp_path)
    monkeypatch.delenv("MQCAP_SPARK_PARSE")
    assert _load(tmp_path, engine="spark").engine == "spark"
    # The lake's default: beside the warehouse, in its outputs folder.
    (tmp_path / "mqcap.toml").write_text("")
    assert _load(tmp_path, warehouse="w.duckdb").lake == tmp_path / "w.mqcap" / "lake"
    assert _load(tmp_path).spark_parse == "auto"
    monkeypatch.setenv("MQCAP_ENGINE", "sparkle")
    with pytest.raises(UsageError, match="MQCAP_ENGINE: expected an engine"):
        _load(tmp_path)
