"""PDF through Typst: pandoc writes Typst markup, the ``typst`` package compiles it.

Charts arrive as SVG; they are turned into PDF with vl-convert (fonts embedded, text stays
text) because Typst draws SVG text only with its own fonts, and set at the full text width
(a tall chart at most ``_FIGURE_HEIGHT`` of the text height). Tables are laid out from their
content by :mod:`mqcap.render.typst_tables` between pandoc's reading and writing.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import typst

from mqcap.render.errors import RenderError
from mqcap.render.markdown import Converted
from mqcap.render.pandoc import metadata_block, package_file, pandoc_ast, run_pandoc
from mqcap.render.qmd import QmdDocument
from mqcap.render.typst_tables import layout_tables

_SVG_SIZE = re.compile(
    r'<svg[^>]*?\s(width|height)="([0-9.]+)(?:px)?"[^>]*?\s(width|height)="([0-9.]+)'
)
# Paper sizes in points (portrait) and the page margins, as Typst gets them.
_PAPERS = {"a4": (595.28, 841.89), "us-letter": (612.0, 792.0), "a5": (419.53, 595.28)}
MARGIN_X_CM = 2.2
MARGIN_Y_CM = 2.4
_PT_PER_CM = 72 / 2.54
# A chart is never taller than this share of the text height, so it fits a page with its
# caption and the line before it.
_FIGURE_HEIGHT = 0.8


def text_area(papersize: str = "a4") -> tuple[float, float]:
    """Text width and height (points) of a portrait page of ``papersize``.

    Example:
        >>> [round(v) for v in text_area("a4")]
        [471, 706]
    """
    width, height = _PAPERS.get(str(papersize).lower(), _PAPERS["a4"])
    return width - 2 * MARGIN_X_CM * _PT_PER_CM, height - 2 * MARGIN_Y_CM * _PT_PER_CM


def write_pdf(doc: QmdDocument, conv: Converted, work: Path, output: Path) -> Path:
    """Write ``output`` (A4, page numbers, numbered captions) from converted markdown.

    Example:
        write_pdf(doc, to_markdown(nb, doc, "typst", work / "files"), work, Path("out/r.pdf"))
    """
    opts = doc.format_options("typst")
    papersize = str(opts.get("papersize", "a4"))
    width, height = text_area(papersize)
    _paper_w, paper_h = _PAPERS.get(papersize.lower(), _PAPERS["a4"])
    markdown = _svg_to_pdf(conv, work, width, height * _FIGURE_HEIGHT)
    # Margins are a map in pandoc's Typst template: given as metadata, not `-V margin.x=`
    # (which sets a variable the template never reads: the page kept 1.25in margins).
    margin = {"x": f"{MARGIN_X_CM}cm", "y": f"{MARGIN_Y_CM}cm"}
    ast = pandoc_ast(metadata_block(doc, {"margin": margin}) + markdown)
    landscape_width = paper_h - 2 * MARGIN_X_CM * _PT_PER_CM
    layout_tables(ast, width, landscape_width)
    typ = work / "report.typ"
    args = [
        "--standalone",
        "--columns=10000",
        f"--include-in-header={package_file('report-header.typ')}",
        f"--resource-path={work}",
        "-V",
        f"papersize={papersize}",
        "-V",
        f"fontsize={opts.get('fontsize', '10.5pt')}",
        "-V",
        "page-numbering=1",
    ]
    if opts.get("toc"):
        args += ["--toc", f"--toc-depth={int(opts.get('toc-depth', 2))}"]
    if opts.get("section-numbering"):
        args += ["-V", f"section-numbering={opts['section-numbering']}"]
    run_pandoc(json.dumps(ast), "typst", typ, args, source="json")
    try:
        # Only Typst's bundled fonts: the same PDF on every machine.
        typst.compile(str(typ), output=str(output), root=str(work), ignore_system_fonts=True)
    except typst.TypstError as exc:
        raise RenderError(f"typst could not compile {doc.path.name}: {exc}") from exc
    _drop_false_suspects(output)
    return output


def _drop_false_suspects(pdf: Path) -> None:
    # Typst writes `/MarkInfo <</Marked true /Suspects false>>`. `false` is valid (and the
    # default), but poppler (pdfinfo, pdftoppm, Evince; 22.x) reports every such file with
    # "Syntax Error: Suspects object is wrong type (boolean)". The entry is blanked with
    # spaces of the same length, so no byte offset of the file moves.
    data = pdf.read_bytes()
    entry = b"/Suspects false"
    if data.count(entry) == 1:
        pdf.write_bytes(data.replace(entry, b" " * len(entry)))


def _svg_to_pdf(conv: Converted, work: Path, width: float, max_height: float) -> str:
    import vl_convert as vlc

    markdown = conv.markdown
    for svg in conv.images:
        if svg.suffix != ".svg":
            continue
        pdf = svg.with_suffix(".pdf")
        pdf.write_bytes(vlc.svg_to_pdf(svg.read_text(encoding="utf-8")))
        old = re.escape(svg.relative_to(work).as_posix())
        new = pdf.relative_to(work).as_posix()
        size = _size(svg, width, max_height)
        markdown = re.sub(
            rf"\]\({old}\)(?:\{{([^}}]*)\}})?",
            lambda m, new=new, size=size: f"]({new}){{{(m.group(1) or '')} {size}}}",
            markdown,
        )
    return markdown


def _size(svg: Path, width: float, max_height: float) -> str:
    # The full text width, as in a capacity report; a chart that would then be taller than
    # `max_height` is set by its height instead (and centred).
    match = _SVG_SIZE.search(svg.read_text(encoding="utf-8")[:2000])
    if match is None:
        return "width=100%"
    dims = {match.group(1): float(match.group(2)), match.group(3): float(match.group(4))}
    if not dims.get("width") or not dims.get("height"):
        return "width=100%"
    if dims["height"] * width / dims["width"] <= max_height:
        return "width=100%"
    return f"height={max_height:.0f}pt"
