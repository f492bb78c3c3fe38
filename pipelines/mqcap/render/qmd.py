"""Parse a Quarto ``.qmd`` file: YAML front matter, markdown, and ```` ```{python} ```` cells.

Only what mqcap reports use is understood; anything else stays markdown (for pandoc) or is
refused with a :class:`RenderError` naming the line, never silently dropped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from mqcap.render.errors import RenderError

# A fence opens an executable cell only with a brace spec, as in Quarto: ```{python}
_CELL_OPEN = re.compile(r"^(?P<fence>`{3,})\s*\{(?P<lang>[A-Za-z0-9_.-]+)(?P<rest>[^}]*)\}\s*$")
_FENCE = re.compile(r"^(?P<fence>`{3,}|~{3,})")
_OPTION = re.compile(r"^#\|\s?(.*)$")


@dataclass
class Cell:
    """One piece of the document: ``markdown`` text or a ``code`` cell with its ``#|`` options.

    Example:
        Cell("code", "x = 1", {"label": "tbl-cost"}, line=12)
    """

    kind: str
    source: str
    options: dict[str, Any] = field(default_factory=dict)
    line: int = 1

    @property
    def label(self) -> str | None:
        label = self.options.get("label")
        return str(label) if label is not None else None

    @property
    def tags(self) -> list[str]:
        tags = self.options.get("tags") or []
        return [str(t) for t in (tags if isinstance(tags, list) else [tags])]


@dataclass
class QmdDocument:
    """Front matter plus cells in document order.

    Example:
        doc = parse_qmd(Path("reports/tls.qmd"))
        doc.meta["title"], [c.label for c in doc.cells if c.kind == "code"]
    """

    meta: dict[str, Any]
    cells: list[Cell]
    path: Path

    def execute_option(self, name: str, default: Any) -> Any:
        """A document-wide ``execute:`` option (``echo``, ``warning``...), else ``default``."""
        execute = self.meta.get("execute") or {}
        return execute.get(name, default) if isinstance(execute, dict) else default

    def format_options(self, fmt: str) -> dict[str, Any]:
        """Options under ``format: <fmt>:``; ``format: html`` alone means no options."""
        formats = self.meta.get("format")
        if isinstance(formats, dict):
            opts = formats.get(fmt)
            return opts if isinstance(opts, dict) else {}
        return {}


def parse_qmd(path: Path) -> QmdDocument:
    """Read ``path`` and split it into front matter and cells.

    Example:
        parse_qmd(Path("tests/fixtures/render/report.qmd")).meta["title"]
    """
    text = path.read_text(encoding="utf-8")
    return parse_qmd_text(text, path)


def parse_qmd_text(text: str, path: Path) -> QmdDocument:
    """Same as :func:`parse_qmd` on text already read.

    Example:
        parse_qmd_text("---\\ntitle: T\\n---\\n# Hi\\n", Path("t.qmd")).meta
    """
    lines = text.splitlines()
    meta, start = _front_matter(lines, path)
    cells: list[Cell] = []
    markdown: list[str] = []
    markdown_line = start + 1
    i = start
    plain_fence: str | None = None
    while i < len(lines):
        line = lines[i]
        if plain_fence is not None:
            # Inside a non-executable fence: ```{python} here is an example, not a cell.
            markdown.append(line)
            if line.strip().startswith(plain_fence) and line.strip().strip(plain_fence[0]) == "":
                plain_fence = None
            i += 1
            continue
        opened = _CELL_OPEN.match(line)
        if opened is None:
            fence = _FENCE.match(line.strip())
            if fence:
                plain_fence = fence.group("fence")
            markdown.append(line)
            i += 1
            continue
        lang = opened.group("lang")
        if lang.startswith("."):
            # ```{.python} is pandoc's syntax for a shown, never-run code block.
            plain_fence = opened.group("fence")
            markdown.append(line)
            i += 1
            continue
        if lang != "python":
            raise RenderError(
                f"{path.name} line {i + 1}: only {{python}} cells can run here, not {{{lang}}}"
            )
        _flush_markdown(cells, markdown, markdown_line)
        fence_len = len(opened.group("fence"))
        body: list[str] = []
        j = i + 1
        while j < len(lines):
            stripped = lines[j].strip()
            if stripped.startswith("`" * fence_len) and set(stripped) == {"`"}:
                break
            body.append(lines[j])
            j += 1
        else:
            raise RenderError(f"{path.name} line {i + 1}: code cell is never closed")
        cells.append(_code_cell(body, path, i + 1))
        i = j + 1
        markdown = []
        markdown_line = i + 1
    _flush_markdown(cells, markdown, markdown_line)
    return QmdDocument(meta=meta, cells=cells, path=path)


def _front_matter(lines: list[str], path: Path) -> tuple[dict[str, Any], int]:
    if not lines or lines[0].strip() != "---":
        return {}, 0
    for end in range(1, len(lines)):
        if lines[end].strip() in ("---", "..."):
            try:
                meta = yaml.safe_load("\n".join(lines[1:end])) or {}
            except yaml.YAMLError as exc:
                raise RenderError(f"{path.name}: front matter is not valid YAML: {exc}") from exc
            if not isinstance(meta, dict):
                raise RenderError(f"{path.name}: front matter must be a YAML mapping")
            return meta, end + 1
    raise RenderError(f"{path.name}: front matter starts with --- but never ends")


def _flush_markdown(cells: list[Cell], markdown: list[str], line: int) -> None:
    text = "\n".join(markdown).strip("\n")
    if text.strip():
        cells.append(Cell("markdown", text, {}, line=line))


def _code_cell(body: list[str], path: Path, line: int) -> Cell:
    option_lines: list[str] = []
    k = 0
    while k < len(body):
        match = _OPTION.match(body[k])
        if match is None:
            break
        option_lines.append(match.group(1))
        k += 1
    options: dict[str, Any] = {}
    if option_lines:
        try:
            loaded = yaml.safe_load("\n".join(option_lines))
        except yaml.YAMLError as exc:
            raise RenderError(f"{path.name} line {line}: bad #| cell options: {exc}") from exc
        if loaded is not None and not isinstance(loaded, dict):
            raise RenderError(f"{path.name} line {line}: #| options must be `key: value` lines")
        options = loaded or {}
    source = "\n".join(body[k:]).strip("\n")
    return Cell("code", source, options, line=line)
