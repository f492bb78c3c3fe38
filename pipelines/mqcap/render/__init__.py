"""Render Quarto reports (``.qmd``) to self-contained HTML and to PDF.

Two engines give the same result from the same, genuine Quarto documents:

* ``quarto``: the Quarto CLI when it is on PATH (``quarto render --to html|typst -P k:v``).
* ``own``: mqcap's engine, built from real parts, used when Quarto is not installed (CI):

  1. :mod:`~mqcap.render.qmd` reads the YAML front matter, markdown and ```` ```{python} ````
     cells with their ``#|`` options.
  2. :mod:`~mqcap.render.execute` builds an nbformat notebook, injects parameters in a new
     cell after the ``#| tags: [parameters]`` cell (papermill's convention, as Quarto does),
     and runs every cell in order in a Jupyter kernel (nbclient + ipykernel, this
     interpreter). A failing cell stops the render, naming the cell and the error.
  3. :mod:`~mqcap.render.markdown` picks one MIME type per output and target (HTML:
     text/html, SVG, PNG, markdown, plain text; PDF: SVG, PNG, markdown, plain text), numbers
     ``fig-``/``tbl-`` labelled cells ("Figure 1: caption") and resolves ``@fig-x``
     references to links; an unknown reference is an error (Quarto only warns).
  4. :mod:`~mqcap.render.html`: pandoc to one standalone HTML file (``--embed-resources``)
     with a table of contents and mqcap's stylesheet; the Vega JavaScript for charts is
     inlined once in ``<head>``, so the file opens without network. The charts' HTML (their
     specs and data) never goes through pandoc: a placeholder does, replaced after.
  5. :mod:`~mqcap.render.pdf`: pandoc to Typst markup, compiled by the ``typst`` package
     (A4, page numbers, bundled fonts only); chart SVGs become vector PDF images.

Report cells display data with :mod:`mqcap.render.display` (``chart``, ``table``, ``note``),
which escape everything that comes from data for HTML and for markdown/Typst.

Limits of the own engine against Quarto: Python cells only; cell options understood are
``echo``, ``eval``, ``output`` (true/false/asis), ``include``, ``warning``, ``error``,
``label``, ``fig-cap``, ``tbl-cap``, ``tags``; document options ``execute:`` (the same
names), ``format: html:`` ``toc``, ``toc-depth``, ``toc-title``, ``number-sections`` and
``format: typst:`` ``papersize``, ``fontsize``, ``toc``, ``toc-depth``,
``section-numbering``. Cross-references cover cell figures and tables only (no sections,
equations, sub-figures, or ``{#fig-x}`` on markdown images); inline expressions
(`` `{python} x` ``), callouts, tabsets, shortcodes, ``freeze``/``cache`` and Quarto projects
are not handled. YAML ``params`` are
used as parameter defaults by both engines (passed as ``-P`` to Quarto).

Example:
    render_report(Path("reports/tls.qmd"), Path("reports/_output"), params={"study": "tls"})
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

from mqcap import environment
from mqcap.render.errors import RenderError
from mqcap.render.qmd import QmdDocument, parse_qmd
from mqcap.render.quarto import quarto_path, render_with_quarto

__all__ = ["RenderError", "render_report"]

FORMATS = ("html", "pdf")
ENGINES = ("auto", "own", "quarto")


def render_report(
    qmd: Path,
    out_dir: Path,
    *,
    params: dict[str, object] | None = None,
    formats: Sequence[str] = ("html", "pdf"),
    output_stem: str | None = None,
    env: dict[str, str] | None = None,
    engine: str = "auto",
    progress: Callable[[str], None] | None = None,
) -> dict[str, Path]:
    """Render ``qmd`` into ``out_dir`` as ``<stem>.html`` and/or ``<stem>.pdf``.

    ``params`` override the parameters cell; ``env`` is added to the kernel's environment
    (reports read ``MQCAP_WAREHOUSE`` from it). ``engine="auto"`` uses the Quarto CLI when
    ``quarto`` is on PATH, otherwise the own engine.

    Example:
        paths = render_report(Path("reports/tls.qmd"), Path("reports/_output"),
                              params={"study": "tls"}, env={"MQCAP_WAREHOUSE": "wh.duckdb"})
        paths["pdf"]  # Path('reports/_output/tls.pdf')
    """
    qmd = Path(qmd)
    out_dir = Path(out_dir)
    unknown = [f for f in formats if f not in FORMATS]
    if unknown or not formats:
        raise RenderError(f"formats must be among {', '.join(FORMATS)}, not {list(formats)}")
    if engine not in ENGINES:
        raise RenderError(f"engine must be one of {', '.join(ENGINES)}, not {engine!r}")
    if not qmd.is_file():
        raise RenderError(f"report {qmd} does not exist")
    doc = parse_qmd(qmd)
    yaml_params = doc.meta.get("params") or {}
    if not isinstance(yaml_params, dict):
        raise RenderError(f"{qmd.name}: front matter `params` must be a mapping")
    all_params = {**yaml_params, **(params or {})}
    stem = output_stem or qmd.stem
    out_dir.mkdir(parents=True, exist_ok=True)

    use_quarto = engine == "quarto" or (engine == "auto" and quarto_path() is not None)
    if use_quarto:
        if quarto_path() is None:
            raise RenderError("engine='quarto' but no `quarto` executable is on PATH")
        return render_with_quarto(
            qmd.resolve(),
            out_dir.resolve(),
            params=all_params,
            formats=formats,
            stem=stem,
            env=env,
            progress=progress,
        )
    return _render_own(doc, out_dir, all_params, formats, stem, env, progress)


_WORK = re.compile(r"^\..+-render-(\d+)-[^/]+$")


def clean_stale_work(out_dir: Path) -> list[Path]:
    """Remove work folders of renders whose process is gone (killed); returns what went.

    Example:
        clean_stale_work(Path("reports/_output"))
    """
    removed = []
    for path in out_dir.glob(".*-render-*"):
        match = _WORK.match(path.name)
        if not path.is_dir() or not match:
            continue
        pid = int(match.group(1))
        if pid == os.getpid() or _alive(pid):
            continue
        shutil.rmtree(path, ignore_errors=True)
        removed.append(path)
    return removed


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's live process
        return True
    return True


def _render_own(
    doc: QmdDocument,
    out_dir: Path,
    params: dict[str, object],
    formats: Sequence[str],
    stem: str,
    env: dict[str, str] | None,
    progress: Callable[[str], None] | None,
) -> dict[str, Path]:
    # Imported here so `engine="quarto"` never loads nbclient, pandoc or typst.
    from mqcap.render.display import VEGA_BUNDLE_ENV
    from mqcap.render.execute import build_notebook, execute_notebook
    from mqcap.render.html import write_html
    from mqcap.render.markdown import check_crossrefs, to_markdown
    from mqcap.render.pdf import write_pdf

    check_crossrefs(doc)
    nb = build_notebook(doc, params)
    kernel_env = {**(env or {}), VEGA_BUNDLE_ENV: "document"}
    results: dict[str, Path] = {}
    # Intermediate files (and the kernel's connection file) live next to the outputs only
    # while rendering, as with Quarto; the folder names its process, so a render killed
    # outright is cleaned by the next one.
    clean_stale_work(out_dir)
    work = Path(tempfile.mkdtemp(prefix=f".{stem}-render-{os.getpid()}-", dir=out_dir))
    try:
        execute_notebook(
            nb, doc, env=kernel_env, progress=progress, connection_file=work / "kernel.json"
        )
        for fmt in formats:
            if progress:
                progress(f"writing {stem}.{fmt}")
            target = "html" if fmt == "html" else "typst"
            conv = to_markdown(nb, doc, target, work / f"{fmt}_files")
            output = (out_dir / f"{stem}.{fmt}").resolve()
            # Written in the work folder, then moved in one step: a killed render never
            # leaves a half-written report where a complete one was.
            partial = work / f"{stem}.partial.{fmt}"
            if fmt == "html":
                write_html(doc, conv, work, partial)
            else:
                write_pdf(doc, conv, work, partial)
            os.replace(partial, output)
            results[fmt] = output
    finally:
        if not environment.is_set("MQCAP_RENDER_KEEP"):
            shutil.rmtree(work, ignore_errors=True)
    return results
