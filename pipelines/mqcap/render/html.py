"""Self-contained HTML: pandoc with mqcap's template and stylesheet, Vega inlined once."""

from __future__ import annotations

import re
from pathlib import Path

from mqcap.render.display import bundle_script_tag
from mqcap.render.errors import RenderError
from mqcap.render.markdown import Converted
from mqcap.render.pandoc import metadata_block, package_file, run_pandoc
from mqcap.render.qmd import QmdDocument

_BUNDLE_PLACEHOLDER = "<!-- mqcap: vega javascript -->"


def write_html(doc: QmdDocument, conv: Converted, work: Path, output: Path) -> Path:
    """Write ``output`` as one HTML file needing no network: CSS, images and scripts inside.

    ``work`` is the folder the converted markdown's image paths are relative to.

    Example:
        write_html(doc, to_markdown(nb, doc, "html", work / "files"), work, Path("out/r.html"))
    """
    opts = doc.format_options("html")
    toc = opts.get("toc", True) is not False
    header = work / "header.html"
    parts = [f"<style>\n{package_file('report.css').read_text(encoding='utf-8')}\n</style>"]
    if conv.has_charts:
        # The 900 kB script is added after pandoc: parsing it would triple pandoc's time.
        parts.append(_BUNDLE_PLACEHOLDER)
    header.write_text("\n".join(parts), encoding="utf-8")
    args = [
        "--standalone",
        "--embed-resources",
        f"--template={package_file('report.html')}",
        f"--include-in-header={header}",
        f"--resource-path={work}",
        "--section-divs",
    ]
    if toc:
        args += ["--toc", f"--toc-depth={int(opts.get('toc-depth', 3))}"]
    if opts.get("number-sections"):
        args.append("--number-sections")
    extra = {"toc-title": opts["toc-title"]} if "toc-title" in opts else {}
    run_pandoc(metadata_block(doc, extra) + conv.markdown, "html5", output, args)
    if conv.has_charts or conv.html_blocks:
        page = output.read_text(encoding="utf-8")
        head_end = page.index("</head>")
        head = page[:head_end].replace(_BUNDLE_PLACEHOLDER, bundle_script_tag(), 1)
        output.write_text(head + _blocks_back(page[head_end:], conv, output), encoding="utf-8")
    return output


_BLOCK = re.compile(r"<!-- mqcap: html block (\d+) -->")


def _blocks_back(body: str, conv: Converted, output: Path) -> str:
    """``body`` with every placeholder replaced by its HTML block, each exactly once."""
    seen: list[int] = []

    def back(m: re.Match) -> str:
        seen.append(int(m.group(1)))
        return conv.html_blocks[seen[-1]]

    body = _BLOCK.sub(back, body)
    if sorted(seen) != list(range(len(conv.html_blocks))):
        raise RenderError(
            f"{output.name}: pandoc's page holds HTML blocks {sorted(seen)}, not the "
            f"{len(conv.html_blocks)} written"
        )
    return body
