"""One typed settings object: every path mqcap uses comes from here.

Three settings, each from the first place that gives it:

1. a command-line flag (``--warehouse``, ``--raw``, ``--reports``), relative to the current folder;
2. the environment (``MQCAP_WAREHOUSE``, ``MQCAP_RAW``, ``MQCAP_REPORTS_OUT``), relative to the
   current folder;
3. the configuration file: ``mqcap.toml`` (top-level keys) or ``pyproject.toml`` (a
   ``[tool.mqcap]`` table), the nearest one in the current folder or its parents, with paths
   relative to the file's folder (keys ``warehouse``, ``raw``, ``reports``);
4. the defaults: ``data/warehouse.duckdb`` and ``data/raw`` beside the configuration file
   when there is one, else under the project root when mqcap runs from its source tree (a
   checkout), else under the current folder.

The project root (the dbt project, the expectation suites, the report sources, the sample
studies) is the source tree mqcap runs from, or, installed from a wheel (``pip install .``,
``pipx install .``), the copy shipped inside the package (``mqcap/project/``, put there by
``setup.py`` when the wheel is built). mqcap only reads it: dbt's target and logs, reports and
render work folders all go to ``<stem>.mqcap/`` beside the warehouse.

``jobs`` (processes that parse raw files in parallel; one writer lands them) follows the same
order: ``--jobs``, ``MQCAP_JOBS``, the ``jobs`` key (a whole number >= 1), the machine's cores.

``engine`` (what builds the models: ``duckdb``, the default, or ``spark``) follows it too:
``--engine``, ``MQCAP_ENGINE``, the ``engine`` key. With Spark, ``spark_master``
(``MQCAP_SPARK_MASTER``, default ``local[*]``) names the master (``local[2]``,
``spark://host:7077``, ``yarn``, ``k8s://...``) or a Spark Connect URL (``sc://host:15002``),
and ``lake`` (``MQCAP_LAKE``, default ``<stem>.mqcap/lake``) the folder of the open tables
(``mqcap.spark``); on a cluster it must be a path every executor sees. ``spark_parse``
(``MQCAP_SPARK_PARSE``: ``auto``, the default, ``executors`` or ``local``) says where the Spark
engine parses raw files (``mqcap.spark.tasks``).

Everything mqcap writes for a warehouse lives in one folder beside it, ``<stem>.mqcap/``
(``data/warehouse.duckdb`` -> ``data/warehouse.mqcap/``): ``reports/`` (HTML, PDF, index.html,
``data-docs/``, ``dbt-docs.html``) and ``dbt/target``, ``dbt/logs``; so two warehouses never
write over each other. ``--reports`` moves the reports only.
"""

from __future__ import annotations

import os
import re
import tomllib
from dataclasses import dataclass, replace
from pathlib import Path

from mqcap import environment
from mqcap.errors import EnvironmentProblem, UsageError

PACKAGE_DIR = Path(__file__).resolve().parent
# The project shipped inside an installed wheel (setup.py copies it there at build time).
SHIPPED_PROJECT = PACKAGE_DIR / "project"
CONFIG_KEYS = {
    "warehouse": "MQCAP_WAREHOUSE",
    "raw": "MQCAP_RAW",
    "reports": "MQCAP_REPORTS_OUT",
    "jobs": "MQCAP_JOBS",
    "engine": "MQCAP_ENGINE",
    "spark_master": "MQCAP_SPARK_MASTER",
    "lake": "MQCAP_LAKE",
    "spark_parse": "MQCAP_SPARK_PARSE",
    "max_expanded_bytes": "MQCAP_MAX_EXPANDED_BYTES",
    "max_gzip_ratio": "MQCAP_MAX_GZIP_RATIO",
}
# Settings that are whole numbers, not paths; settings that are words.
NUMBER_KEYS = {"jobs", "max_expanded_bytes", "max_gzip_ratio"}
# Gzip limits (ingest): a .gz raw file may expand to at most this many bytes, and to at most
# this many times its own size (a file under 1 MiB counts as 1 MiB). Real captures compress
# 3-30x (text reports 10-30x, SMF dumps less); a decompression bomb, hundreds to 1,000x.
DEFAULT_MAX_EXPANDED_BYTES = 8 << 30
DEFAULT_MAX_GZIP_RATIO = 200
WORD_KEYS = {"engine", "spark_master", "spark_parse"}
ENGINES = ("duckdb", "spark")
# Where the Spark engine parses raw files: on the executors when the drop is worth starting Spark
# for (auto), always there (executors), or in the mqcap process and its --jobs workers (local).
SPARK_PARSE = ("auto", "executors", "local")
DEFAULTS = {"warehouse": "data/warehouse.duckdb", "raw": "data/raw"}


