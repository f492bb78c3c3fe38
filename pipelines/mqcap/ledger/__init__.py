"""The ledgers that own pipeline state: every step's completion per study (``steps``).

Example:
    from mqcap.ledger import pipeline_state
"""

from mqcap.ledger.steps import STEPS, PipelineState, ensure_steps, pipeline_state, record_step

__all__ = ["STEPS", "PipelineState", "ensure_steps", "pipeline_state", "record_step"]
