"""The dbt staging models of the SMF landing tables, from the field tables.

One view per structure a model reads (``STAGED``), ``models/staging/smf/stg_smf__<structure>.sql``,
plus the models YAML and the sources YAML of every SMF landing table (``int_record_copies``
and incremental builds read them all). The SQL is generated (WQ alone has ~460 columns) so it cannot drift from the
field tables; written by ``python -m mqcap.codegen`` (``tests/test_codegen.py`` fails when a
committed file is out of date).

Example:
    files = render_all()  # {"stg_smf__qcst.sql": "...", ...}
"""

from __future__ import annotations

from mqcap.parsers.smf.fields import F, Structure
from mqcap.parsers.smf.structures import STRUCTURES

HEADER = "-- Generated from pipelines/mqcap/parsers/smf/structures.py by python -m mqcap.codegen."
# Structures a downstream model reads: the channel accounting (QCST) and the channel-initiator
# tasks. The other 19 land and are checked (their suites are generated too) but no model reads
# them: SQL users find them in landing.smf_<structure>. A new reader adds its structure here and
# runs ``python -m mqcap.codegen``; tests/test_layout.py fails on a staging model nobody reads.
STAGED = ("QCST", "QCTDSP", "QCTADP", "QCTSSL", "QCTDNS")
# Kinds whose landed value keeps a mq-smf-csv placeholder that means "no value".
PLACEHOLDER_NULL = {"minsize": "-1"}


# DuckDB reserved words among the landed column names: quoted in SQL, renamed in staging.
RESERVED = {"limit": "limit_value"}
# Integer fields that are times in microseconds (IBM: QCSTETAV, QCSTDNRT, QCSTNTAV... are
# "in microseconds"), landed under mq-smf-csv's heading without a unit: staging names it.
UNIT_US = {
    "QCST": (
        "exit_time_avg",
        "exit_time_min",
        "exit_time_max",
        "dns_resolution_time",
        "net_time_avg",
        "net_time_min",
        "net_time_max",
    ),
}


# The leading fields of the four channel-initiator task structures (QCTDSP, QCTADP, QCTSSL,
# QCTDNS): one macro (macros/chinit_task_columns.sql) lists them for the four models.
TASK_COLUMNS = (
    "task_number",
    "task_index",
    "request_count",
    "task_cpu_time_us",
    "task_elapsed_time_us",
    "task_wait_time_us",
)


def _expr(s: Structure, f: F) -> str:
    col = f.column
    name = f"{col}_us" if col in UNIT_US.get(s.name, ()) else RESERVED.get(col, col)
    value = f'"{col}"' if col in RESERVED else col
    if f.kind in PLACEHOLDER_NULL:
        value = f"nullif({value}, {PLACEHOLDER_NULL[f.kind]})"
    return value if value == name else f"{value} as {name}"


def _is_chinit_task(s: Structure) -> bool:
    """Whether the structure starts with the fields every channel-initiator task shares."""
    return tuple(_expr(s, f) for f in s.fields[: len(TASK_COLUMNS)]) == TASK_COLUMNS


def _time_span(s: Structure) -> list[str]:
    """The model's ``mqcap_time_span`` (read by mqcap.ledger.scope.timed_views): a channel-initiator
    task's row covers the interval ending at its record; a QCST row is a point in time."""
    start = (
        '"record_time_local - to_microseconds(coalesce(interval_duration_us, 0))"'
        if _is_chinit_task(s)
        else '"record_time_local"'
    )
    return [
        "    config:",
        "      meta:",
        "        mqcap_time_span:",
        "          clock: local",
        f"          start: {start}",
        '          end: "record_time_local"',
    ]


def render_sql(s: Structure) -> str:
    lines = [
        HEADER,
        f"-- {s.description}",
        "-- Second copies of a record (the same dump dropped twice) do not count: macros/first_copy.",
        "with source as (",
        f"    {{{{ first_copy(source('smf', '{s.table}'), when='record_time_local is not null') }}}}",
        ")",
        "",
        "select",
        "    -- key, lineage and the SMF / MQ header: macros/smf_header_columns.sql",
        "    {{ smf_header_columns() }},",
    ]
    exprs = [_expr(s, f) for f in s.fields]
    if _is_chinit_task(s):
        exprs = [
            "-- the fields every channel-initiator task shares: macros/chinit_task_columns.sql\n"
            "    {{ chinit_task_columns() }}",
            *exprs[len(TASK_COLUMNS) :],
        ]
    body = [f"    {e}" for e in exprs]
    lines += [b + "," for b in body[:-1]] + [body[-1], "from source", ""]
    return "\n".join(lines)


def render_sources() -> str:
    out = [
        "version: 2",
        "",
        "sources:",
        "  - name: smf",
        "    description: >",
        "      IBM MQ SMF 115/116 structures landed by mqcap: binary dumps",
        "      (pipelines/mqcap/parsers/smf/binary.py) and mq-smf-csv output",
        "      (pipelines/mqcap/parsers/smf/csv_loader.py) land in the same tables.",
        "    schema: landing",
        "    tables:",
    ]
    for s in STRUCTURES.values():
        out += [f"      - name: {s.table}", f"        description: {_yaml(s.description)}"]
    return "\n".join(out) + "\n"


def render_models() -> str:
    out = ["version: 2", "", "models:"]
    for s in _staged():
        out += [
            f"  - name: stg_smf__{s.name.lower()}",
            *_time_span(s),
            "    description: >",
            f"      Grain: {s.description} One row per {s.name} instance (file_id, record or line,",
            "      source_item). mq-smf-csv placeholders for 'no value' are NULL.",
            "    columns:",
            "      - name: smf_row_key",
            "        description: file_id-record (or line)-item, the key of a row.",
            "        data_tests:",
            "          - primary_key:",
            "              arguments:",
            "                required: [file_id, record_time_local, qmgr_name]",
            "      - name: file_id",
            "        description: Ingest ledger id of the file the row came from.",
            "      - name: record_time_local",
            "        description: When SMF wrote the record (z/OS local time of the SMF header).",
            "      - name: qmgr_name",
            "        description: Queue manager (SMF subsystem id).",
        ]
    return "\n".join(out) + "\n"


def _yaml(text: str) -> str:
    return '"' + text.replace('"', "'") + '"'


def _staged() -> list[Structure]:
    return [STRUCTURES[name] for name in STAGED]


def render_all() -> dict[str, str]:
    files = {f"stg_smf__{s.name.lower()}.sql": render_sql(s) for s in _staged()}
    files["_smf__sources.yml"] = render_sources()
    files["_smf__models.yml"] = render_models()
    return files
