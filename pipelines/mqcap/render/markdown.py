"""Turn an executed notebook into pandoc markdown for one target (``html`` or ``typst``).

Here live the Quarto behaviours the own engine imitates: ``#|`` options (echo, output,
include, warning), one MIME type chosen per output and target, numbered figure and table
captions, and ``@fig-``/``@tbl-`` cross-references resolved to "Figure N" links.
"""

from __future__ import annotations

import base64
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import nbformat

from mqcap.render.display import BUNDLE_SCRIPT_ID, CHART_CLASS
from mqcap.render.errors import RenderError
from mqcap.render.execute import strip_ansi
from mqcap.render.qmd import Cell, QmdDocument

# Same order as Quarto's for HTML; for Typst, images before markdown so charts stay charts.
MIME_PRIORITY = {
    "html": [
        "text/html",
        "image/svg+xml",
        "image/png",
        "image/jpeg",
        "text/markdown",
        "text/plain",
    ],
    "typst": ["image/svg+xml", "image/png", "image/jpeg", "text/markdown", "text/plain"],
}
_IMAGE_EXT = {"image/svg+xml": "svg", "image/png": "png", "image/jpeg": "jpg"}
_KINDS = {"fig": "Figure", "tbl": "Table"}
_REF = re.compile(
    r"(?P<open>\[)?(?<![\w@])@(?P<id>(?P<kind>fig|tbl)-[A-Za-z0-9_-]*[A-Za-z0-9_])(?P<close>\])?",
    re.IGNORECASE,
)
_BUNDLE_SCRIPT = re.compile(
    r'<script id="' + BUNDLE_SCRIPT_ID + r'">.*?</script>', re.DOTALL | re.IGNORECASE
)
_CODE_SPLIT = re.compile(r"(^(`{3,}|~{3,}).*?^\2[ \t]*$|`+[^`\n]*?`+)", re.MULTILINE | re.DOTALL)


@dataclass
class Converted:
    """Markdown for pandoc, the image files written, and whether charts need Vega JavaScript.

    Example:
        conv = to_markdown(nb, doc, "html", Path("out/files"))
        conv.markdown, conv.has_charts
    """

    markdown: str
    images: list[Path] = field(default_factory=list)
    has_charts: bool = False
    # The cells' HTML (charts: a div and the vegaEmbed call with the spec and its data;
    # tables), kept out of pandoc: the markdown holds html_placeholder(i) for block i
    # (mqcap.render.html puts them back). pandoc's --embed-resources reads the whole page it
    # writes: with a study's chart data in it that took 10.9 GB for a 48.8 MB page (352 runs),
    # over 21 GB at 1,000; with the tables of 1,000 runs still in it, 793 MB.
    html_blocks: list[str] = field(default_factory=list)


def html_placeholder(index: int) -> str:
    """The raw-HTML comment standing for ``Converted.html_blocks[index]`` in pandoc's input.

    Example:
        >>> html_placeholder(3)
        '<!-- mqcap: html block 3 -->'
    """
    return f"<!-- mqcap: html block {index} -->"


def number_crossrefs(doc: QmdDocument) -> dict[str, str]:
    """``{"fig-x": "Figure 1", "tbl-y": "Table 1"}`` in document order, as Quarto numbers them.

    Example:
        number_crossrefs(parse_qmd(path))["fig-cost"]  # 'Figure 1'
    """
    numbers: dict[str, str] = {}
    counts = dict.fromkeys(_KINDS, 0)
    for cell in doc.cells:
        label = cell.label
        if cell.kind != "code" or not label or cell.options.get("include") is False:
            continue
        kind = label.split("-", 1)[0]
        if kind in _KINDS and "-" in label:
            if label in numbers:
                raise RenderError(f"{doc.path.name} line {cell.line}: label {label!r} used twice")
            counts[kind] += 1
            numbers[label] = f"{_KINDS[kind]} {counts[kind]}"
    return numbers


