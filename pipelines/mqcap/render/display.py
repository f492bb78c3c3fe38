"""Display helpers for report cells: charts, tables and notes as Jupyter display bundles.

Each helper returns an object Jupyter displays as a MIME bundle, so the same cell renders
right under the Quarto CLI (HTML picks ``text/html``; Typst/PDF picks ``text/markdown`` or
``image/svg+xml``) and under mqcap's own engine. Everything that comes from data is escaped
for HTML and for markdown, so a label like ``<script>`` shows as text in both.
"""

from __future__ import annotations

import hashlib
import html
import itertools
import json
import math
import numbers
import os
import re
import string
from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

from mqcap import environment
from mqcap.untraced import untraced

# Set to "document" by mqcap's own engine, which puts the Vega JavaScript once in <head>;
# otherwise (Quarto CLI, Jupyter) the first chart of the kernel session carries it.
VEGA_BUNDLE_ENV = "MQCAP_VEGA_BUNDLE"
BUNDLE_SCRIPT_ID = "mqcap-vega-bundle"
CHART_CLASS = "mqcap-chart"

_MD_SPECIAL = set(string.punctuation)
_chart_counter = itertools.count(1)
_bundle_sent = False
# Datasets a chart of this kernel session has already put in the page (own engine only).
_datasets_sent: set[str] = set()
# Where the page keeps them: window[DATA_GLOBAL][name] = rows.
DATA_GLOBAL = "mqcapChartData"

Format = str | Callable[[Any], str]


class Bundle:
    """A ready MIME bundle that Jupyter shows when it is a cell's value or passed to display().

    Example:
        Bundle({"text/plain": "hi", "text/markdown": "hi"})
    """

    def __init__(self, data: dict[str, Any], metadata: dict[str, Any] | None = None) -> None:
        self.data = data
        self.metadata = metadata or {}

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> tuple[dict, dict]:
        return self.data, self.metadata

    def __repr__(self) -> str:
        return str(self.data.get("text/plain", "<mqcap display bundle>"))


# ---------------------------------------------------------------------------------------------
# Escaping


def escape_html(value: object) -> str:
    """Text safe inside HTML elements and attribute values.

    Example:
        >>> escape_html("<script>alert(1)</script>")
        '&lt;script&gt;alert(1)&lt;/script&gt;'
    """
    return html.escape(str(value), quote=True)


def escape_markdown(value: object) -> str:
    """Text pandoc reads back literally: every ASCII punctuation mark backslash-escaped.

    Pandoc markdown allows escaping any ASCII punctuation, so no data value can open raw
    HTML, a citation (``@``), emphasis, a table cell (``|``) or Typst code.

    Example:
        >>> print(escape_markdown("*x* <b>"))
        \\*x\\* \\<b\\>
    """
    text = " ".join(str(value).split())
    return "".join("\\" + ch if ch in _MD_SPECIAL else ch for ch in text)


def _script_json(obj: object) -> str:
    # JSON inside <script>: no "</script>", "<!--" or U+2028 can end or confuse the element.
    text = json.dumps(obj, separators=(",", ":"), ensure_ascii=False)
    for raw, escaped in (
        ("<", "\\u003c"),
        (">", "\\u003e"),
        ("&", "\\u0026"),
        ("\u2028", "\\u2028"),
        ("\u2029", "\\u2029"),
    ):
        text = text.replace(raw, escaped)
    return text


# ---------------------------------------------------------------------------------------------
# Charts


@lru_cache(maxsize=1)
def vega_javascript() -> str:
    """Vega, Vega-Lite and vega-embed in one script (from vl-convert), defining ``vegaEmbed``.

    Example:
        "window.vegaEmbed" in vega_javascript()
    """
    import vl_convert as vlc

    # Bundling takes seconds (vl-convert runs a JavaScript bundler), so keep it on disk per
    # vl-convert and Vega-Lite version; a cache that cannot be written is simply skipped.
    version = _vl_version() or "default"
    cache = _cache_dir() / f"vega-bundle-{vlc.__version__}-{version}.js"
    try:
        return cache.read_text(encoding="utf-8")
    except OSError:
        pass
    script = vlc.javascript_bundle(vl_version=_vl_version())
    try:
        cache.parent.mkdir(parents=True, exist_ok=True)
        partial = cache.with_suffix(f".{os.getpid()}.tmp")
        partial.write_text(script, encoding="utf-8")
        partial.replace(cache)
    except OSError:
        pass
    return script


def _cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "mqcap"


