"""The one exception the render package raises."""

from __future__ import annotations

from mqcap.errors import MqcapError


class RenderError(MqcapError):
    """A report could not be rendered; the message names the cell, line or tool that failed.

    Example:
        raise RenderError("cell 'tbl-cost' (cell 4, line 37) failed: KeyError: 'study'")
    """

    exit_code = 1
