"""Every MQCAP_ environment variable is read in one module (mqcap.environment), is listed in
docs/settings.md, and a value mqcap cannot use is a usage error naming it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from click.testing import CliRunner

from mqcap import environment
from mqcap.cli import main
from mqcap.errors import UsageError

PACKAGE = Path(environment.__file__).resolve().parent
DOCS = Path(__file__).resolve().parents[1] / "docs" / "settings.md"
# Reads of variables that are not mqcap's: Spark's own (CONNECT_MARKS, a tuple of Spark's
# names, is checked below to hold no MQCAP_ name).
NOT_MQCAPS = {("spark/tasks.py", "name")}


def _is_environ(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Attribute)
        and node.attr == "environ"
        and isinstance(node.value, ast.Name)
        and node.value.id == "os"
    )


def environment_reads(source: str) -> list[tuple[int, str]]:
    """(line, key as written) of every read of os.environ / os.getenv in ``source`` whose key
    is not a string literal outside MQCAP_ (a name, an expression, or an MQCAP_ literal).
    Writes (``os.environ[k] = v``, ``setdefault``, ``pop``) are not reads."""
    tree = ast.parse(source)
    reads = []
    for node in ast.walk(tree):
        key = None
        if isinstance(node, ast.Call):
            f = node.func
            is_get = isinstance(f, ast.Attribute) and f.attr == "get" and _is_environ(f.value)
            is_getenv = (
                isinstance(f, ast.Attribute)
                and f.attr == "getenv"
                and isinstance(f.value, ast.Name)
                and f.value.id == "os"
            )
            if (is_get or is_getenv) and node.args:
                key = node.args[0]
        elif isinstance(node, ast.Subscript) and _is_environ(node.value):
            if isinstance(node.ctx, ast.Load):
                key = node.slice
        elif isinstance(node, ast.Compare) and any(_is_environ(c) for c in node.comparators):
            key = node.left
        if key is None:
            continue
        if (
            isinstance(key, ast.Constant)
            and isinstance(key.value, str)
            and not key.value.startswith("MQCAP_")
        ):
            continue
        reads.append((node.lineno, ast.unparse(key)))
    return reads


def test_the_walker_finds_each_form_of_read():
    planted = (
        "import os\nA = 'MQCAP_X'\n"
        "a = os.environ.get('MQCAP_X')\nb = os.environ[A]\nc = 'MQCAP_Y' in os.environ\n"
        "d = os.getenv('MQCAP_Z', '1')\ne = os.environ.get('HOME')\nos.environ['MQCAP_W'] = '1'\n"
    )
    assert environment_reads(planted) == [
        (3, "'MQCAP_X'"),
        (4, "A"),
        (5, "'MQCAP_Y'"),
        (6, "'MQCAP_Z'"),
    ]


def test_only_mqcap_environment_reads_mqcap_variables():
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel == "environment.py" or "/project/" in f"/{rel}":
            continue
        for line, key in environment_reads(path.read_text()):
            if (rel, key) not in NOT_MQCAPS:
                found.append(f"{rel}:{line}: {key}")
    assert found == []
    from mqcap.spark.tasks import CONNECT_MARKS

    assert not [m for m in CONNECT_MARKS if m.startswith("MQCAP")]


def test_every_variable_named_in_the_code_is_declared_and_documented():
    named = set()
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and node.value.startswith("MQCAP_")
                and node.value.rstrip("_").isupper()
                and " " not in node.value
            ):
                named.add(node.value)
    assert named - set(environment.VARIABLES) == set()
    docs = DOCS.read_text()
    assert [n for n in environment.VARIABLES if f"`{n}`" not in docs] == []


@pytest.mark.parametrize(
    ("name", "value", "reader"),
    [
        ("MQCAP_LOCK_WAIT_S", "soon", environment.seconds),
        ("MQCAP_LOCK_WAIT_S", "-1", environment.seconds),
        ("MQCAP_LOCK_WAIT_S", "nan", environment.seconds),
        ("MQCAP_PROGRESS_EVERY_S", "inf", environment.seconds),
        ("MQCAP_SPARK_PARTITIONS", "4.5", environment.whole),
        ("MQCAP_SPARK_PARTITIONS", "0", environment.whole),
    ],
)
def test_a_value_mqcap_cannot_use_is_a_usage_error_naming_it(monkeypatch, name, value, reader):
    monkeypatch.setenv(name, value)
    with pytest.raises(UsageError, match=f"^{name} must be .*, not '{value}'$"):
        reader(name)


def test_unset_and_blank_take_the_default(monkeypatch):
    monkeypatch.delenv("MQCAP_LOCK_WAIT_S", raising=False)
    assert environment.seconds("MQCAP_LOCK_WAIT_S") == 15.0
    monkeypatch.setenv("MQCAP_LOCK_WAIT_S", "  ")
    assert environment.seconds("MQCAP_LOCK_WAIT_S") == 15.0
    assert not environment.is_set("MQCAP_LOCK_WAIT_S")
    monkeypatch.setenv("MQCAP_LOCK_WAIT_S", " 0 ")
    assert environment.seconds("MQCAP_LOCK_WAIT_S") == 0.0
    monkeypatch.delenv("MQCAP_SPARK_PARTITIONS", raising=False)
    assert environment.whole("MQCAP_SPARK_PARTITIONS") is None
    with pytest.raises(KeyError):
        environment.text("MQCAP_NOT_A_SETTING")


def test_a_bad_lock_wait_stops_a_command_with_exit_2(settings, monkeypatch):
    """Before, `float()` of the value raised a ValueError traceback inside the command."""
    monkeypatch.setenv("MQCAP_LOCK_WAIT_S", "soon")
    result = CliRunner().invoke(
        main,
        ["--warehouse", str(settings.warehouse), "--raw", str(settings.raw_root), "ingest"],
    )
    assert result.exit_code == 2, result.output
    assert "MQCAP_LOCK_WAIT_S must be a number of seconds (0 or more), not 'soon'" in result.output


def test_spark_shuffle_partitions_come_from_the_variable_or_the_cores(monkeypatch):
    from types import SimpleNamespace

    from mqcap.spark.session import shuffle_partitions

    cluster = SimpleNamespace(sparkContext=SimpleNamespace(defaultParallelism=64))
    local2 = SimpleNamespace(sparkContext=SimpleNamespace(defaultParallelism=2))
    monkeypatch.delenv("MQCAP_SPARK_PARTITIONS", raising=False)
    assert (shuffle_partitions(cluster), shuffle_partitions(local2)) == ("128", "4")
    monkeypatch.setenv("MQCAP_SPARK_PARTITIONS", "6")
    assert shuffle_partitions(cluster) == "6"
    monkeypatch.setenv("MQCAP_SPARK_PARTITIONS", "many")
    with pytest.raises(UsageError, match="MQCAP_SPARK_PARTITIONS must be a whole number"):
        shuffle_partitions(cluster)