def bundle_script_tag() -> str:
    """The ``<script>`` element carrying :func:`vega_javascript`, marked so it can be found.

    Example:
        bundle_script_tag().startswith('<script id="mqcap-vega-bundle"')
    """
    return f'<script id="{BUNDLE_SCRIPT_ID}">{vega_javascript()}</script>'


@lru_cache(maxsize=1)
def _vl_version() -> str | None:
    import altair as alt
    import vl_convert as vlc

    major_minor = ".".join(alt.SCHEMA_VERSION.lstrip("v").split(".")[:2])
    return major_minor if major_minor in vlc.get_vegalite_versions() else None


def _vegalite_mime() -> str:
    import altair as alt

    return f"application/vnd.vegalite.{alt.SCHEMA_VERSION.split('.')[0]}+json"


def chart_spec(c: Any) -> dict[str, Any]:
    """The Vega-Lite spec of an Altair chart, data inlined, tooltips on by default.

    Example:
        chart_spec(alt.Chart(df).mark_bar().encode(x="size", y="cpu_us"))["mark"]
    """
    import altair as alt

    if isinstance(c, Mapping):
        spec = json.loads(json.dumps(c))
    else:
        # Time series of NETSTAT samples easily pass Altair's default 5,000-row guard.
        with alt.data_transformers.enable("default", max_rows=None):
            spec = untraced(c.to_dict)  # Altair validates the spec: many calls, no mqcap code
    config = spec.setdefault("config", {})
    config.setdefault("mark", {}).setdefault("tooltip", True)
    return prune_datasets(spec)


def prune_datasets(spec: dict[str, Any]) -> dict[str, Any]:
    """``spec`` with each inline dataset's rows cut to the columns the rest of the spec names.

    Altair embeds every column of a chart's DataFrame; a NETSTAT chart drawing one metric
    carried all of them, in each of its three charts, in the HTML and in the notebook (a
    1,000-run report: 138 MB of HTML). A column is kept when its name, as written in JSON and
    with Vega-Lite's escapes for ``.``, ``[`` and ``]``, occurs anywhere outside the data
    (an encoding, a tooltip, a transform's expression, a sort): names are never guessed away.

    Example:
        >>> spec = {"datasets": {"d": [{"x": 1, "y": 2, "unused": 3}]},
        ...         "encoding": {"x": {"field": "x"}, "y": {"field": "y"}}}
        >>> prune_datasets(spec)["datasets"]["d"]
        [{'x': 1, 'y': 2}]
    """
    datasets = spec.get("datasets")
    if not isinstance(datasets, dict) or not datasets:
        return spec
    text = json.dumps({k: v for k, v in spec.items() if k != "datasets"}, ensure_ascii=False)
    for name, rows in list(datasets.items()):
        if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
            continue
        columns: dict[str, None] = {}
        for row in rows:
            columns.update(dict.fromkeys(row))
        keep = {c for c in columns if _named_in(c, text)}
        if len(keep) < len(columns):
            datasets[name] = [{k: v for k, v in row.items() if k in keep} for row in rows]
    return spec


def _named_in(column: str, text: str) -> bool:
    """Whether a spec's JSON ``text`` names ``column`` (plain, or escaped as Vega-Lite's field
    syntax and JSON write it).

    Example:
        >>> _named_in("a.b", json.dumps({"field": "a\\\\.b"}))  # the field a\\.b
        True
        >>> _named_in("size", json.dumps({"field": "rate"}))
        False
    """
    escaped = re.sub(r"([.\[\]\\])", r"\\\1", column)
    forms = {column, escaped}
    return any(json.dumps(form, ensure_ascii=False)[1:-1] in text for form in forms)


def chart(c: Any, *, alt_text: str | None = None) -> Bundle:
    """Show an Altair chart: interactive in HTML, a static SVG for PDF.

    The bundle holds the Vega-Lite spec (not under mqcap's own engine, which does not use it),
    ``text/html`` (a div plus a ``vegaEmbed`` call with the spec inlined; the Vega JavaScript
    itself is inlined once per document), and an ``image/svg+xml`` drawn by vl-convert.

    Example:
        chart(alt.Chart(df).mark_bar().encode(x="message_bytes:O", y="cpu_us_per_txn"))
    """
    from mqcap.render.draw import draw_svg

    spec = chart_spec(c)
    digest = hashlib.sha1(json.dumps(spec, sort_keys=True).encode()).hexdigest()[:8]
    div_id = f"{CHART_CLASS}-{next(_chart_counter)}-{digest}"
    title = alt_text or _chart_title(spec) or "chart"
    options = {"actions": False, "renderer": "svg"}
    html_parts = []
    if _needs_bundle():
        html_parts.append(bundle_script_tag())
    html_parts.append(
        f'<div class="{CHART_CLASS}" id="{div_id}" role="img" '
        f'aria-label="{escape_html(title)}"></div>\n'
        f"<script>vegaEmbed({_script_json('#' + div_id)}, {_embed(spec)}, "
        f"{_script_json(options)}).catch(function (err) {{ console.error(err); }});</script>"
    )
    svg = draw_svg(spec, _vl_version())
    data = {
        _vegalite_mime(): spec,
        "text/html": "\n".join(html_parts),
        "image/svg+xml": svg,
        "text/plain": f"<chart: {title}>",
    }
    if environment.text(VEGA_BUNDLE_ENV) == "document":
        # mqcap's own engine draws the HTML and the SVG, never the spec: not sent a third time
        # (with the data of a 1,000-run NETSTAT chart, tens of MB through the kernel's message
        # and the notebook). Jupyter and the Quarto CLI get it.
        del data[_vegalite_mime()]
    return Bundle(data)


