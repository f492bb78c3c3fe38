"""Build scope: which runs an incremental ``dbt build`` recomputes in the run-keyed marts.

Computed from what exists, never remembered as a flag: the file ids loaded or removed since
the last complete build (:meth:`PipelineState.build_delta`), the runs and the file -> run
attribution as they are now (the ``int_runs`` / ``int_file_runs`` views over landing) against
the same as the last complete build saw them (snapshots written when it completed), and the
time span of every file whose rows can be attributed to runs by time.

A run is touched when:

- its ``int_runs`` row (manifest, interval, clock, baseline, labels) differs from the snapshot,
  or it exists on one side only;
- its interval overlaps that of a run that appeared, went or moved in time (a file attributed
  by time to both marks its rows as counted in the other too);
- a changed file (loaded or removed since the last complete build, or one whose set of runs
  changed: a re-attribution) was in its run folder or fed it, before or now;
- a changed file of its study describes the study or feeds its runs by workload (study.yaml,
  cphtestp series): every run of the study;
- a changed file's rows span a time that overlaps its interval (rows attributed by time);
- its baseline run is touched (comparisons read the baseline's rows).

The runs of an incremental build are written to ``meta.build_scope`` *before* dbt runs and
removed only when a build completes, so a killed build leaves them for the next one, which adds
its own: the scope always covers everything since the last complete build.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from pathlib import Path

import duckdb

from mqcap.ledger.schema import (
    DROP_SNAPSHOT,
    FILE_RUNS,
    LEDGER,
    RUNS,
    SCOPE,
    SNAPSHOT_DDL,
    SPANS,
    table_exists,
)
from mqcap.ledger.steps import PipelineState

# Staging views whose rows can reach a run by time (macro attribute_to_runs, int_cpu_attributed)
# declare, in their dbt YAML, the clock and the earliest / latest instant a row of the file is
# matched at (``config: meta: mqcap_time_span: {clock, start, end}``); the other staging models
# such a model reads say why they have none (``mqcap_time_span: {untimed: "<why>"}``).
# tests/test_layout.py fails when a staging model that time attribution reads declares neither.
TIME_SPAN_META = "mqcap_time_span"


@functools.cache
def timed_views(project_root: Path) -> dict[str, tuple[str, str, str]]:
    """``{staging view: (clock, start expression, end expression)}`` from the project's model
    YAML (``models/staging/**.yml``).

    Example:
        timed_views(settings.project_root)["stg_netstat__connections"]
        # ('local', 'poll_ts', 'poll_ts')
    """
    import yaml

    out: dict[str, tuple[str, str, str]] = {}
    for path in sorted((Path(project_root) / "models" / "staging").rglob("*.yml")):
        for model in (yaml.safe_load(path.read_text()) or {}).get("models", []) or []:
            span = ((model.get("config") or {}).get("meta") or {}).get(TIME_SPAN_META) or {}
            if "clock" in span:
                out[model["name"]] = (span["clock"], span["start"], span["end"])
    return out


# Attributions whose file speaks for a whole study (ledger.files module docstring).
STUDY_WIDE = ("study_folder", "by_workload")

_FILE_RUNS_SQL = """select file_id, run_key from intermediate.int_file_runs
    union select file_id, run_key from intermediate.int_driver_results_candidates"""

_RUN_COLS = (
    "run_key, study, baseline_run_key, interval_start, interval_end, "
    "interval_start_utc, interval_end_utc"
)


@dataclass
class Scope:
    """What the next build recomputes: everything (``full``, with why) or the runs listed."""

    full: bool
    runs: set[str] = field(default_factory=set)
    reason: str = ""
    changed_files: int = 0

    def describe(self) -> str:
        if self.full:
            return f"full build ({self.reason})"
        return f"{len(self.runs)} run(s) recomputed ({self.changed_files} file(s) changed)"


def _views_exist(con: duckdb.DuckDBPyConnection) -> bool:
    return table_exists(con, "intermediate", "int_runs") and table_exists(
        con, "intermediate", "int_file_runs"
    )


def current_runs(con: duckdb.DuckDBPyConnection) -> dict[str, tuple]:
    """run_key -> (study, baseline, intervals..., hash of the whole int_runs row), as now."""
    rows = con.execute(
        f"select {_RUN_COLS}, md5(cast(to_json(r) as varchar)) from intermediate.int_runs as r"
    ).fetchall()
    return {r[0]: tuple(r[1:]) for r in rows}


def current_file_runs(con: duckdb.DuckDBPyConnection) -> set[tuple[int, str]]:
    """(file_id, run_key): run folders and driver results naming (or matched to) their run."""
    rows = con.execute(_FILE_RUNS_SQL).fetchall()
    return {(int(f), str(r)) for f, r in rows}


def _staging_columns(con: duckdb.DuckDBPyConnection) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for table, column in con.execute(
        "select table_name, column_name from information_schema.columns "
        "where table_schema = 'staging'"
    ).fetchall():
        out.setdefault(table, set()).add(column)
    return out


def cache_spans(con: duckdb.DuckDBPyConnection, file_ids: list[int], project_root: Path) -> None:
    """Record the time span of each file in ``file_ids`` not yet in ``meta.build_file_spans``
    (a file id's rows never change, so its span is computed once; a file without timed rows
    gets one row of NULLs, so a removed file's span is known after its rows are gone)."""
    con.execute(
        f"""create or replace temp table _span_ids as
            select unnest(?::bigint[]) as file_id
            except select file_id from {SPANS}""",
        [sorted(set(file_ids))],
    )
    columns = _staging_columns(con)
    for view, (clock, start, end) in timed_views(Path(project_root)).items():
        if "file_id" in columns.get(view, set()):
            con.execute(
                f"""insert into {SPANS}
                    select file_id, '{clock}', min({start}), max({end}) from staging.{view}
                    where file_id in (select file_id from _span_ids) group by file_id"""
            )
    con.execute(
        f"""insert into {SPANS} select file_id, null, null, null from _span_ids
            where file_id not in (select file_id from {SPANS})"""
    )
    con.execute("drop table _span_ids")


def compute_scope(con: duckdb.DuckDBPyConnection, state: PipelineState) -> Scope:
    """The runs the next build must recompute (see the module docstring), or a full build.

    The scope is read through dbt's staging and intermediate views: when one of them cannot be
    read (dropped or damaged by hand), the build is a full one, which makes them again.

    Example:
        with warehouse.connect(settings.warehouse) as con:
            scope = compute_scope(con, pipeline_state(settings, con))
    """
    try:
        return _compute_scope(con, state)
    except (duckdb.CatalogException, duckdb.BinderException) as exc:
        first = (str(exc).splitlines() or [type(exc).__name__])[0]
        return Scope(True, reason=f"a view of the last build cannot be read: {first}")


def _compute_scope(con: duckdb.DuckDBPyConnection, state: PipelineState) -> Scope:
    full, delta = state.build_delta()
    if full:
        return Scope(True, reason="no complete build of this dbt project on record")
    if not _views_exist(con) or not all(
        table_exists(con, "meta", t) for t in ("build_runs", "build_file_runs")
    ):
        return Scope(True, reason="no snapshot of the last complete build")
    now_runs = current_runs(con)
    old_runs = {
        r[0]: tuple(r[1:])
        for r in con.execute(f"select {_RUN_COLS}, row_hash from {RUNS}").fetchall()
    }
    touched = {k for k in now_runs.keys() | old_runs.keys() if now_runs.get(k) != old_runs.get(k)}
    # A run that appeared, went or moved in time changes what its neighbours share with it:
    # a file attributed by time to two overlapping runs is flagged in each (CPU also counted
    # in the other), so the runs whose interval overlaps its old or new one are touched too.
    moved = sorted(
        k
        for k in now_runs.keys() | old_runs.keys()
        if k not in now_runs or k not in old_runs or now_runs[k][2:6] != old_runs[k][2:6]
    )
    if moved:
        touched |= _overlapping(con, moved)

    now_pairs = current_file_runs(con)
    old_pairs = {(int(f), str(r)) for f, r in con.execute(f"select * from {FILE_RUNS}").fetchall()}
    changed = set(delta) | {f for f, _ in now_pairs ^ old_pairs}
    touched |= {r for f, r in now_pairs | old_pairs if f in changed}

    ids = sorted(changed)
    study_wide: set[str] = set()
    for study, run_id, attribution in con.execute(
        f"""select study, run_id, attribution from {LEDGER}
            where file_id in (select unnest(?::bigint[]))""",
        [ids],
    ).fetchall():
        if study and run_id:
            touched.add(f"{study}/{run_id}")
        if study and (attribution in STUDY_WIDE or not run_id):
            study_wide.add(study)
    for runs in (now_runs, old_runs):
        touched |= {k for k, v in runs.items() if v[0] in study_wide}

    # Spans: loaded files are computed (and kept) now; removed ones were kept while loaded.
    cache_spans(con, sorted(set(ids) & set(state.loaded)), state.settings.project_root)
    known = {
        r[0]
        for r in con.execute(
            f"select distinct file_id from {SPANS} where file_id in (select unnest(?::bigint[]))",
            [ids],
        ).fetchall()
    }
    if missing := set(ids) - known:
        return Scope(True, reason=f"time span of {len(missing)} removed file(s) not on record")
    # Rows attributed by time: the runs (now or at the last build) whose interval, on the
    # file's clock, overlaps the file's span.
    touched |= {
        r[0]
        for r in con.execute(
            f"""with spans as (
                    select * from {SPANS}
                    where span_start is not null and file_id in (select unnest(?::bigint[]))),
                runs as (
                    select {_RUN_COLS} from intermediate.int_runs
                    union all select {_RUN_COLS} from {RUNS})
                select distinct runs.run_key from spans inner join runs on
                    case when spans.clock = 'utc'
                        then spans.span_start <= runs.interval_end_utc
                            and spans.span_end >= runs.interval_start_utc
                        else spans.span_start <= runs.interval_end
                            and spans.span_end >= runs.interval_start end""",
            [ids],
        ).fetchall()
    }

    for runs in (now_runs, old_runs):
        touched |= {k for k, v in runs.items() if v[1] in touched}
    return Scope(False, touched, changed_files=len(changed))


def _overlapping(con: duckdb.DuckDBPyConnection, run_keys: list[str]) -> set[str]:
    """The runs (now or at the last complete build) whose interval overlaps, on the local or
    the UTC clock, the interval of one of ``run_keys`` (now or at the last complete build)."""
    rows = con.execute(
        f"""with runs as (
                select {_RUN_COLS} from intermediate.int_runs
                union all select {_RUN_COLS} from {RUNS}),
            moved as (select * from runs where run_key in (select unnest(?::varchar[])))
            select distinct runs.run_key from moved inner join runs on
                (moved.interval_start <= runs.interval_end
                    and moved.interval_end >= runs.interval_start)
                or (moved.interval_start_utc <= runs.interval_end_utc
                    and moved.interval_end_utc >= runs.interval_start_utc)""",
        [run_keys],
    ).fetchall()
    return {r[0] for r in rows}


def begin(con: duckdb.DuckDBPyConnection, scope: Scope) -> list[str]:
    """Add the scope's runs to ``meta.build_scope`` (runs of a killed build stay) before dbt
    runs; returns every run the build must recompute."""
    con.begin()
    if scope.runs:
        con.execute(
            f"""insert into {SCOPE} select unnest(?::varchar[]) as run_key
                except select run_key from {SCOPE}""",
            [sorted(scope.runs)],
        )
    con.commit()
    return [r[0] for r in con.execute(f"select run_key from {SCOPE} order by 1").fetchall()]


def complete(con: duckdb.DuckDBPyConnection, loaded: list[int], project_root: Path) -> None:
    """After a complete build: snapshot runs, file -> run attribution and the spans of the
    loaded files, and empty ``meta.build_scope`` (one transaction)."""
    if not _views_exist(con):  # nothing to snapshot: the next build is a full one
        con.execute(DROP_SNAPSHOT)
        con.execute(f"delete from {SCOPE}")
        return
    cache_spans(con, loaded, project_root)
    con.begin()
    con.execute(SNAPSHOT_DDL)
    con.execute(
        f"""insert into {RUNS} select {_RUN_COLS}, md5(cast(to_json(r) as varchar))
            from intermediate.int_runs as r"""
    )
    con.execute(f"insert into {FILE_RUNS} {_FILE_RUNS_SQL}")
    con.execute(f"delete from {SPANS} where file_id not in (select unnest(?::bigint[]))", [loaded])
    con.execute(f"delete from {SCOPE}")
    con.commit()
