"""mqcap: raw IBM MQ performance measurements -> DuckDB warehouse -> MP16-style reports.

The package is a library of plain functions (parse, land, build, validate, render) with a thin
CLI on top (``mqcap.cli``).
"""

__version__ = "0.1.0"