def _shares_data() -> bool:
    """Charts share their datasets only in mqcap's own engine, which makes the whole page from
    this kernel's outputs in order; under Jupyter or the Quarto CLI each chart's output carries
    its own data (an output may be shown without the ones before it)."""
    return environment.text(VEGA_BUNDLE_ENV) == "document"


def _embed(spec: Mapping[str, Any]) -> str:
    """The spec as the JavaScript argument of a chart's ``vegaEmbed`` call.

    Under mqcap's own engine a dataset goes into the page once (``window.mqcapChartData``,
    keyed by a hash of its rows as the chart carries them: charts drawn from the same rows, a
    study's three NETSTAT charts, share them): the first chart's spec stores the rows there as
    it reads them, later ones read them from there; each chart reads a copy of the rows (Vega
    parses and computes fields into the row objects it is given). Otherwise the spec carries
    its rows inline.

    Example:
        >>> import os; os.environ[VEGA_BUNDLE_ENV] = "document"; _datasets_sent.clear()
        >>> spec = {"mark": "line", "datasets": {"data-1": [{"x": 1}]}}
        >>> first = _embed(spec)
        >>> first[:60]
        '{"mark":"line","datasets":{"data-1":((window.mqcapChartData '
        >>> ('[{"x":1}]' in first, '[{"x":1}]' in _embed(spec))  # the second: no rows
        (True, False)
        >>> del os.environ[VEGA_BUNDLE_ENV]; _datasets_sent.clear()
        >>> _embed(spec)
        '{"mark":"line","datasets":{"data-1":[{"x":1}]}}'
    """
    datasets = spec.get("datasets")
    if not _shares_data() or not isinstance(datasets, Mapping) or not datasets:
        return _script_json(spec)
    copy = ".map(function (r) { return Object.assign({}, r); })"
    refs = []
    for name, rows in datasets.items():
        text = _script_json(rows)
        # Altair names a dataset by its rows before mqcap cuts them to the chart's columns
        # (prune_datasets): the name alone does not tell two charts' rows apart.
        key = _script_json(hashlib.sha1(text.encode()).hexdigest()[:8])
        if key in _datasets_sent:
            rows_js = f"window.{DATA_GLOBAL}[{key}]"
        else:
            _datasets_sent.add(key)
            rows_js = f"((window.{DATA_GLOBAL} = window.{DATA_GLOBAL} || {{}})[{key}] = {text})"
        refs.append(f"{_script_json(name)}:{rows_js}{copy}")
    rest = _script_json({k: v for k, v in spec.items() if k != "datasets"})
    return f'{rest[:-1]}{"," if len(rest) > 2 else ""}"datasets":{{{",".join(refs)}}}}}'


def _needs_bundle() -> bool:
    global _bundle_sent
    if environment.text(VEGA_BUNDLE_ENV) == "document":
        return False
    if _bundle_sent:
        return False
    _bundle_sent = True
    return True


def _chart_title(spec: Mapping[str, Any]) -> str | None:
    title = spec.get("title")
    if isinstance(title, Mapping):
        title = title.get("text")
    if isinstance(title, list):
        title = " ".join(str(t) for t in title)
    return str(title) if title else None


# ---------------------------------------------------------------------------------------------
# Tables

_UNITS = {
    "us": "µs",
    "ms": "ms",
    "ns": "ns",
    "s": "s",
    "bytes": "bytes",
    "kb": "KB",
    "mb": "MB",
    "gb": "GB",
    "pct": "%",
}
_ACRONYMS = {
    "cpu",
    "mq",
    "tls",
    "ssl",
    "ams",
    "tcp",
    "tcpip",
    "chin",
    "mstr",
    "rsa",
    "id",
    "smf",
    "rtt",
    "qm",
    "ip",
}