def resolve_refs(text: str, numbers: dict[str, str], where: str) -> str:
    """Replace ``@fig-x`` / ``[@tbl-y]`` with ``[Figure 1](#fig-x)``; code spans are left alone.

    Example:
        resolve_refs("see @fig-a", {"fig-a": "Figure 1"}, "t.qmd")  # 'see [Figure 1](#fig-a)'
    """

    def replace(match: re.Match[str]) -> str:
        ref = match.group("id")
        key = ref[:3].lower() + ref[3:]
        if key not in numbers:
            raise RenderError(
                f"{where}: unresolved cross-reference @{ref} (no cell labelled {key})"
            )
        text = numbers[key]
        if ref[0].isupper():
            text = text[0].upper() + text[1:]
        inner = f"[{text}](#{key})"
        opened, closed = match.group("open"), match.group("close")
        if opened and closed:
            return inner
        return (opened or "") + inner + (closed or "")

    pieces = _CODE_SPLIT.split(text)
    out: list[str] = []
    # re.split with two groups yields: text, whole match, fence, text, ...
    k = 0
    while k < len(pieces):
        out.append(_REF.sub(replace, pieces[k] or ""))
        if k + 1 < len(pieces):
            out.append(pieces[k + 1] or "")
        k += 3
    return "".join(out)


def check_crossrefs(doc: QmdDocument) -> dict[str, str]:
    """Resolve every reference in text and captions now, so a typo fails before cells run.

    Example:
        check_crossrefs(parse_qmd(path))  # raises RenderError on @fig-typo
    """
    numbers = number_crossrefs(doc)
    for cell in doc.cells:
        where = f"{doc.path.name} line {cell.line}"
        if cell.kind == "markdown":
            resolve_refs(cell.source, numbers, where)
        for key in ("fig-cap", "tbl-cap"):
            if cell.options.get(key):
                resolve_refs(str(cell.options[key]), numbers, where)
    return numbers


def to_markdown(
    nb: nbformat.NotebookNode, doc: QmdDocument, target: str, files_dir: Path
) -> Converted:
    """Pandoc markdown for ``target`` ("html" or "typst"); images are written to ``files_dir``.

    Example:
        to_markdown(nb, doc, "typst", out_dir / "report_files").markdown
    """
    numbers = number_crossrefs(doc)
    result = Converted(markdown="")
    blocks: list[str] = []
    for node in nb.cells:
        index = node.metadata.get("mqcap", {}).get("index")
        if index is None:
            continue  # injected parameters are never shown, as in Quarto
        cell = doc.cells[index]
        if cell.kind == "markdown":
            blocks.append(resolve_refs(cell.source, numbers, f"{doc.path.name} line {cell.line}"))
            continue
        block = _code_block(node, cell, doc, target, files_dir, numbers, result)
        if block:
            blocks.append(block)
    result.markdown = "\n\n".join(blocks) + "\n"
    return result


def _option(cell: Cell, doc: QmdDocument, name: str, default: Any) -> Any:
    return cell.options.get(name, doc.execute_option(name, default))


def _code_block(
    node: nbformat.NotebookNode,
    cell: Cell,
    doc: QmdDocument,
    target: str,
    files_dir: Path,
    numbers: dict[str, str],
    result: Converted,
) -> str:
    if _option(cell, doc, "include", True) is False:
        return ""
    parts: list[str] = []
    if _option(cell, doc, "echo", True) is True:
        parts.append(_fenced(cell.source, "python"))
    output = _option(cell, doc, "output", True)
    show_warnings = _option(cell, doc, "warning", True) is not False
    outputs: list[str] = []
    if output is not False:
        for k, out in enumerate(node.get("outputs", [])):
            text = _output(out, target, files_dir, f"{_slug(cell, doc)}-{k + 1}", result)
            is_stderr = out.get("output_type") == "stream" and out.get("name") == "stderr"
            if is_stderr and not show_warnings:
                continue
            if text is None:
                continue
            if output == "asis" and out.get("output_type") in ("stream", "execute_result"):
                text = _raw_text(out) or text
            outputs.append(text)
    parts.extend(outputs)
    label = cell.label
    where = f"{doc.path.name} line {cell.line}"
    if label and label in numbers:
        kind = label.split("-", 1)[0]
        caption_key = "fig-cap" if kind == "fig" else "tbl-cap"
        caption = str(cell.options.get(caption_key) or "").strip()
        caption = resolve_refs(caption, numbers, where)
        title = numbers[label] + (f": {caption}" if caption else "")
        # Echoed code goes before the figure or table, as Quarto places it.
        code = parts[: len(parts) - len(outputs)]
        wrap = _figure if kind == "fig" else _table
        return "\n\n".join([*code, wrap(label, title, outputs, target)])
    body = "\n\n".join(parts)
    if label and body:
        return f"::: {{#{label} .cell}}\n{body}\n:::"
    return body


