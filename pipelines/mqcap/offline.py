"""Make a folder of HTML pages open offline: no page mqcap writes fetches anything remote.

GX Data Docs load jQuery, Bootstrap, bootstrap-table, Font Awesome and Vega from CDNs, and GX's
logo from S3; none of those libraries is in an installed package. mqcap removes every remote
``<script src>``, ``<link href>``, ``<img src>`` and CSS ``url()``, and loads its own small
stand-in instead (``offline_assets/datadocs.js`` and ``.css``: the few jQuery/Bootstrap calls
GX's templates make, the table and tab styles), copied beside the pages.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

ASSETS = Path(__file__).resolve().parent / "offline_assets"
REMOTE = r"""(?:https?:)?//[^"'\s>]+"""
_SCRIPT = re.compile(
    rf"""<script\b[^>]*\bsrc\s*=\s*["']{REMOTE}["'][^>]*>\s*</script>""", re.I | re.S
)
_LINK = re.compile(rf"""<link\b[^>]*\bhref\s*=\s*["']{REMOTE}["'][^>]*>""", re.I | re.S)
_IMG = re.compile(rf"""(<img\b[^>]*\bsrc\s*=\s*["']){REMOTE}(["'])""", re.I | re.S)
_CSS_URL = re.compile(rf"""url\(\s*["']?{REMOTE}["']?\s*\)""", re.I)
_HEAD = re.compile(r"</head>", re.I)
MARK = "<!-- mqcap offline -->"


def remote_references(html: str) -> list[str]:
    """Remote resources a page would fetch (scripts, stylesheets, images, CSS urls).

    Example:
        >>> remote_references('<script src="https://x.org/a.js"></script><a href="https://y">')
        ['<script src="https://x.org/a.js"></script>']
    """
    found = []
    for pattern in (_SCRIPT, _LINK, _IMG, _CSS_URL):
        found += [m.group(0) for m in pattern.finditer(html)]
    return found


def make_offline(site: Path) -> int:
    """Rewrite every page and stylesheet under ``site`` to fetch nothing remote; pages changed.

    Idempotent: a page already rewritten is left alone.

    Example:
        make_offline(Path("data/warehouse.mqcap/reports/data-docs"))
    """
    static = site / "static" / "mqcap"
    static.mkdir(parents=True, exist_ok=True)
    for name in ("datadocs.js", "datadocs.css"):
        shutil.copyfile(ASSETS / name, static / name)
    logo = site / "static" / "images" / "logo-long.png"
    changed = 0
    for css in site.rglob("*.css"):
        text = css.read_text(encoding="utf-8")
        if _CSS_URL.search(text):
            css.write_text(_CSS_URL.sub("none", text), encoding="utf-8")
    for page in site.rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        if MARK in text:
            continue
        rel = Path(os.path.relpath(static, page.parent)).as_posix()
        text = _SCRIPT.sub("", text)
        text = _LINK.sub("", text)
        text = _CSS_URL.sub("none", text)
        if logo.exists():
            local = Path(os.path.relpath(logo, page.parent)).as_posix()
            text = _IMG.sub(lambda m, local=local: f"{m.group(1)}{local}{m.group(2)}", text)
        else:
            text = _IMG.sub(lambda m: f"{m.group(1)}{m.group(2)}", text)
        # In <head>, before any inline script calls $(...).
        tags = (
            f'{MARK}<link rel="stylesheet" href="{rel}/datadocs.css">'
            f'<script src="{rel}/datadocs.js"></script>'
        )
        at = text.lower().find("<head>") + len("<head>") if "<head>" in text.lower() else 0
        text = text[:at] + tags + text[at:]
        page.write_text(text, encoding="utf-8")
        changed += 1
    return changed
