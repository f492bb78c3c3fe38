"""An incremental Spark build carries what cannot have changed since the last complete build.

On the Spark engine every build writes its tables into a folder of its own (``lake/builds/<n>``,
``mqcap.spark.lake``), so without this an incremental build made every model again: only the
run-keyed marts kept the other runs' rows (macros/run_scope.sql). Here:

- **Sources are fingerprinted** from what the lake holds (``source_fingerprints``): a landing
  table by its Parquet files' names (each names the file versions it holds and their row count,
  and a version's rows never change: equal names, equal rows) and its columns; the ledger and
  any other source table by its rows.
- **A complete build records** (``lake/build.json``, written only when dbt succeeded) the
  fingerprints it read and the folder of every table it has (``record``).
- **The next incremental build** (the dbt project unchanged since that build: otherwise
  ``mqcap.ledger.scope`` makes it full and nothing is carried) ``plan``s from the manifest: a table
  model (or seed) whose every upstream source has the fingerprint it had is carried: the last
  build's table is registered in this session where it is, and dbt leaves the model out
  (``--exclude``): no node, no query, no check. A view over unchanged sources is made again (it
  costs a catalog entry) but its row checks are skipped (``MQCAP_SPARK_UNCHECKED``, read by
  macros/row_checks.sql): they read the same rows the last build checked. The rest is built
  as before.

The models are pure functions of their sources (the project unchanged), so a carried table is
the table a rebuild would make; tests/test_spark_engine.py checks an incremental Spark build
that carries against the DuckDB engine's build, row for row.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

RECORD = "build.json"
UNCHECKED_ENV = "MQCAP_SPARK_UNCHECKED"  # unique ids of the views whose checks are skipped


def source_fingerprints(lake: Path) -> dict[str, str]:
    """``{"<schema>.<table>": fingerprint}`` of every table the sources read from ``lake``:
    ``landing.<t>`` from its files' names and columns, ``meta.<t>`` from its rows.

    Example:
        prints = source_fingerprints(settings.lake)   # {"landing.smf_qmst": "3f2a...", ...}
    """
    import pyarrow.parquet as pq

    prints: dict[str, str] = {}
    landing = lake / "landing"
    for folder in sorted(p for p in landing.iterdir() if p.is_dir()) if landing.is_dir() else []:
        h = hashlib.sha256()
        names = sorted(
            n for n in os.listdir(folder) if n.endswith(".parquet") and not n.startswith(".")
        )
        for name in names:
            if name == "schema.parquet":
                h.update(str(pq.read_schema(folder / name)).encode())
            h.update(name.encode() + b"\n")
        prints[f"landing.{folder.name}"] = h.hexdigest()
    meta = lake / "meta"
    for folder in sorted(p for p in meta.iterdir() if p.is_dir()) if meta.is_dir() else []:
        prints[f"meta.{folder.name}"] = _rows_fingerprint(folder)
    return prints


def _rows_fingerprint(folder: Path) -> str:
    """The rows of a folder's Parquet files, in a fixed order, hashed (the order the writer
    chose does not count)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    files = sorted(folder.glob("*.parquet"))
    if not files:
        return "empty"
    table = pa.concat_tables([pq.read_table(f) for f in files], promote_options="default")
    h = hashlib.sha256(str(table.schema).encode())
    rows = sorted(json.dumps(r, default=str, sort_keys=True) for r in table.to_pylist())
    for row in rows:
        h.update(row.encode() + b"\n")
    return h.hexdigest()


@dataclass
class Plan:
    """What an incremental build takes from the last complete build."""

    carried: dict[str, tuple[str, str, str]] = field(
        default_factory=dict
    )  # id: schema, name, folder
    unchecked: list[str] = field(default_factory=list)  # views made again without their checks
    changed: list[str] = field(default_factory=list)  # sources whose fingerprint changed

    def summary(self) -> str:
        """The line mqcap prints (and keeps in the build's scope note)."""
        return (
            f"carried {len(self.carried)} table(s) of the last build and skipped the checks of "
            f"{len(self.unchecked)} view(s): their sources are unchanged"
        )

    def exclude(self) -> list[str]:
        """dbt's ``--exclude`` arguments for the carried models (their names)."""
        return sorted(uid.split(".")[-1] for uid in self.carried)


def upstream_sources(nodes: Mapping[str, dict], sources: Mapping[str, str]) -> dict[str, set]:
    """Every node's sources (``"<schema>.<table>"``), through its parents, from ``nodes``
    (``unique_id: {"parents": [...], ...}``) and ``sources`` (``unique_id: "<schema>.<table>"``).

    Example:
        >>> nodes = {"model.a": {"parents": ["source.x"]}, "model.b": {"parents": ["model.a", "seed.s"]},
        ...          "seed.s": {"parents": []}}
        >>> upstream_sources(nodes, {"source.x": "landing.t"})["model.b"]
        {'landing.t'}
    """
    memo: dict[str, set] = {}

    def walk(uid: str) -> set:
        if uid in sources:
            return {sources[uid]}
        if uid not in memo:
            memo[uid] = set()  # a cycle cannot be (dbt refuses one); this ends the walk anyway
            found: set = set()
            for parent in nodes.get(uid, {}).get("parents", []):
                found |= walk(parent)
            memo[uid] = found
        return memo[uid]

    return {uid: walk(uid) for uid in nodes}


