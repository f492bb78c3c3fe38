"""The dbt-spark session cursor as ``mqcap.spark.dbt`` runs it: a result whose local socket the
JVM refused is read again (no JVM here: the DataFrame is a stand-in that fails as pyspark does).
"""

from __future__ import annotations

import pytest
from pyspark.errors import PySparkRuntimeError

from mqcap.spark import dbt as spark_dbt


def _refused() -> PySparkRuntimeError:
    return PySparkRuntimeError(
        errorClass="CANNOT_OPEN_SOCKET",
        messageParameters={"errors": "tried to connect to 127.0.0.1: [Errno 111] refused"},
    )


def _masked() -> UnboundLocalError:
    """What pyspark 4.3 raises: its ``finally`` hides the refusal behind an UnboundLocalError."""
    try:
        try:
            raise _refused()
        finally:
            raise UnboundLocalError("cannot access local variable 'sockfile'")
    except UnboundLocalError as exc:
        return exc


class FlakyFrame:
    """Fails its first ``failures`` reads with ``error()``, then returns its rows."""

    def __init__(self, failures: int, error=_masked, rows=((1,), (2,))) -> None:
        self.failures, self.error, self.rows, self.reads = failures, error, list(rows), 0

    def _read(self, rows):
        self.reads += 1
        if self.reads <= self.failures:
            raise self.error()
        return rows

    def collect(self):
        return self._read(list(self.rows))

    def take(self, n):
        return self._read(list(self.rows[:n]))


@pytest.fixture
def cursor(monkeypatch, capsys):
    from dbt.adapters.spark.session import Cursor

    monkeypatch.setattr(spark_dbt.time, "sleep", lambda s: None)
    for name in ("fetchall", "fetchone"):
        monkeypatch.setattr(Cursor, name, getattr(Cursor, name))  # undone after the test
    spark_dbt._reads_retried()
    spark_dbt._reads_retried()  # twice: still one retry layer
    return Cursor()


def test_a_refused_result_socket_is_read_again(cursor, capsys):
    cursor._df = FlakyFrame(failures=2)
    assert cursor.fetchall() == [(1,), (2,)]
    assert cursor._df.reads == 3
    err = capsys.readouterr().err
    assert err.count("Spark's result socket was refused") == 2, err
    cursor._rows = None
    cursor._df = FlakyFrame(failures=1, error=_refused)
    assert cursor.fetchone() == (1,)
    assert cursor._df.reads == 2


def test_the_retries_end_and_other_errors_are_not_retried(cursor):
    cursor._df = FlakyFrame(failures=spark_dbt.SOCKET_TRIES)
    with pytest.raises(UnboundLocalError):
        cursor.fetchall()
    assert cursor._df.reads == spark_dbt.SOCKET_TRIES
    cursor._df = FlakyFrame(failures=1, error=lambda: ValueError("a query that fails"))
    with pytest.raises(ValueError, match="a query that fails"):
        cursor.fetchall()
    assert cursor._df.reads == 1
    assert not spark_dbt.lost_result_socket(UnboundLocalError("sockfile"))  # no refusal behind
