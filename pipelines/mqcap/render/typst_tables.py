"""PDF table layout: pandoc's tables rewritten as calls of ``mq-table`` (report-header.typ).

Pandoc turns a pipe table into a Typst table whose column widths come from the rule's dashes,
so a long header word overprints its neighbour and a number wider than its share runs into
the next column. Here every table of the document (pandoc's JSON AST) is laid out from what
its cells hold, the way a capacity report sets its tables:

* each column is measured in the report's font (Libertinus Serif advance widths, regular and
  bold for the header): its widest cell on one line, and its longest piece that cannot wrap;
* numbers never wrap inside ("282,578,560"), only at their spaces ("0.0071 (0.0070 – 0.0073)");
  names wrap after underscores, slashes, commas, dots between words and hyphens, never
  mid-number, and each of those places is marked with a zero-width space for Typst;
* columns get their one-line width when the table fits the text width, otherwise room is
  shared out by how much each column wants beyond what it cannot do without; a table that
  still does not fit is set in a smaller font, then on a landscape page;
* the caption is a sticky block above the table inside one figure, so it never ends a page
  without its table (the table itself may break across pages, its header repeated);
* in an appendix (a level-1 heading starting "Appendix" or of class ``appendix``) tables are
  dense: a smaller font and tighter rows, and a long narrow table flows in two columns.

Cell contents stay pandoc inlines between raw Typst pieces, so pandoc's Typst writer escapes
them as before. Tables this module does not understand (row or column spans) stay pandoc's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

ZWSP = "\u200b"

# Advance widths (thousandths of an em) of Libertinus Serif, Typst's bundled default font, as
# Typst sets them (lining tabular figures); measured once from a compiled page. Characters not
# listed count as 0.62 em (regular) and 0.66 em (bold).
_REGULAR = {
    190: "'", 205: "|", 220: ",.", 236: ":;", 249: "′", 250: "· ", 264: "l", 267: "°",
    268: "’‘", 271: "i", 272: "j", 277: "{}", 287: "\\", 288: "!", 297: "I", 298: "()",
    307: "²³", 310: "f", 316: "t", 322: "J", 323: "/", 336: '"', 338: "-", 356: "[]",
    369: "*", 372: "r", 375: "“”", 390: "s", 392: "`", 424: "z", 428: "c", 435: "?",
    447: "eé", 449: "~", 457: "a", 465: "#$0123456789", 485: "FS", 486: "_", 490: "x",
    493: "b", 497: "v", 500: "g", 503: "q", 504: "o", 506: "d", 512: "k", 515: "yµ",
    518: "^", 519: "p", 527: "≥≤", 528: "L", 531: "u", 538: "h", 541: "P", 542: "n",
    548: "–", 550: "+<=>×±", 557: "E", 575: "Y", 587: "R", 588: "B", 597: "T", 604: "Z",
    636: "Δ", 637: "%K", 646: "C", 652: "V", 660: "X", 661: "U", 685: "G", 695: "A",
    699: "N", 701: "D", 702: "OQ", 705: "&", 730: "H", 742: "—", 747: "w", 749: "…",
    790: "m", 839: "M", 895: "@", 951: "W", 1130: "→",
}  # fmt: skip
_BOLD = {
    215: "'", 220: "|", 240: "′", 244: ",.", 250: "· ", 253: "’‘", 256: ":;", 266: "!",
    267: "°", 307: "\\{}", 312: "j", 315: "()", 316: "/", 322: "i", 325: "l", 340: "²³",
    358: "-t", 367: "I", 373: "J", 376: '"', 391: "f", 392: "`", 397: "[]", 427: "s",
    428: "r", 430: "?", 433: "*", 440: "“”", 452: "z", 456: "c", 473: "~", 486: "_",
    489: "eé", 504: "S", 506: "a", 512: "<>", 514: "#$0123456789", 518: "^", 521: "g",
    527: "×≥≤±", 529: "v", 534: "–", 537: "+", 542: "b", 545: "F", 551: "=o", 558: "y",
    559: "µ", 561: "dx", 573: "q", 577: "L", 581: "p", 598: "u", 609: "E", 613: "k",
    614: "P", 616: "n", 619: "h", 624: "YZ", 637: "%", 652: "T", 654: "B", 692: "Δ",
    700: "V", 706: "C", 716: "R", 718: "X", 729: "&", 730: "OQ", 732: "GU", 734: "D",
    736: "K", 740: "AN", 742: "—", 777: "w", 817: "H…", 899: "M", 905: "m", 988: "@",
    1028: "W", 1154: "→",
}  # fmt: skip
_EM = {
    False: {ch: k / 1000 for k, chars in _REGULAR.items() for ch in chars},
    True: {ch: k / 1000 for k, chars in _BOLD.items() for ch in chars},
}
_EM[False][ZWSP] = _EM[True][ZWSP] = 0.0
_OTHER = {False: 0.62, True: 0.66}
# Kerning and rounding: measured text is taken 3% wider than the sum of its advances.
_SAFETY = 1.03

# Cell padding (each side) and what the layout may try, in order of preference.
BODY_SIZES = (8.5, 8.0, 7.5)
COMPACT_SIZES = (7.0, 6.5)
LANDSCAPE_SIZES = (8.0, 7.5, 7.0, 6.5)
BODY_INSET = (4.5, 3.0)
COMPACT_INSET = (3.5, 1.5)
SPLIT_GUTTER = 18.0
# A name column is not squeezed below a third of its one-line width (three lines) while a
# smaller font or a landscape page can avoid it.
MAX_LINES = 3
# Cells of at most this many characters never wrap.
SHORT = 8


def text_width(text: str, size: float, bold: bool = False) -> float:
    """Width in points of ``text`` set on one line at ``size`` points.

    Example:
        >>> round(text_width("1,203", 10), 1)
        21.4
    """
    em = _EM[bold]
    other = _OTHER[bold]
    return sum(em.get(ch, other) for ch in text) * size * _SAFETY


_BREAK_AFTER = re.compile(
    r"(?<=[^\s\u200b]{2})"  # at least two characters before, so no lone "_" starts a line
    r"(?:(?<=_)|(?<=/)(?=[^\W\d]\w)|(?<=,)(?![\d\s])|(?<=[A-Za-z]\.)(?=[A-Za-z]))"
    r"(?=[^\s\u200b])"
)


def add_breaks(text: str) -> str:
    """``text`` with a zero-width space where a name may wrap: after an underscore, a slash
    not before a digit, a comma not before a digit, a dot between letters.

    Numbers are never broken ("1,203,000", "0.0071", "1/2" stay whole); a zero-width space
    already there is not doubled.

    Example:
        >>> add_breaks("TLS_AES_256_GCM_SHA384").split("\\u200b")
        ['TLS_', 'AES_', '256_', 'GCM_', 'SHA384']
        >>> add_breaks("1,203,000 MQPUT/MQGET")
        '1,203,000 MQPUT/\\u200bMQGET'
    """
    return _BREAK_AFTER.sub(ZWSP, text)


_PIECE = re.compile(r"[^\s\u200b]+?(?:-(?=[A-Za-z])|(?=[\s\u200b])|$)|[^\s\u200b]+")


def pieces(text: str) -> list[str]:
    """The parts of ``text`` a line may not break inside: split at spaces, zero-width spaces
    and after a hyphen before a letter (where Typst breaks too).

    Example:
        >>> pieces("local-m2002a-off-2k-t64 (x)")
        ['local-', 'm2002a-', 'off-2k-', 't64', '(x)']
    """
    return [p for p in _PIECE.findall(text) if p]


@dataclass
class Column:
    """What one column needs: its header and cells as plain text, and whether it is numeric."""

    header: str
    cells: list[str]
    numeric: bool


@dataclass
class Layout:
    """How a table is set: column widths (points, padding included), font size, cell padding,
    a landscape page or not, and how many columns of the page it flows in (1 or 2)."""

    widths: list[float]
    size: float
    inset: tuple[float, float]
    landscape: bool = False
    split: int = 1


def _needs(col: Column, size: float, pad: float) -> tuple[float, float, float]:
    """(least, comfortable, one-line) widths of a column at ``size``, padding included."""
    head_pieces = pieces(col.header) or [""]
    head_min = max(text_width(p, size, bold=True) for p in head_pieces)
    # A short cell ("16 KB", "1 MB", "q 0.5") reads badly over two lines: it stays whole.
    cell_min = max(
        (
            text_width(c, size) if len(c) <= SHORT else max(text_width(p, size) for p in pieces(c))
            for c in col.cells
            if c.strip()
        ),
        default=0.0,
    )
    one_line = max((text_width(c, size) for c in col.cells), default=0.0)
    least = max(head_min, cell_min)
    natural = max(least, one_line)
    # A name keeps room for about 14 characters (or its whole length) even when shared out.
    room = min(natural, max(natural / MAX_LINES, 7 * size))
    comfortable = least if col.numeric else max(least, room)
    return least + 2 * pad, comfortable + 2 * pad, natural + 2 * pad


def _header_room(col: Column, size: float, pad: float) -> float:
    return text_width(col.header, size, bold=True) + 2 * pad


def _share(floor: list[float], want: list[float], room: float) -> list[float]:
    """Widths from ``floor`` up toward ``want``, ``room`` points in all, shared out evenly: a
    column that wants little gets all of it first, the widest ones (long labels, notes) are
    cut to one common width (water-filling)."""
    if sum(max(f, w) for f, w in zip(floor, want, strict=True)) <= room:
        return [max(f, w) for f, w in zip(floor, want, strict=True)]

    def total(level: float) -> float:
        return sum(max(f, min(w, level)) for f, w in zip(floor, want, strict=True))

    low, high = 0.0, max(want)
    for _ in range(50):
        mid = (low + high) / 2
        if total(mid) > room:
            high = mid
        else:
            low = mid
    return [max(f, min(w, low)) for f, w in zip(floor, want, strict=True)]


def layout_table(
    columns: list[Column],
    width: float,
    landscape_width: float,
    *,
    compact: bool = False,
    rows: int = 0,
) -> Layout:
    """Choose column widths, font size, padding and orientation for a table.

    ``width`` is the text width of a portrait page, ``landscape_width`` that of a landscape
    page (points). Tries, in order: every column on one line at the preferred sizes; names
    wrapped over at most three lines; a landscape page; then the least widths at the smallest
    size. In ``compact`` mode (appendix) a table of more than 24 ``rows`` that fits half the
    width flows in two columns.

    Example:
        >>> cols = [Column("Cipher", ["TLS_AES_256_GCM_SHA384"], False),
        ...         Column("Rate /s", ["1,234.5"], True)]
        >>> layout_table(cols, 470, 717).size
        8.5
    """
    sizes = COMPACT_SIZES if compact else BODY_SIZES
    pad_x, pad_y = COMPACT_INSET if compact else BODY_INSET

    def fit(size: float, room: float, level: int) -> list[float] | None:
        needs = [_needs(c, size, pad_x) for c in columns]
        least = [n[0] for n in needs]
        floor = [n[level] for n in needs]
        natural = [n[2] for n in needs]
        if sum(floor) > room + 0.01:
            return None
        widths = _share(floor if level < 2 else least, natural, room)
        # Room left over lets a wrapped header take fewer lines.
        spare = room - sum(widths)
        if spare > 0:
            heads = [_header_room(c, size, pad_x) for c in columns]
            widths = _share(widths, [max(w, h) for w, h in zip(widths, heads, strict=True)],
                            sum(widths) + spare)  # fmt: skip
        return widths

    if compact and rows > 24:
        # Two columns of the page only when rows stay about one line high: a long table of
        # wrapped rows in two columns is no shorter than in one.
        half = (width - SPLIT_GUTTER) / 2
        for level in (2, 1):
            for size in sizes:
                widths = fit(size, half, level)
                if widths is not None and row_lines(columns, widths, size, pad_x) < 1.3:
                    return Layout(widths, size, (pad_x, pad_y), split=2)
    for level in (2, 1):
        for size in sizes:
            widths = fit(size, width, level)
            if widths is not None:
                return Layout(widths, size, (pad_x, pad_y))
    for level in (2, 1, 0):
        for size in LANDSCAPE_SIZES:
            widths = fit(size, landscape_width, level)
            if widths is not None:
                return Layout(widths, size, (pad_x, pad_y), landscape=True)
    size = LANDSCAPE_SIZES[-1]
    least = [_needs(c, size, pad_x)[0] for c in columns]
    # Nothing fits: shrink every column alike (a name may then run over; never seen so far).
    scale = landscape_width / sum(least)
    return Layout([w * scale for w in least], size, (pad_x, pad_y), landscape=True)


def lines(text: str, width: float, size: float, bold: bool = False) -> int:
    """How many lines ``text`` takes in ``width`` points at ``size`` (greedy, as Typst wraps
    plain text at its break places).

    Example:
        >>> lines("local-m2002a-off-2k-t64", 40, 8)
        3
    """
    count, used = 1, 0.0
    space = text_width(" ", size, bold)
    for word in text.split():
        for k, piece in enumerate(pieces(word)):
            need = text_width(piece, size, bold) + (space if used and k == 0 else 0.0)
            if used and used + need > width:
                count += 1
                used = text_width(piece, size, bold)
            else:
                used += need
    return count


def row_lines(columns: list[Column], widths: list[float], size: float, pad: float) -> float:
    """Average height of the body rows in lines, for columns of ``widths`` points."""
    rows = max((len(c.cells) for c in columns), default=0)
    if not rows:
        return 1.0
    total = 0
    for k in range(rows):
        total += max(
            lines(c.cells[k], w - 2 * pad, size) if k < len(c.cells) else 1
            for c, w in zip(columns, widths, strict=True)
        )
    return total / rows


# ---------------------------------------------------------------------------------------------
# Pandoc AST

Inlines = list[dict[str, Any]]  # a cell's or a caption's content, as pandoc gives it


def stringify(inlines: list[dict[str, Any]]) -> str:
    """The plain text of pandoc inlines (spaces for Space and breaks).

    Example:
        >>> stringify([{"t": "Str", "c": "a_b"}, {"t": "Space"}, {"t": "Str", "c": "1"}])
        'a_b 1'
    """
    out: list[str] = []
    for node in inlines:
        kind = node.get("t")
        content = node.get("c")
        if kind == "Str":
            out.append(content)
        elif kind in ("Space", "SoftBreak", "LineBreak"):
            out.append(" ")
        elif kind in ("Code", "Math"):
            out.append(content[-1])
        elif kind in ("Emph", "Strong", "Underline", "Strikeout", "SmallCaps", "Superscript",
                      "Subscript"):  # fmt: skip
            out.append(stringify(content))
        elif kind in ("Link", "Span", "Quoted", "Cite"):
            out.append(stringify(content[1]))
    return "".join(out)


def _with_breaks(inlines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for node in inlines:
        if node.get("t") == "Str":
            out.append({"t": "Str", "c": add_breaks(node["c"])})
        else:
            out.append(node)
    return out


def _cell_inlines(cell: list[Any]) -> list[dict[str, Any]] | None:
    # A cell: [attr, alignment, rowspan, colspan, blocks]; only plain one-paragraph cells.
    _attr, _align, rowspan, colspan, blocks = cell
    if rowspan != 1 or colspan != 1:
        return None
    if not blocks:
        return []
    if len(blocks) != 1 or blocks[0].get("t") not in ("Plain", "Para"):
        return None
    return blocks[0]["c"]


def _raw(text: str) -> dict[str, Any]:
    return {"t": "RawInline", "c": ["typst", text]}


def _pt(value: float) -> str:
    return f"{value:.1f}pt"


def table_call(
    table: list[Any], width: float, landscape_width: float, compact: bool
) -> dict[str, Any] | None:
    """A ``Plain`` block calling ``mq-table`` for a pandoc ``Table`` node's content, or None
    when the table has spans or cells with more than one paragraph.

    Example:
        table_call(node["c"], 470.6, 717.3, compact=False)
    """
    attr, caption, colspecs, _thead, _tbodies, _tfoot = table
    cells = _table_cells(table)
    if cells is None:
        return None
    header, rows = cells
    rows, note = _pdf_rows(rows)
    aligns = [spec[0]["t"] for spec in colspecs]
    numeric = [a == "AlignRight" for a in aligns]
    header = [_with_breaks(h) for h in header]
    rows = [[_with_breaks(c) for c in row] for row in rows]
    columns = [
        Column(stringify(header[k]), [stringify(r[k]) for r in rows], numeric[k])
        for k in range(len(colspecs))
    ]
    lay = layout_table(columns, width, landscape_width, compact=compact, rows=len(rows))
    typst_align = {"AlignRight": "right", "AlignCenter": "center"}
    align = ", ".join(typst_align.get(a, "left") for a in aligns)
    out: list[dict[str, Any]] = []
    label = attr[0]
    if lay.landscape:
        out.append(_raw("#page(flipped: true)[\n"))
    opts = (
        f"widths: ({', '.join(_pt(w) for w in lay.widths)},), aligns: ({align},), "
        f"size: {lay.size}pt, inset: (x: {_pt(lay.inset[0])}, y: {_pt(lay.inset[1])}), "
        f"split: {lay.split}, compact: {'true' if compact else 'false'}"
    )
    out.append(_raw(f"#mq-table({opts}, caption: "))
    out.extend(_call_cells(_caption_inlines(caption), header, rows))
    if label:
        out.append(_raw(f" <{label}>"))
    if note:
        out.append(_raw(f'\n#block(above: 0.4em, text(size: 9pt, style: "italic")[{note}])'))
    if lay.landscape:
        out.append(_raw("\n]"))
    return {"t": "Plain", "c": out}


# The most rows a table has in the PDF. A table longer than this (the raw-file appendix of a
# 1,000-run study has 4,646 rows, 51 pages) is cut there in the PDF only, and says so: Typst
# holds every laid-out cell of the document in memory (1.5 GB for that study's 144 pages,
# bench/RESULTS.md), and a printed table of thousands of rows is read in the HTML report.
PDF_TABLE_ROWS = 250


def _pdf_rows(rows: list[list[Inlines]]) -> tuple[list[list[Inlines]], str | None]:
    """The rows a table shows in the PDF, and the note saying how many the HTML has when cut.

    Example:
        >>> _pdf_rows([[[]]] * 3)[1] is None
        True
        >>> _pdf_rows([[[]]] * (PDF_TABLE_ROWS + 5))[1]
        'The PDF shows the first 250 of the 255 rows of this table; the HTML report has them all.'
    """
    if len(rows) <= PDF_TABLE_ROWS:
        return rows, None
    return rows[:PDF_TABLE_ROWS], (
        f"The PDF shows the first {PDF_TABLE_ROWS:,} of the {len(rows):,} rows of this table; "
        "the HTML report has them all."
    )


def _table_cells(table: list[Any]) -> tuple[list[Inlines], list[list[Inlines]]] | None:
    """(header cells, body rows) of a pandoc ``Table`` node as inlines, a header of empty
    cells when it has none; None when ``mq-table`` cannot set it: more than one header row,
    a footer, spans, a cell of more than one paragraph, or a row of another column count."""
    _attr, _caption, colspecs, thead, tbodies, tfoot = table
    head_rows = thead[1]
    body_rows = [row for body in tbodies for row in (*body[2], *body[3])]
    if len(head_rows) > 1 or tfoot[1]:
        return None
    ncols = len(colspecs)
    header: list[Inlines] = []
    if head_rows:
        for cell in head_rows[0][1]:
            inl = _cell_inlines(cell)
            if inl is None:
                return None
            header.append(inl)
    else:
        header = [[] for _ in range(ncols)]
    rows: list[list[Inlines]] = []
    for row in body_rows:
        cells = []
        for cell in row[1]:
            inl = _cell_inlines(cell)
            if inl is None:
                return None
            cells.append(inl)
        if len(cells) != ncols:
            return None
        rows.append(cells)
    if len(header) != ncols or ncols == 0:
        return None
    return header, rows


def _caption_inlines(caption: list[Any]) -> Inlines:
    """The caption's paragraphs run together as one line of inlines (a space between)."""
    caption_inlines: Inlines = []
    for block in caption[1]:
        if block.get("t") in ("Plain", "Para"):
            if caption_inlines:
                caption_inlines.append({"t": "Space"})
            caption_inlines.extend(block["c"])
    return caption_inlines


