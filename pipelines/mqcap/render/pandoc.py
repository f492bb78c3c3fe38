"""Calling pandoc (from pypandoc-binary) and the metadata block both targets share."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

import pypandoc
import yaml

from mqcap.render.errors import RenderError
from mqcap.render.qmd import QmdDocument

_TITLE_KEYS = ("title", "subtitle", "date", "lang", "abstract")


def metadata_block(doc: QmdDocument, extra: dict[str, Any] | None = None) -> str:
    """A YAML block with the title fields pandoc templates use, from the front matter.

    Quarto's ``date: today`` and ``date: last-modified`` become real dates; authors given as
    ``{name: ...}`` mappings become names.

    Example:
        metadata_block(doc, {"toc-title": "Contents"})  # '---\\ntitle: ...\\n---\\n'
    """
    meta: dict[str, Any] = {k: doc.meta[k] for k in _TITLE_KEYS if k in doc.meta}
    date = meta.get("date")
    if date == "today":
        meta["date"] = dt.date.today().isoformat()
    elif date == "last-modified":
        mtime = doc.path.stat().st_mtime
        meta["date"] = dt.datetime.fromtimestamp(mtime).date().isoformat()
    elif isinstance(date, dt.date):
        meta["date"] = date.isoformat()
    authors = doc.meta.get("author")
    if authors:
        authors = authors if isinstance(authors, list) else [authors]
        meta["author"] = [a.get("name", "") if isinstance(a, dict) else str(a) for a in authors]
    if "title" not in meta:
        # HTML needs a <title>; pandoc would otherwise warn and use "-".
        meta["pagetitle"] = doc.path.stem
    meta.update(extra or {})
    return "---\n" + yaml.safe_dump(meta, allow_unicode=True, sort_keys=False) + "---\n\n"


def run_pandoc(
    markdown: str, to: str, output: Path, args: list[str], source: str = "markdown"
) -> None:
    """Convert ``markdown`` (or pandoc JSON with ``source="json"``) to ``output``; pandoc's
    complaint becomes a :class:`RenderError`.

    Example:
        run_pandoc("# Hi", "html5", Path("out/r.html"), ["--standalone"])
    """
    try:
        pypandoc.convert_text(
            markdown,
            to,
            format=source,
            outputfile=str(output),
            extra_args=["--fail-if-warnings=false", *args],
            sandbox=False,
        )
    except (RuntimeError, OSError) as exc:
        raise RenderError(f"pandoc could not write {output.name}: {exc}") from exc


def pandoc_ast(markdown: str) -> dict[str, Any]:
    """The pandoc JSON AST of ``markdown``, to be changed and written with ``source="json"``.

    Example:
        pandoc_ast("# Hi")["blocks"][0]["t"]  # 'Header'
    """
    try:
        return json.loads(pypandoc.convert_text(markdown, "json", format="markdown"))
    except (RuntimeError, OSError) as exc:
        raise RenderError(f"pandoc could not read the markdown: {exc}") from exc


def package_file(name: str) -> Path:
    """A template or stylesheet shipped next to this module.

    Example:
        package_file("report.css").read_text()
    """
    return Path(__file__).with_name(name)
