"""Rendering with the Quarto CLI, when it is installed."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from mqcap.render.errors import RenderError

# mqcap's format names -> Quarto's `--to`; PDF goes through Typst as in the own engine.
QUARTO_FORMATS = {"html": ("html", "html"), "pdf": ("typst", "pdf")}


def quarto_path() -> str | None:
    """The ``quarto`` executable on PATH, if any.

    Example:
        quarto_path()  # '/usr/local/bin/quarto' or None
    """
    return shutil.which("quarto")


def param_arg(name: str, value: object) -> str:
    """``-P`` value as Quarto reads it (YAML): scalars as text, lists and mappings as JSON.

    Example:
        >>> param_arg("study", "tls")
        'study:tls'
        >>> param_arg("sizes", [256, 2048])
        'sizes:[256, 2048]'
    """
    if isinstance(value, bool):
        text = "true" if value else "false"
    elif value is None:
        text = "null"
    elif isinstance(value, list | tuple | dict):
        text = json.dumps(value)
    else:
        text = str(value)
    return f"{name}:{text}"


def quarto_command(
    qmd: Path, fmt: str, out_dir: Path, stem: str, params: Mapping[str, object]
) -> list[str]:
    """The ``quarto render`` command line for one format.

    Example:
        quarto_command(Path("r.qmd"), "pdf", Path("out"), "r", {"study": "tls"})
    """
    to, ext = QUARTO_FORMATS[fmt]
    cmd = [quarto_path() or "quarto", "render", str(qmd), "--to", to]
    for name, value in params.items():
        cmd += ["-P", param_arg(name, value)]
    if fmt == "html":
        # One file to hand around, like the own engine's output.
        cmd += ["-M", "embed-resources:true"]
    cmd += ["--output-dir", str(out_dir), "--output", f"{stem}.{ext}"]
    return cmd


def render_with_quarto(
    qmd: Path,
    out_dir: Path,
    *,
    params: Mapping[str, object],
    formats: Sequence[str],
    stem: str,
    env: Mapping[str, str] | None,
    progress: Callable[[str], None] | None,
) -> dict[str, Path]:
    """Run ``quarto render`` once per format; a non-zero exit becomes a :class:`RenderError`.

    Example:
        render_with_quarto(qmd, out, params={}, formats=["html"], stem="r", env=None,
                           progress=None)
    """
    results: dict[str, Path] = {}
    run_env = {**os.environ, **(env or {})}
    work = _work_copy(qmd, out_dir, stem)
    source = work / qmd.name if work else qmd
    try:
        for fmt in formats:
            cmd = quarto_command(source, fmt, out_dir, stem, params)
            if progress:
                progress(f"quarto render --to {QUARTO_FORMATS[fmt][0]}")
            proc = subprocess.run(
                cmd, cwd=source.parent, env=run_env, capture_output=True, text=True, check=False
            )
            if proc.returncode != 0:
                tail = "\n".join((proc.stderr or proc.stdout).strip().splitlines()[-15:])
                raise RenderError(f"quarto render {qmd.name} --to {cmd[4]} failed:\n{tail}")
            path = out_dir / f"{stem}.{QUARTO_FORMATS[fmt][1]}"
            if not path.exists():
                raise RenderError(f"quarto render finished but {path} is missing")
            results[fmt] = path
    finally:
        if work:
            shutil.rmtree(work, ignore_errors=True)
    return results


def _work_copy(qmd: Path, out_dir: Path, stem: str) -> Path | None:
    """A copy of the report sources in a work folder beside the outputs when ``qmd`` lies in
    the installed package (which may be read-only, and is never written): Quarto writes its
    ``.quarto/`` and freeze files beside the sources. None: render in place (a checkout).
    The folder's name carries this process's id, so a killed render's is cleaned by the next
    (``mqcap.render.clean_stale_work``)."""
    from mqcap.settings import PACKAGE_DIR

    if not qmd.resolve().is_relative_to(PACKAGE_DIR):
        return None
    work = Path(tempfile.mkdtemp(prefix=f".{stem}-render-{os.getpid()}-quarto-", dir=out_dir))
    shutil.copytree(
        qmd.parent,
        work,
        dirs_exist_ok=True,
        ignore=shutil.ignore_patterns("_output", ".quarto", "_freeze", "__pycache__"),
    )
    return work
