from __future__ import annotations

import fcntl
import shutil
import sys
from pathlib import Path

import pytest

# tests/helpers.py is imported as `helpers` by the test modules.
sys.path.insert(0, str(Path(__file__).parent))

from mqcap.settings import Settings

from helpers import PROJECT, copy_run, layout_settings


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The longest modules first: `make test` hands whole modules to its two workers
    (`--dist loadfile`, so a module's fixtures are built once) in collection order, and a long
    module started last would leave one worker idle while the other finishes it. Soaks first,
    then modules marked slow (the longest first, by their
    ``slow(minutes=N)``), then end-to-end ones, then the rest; the order within a weight
    stays pytest's."""

    def weight(item: pytest.Item) -> tuple[int, float]:
        marks = {m.name: m for m in item.iter_markers()}
        # slow(minutes=N): the module's usual minutes, longest first
        minutes = -float(marks["slow"].kwargs.get("minutes", 1)) if "slow" in marks else 0.0
        tier = 0 if "soak" in marks else 1 if "slow" in marks else 2 if "e2e" in marks else 3
        return tier, minutes

    items.sort(key=weight)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None):
    """With ``MQCAP_TEST_CPU_LOG`` set to a folder: each test's wall and CPU seconds (its own
    process and the children it waited for: dbt, report kernels, ``mqcap`` runs), setup and
    teardown included, one tab-separated line per test in a file per worker. What the test
    suite's time is spent on, read with ``python -m tests.cpu_log FOLDER``."""
    import os

    folder = os.environ.get("MQCAP_TEST_CPU_LOG")
    if not folder:
        yield
        return
    import resource
    import time

    def cpu() -> float:
        own = resource.getrusage(resource.RUSAGE_SELF)
        kids = resource.getrusage(resource.RUSAGE_CHILDREN)
        return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime

    wall, used = time.perf_counter(), cpu()
    yield
    wall, used = time.perf_counter() - wall, cpu() - used
    worker = os.environ.get("PYTEST_XDIST_WORKER", "master")
    with open(Path(folder) / f"{worker}.tsv", "a") as out:
        out.write(f"{item.nodeid}\t{wall:.3f}\t{used:.3f}\n")


@pytest.fixture(autouse=True)
def report_connection_closed():
    """The report queries' one warehouse connection (mqcap.sections.queries) closed after each
    test that opened it, as a report's last cell closes it: no test leaves a warehouse open
    in its worker for the next test to meet."""
    yield
    queries = sys.modules.get("mqcap.sections.queries")
    if queries is not None:
        queries.close()


@pytest.fixture(scope="session", autouse=True)
def spark_test_settings() -> Path:
    """Spark's settings for every session the tests start (the ingest's, the dbt process's, a
    cluster's): ``SPARK_CONF_DIR`` is tests/fixtures/spark-conf (code generation off for the
    tests' small studies: about 20 % of a Spark build; the file says why), unless the
    environment names one. Subprocesses inherit it."""
    import os

    os.environ.setdefault("SPARK_CONF_DIR", str(Path(__file__).parent / "fixtures" / "spark-conf"))
    return Path(os.environ["SPARK_CONF_DIR"])


@pytest.fixture(scope="session", autouse=True)
def shared_dbt_parse(tmp_path_factory: pytest.TempPathFactory, worker_id: str) -> Path:
    """dbt's saved parse shared by every warehouse this test session builds
    (``MQCAP_DBT_PARSE_CACHE``, mqcap.parse_cache): a new warehouse's first build reuses
    another's parse instead of parsing the project in full; dbt checks it against the project
    as it is. Subprocesses inherit it."""
    import os

    base = tmp_path_factory.getbasetemp()
    shared = (base if worker_id == "master" else base.parent) / "dbt-parse"
    shared.mkdir(exist_ok=True)
    os.environ["MQCAP_DBT_PARSE_CACHE"] = str(shared)
    return shared


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    """Settings on a fresh raw root and warehouse under tmp_path (the project's models/suites)."""
    raw = tmp_path / "raw"
    raw.mkdir()
    return Settings.load(
        warehouse=tmp_path / "wh" / "warehouse.duckdb",
        raw=raw,
        reports_out=tmp_path / "reports",
        project_root=PROJECT,
    )


@pytest.fixture
def sample_study(settings: Settings) -> Path:
    """A fixed ten-run driver-results study (tests/fixtures/mini_study) in the test's raw root."""
    dest = settings.raw_root / "attls"
    shutil.copytree(Path(__file__).parent / "fixtures" / "mini_study" / "attls", dest)
    return dest


def _once_per_session(
    tmp_path_factory: pytest.TempPathFactory, worker_id: str, name: str, make
) -> Path:
    """The folder ``name`` in the session's shared temp folder, made by ``make(folder)`` once per
    test session: the first xdist worker to ask makes it under a lock, the others wait for it;
    a folder a failed ``make`` left is made again."""
    base = tmp_path_factory.getbasetemp()
    shared = base if worker_id == "master" else base.parent  # pytest-N, this session's own
    root = shared / name
    with open(shared / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        done = shared / f"{name}.ok"
        if not done.exists():
            shutil.rmtree(root, ignore_errors=True)
            root.mkdir()
            make(root)
            done.write_text("ok\n")
    return root


@pytest.fixture(scope="session")
def sample_warehouse(tmp_path_factory: pytest.TempPathFactory, worker_id: str) -> Path:
    """The bundled sample studies (data/sample) ingested and built once per test session (the
    first xdist worker to ask builds it, the others wait). Read it, or copy it first
    (``copy_warehouse``) to write to it."""
    from mqcap.build import build
    from mqcap.ingest import ingest

    def make(root: Path) -> None:
        settings = Settings.load(
            warehouse=root / "warehouse.duckdb",
            raw=PROJECT / "data" / "sample",  # ingest only reads it
            project_root=PROJECT,
        )
        report = ingest(settings)
        assert report.set_aside == [] and len(report.landed) > 300, report.summary()
        assert build(settings).ok

    root = _once_per_session(tmp_path_factory, worker_id, "shared-sample-warehouse", make)
    return root / "warehouse.duckdb"


@pytest.fixture(scope="session")
def mini_run(tmp_path_factory: pytest.TempPathFactory, worker_id: str) -> Path:
    """The ten-run mini study (tests/fixtures/mini_study) through ``mqcap run`` without reports,
    once per test session: 20 files landed, the landing checks, the dbt build and the mart
    checks all passed. A folder laid out as the ``settings`` fixture's; start a test from it
    with ``mini_settings`` (a copy)."""
    from mqcap.pipeline import run

    def make(root: Path) -> None:
        study = Path(__file__).parent / "fixtures" / "mini_study" / "attls"
        shutil.copytree(study, root / "raw" / "attls")
        result = run(layout_settings(root), reports=False)
        assert len(result.ingest.landed) == 20 and not result.ingest.set_aside
        assert result.landing.ok and result.marts.ok and result.build.ok
        assert not result.problems and not result.data_problems

    return _once_per_session(tmp_path_factory, worker_id, "shared-mini-run", make)


@pytest.fixture
def mini_settings(mini_run: Path, tmp_path: Path) -> Settings:
    """Settings on a copy (under tmp_path) of the session's ``mini_run``: the mini study landed,
    built and checked; its study folder is ``settings.raw_root / "attls"``."""
    return layout_settings(copy_run(mini_run, tmp_path))