def _slug(cell: Cell, doc: QmdDocument) -> str:
    if cell.label:
        return re.sub(r"[^A-Za-z0-9_-]", "-", cell.label)
    return f"cell-{doc.cells.index(cell) + 1}"


def _figure(label: str, title: str, outputs: list[str], target: str) -> str:
    single_image = len(outputs) == 1 and outputs[0].startswith("![](")
    if single_image and target == "typst":
        # An implicit figure: pandoc writes #figure(image(...), caption: [...]) <label>.
        path = outputs[0][len("![](") : -1]
        return f"![{title}]({path}){{#{label}}}"
    body = "\n\n".join(outputs)
    return f"::: {{#{label} .mqcap-figure}}\n{body}\n\n::: {{.mqcap-caption}}\n{title}\n:::\n:::"


def _table(label: str, title: str, outputs: list[str], target: str) -> str:
    body = "\n\n".join(outputs)
    last = outputs[-1].rstrip().splitlines()[-1] if outputs else ""
    if target == "typst" and last.startswith("|"):
        # A pandoc table caption keeps the label on the table: figure(kind: table) <label>.
        return f"{body}\n\n: {title} {{#{label}}}"
    return (
        f"::: {{#{label} .mqcap-table-figure}}\n::: {{.mqcap-caption}}\n{title}\n:::\n\n{body}\n:::"
    )


def _raw_text(out: dict[str, Any]) -> str | None:
    if out.get("output_type") == "stream":
        return str(out.get("text", ""))
    data = out.get("data", {})
    return data.get("text/markdown") or data.get("text/plain")


def _output(
    out: dict[str, Any], target: str, files_dir: Path, stem: str, result: Converted
) -> str | None:
    kind = out.get("output_type")
    if kind == "stream":
        text = str(out.get("text", "")).rstrip("\n")
        if not text:
            return None
        klass = "cell-output-stderr" if out.get("name") == "stderr" else "cell-output-stdout"
        return _fenced(strip_ansi(text), klass)
    if kind == "error":
        return _fenced(strip_ansi("\n".join(out.get("traceback", []))), "cell-output-error")
    if kind not in ("display_data", "execute_result"):
        return None
    data = out.get("data", {})
    mime = next((m for m in MIME_PRIORITY[target] if m in data), None)
    if mime is None:
        return None
    value = data[mime]
    if isinstance(value, list):
        value = "".join(value)
    if mime == "text/html":
        # The own engine inlines the Vega JavaScript once in <head>; drop per-cell copies.
        value = _BUNDLE_SCRIPT.sub("", value)
        if CHART_CLASS in value:
            result.has_charts = True
        # Raw HTML passes through pandoc unread: it goes round it, whatever its size.
        result.html_blocks.append(value)
        return _raw("html", html_placeholder(len(result.html_blocks) - 1))
    if mime in _IMAGE_EXT:
        files_dir.mkdir(parents=True, exist_ok=True)
        path = files_dir / f"{stem}.{_IMAGE_EXT[mime]}"
        if mime == "image/svg+xml":
            path.write_text(value, encoding="utf-8")
        else:
            path.write_bytes(base64.b64decode(value))
        result.images.append(path)
        # Relative to the work folder: pandoc and Typst both run from there.
        return f"![]({files_dir.name}/{path.name})"
    if mime == "text/markdown":
        return str(value)
    return _fenced(strip_ansi(str(value)), "cell-output")


def _fenced(text: str, klass: str) -> str:
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence} {{.{klass}}}\n{text}\n{fence}"


def _raw(fmt: str, text: str) -> str:
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{{={fmt}}}\n{text}\n{fence}"
