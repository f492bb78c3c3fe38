"""Run a parsed ``.qmd`` as a Jupyter notebook in a real kernel (nbclient + ipykernel).

The kernel is this interpreter (``sys.executable``), not whatever ``python3`` kernelspec is on
the machine, so report cells import the same mqcap and libraries as the caller.
"""

from __future__ import annotations

import os
import re
import sys
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path

import nbformat
from jupyter_client.kernelspec import KernelSpec, KernelSpecManager
from jupyter_client.manager import KernelManager
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError

from mqcap.render.errors import RenderError
from mqcap.render.qmd import Cell, QmdDocument

CELL_TIMEOUT_S = 600
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
_KERNEL_NAME = "mqcap-python"


class _ThisPythonSpecs(KernelSpecManager):
    """Answers every kernel name with a spec that runs ``sys.executable``."""

    def get_kernel_spec(self, kernel_name: str) -> KernelSpec:
        return KernelSpec(
            argv=[sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
            display_name=f"Python ({sys.executable})",
            language="python",
            resource_dir="",
        )


def build_notebook(doc: QmdDocument, params: Mapping[str, object] | None) -> nbformat.NotebookNode:
    """One notebook cell per document cell; parameters injected after the ``parameters`` cell.

    Example:
        nb = build_notebook(parse_qmd(path), {"study": "tls"})
        nb.cells[2].metadata.tags  # ['injected-parameters']
    """
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {
        "name": _KERNEL_NAME,
        "display_name": "Python",
        "language": "python",
    }
    nb.metadata["language_info"] = {"name": "python"}
    cells: list[nbformat.NotebookNode] = []
    for index, cell in enumerate(doc.cells):
        if cell.kind == "markdown":
            node = nbformat.v4.new_markdown_cell(cell.source)
        else:
            node = nbformat.v4.new_code_cell(cell.source)
            node.metadata["tags"] = list(cell.tags)
            if cell.options.get("error") is True:
                # nbclient's own switch for "this cell may raise"; Quarto's `error: true`.
                node.metadata["tags"].append("raises-exception")
        node.metadata["mqcap"] = {"index": index}
        cells.append(node)
    if params:
        injected = nbformat.v4.new_code_cell(_parameter_source(params))
        injected.metadata["tags"] = ["injected-parameters"]
        injected.metadata["mqcap"] = {"index": None}
        at = next(
            (i + 1 for i, c in enumerate(cells) if "parameters" in c.metadata.get("tags", [])),
            None,
        )
        if at is None:
            # papermill's rule without a parameters cell: values go first.
            at = next((i for i, c in enumerate(cells) if c.cell_type == "code"), len(cells))
        cells.insert(at, injected)
    nb.cells = cells
    return nb


def _parameter_source(params: Mapping[str, object]) -> str:
    lines = ["# Injected parameters"]
    for name, value in params.items():
        if not str(name).isidentifier():
            raise RenderError(f"parameter name {name!r} is not a Python identifier")
        if not _literal(value):
            raise RenderError(
                f"parameter {name!r} must be a str, number, bool, None, list or dict, "
                f"not {type(value).__name__}"
            )
        lines.append(f"{name} = {value!r}")
    return "\n".join(lines) + "\n"


def _literal(value: object) -> bool:
    if value is None or isinstance(value, str | int | float | bool):
        return True
    if isinstance(value, list | tuple):
        return all(_literal(v) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _literal(v) for k, v in value.items())
    return False


def execute_notebook(
    nb: nbformat.NotebookNode,
    doc: QmdDocument,
    *,
    env: Mapping[str, str] | None = None,
    progress: Callable[[str], None] | None = None,
    timeout: int = CELL_TIMEOUT_S,
    connection_file: Path | None = None,
) -> nbformat.NotebookNode:
    """Execute every code cell in order in a fresh kernel started in the document's folder.

    A failing cell raises :class:`RenderError` naming its label (or number) and line, with the
    last line of the traceback. ``env`` is added to this process's environment for the kernel.
    ``connection_file``: where the kernel's connection file (its ports and key) is written;
    by default jupyter_client's temporary file, which a render killed outright leaves in the
    temporary folder (the render's work folder is cleaned by the next render instead).

    Example:
        execute_notebook(nb, doc, env={"MQCAP_WAREHOUSE": "data/warehouse.duckdb"})
    """
    kernel_env = {**os.environ, **(env or {})}
    # debugpy otherwise prints a "frozen modules" warning on the kernel's stderr at start.
    kernel_env["PYDEVD_DISABLE_FILE_VALIDATION"] = "1"
    km = KernelManager(
        kernel_name=_KERNEL_NAME,
        kernel_spec_manager=_ThisPythonSpecs(),
        **({"connection_file": str(connection_file)} if connection_file else {}),
    )
    client = NotebookClient(
        nb,
        km=km,
        timeout=timeout,
        startup_timeout=120,
        allow_errors=False,
        record_timing=False,
        resources={"metadata": {"path": str(doc.path.parent.resolve())}},
    )
    code_cells = [(i, c) for i, c in enumerate(nb.cells) if c.cell_type == "code"]
    cwd = str(doc.path.parent.resolve())
    # The kernel's own stderr (start-up chatter, crash messages) goes to a file, shown only
    # when the kernel dies; cell output reaches us through Jupyter messages instead.
    with tempfile.TemporaryFile(mode="w+", prefix="mqcap-kernel-") as kernel_log:
        try:
            with client.setup_kernel(env=kernel_env, cwd=cwd, stderr=kernel_log):
                for count, (index, node) in enumerate(code_cells, start=1):
                    source_cell = _source_cell(node, doc)
                    if source_cell is not None and source_cell.options.get("eval") is False:
                        continue
                    name = _cell_name(node, doc)
                    if progress:
                        progress(f"cell {count}/{len(code_cells)} {name}")
                    _run_cell(client, node, index, name, doc, timeout)
        except DeadKernelError as exc:
            kernel_log.seek(0)
            tail = "\n".join(kernel_log.read().strip().splitlines()[-10:])
            raise RenderError(f"{doc.path.name}: the Jupyter kernel died: {exc}\n{tail}") from exc
        finally:
            # nbclient cleans up only kernels it created itself; ours (km=...) would outlive
            # the render, holding files such as a read-only warehouse connection.
            if km.has_kernel:
                km.shutdown_kernel(now=not measuring_coverage())
    return nb


def measuring_coverage() -> bool:
    """Whether coverage measures this process and its children (``patch = subprocess``).

    Then the kernel is asked to shut down instead of being killed: a killed kernel never saves
    what coverage measured in it (the report cells' code, ``render/display.py``).

    Example:
        measuring_coverage()  # True under `make unit`, False in `mqcap run`
    """
    return bool(
        os.environ.get("COVERAGE_PROCESS_CONFIG") or os.environ.get("COVERAGE_PROCESS_START")
    )


def _run_cell(
    client: NotebookClient,
    node: nbformat.NotebookNode,
    index: int,
    name: str,
    doc: QmdDocument,
    timeout: int,
) -> None:
    try:
        client.execute_cell(node, index)
    except CellExecutionError as exc:
        raise RenderError(f"{doc.path.name}: {name} failed: {_last_line(exc)}") from exc
    except CellTimeoutError as exc:
        raise RenderError(f"{doc.path.name}: {name} ran longer than {timeout} s") from exc


def _source_cell(node: nbformat.NotebookNode, doc: QmdDocument) -> Cell | None:
    index = node.metadata.get("mqcap", {}).get("index")
    return doc.cells[index] if index is not None else None


def _cell_name(node: nbformat.NotebookNode, doc: QmdDocument) -> str:
    cell = _source_cell(node, doc)
    if cell is None:
        return "injected parameters cell"
    number = 1 + sum(1 for c in doc.cells[: doc.cells.index(cell)] if c.kind == "code")
    where = f"code cell {number}, line {cell.line}"
    return f"cell '{cell.label}' ({where})" if cell.label else where


def _last_line(exc: CellExecutionError) -> str:
    ename = getattr(exc, "ename", None)
    evalue = getattr(exc, "evalue", None)
    if ename:
        return f"{ename}: {evalue}" if evalue else str(ename)
    lines = [ln for ln in _ANSI.sub("", str(exc)).splitlines() if ln.strip()]
    return lines[-1] if lines else "unknown error"


def strip_ansi(text: str) -> str:
    """Tracebacks from ipykernel carry terminal colours; reports want plain text.

    Example:
        strip_ansi("\\x1b[0;31mValueError\\x1b[0m")  # 'ValueError'
    """
    return _ANSI.sub("", text)