def _call_cells(caption: Inlines, header: list[Inlines], rows: list[list[Inlines]]) -> Inlines:
    """The rest of the ``mq-table`` call after ``caption:``: the caption (``none`` without
    one), the header cells, then every body cell as a content block, and the closing
    parenthesis. Cells stay pandoc inlines, so pandoc's Typst writer escapes them."""
    out: Inlines = []
    if caption:
        out.append(_raw("["))
        out.extend(caption)
        out.append(_raw("]"))
    else:
        out.append(_raw("none"))
    out.append(_raw(", header: ("))
    for cell in header:
        out.append(_raw("["))
        out.extend(cell)
        out.append(_raw("], "))
    out.append(_raw(")"))
    for row in rows:
        for cell in row:
            out.append(_raw(", ["))
            out.extend(cell)
            out.append(_raw("]"))
    out.append(_raw(")"))
    return out


def _is_appendix(header: list[Any]) -> bool:
    _level, (_id, classes, _kv), inlines = header
    return "appendix" in classes or stringify(inlines).strip().lower().startswith("appendix")


def layout_tables(ast: dict[str, Any], width: float, landscape_width: float) -> dict[str, Any]:
    """Replace every table of a pandoc JSON document by an ``mq-table`` call (in place).

    Example:
        layout_tables(json.loads(pandoc_json), 470.6, 717.3)
    """
    compact = False

    def walk(blocks: list[dict[str, Any]]) -> list[dict[str, Any]]:
        nonlocal compact
        out = []
        for block in blocks:
            kind = block.get("t")
            if kind == "Header" and block["c"][0] == 1:
                compact = _is_appendix(block["c"])
            if kind == "Table":
                call = table_call(block["c"], width, landscape_width, compact)
                out.append(call if call is not None else block)
                continue
            if kind == "Div":
                block["c"][1] = walk(block["c"][1])
            elif kind == "BlockQuote":
                block["c"] = walk(block["c"])
            out.append(block)
        return out

    ast["blocks"] = walk(ast["blocks"])
    return ast