def _is_mqcap_project(folder: Path) -> bool:
    """A dbt project named mqcap (another team's dbt project is not ours)."""
    project = folder / "dbt_project.yml"
    if not (project.is_file() and (folder / "models").is_dir()):
        return False
    return re.search(r"^name:\s*['\"]?mqcap['\"]?\s*$", project.read_text(), re.M) is not None


def find_project_root(start: Path | None = None) -> Path:
    """mqcap's dbt project: the source tree this code runs from, else the project shipped in
    the installed package, else one above ``start``.

    The code's own tree comes first, so the models always match the code that lands their
    tables, and a folder inside some other dbt project is never taken for mqcap's.

    Example:
        >>> (find_project_root() / "dbt_project.yml").exists()
        True
    """
    # Installed editable from the repository: pipelines/mqcap -> repository root.
    candidate = PACKAGE_DIR.parent.parent
    if _is_mqcap_project(candidate):
        return candidate
    # Installed from a wheel: the project travels inside the package.
    if _is_mqcap_project(SHIPPED_PROJECT):
        return SHIPPED_PROJECT
    here = (start or Path.cwd()).resolve()
    for folder in [here, *here.parents]:
        if _is_mqcap_project(folder):
            return folder
    raise FileNotFoundError("cannot find the mqcap project root (dbt_project.yml named mqcap)")


def is_shipped(root: Path) -> bool:
    """Whether ``root`` is the project shipped inside an installed package (read-only: the
    user's files go under the current folder instead).

    Example:
        >>> is_shipped(find_project_root())  # in the checkout
        False
    """
    return root.resolve() == SHIPPED_PROJECT


def defaults_base(root: Path, cwd: Path | None = None) -> Path:
    """The folder the default paths (``data/warehouse.duckdb``, ``data/raw``, the demo's
    ``data/demo/``) are under: the project root in a checkout, else the current folder.

    Example:
        >>> defaults_base(find_project_root()) == find_project_root()
        True
    """
    return (cwd or Path.cwd()).resolve() if is_shipped(root) else root


def find_config(start: Path | None = None) -> tuple[Path, dict] | None:
    """The nearest ``mqcap.toml`` or ``pyproject.toml`` with ``[tool.mqcap]``, and its table.

    Example:
        found = find_config(Path.cwd())   # (Path('/work/mqcap.toml'), {'raw': 'drops'}) or None
    """
    here = (start or Path.cwd()).resolve()
    for folder in [here, *here.parents]:
        for name in ("mqcap.toml", "pyproject.toml"):
            path = folder / name
            if not path.is_file():
                continue
            try:
                doc = tomllib.loads(path.read_text(encoding="utf-8"))
            except (tomllib.TOMLDecodeError, UnicodeDecodeError, RecursionError) as exc:
                if name == "pyproject.toml":
                    continue
                why = "nested too deeply" if isinstance(exc, RecursionError) else exc
                raise UsageError(f"{path}: not valid TOML: {why}") from None
            except OSError as exc:
                raise EnvironmentProblem(
                    f"cannot read the settings file {path}: {exc.strerror or exc}"
                ) from None
            table = doc if name == "mqcap.toml" else doc.get("tool", {}).get("mqcap")
            if table is None:
                continue
            unknown = sorted(set(table) - set(CONFIG_KEYS))
            if unknown:
                raise UsageError(
                    f"{path}: unknown setting(s) {', '.join(unknown)}; "
                    f"known: {', '.join(CONFIG_KEYS)}"
                )
            for key, value in table.items():
                if key in NUMBER_KEYS:
                    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                        raise UsageError(
                            f"{path}: setting {key}: expected a whole number >= 1, got {value!r}"
                        )
                elif not isinstance(value, str) or not value:
                    kind = "a word" if key in WORD_KEYS else "a path"
                    raise UsageError(f"{path}: setting {key}: expected {kind}, got {value!r}")
            return path, table
    return None