def column_label(name: str) -> str:
    """A header for a column name, with the unit its suffix names.

    Words before the first unit are the label, the rest the unit; ``per`` after a unit is
    ``/``. Known acronyms are upper case.

    Example:
        >>> column_label("cpu_us_per_txn")
        'CPU µs/txn'
        >>> column_label("message_bytes")
        'Message bytes'
    """
    tokens = [t for t in re.split(r"[_\s]+", str(name)) if t]
    if not tokens:
        return str(name)
    words: list[str] = []
    unit = ""
    for k, token in enumerate(tokens):
        low = token.lower()
        if unit:
            if low == "per":
                unit += "/"
            elif unit.endswith("/"):
                unit += _UNITS.get(low, token)
            else:
                unit += " " + _UNITS.get(low, token)
        elif low in _UNITS and k > 0:
            unit = _UNITS[low]
        else:
            words.append(token.upper() if low in _ACRONYMS else token)
    if words and words[0] == words[0].lower():
        words[0] = words[0][0].upper() + words[0][1:]
    return " ".join([*words, unit] if unit else words)


def _missing(value: object) -> bool:
    if value is None:
        return True
    if type(value).__name__ in ("NAType", "NaTType"):
        return True
    return isinstance(value, float) and math.isnan(value)


def _is_number(value: object) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def _whole(value: float) -> bool:
    # Whole up to floating-point noise: 515.9999999999999 (a sum added up in another order
    # this build) is 516, so a column does not gain a decimal place from one build to the next.
    return abs(value - round(value)) <= 1e-9 * max(1.0, value)


def _decimals(values: list[float]) -> int:
    finite = [abs(float(v)) for v in values if math.isfinite(float(v))]
    if not finite or all(_whole(v) for v in finite):
        return 0
    biggest = max(finite)
    if biggest >= 1000:
        return 0
    if biggest >= 100:
        return 1
    if biggest >= 1:
        return 2
    # Small values (utilisation fractions, seconds): three significant digits.
    return min(6, 2 - math.floor(math.log10(biggest)))


def _formatter(values: list[object], fmt: Format | None) -> tuple[Callable[[Any], str], bool]:
    present = [v for v in values if not _missing(v)]
    numeric = bool(present) and all(_is_number(v) for v in present)
    if fmt is not None:
        if callable(fmt):
            return fmt, numeric
        spec = str(fmt)
        if "{" in spec:
            return spec.format, numeric
        return (lambda v: format(v, spec)), numeric
    if not numeric:
        return str, False
    places = _decimals([float(v) for v in present])
    return (lambda v: f"{v:,.{places}f}" if math.isfinite(float(v)) else str(v)), True


def _columns_and_rows(df: Any) -> tuple[list[str], list[tuple]]:
    if hasattr(df, "rows") and callable(df.rows):  # polars
        return [str(c) for c in df.columns], list(df.rows())
    if hasattr(df, "itertuples"):  # pandas; the index is left out on purpose
        return [str(c) for c in df.columns], list(df.itertuples(index=False, name=None))
    raise TypeError(f"table() needs a pandas or polars DataFrame, not {type(df).__name__}")


# A text cell with a word longer than this is marked "long" (report.css: it may break).
LONG_WORD = 30


