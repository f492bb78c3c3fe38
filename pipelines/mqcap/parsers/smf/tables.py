"""Landing tables ``landing.smf_<structure>``: identity and lineage columns, then the fields.

Both SMF parsers (binary ``smf_mq`` and mq-smf-csv output ``smf_csv``) land in these tables, so
a study can mix the two. Identity columns on every row:

- ``record_time_local``: when SMF wrote the record (its header; z/OS local time, 1/100 s);
- ``system_id`` (SMF system id, the LPAR), ``qmgr`` (subsystem id), ``qsg`` (queue-sharing
  group; NULL when the record does not carry it), ``mq_version`` (e.g. ``'800'``);
- ``interval_start_utc``, ``interval_duration_s`` (whole seconds, as mq-smf-csv prints it) and
  ``interval_duration_us`` (exact; binary input only): statistics (115) records only.

Lineage: ``source_file``; binary: ``source_offset`` (byte offset of the record, RDW included)
and ``source_record`` (record number from 1); CSV: ``source_line``; ``source_item``: the row's
position among the rows one record (or line) produced.

Example:
    TABLES["smf_qcst"].columns["collection_time_utc"]  # 'TIMESTAMP'
"""

from __future__ import annotations

from mqcap.parsers.base import Table
from mqcap.parsers.smf.structures import STRUCTURES, Structure

LINEAGE = {
    "source_file": "VARCHAR",
    "source_offset": "BIGINT",
    "source_record": "BIGINT",
    "source_line": "BIGINT",
    "source_item": "BIGINT",
}
IDENTITY = {
    "smf_type": "BIGINT",
    "smf_subtype": "BIGINT",
    "record_time_local": "TIMESTAMP",
    "system_id": "VARCHAR",
    "qmgr": "VARCHAR",
    "qsg": "VARCHAR",
    "mq_version": "VARCHAR",
    "interval_start_utc": "TIMESTAMP",
    "interval_duration_s": "BIGINT",
    "interval_duration_us": "BIGINT",
}
HEAD_COLUMNS = [*LINEAGE, *IDENTITY]


def table_for(s: Structure) -> Table:
    cols = {**LINEAGE, **IDENTITY}
    for f in s.fields:
        cols[f.column] = f.sql_type
    return Table(s.table, cols, s.description, identity=True)


TABLES: dict[str, Table] = {table_for(s).name: table_for(s) for s in STRUCTURES.values()}
ALL_TABLES: tuple[Table, ...] = tuple(TABLES.values())