def default_jobs() -> int:
    """The cores this process may run on (its CPU affinity), at least 1."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # not Linux
        return max(1, os.cpu_count() or 1)


def parse_jobs(value: object, where: str) -> int:
    """A ``jobs`` setting as a whole number >= 1; anything else is a usage error naming where.

    Example:
        >>> parse_jobs("2", "MQCAP_JOBS")
        2
    """
    try:
        jobs = int(str(value).strip())
    except ValueError:
        jobs = 0
    if jobs < 1:
        raise UsageError(f"{where}: expected a whole number of jobs >= 1, got {value!r}")
    return jobs


def parse_whole(value: object, where: str) -> int:
    """A whole number >= 1 (``_`` separators allowed); anything else is a usage error.

    Example:
        >>> parse_whole("8_000_000_000", "MQCAP_MAX_EXPANDED_BYTES")
        8000000000
    """
    try:
        number = int(str(value).strip())
    except ValueError:
        number = 0
    if number < 1:
        raise UsageError(f"{where}: expected a whole number >= 1, got {value!r}")
    return number


def parse_spark_parse(value: object, where: str) -> str:
    """A ``spark_parse`` setting: ``auto``, ``executors`` or ``local``; else a usage error.

    Example:
        >>> parse_spark_parse("Executors", "MQCAP_SPARK_PARSE")
        'executors'
    """
    word = str(value).strip().lower()
    if word not in SPARK_PARSE:
        raise UsageError(f"{where}: expected {', '.join(SPARK_PARSE)}, got {value!r}")
    return word


def parse_engine(value: object, where: str) -> str:
    """An ``engine`` setting: ``duckdb`` or ``spark`` (any case); else a usage error naming where.

    Example:
        >>> parse_engine("Spark", "MQCAP_ENGINE")
        'spark'
    """
    engine = str(value).strip().lower()
    if engine not in ENGINES:
        raise UsageError(f"{where}: expected an engine ({' or '.join(ENGINES)}), got {value!r}")
    return engine


def checked_path(value: object, base: Path, where: str) -> Path:
    """``value`` (``~`` expanded, relative to ``base``) as an absolute path with its links
    resolved; a NUL, an unknown ``~user`` or a symlink loop is a usage error naming ``where``.

    Example:
        >>> checked_path("a/../b", Path("/x"), "--raw")
        PosixPath('/x/b')
    """
    text = os.fspath(value)
    if "\0" in str(text):
        raise UsageError(f"{where}: a path cannot hold a NUL character: {text!r}")
    try:
        path = Path(text).expanduser()
    except RuntimeError as exc:  # ~nosuchuser
        raise UsageError(f"{where}: {text!r}: {exc}") from None
    try:
        return (path if path.is_absolute() else base / path).resolve()
    except (RuntimeError, OSError, ValueError) as exc:  # a symlink loop
        raise UsageError(f"{where}: cannot follow {text!r}: {exc}") from None


def outputs_dir(warehouse: Path) -> Path:
    """The folder beside a warehouse for what mqcap writes about it.

    Example:
        >>> outputs_dir(Path("/d/warehouse.duckdb"))
        PosixPath('/d/warehouse.mqcap')
    """
    return warehouse.parent / f"{warehouse.stem}.mqcap"


@dataclass(frozen=True)
class Settings:
    """Paths and defaults for one invocation.

    Example:
        s = Settings.load(warehouse="/tmp/w.duckdb")
        s.warehouse, s.reports_out  # /tmp/w.duckdb, /tmp/w.mqcap/reports
    """

    project_root: Path
    warehouse: Path
    raw_root: Path
    sample_root: Path
    reports_src: Path
    reports_out: Path
    expectations_dir: Path
    quiet: bool = False
    config_file: Path | None = None
    jobs: int = 1  # processes parsing raw files (ingest); one writer lands them
    engine: str = "duckdb"  # what builds the models: duckdb or spark (mqcap.spark)
    spark_master: str = "local[*]"
    lake_dir: Path | None = None  # the Spark engine's open tables; None: <stem>.mqcap/lake
    spark_parse: str = "auto"  # where the Spark engine parses: auto, executors, local
    max_expanded_bytes: int = DEFAULT_MAX_EXPANDED_BYTES  # gzip: bytes a raw file expands to
    max_gzip_ratio: int = DEFAULT_MAX_GZIP_RATIO  # gzip: times its size a raw file expands

    @classmethod
    def load(
        cls,
        *,
        warehouse: str | os.PathLike | None = None,
        raw: str | os.PathLike | None = None,
        reports_out: str | os.PathLike | None = None,
        quiet: bool = False,
        project_root: Path | None = None,
        cwd: Path | None = None,
        jobs: int | None = None,
        engine: str | None = None,
    ) -> Settings:
        """The settings of this invocation: each from its flag (where it has one), else the
        environment, else mqcap.toml, else its default.

        Long because: every setting resolved in precedence order, one block each."""
        environment.check()  # a bad MQCAP_LOCK_WAIT_S stops here, not mid-step
        root = project_root or find_project_root()
        here = (cwd or Path.cwd()).resolve()
        found = find_config(here)
        config_file, config = found if found else (None, {})
        flags = {"warehouse": warehouse, "raw": raw, "reports": reports_out}

        def pick(key: str) -> Path | None:
            if flags.get(key) is not None:
                value, base = flags[key], here
            elif environment.is_set(CONFIG_KEYS[key]):
                value, base = environment.text(CONFIG_KEYS[key]), here
            elif key in config:
                value, base = config[key], config_file.parent
            elif key in DEFAULTS:
                # Beside the configuration file when there is one (its commented defaults mean
                # what they say), else in the checkout or, installed, the current folder.
                value = DEFAULTS[key]
                base = config_file.parent if config_file else defaults_base(root, here)
            else:
                return None
            where = (
                f"--{key}"
                if flags.get(key) is not None
                else CONFIG_KEYS[key]
                if environment.is_set(CONFIG_KEYS[key])
                else f"{config_file}: setting {key}"
            )
            return checked_path(value, base, where)

        if jobs is not None:
            n_jobs = parse_jobs(jobs, "--jobs")
        elif environment.is_set("MQCAP_JOBS"):
            n_jobs = parse_jobs(environment.text("MQCAP_JOBS"), "MQCAP_JOBS")
        elif "jobs" in config:
            n_jobs = config["jobs"]
        else:
            n_jobs = default_jobs()
        if engine is not None:
            chosen = parse_engine(engine, "--engine")
        elif environment.is_set("MQCAP_ENGINE"):
            chosen = parse_engine(environment.text("MQCAP_ENGINE"), "MQCAP_ENGINE")
        elif "engine" in config:
            chosen = parse_engine(config["engine"], f"{config_file}: setting engine")
        else:
            chosen = "duckdb"
        master = environment.text("MQCAP_SPARK_MASTER") or config.get("spark_master") or "local[*]"
        if environment.is_set("MQCAP_SPARK_PARSE"):
            spark_parse = parse_spark_parse(
                environment.text("MQCAP_SPARK_PARSE"), "MQCAP_SPARK_PARSE"
            )
        elif "spark_parse" in config:
            spark_parse = parse_spark_parse(
                config["spark_parse"], f"{config_file}: setting spark_parse"
            )
        else:
            spark_parse = "auto"
        limits = {}
        for key, default in (
            ("max_expanded_bytes", DEFAULT_MAX_EXPANDED_BYTES),
            ("max_gzip_ratio", DEFAULT_MAX_GZIP_RATIO),
        ):
            env = CONFIG_KEYS[key]
            if environment.is_set(env):
                limits[key] = parse_whole(environment.text(env), env)
            else:
                limits[key] = config.get(key, default)
        wh = pick("warehouse")
        if wh.is_dir() or not wh.name:
            raise UsageError(
                f"warehouse {wh} is a folder: give a file, e.g. {wh / 'warehouse.duckdb'}"
            )
        return cls(
            project_root=root,
            warehouse=wh,
            raw_root=pick("raw"),
            sample_root=root / "data" / "sample",
            reports_src=root / "reports",
            reports_out=pick("reports") or outputs_dir(wh) / "reports",
            expectations_dir=root / "expectations",
            quiet=quiet,
            config_file=config_file,
            jobs=n_jobs,
            engine=chosen,
            spark_master=master,
            lake_dir=pick("lake"),
            spark_parse=spark_parse,
            **limits,
        )

    def with_(self, **changes) -> Settings:
        return replace(self, **changes)

    @property
    def outputs(self) -> Path:
        """``<warehouse stem>.mqcap/`` beside the warehouse."""
        return outputs_dir(self.warehouse)

    @property
    def lake(self) -> Path:
        """The Spark engine's lake: landing and marts as Parquet (``mqcap.spark.lake``)."""
        return self.lake_dir or self.outputs / "lake"

    @property
    def dbt_target(self) -> Path:
        """dbt's target folder (manifest, run results, docs) for this warehouse."""
        return self.outputs / "dbt" / "target"

    @property
    def dbt_logs(self) -> Path:
        return self.outputs / "dbt" / "logs"

    @property
    def dbt_env(self) -> dict[str, str]:
        """Environment for a dbt subprocess: same warehouse, no network calls home."""
        env = dict(os.environ)
        env["MQCAP_WAREHOUSE"] = str(self.warehouse)
        env["DBT_SEND_ANONYMOUS_USAGE_STATS"] = "False"
        env["DBT_PROFILES_DIR"] = str(self.project_root)
        env["DBT_PROJECT_DIR"] = str(self.project_root)
        env["DBT_LOG_PATH"] = str(self.dbt_logs)
        env["DBT_TARGET_PATH"] = str(self.dbt_target)
        env["DBT_USE_COLORS"] = "False"
        # numpy's first import (a Python model: int_replicate_stats...) sets these two and
        # deletes them again unless they are already set; a dbt thread reading the environment
        # at that moment fails with KeyError 'OPENBLAS_MAIN_FREE'. Set, numpy leaves them be.
        env.setdefault("OPENBLAS_MAIN_FREE", "1")
        env.setdefault("GOTOBLAS_MAIN_FREE", "1")
        return env
