"""mqcap: raw IBM MQ performance measurements -> DuckDB warehouse -> MP16-style reports.

The package is a library of plain functions (parse, land, build, validate, render) with a thin
CLI on top (``mqcap.cli``).
"""

__version__ = "0.1.0"

import warnings

# Great Expectations imports pyspark when the spark extra is installed, and pyspark then warns
# on import that it does not fully support pandas 3. The Spark engine hands pandas to Spark only
# in the Python marts, as plain rows with a schema (mqcap.noise.model_frame), which the engine
# parity test checks; the warning would be noise in every command's output.
warnings.filterwarnings(
    "ignore", message="PySpark does not yet fully support pandas", category=FutureWarning
)