def plan(
    nodes: Mapping[str, dict],
    sources: Mapping[str, str],
    prior: Mapping | None,
    now: Mapping[str, str],
    exists=None,
) -> Plan:
    """Which models an incremental build carries (``nodes``: ``unique_id: {"parents", "schema",
    "name", "materialized"}`` of the models and seeds; ``prior``: the last complete build's
    record, None when there is none; ``now``: this build's source fingerprints).

    Example:
        >>> nodes = {
        ...     "model.p.stg_a": {"parents": ["source.p.l.a"], "schema": "staging", "name": "stg_a", "materialized": "view"},
        ...     "model.p.int_a": {"parents": ["model.p.stg_a"], "schema": "intermediate", "name": "int_a", "materialized": "table"},
        ...     "model.p.int_b": {"parents": ["source.p.l.b"], "schema": "intermediate", "name": "int_b", "materialized": "table"},
        ... }
        >>> sources = {"source.p.l.a": "landing.a", "source.p.l.b": "landing.b"}
        >>> prior = {"sources": {"landing.a": "1", "landing.b": "1"},
        ...          "tables": {"intermediate.int_a": "/lake/builds/b1/intermediate.db/int_a",
        ...                     "intermediate.int_b": "/lake/builds/b1/intermediate.db/int_b"}}
        >>> p = plan(nodes, sources, prior, {"landing.a": "1", "landing.b": "2"}, lambda f: True)
        >>> p.exclude(), p.unchecked, p.changed
        (['int_a'], ['model.p.stg_a'], ['landing.b'])
    """
    out = Plan()
    exists = exists or (lambda folder: any(Path(folder).glob("*.parquet")))
    if not prior:
        return out
    before = prior.get("sources", {})
    tables = prior.get("tables", {})
    out.changed = sorted(k for k in set(before) | set(now) if before.get(k) != now.get(k))
    changed = set(out.changed)
    for uid, srcs in sorted(upstream_sources(nodes, sources).items()):
        node = nodes[uid]
        if srcs & changed or any(s not in now for s in srcs):
            continue
        if node["materialized"] == "view":
            out.unchecked.append(uid)
            continue
        if node["materialized"] == "ephemeral":
            continue
        folder = tables.get(f"{node['schema']}.{node['name']}")
        if folder and exists(folder):
            out.carried[uid] = (node["schema"], node["name"], folder)
    return out


def graph_of(manifest) -> tuple[dict[str, dict], dict[str, str]]:
    """(nodes, sources) for ``plan`` from dbt's parsed ``Manifest``: the models and seeds, and
    each source's ``"<schema>.<table>"``."""
    nodes = {}
    for uid, node in manifest.nodes.items():
        if node.resource_type not in ("model", "seed"):
            continue
        nodes[uid] = {
            "parents": list(getattr(node.depends_on, "nodes", []) or []),
            "schema": node.schema,
            "name": node.alias or node.name,
            "materialized": node.config.materialized,
        }
    sources = {
        uid: f"{source.schema}.{source.identifier}" for uid, source in manifest.sources.items()
    }
    return nodes, sources


def read_record(lake: Path) -> dict | None:
    """The last complete build's record, or None (none yet, or unreadable: nothing is carried)."""
    try:
        record = json.loads((lake / RECORD).read_text())
    except (FileNotFoundError, ValueError):
        return None
    return record if isinstance(record, dict) else None


def register(spark, carried: Mapping[str, tuple[str, str, str]]) -> None:
    """The carried tables in this session's catalog, where the last build wrote them."""
    for schema, name, folder in carried.values():
        spark.sql(f"create database if not exists {schema}")
        spark.sql(f"drop table if exists {schema}.{name}")
        location = folder.replace("'", "\\'")
        spark.sql(f"create table {schema}.{name} using parquet location '{location}'")


def record(lake: Path, fingerprints: Mapping[str, str], tables: Mapping[str, str]) -> None:
    """``lake/build.json`` for the next build: this build's source fingerprints and tables
    (``"<schema>.<name>": folder``), written whole through a rename."""
    tmp = lake / f".{RECORD}.tmp"
    tmp.write_text(json.dumps({"sources": dict(fingerprints), "tables": dict(tables)}, indent=1))
    os.replace(tmp, lake / RECORD)


def referenced_folders(lake: Path) -> Iterable[Path]:
    """The table folders the last complete build's record names (kept by the pruning)."""
    rec = read_record(lake) or {}
    return [Path(p) for p in (rec.get("tables") or {}).values()]
