"""The pipeline's own state, held transactionally in the warehouse (``meta``).

``files``: every raw file's state (loaded, set aside, replaced, deleted) and attribution.
``steps``: every step's completion per study (checks, build, reports) and its inputs.
``schema``: every ``meta`` table, made and migrated (numbered migrations) in one place.

Example:
    from mqcap.ledger import pipeline_state
"""

from mqcap.ledger.files import FileLedger, tables_changed_since, unattributed
from mqcap.ledger.schema import STEPS
from mqcap.ledger.steps import PipelineState, pipeline_state, record_step

__all__ = [
    "STEPS",
    "FileLedger",
    "PipelineState",
    "pipeline_state",
    "record_step",
    "tables_changed_since",
    "unattributed",
]
