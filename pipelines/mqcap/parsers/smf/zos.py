"""Dispatch of the z/OS (non-MQ) SMF records a dump mixes with MQ's: SMF 30 subtypes 2/3 ->
``landing.ascpu_interval``, SMF 70 subtype 2 -> ``landing.rmf_crypto``, SMF 72 subtype 3 ->
``landing.rmf_workload``: the same landing tables (imported, not redeclared) the address-space
CPU CSV and the RMF Postprocessor report parsers feed, so a study can mix the sources.

Lineage: those tables take text or binary lineage (``base.TEXT_OR_BINARY_LINEAGE``); rows
decoded here carry ``source_offset`` (the record's byte offset), ``source_record`` (its number in
the dump) and ``source_item`` (the row's number among the record's rows: one per SMF 30 record,
per class period, per crypto card and function); ``source_line`` is NULL.

Example:
    zos = ZosDecoder(ctx)
    if zos.wants(rec.data):
        yield from zos.decode(rec)
"""

from __future__ import annotations

import struct
from collections.abc import Iterator

from mqcap.parsers import ascpu_csv, rmf_crypto, rmf_workload
from mqcap.parsers.base import Batch, ParseContext, Table
from mqcap.parsers.smf.reader import RawRecord
from mqcap.parsers.smf.zos_common import ZosRecordError, u16
from mqcap.parsers.smf.zos_smf30 import INTERVAL_SUBTYPES, decode_30
from mqcap.parsers.smf.zos_smf70 import decode_70_2
from mqcap.parsers.smf.zos_smf72 import decode_72_3

ZOS_TABLES: tuple[Table, ...] = (ascpu_csv.TABLE, rmf_crypto.TABLE, rmf_workload.TABLE)
# record type -> (decoded subtypes, landing table)
ZOS_TYPES = {
    30: (INTERVAL_SUBTYPES, ascpu_csv.TABLE.name),
    70: ((2,), rmf_crypto.TABLE.name),
    72: ((3,), rmf_workload.TABLE.name),
}
BATCH_ROWS = 20000


class ZosDecoder:
    """Decodes the z/OS records of one dump, batching rows per landing table."""

    def __init__(self, ctx: ParseContext) -> None:
        self.ctx = ctx
        self.pending: dict[str, list[dict]] = {}

    def wants(self, data: bytes) -> bool:
        return len(data) >= 2 and data[1] in ZOS_TYPES

    def decode(self, rec: RawRecord) -> Iterator[Batch]:
        data = rec.data
        rtype = data[1]
        subtype = u16(data, 18) if len(data) >= 20 and data[0] & 0x40 else -1
        subtypes, table = ZOS_TYPES[rtype]
        if subtype == -1:  # no subtype to tell: counted like any record type without a decoder
            self.ctx.skip(f"SMF type {rtype} record")
            return
        if subtype not in subtypes:
            self.ctx.skip(f"SMF {rtype} subtype {subtype} record (no decoder)")
            return
        try:
            if rtype == 30:
                rows = [decode_30(data)]
            elif rtype == 70:
                rows = decode_70_2(data)
            else:
                rows = decode_72_3(data)
        except (ZosRecordError, IndexError, ValueError, struct.error) as exc:
            raise self.ctx.error(
                f"SMF {rtype}.{subtype} record {rec.number}: {exc}", offset=rec.offset
            ) from None
        out = self.pending.setdefault(table, [])
        lineage = {
            "source_file": self.ctx.source_file,
            "source_offset": rec.offset,
            "source_record": rec.number,
        }
        for item, row in enumerate(rows, start=1):
            out.append({**lineage, "source_item": item, **row})
        if len(out) >= BATCH_ROWS:
            yield table, out
            self.pending[table] = []

    def flush(self) -> Iterator[Batch]:
        for table, rows in self.pending.items():
            if rows:
                yield table, rows
        self.pending = {}