def table(
    df: Any,
    *,
    formats: Mapping[str, Format] | None = None,
    labels: Mapping[str, str] | None = None,
    missing: str = "–",
    caption: str | None = None,
    right: Sequence[str] = (),
) -> Bundle:
    """Show a DataFrame as an HTML table and a markdown pipe table, numbers right-aligned.

    ``formats`` maps a column to a format spec (``",.1f"``, ``"{:+.2f}%"``) or a function;
    other numeric columns get a precision from their magnitude (0 decimals from 1,000 up,
    1 from 100, 2 from 1, three significant digits below). Headers come from
    :func:`column_label` unless ``labels`` names them. ``caption`` (escaped) goes into the
    table: a ``<caption>`` in HTML, a pandoc table caption in markdown, so in a PDF it stays
    with its table. ``right`` names text columns to right-align (numbers already formatted).

    Example:
        table(costs, formats={"change_pct": "{:+.2f}%"}, labels={"config": "Configuration"},
              caption="Table 2: CPU microseconds per transaction.")
    """
    columns, rows = _columns_and_rows(df)
    formats = formats or {}
    labels = labels or {}
    formatters = []
    for k, column in enumerate(columns):
        formatters.append(_formatter([r[k] for r in rows], formats.get(column)))
    headers = [labels.get(c, column_label(c)) for c in columns]
    cells = [
        [missing if _missing(v) else fn(v) for v, (fn, _) in zip(row, formatters, strict=True)]
        for row in rows
    ]
    numeric = [is_num or col in right for (_, is_num), col in zip(formatters, columns, strict=True)]

    def td(tag: str, text: str, num: bool) -> str:
        # A number never wraps; a right-aligned text with spaces ("0.0071 (0.0070 – 0.0073)")
        # may, so a wide table still fits the page. A text cell with a word of over 30
        # characters is "long": report.css lets that word break (see LONG_WORD).
        klass = "num wrap" if tag == "td" and " " in text.strip() else "num"
        if num:
            attrs = f' class="{klass}" style="text-align: right"'
        elif tag == "td" and max(map(len, text.split()), default=0) > LONG_WORD:
            attrs = ' class="long"'
        else:
            attrs = ""
        return f"<{tag}{attrs}>{escape_html(text)}</{tag}>"

    head = "".join(td("th", h, n) for h, n in zip(headers, numeric, strict=True))
    body = "\n".join(
        "<tr>" + "".join(td("td", c, n) for c, n in zip(row, numeric, strict=True)) + "</tr>"
        for row in cells
    )
    html_caption = f"<caption>{escape_html(caption)}</caption>\n" if caption else ""
    html_table = (
        f'<table class="mqcap-table">\n{html_caption}<thead>\n<tr>{head}</tr>\n</thead>\n'
        f"<tbody>\n{body}\n</tbody>\n</table>"
    )

    def md_row(values: list[str]) -> str:
        return "| " + " | ".join(_breakable(escape_markdown(v)) or " " for v in values) + " |"

    # Pandoc sizes the columns of a wide pipe table by the dashes of this rule: proportional to
    # what each column holds, so a cipher name gets room instead of wrapping over five lines.
    widths = column_widths(headers, cells, numeric)
    rule = (
        "|"
        + "|".join(
            ("-" * (w - 1) + ":") if n else (":" + "-" * (w - 1))
            for w, n in zip(widths, numeric, strict=True)
        )
        + "|"
    )
    markdown = "\n".join([md_row(headers), rule, *(md_row(r) for r in cells)])
    if caption:
        markdown += "\n\n: " + escape_markdown(caption)
    plain = "\n".join(["\t".join(headers), *("\t".join(r) for r in cells)])
    return Bundle({"text/html": html_table, "text/markdown": markdown, "text/plain": plain})


def column_widths(
    headers: Sequence[str],
    cells: Sequence[Sequence[str]],
    numeric: Sequence[bool] | None = None,
    cap: int = 36,
) -> list[int]:
    """Relative widths of a table's columns: the longest cell (up to ``cap`` characters, past
    which text wraps anyway) or the header's longest word, at least 3.

    A right-aligned column counts its longest word only: "0.0071 (0.0070 – 0.0073)" or
    "+13.0 (+65.0%)" wrap at their spaces, so names (ciphers, configurations) get the room.

    Example:
        >>> column_widths(["Cipher", "Rate /s"], [["TLS_AES_256_GCM_SHA384", "1,234.5"]])
        [22, 7]
    """
    numeric = numeric or [False] * len(headers)
    widths = []
    for k, header in enumerate(headers):
        word = max((len(w) for w in str(header).split()), default=1)
        if numeric[k]:
            cell = max((len(w) for row in cells for w in row[k].split()), default=1)
        else:
            cell = max((len(row[k]) for row in cells), default=1)
        widths.append(max(3, word, min(cell, cap)))
    return widths


def _breakable(text: str) -> str:
    # Typst breaks lines only at spaces and hyphens: long identifiers (cipher suites such as
    # TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384) would run into the next column of a PDF table. A
    # zero-width space after each underscore lets them wrap there, invisibly.
    if len(text) <= 20:
        return text
    return text.replace("\\_", "\\_\u200b")


# ---------------------------------------------------------------------------------------------
# Notes


def note(text: object) -> Bundle:
    """A paragraph of text built from data, escaped for HTML and markdown.

    Blank lines separate paragraphs; nothing in ``text`` is read as markup.

    Example:
        note(f"Study {study} has {n} runs; the baseline is {baseline}.")
    """
    paragraphs = [p for p in re.split(r"\n\s*\n", str(text)) if p.strip()]
    html_text = "\n".join(f'<p class="mqcap-note">{escape_html(p)}</p>' for p in paragraphs)
    markdown = "\n\n".join(escape_markdown(p) for p in paragraphs)
    return Bundle({"text/html": html_text, "text/markdown": markdown, "text/plain": str(text)})
