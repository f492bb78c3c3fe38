"""PDF through Typst: pandoc writes Typst markup, the ``typst`` package compiles it.

Charts arrive as SVG; they are turned into PDF with vl-convert (fonts embedded, text stays
text) because Typst draws SVG text only with its own fonts.
"""

from __future__ import annotations

import re
from pathlib import Path

import typst

from mqcap.render.errors import RenderError
from mqcap.render.markdown import Converted
from mqcap.render.pandoc import metadata_block, package_file, run_pandoc
from mqcap.render.qmd import QmdDocument

_SVG_WIDTH = re.compile(r'<svg[^>]*?\swidth="([0-9.]+)(?:px)?"')
# A4 (595pt) less 2 x 2.2cm margins.
_TEXT_WIDTH_PT = 470


def write_pdf(doc: QmdDocument, conv: Converted, work: Path, output: Path) -> Path:
    """Write ``output`` (A4, page numbers, numbered captions) from converted markdown.

    Example:
        write_pdf(doc, to_markdown(nb, doc, "typst", work / "files"), work, Path("out/r.pdf"))
    """
    opts = doc.format_options("typst")
    markdown = _svg_to_pdf(conv, work)
    typ = work / "report.typ"
    args = [
        "--standalone",
        # Pipe tables wider than pandoc's line length would get fixed equal column widths.
        "--columns=10000",
        f"--include-in-header={package_file('report-header.typ')}",
        f"--resource-path={work}",
        "-V",
        f"papersize={opts.get('papersize', 'a4')}",
        "-V",
        f"fontsize={opts.get('fontsize', '10.5pt')}",
        "-V",
        "margin.x=2.2cm",
        "-V",
        "margin.y=2.4cm",
        "-V",
        "page-numbering=1",
    ]
    if opts.get("toc"):
        args += ["--toc", f"--toc-depth={int(opts.get('toc-depth', 2))}"]
    if opts.get("section-numbering"):
        args += ["-V", f"section-numbering={opts['section-numbering']}"]
    run_pandoc(metadata_block(doc) + markdown, "typst", typ, args)
    try:
        # Only Typst's bundled fonts: the same PDF on every machine.
        typst.compile(str(typ), output=str(output), root=str(work), ignore_system_fonts=True)
    except typst.TypstError as exc:
        raise RenderError(f"typst could not compile {doc.path.name}: {exc}") from exc
    return output


def _svg_to_pdf(conv: Converted, work: Path) -> str:
    import vl_convert as vlc

    markdown = conv.markdown
    for svg in conv.images:
        if svg.suffix != ".svg":
            continue
        pdf = svg.with_suffix(".pdf")
        pdf.write_bytes(vlc.svg_to_pdf(svg.read_text(encoding="utf-8")))
        old = re.escape(svg.relative_to(work).as_posix())
        new = pdf.relative_to(work).as_posix()
        width = _width(svg)
        markdown = re.sub(
            rf"\]\({old}\)(?:\{{([^}}]*)\}})?",
            lambda m, new=new, width=width: f"]({new}){{{(m.group(1) or '')} {width}}}",
            markdown,
        )
    return markdown


def _width(svg: Path) -> str:
    # CSS pixels to points (96 -> 72 dpi): chart text keeps the size it has on screen instead
    # of being blown up to the text width.
    match = _SVG_WIDTH.search(svg.read_text(encoding="utf-8")[:2000])
    if match is None:
        return ""
    return f"width={min(float(match.group(1)) * 0.75, _TEXT_WIDTH_PT):.0f}pt"
