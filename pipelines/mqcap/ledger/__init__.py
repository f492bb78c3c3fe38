"""The pipeline's own state, held transactionally in the warehouse (``meta``).

``files``: every raw file's state (loaded, set aside, replaced, deleted) and attribution.
"""

from mqcap.ledger.files import FileLedger, tables_changed_since, unattributed

__all__ = ["FileLedger", "tables_changed_since", "unattributed"]
