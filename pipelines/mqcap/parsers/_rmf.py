"""Shared pieces of the RMF Postprocessor text-report parsers (docs/formats.md section 5).

Not a parser (no ``PARSER``): page titles, carriage control and the interval header that every
Postprocessor report page repeats::

    1                C R Y P T O   H A R D W A R E   A C T I V I T Y
     z/OS V2R2        SYSTEM ID S35        DATE 04/26/2017        INTERVAL 29.59.848
                      RPT VERSION V2R2 RMF TIME 09.00.00          CYCLE 1.000 SECONDS

A report printed to SYSOUT keeps the ASA carriage-control column (``1`` new page, ``0``/``-``
extra spacing, `` `` single space, ``+`` overprint); a report copied from a PDF or a browser has
none and may have lost the leading blanks of its rows. :class:`ReportPages` hides the difference
and keeps the page/header state (which report, which interval) for the report parsers.

:class:`ReportFrames` is the same state machine over whole chunks of lines (polars frames):
only the few lines that may be page titles or headers are looked at one by one.

Example:
    for event, lineno, text in ReportPages(ctx, WORKLOAD_TITLE): ...
    for frame in ReportFrames(ctx, WORKLOAD_TITLE): ...
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, replace
from datetime import datetime
from functools import lru_cache

from mqcap.parsers._lazy import lazy_module
from mqcap.parsers.base import ParseContext, text_chunks

pl = lazy_module("polars", __name__, "pl")

# Spaced-out page titles: "C R Y P T O  H A R D W A R E  A C T I V I T Y", "C P U  A C T I V I T Y".
_SPACED_TITLE = re.compile(r"[A-Z0-9/](?: {1,4}[A-Z0-9/]){3,}")
_PAGE = re.compile(r"\s*PAGE\s+\d+\s*$")
_PAGE_ONLY = re.compile(r"PAGE\s+\d+")
CRYPTO_TITLE = "CRYPTO HARDWARE ACTIVITY"
WORKLOAD_TITLE = "WORKLOAD ACTIVITY"
CC_CHARS = "10-+ "
CHUNK_BYTES = 4 << 20
FRAME_BYTES = 4 << 20  # ReportFrames: lines per frame (peak memory ~ a few times this)


def line_chunks(
    ctx: ParseContext, chunk_bytes: int = CHUNK_BYTES
) -> Iterator[tuple[int, list[str]]]:
    """(number of the first line, lines) of a latin-1 text file, a few MB at a time.

    The lines ``read_text_lines(ctx, encoding="latin-1")`` gives, with the same refusals (see
    :func:`~mqcap.parsers.base.text_chunks`), without a Python step per line. Trailing carriage
    returns are left on the lines (the report parsers strip trailing blanks themselves).

    Example:
        for first, lines in line_chunks(ctx): ...
    """
    for first, data in text_chunks(ctx, chunk_bytes):
        text = data.decode("latin-1")
        if text.endswith("\n"):
            text = text[:-1]
        yield first, text.split("\n")


def page_title(text: str) -> str | None:
    """The report title of a page-title line (spaces squeezed), else None.

    Example:
        >>> page_title("   C R Y P T O  H A R D W A R E  A C T I V I T Y      PAGE   3")
        'CRYPTO HARDWARE ACTIVITY'
    """
    s = text.lstrip()
    if s[1:2] != " " or s[3:4] != " ":  # fast path: data rows are not spelled out
        return _prefixed_title(s)
    s = _PAGE.sub("", s).rstrip()
    if len(s) < 9 or not _SPACED_TITLE.fullmatch(s):
        return None
    words = [w.replace(" ", "") for w in re.split(r" {2,}", s)]
    # Every word must have been spelled out letter by letter: "C P U", not "CPU 2964".
    if any(len(w) * 2 - 1 != len(raw) for w, raw in zip(words, re.split(r" {2,}", s), strict=True)):
        return None
    return " ".join(words)


# What a tool printed before a title on its line (an ISPF line number, a TSO prompt, a job-log
# prefix), then 2+ blanks and the spelled-out title; only titles of reports (ACTIVITY, REPORT).
_AFTER_PREFIX = re.compile(r"\S\s{2,}(?=[A-Z0-9/] [A-Z0-9/] )")
_TITLE_ENDS = ("A C T I V I T Y", "R E P O R T")


def _prefixed_title(s: str) -> str | None:
    """The title after a prefix on a page-title line, else None.

    Example:
        >>> _prefixed_title("READY   C R Y P T O  H A R D W A R E  A C T I V I T Y  PAGE 1")
        'CRYPTO HARDWARE ACTIVITY'
    """
    if not any(end in s for end in _TITLE_ENDS):
        return None
    for m in _AFTER_PREFIX.finditer(s):
        title = page_title(s[m.end() :])
        if title is not None and title.endswith(("ACTIVITY", "REPORT")):
            return title
    return None


@lru_cache(maxsize=2)
def head_titles(head: bytes) -> tuple[str, ...]:
    """Report titles found in the first bytes of a file, in order (for ``sniff``; remembered for
    the last heads: RMF CRYPTO's and RMF WORKLOAD's sniffers ask in turn of every file)."""
    text = head.decode("latin-1")
    found = []
    for line in text.splitlines():
        if line[:1] == "1":
            line = line[1:]
        title = page_title(line)
        if title:
            found.append(title)
    return tuple(found)


@dataclass(frozen=True)
class Interval:
    """The identity every page header repeats: which system, which interval."""

    system_id: str | None = None
    sysplex: str | None = None
    zos_level: str | None = None
    rmf_version: str | None = None
    date: str | None = None
    time: str | None = None
    interval_text: str | None = None
    header_line: int | None = None

    @property
    def key(self) -> tuple:
        return (self.system_id, self.sysplex, self.date, self.time, self.interval_text)


# What ReportPages yields for each line of the wanted report.
TITLE = "title"  # a page title (of this report or another one): the text is the title
PAGE = "page"  # the first page-header line started a new identity (``pages.interval``)
HEADER = "header"  # a page-header line completed the identity (``pages.interval``)
BLANK = "blank"
LINE = "line"  # any other line of the wanted report


class ReportPages:
    """The page/header state machine every RMF Postprocessor report shares.

    Iterating yields ``(event, line number, text)``: the carriage-control column removed when
    present (recognised on the first page-title line: ``1`` in column 1; ``+`` overprint lines
    only re-print the line above and are dropped), ``#`` comment lines counted as unknown, lines
    of other reports and before the first title skipped, page numbers dropped, and the page
    header read into :attr:`interval`. Titles found are counted in :attr:`reports` (this
    report) and :attr:`other_titles`.

    Example:
        pages = ReportPages(ctx, CRYPTO_TITLE)
        for event, lineno, text in pages:
            if event == LINE: ...
    """

    def __init__(self, ctx: ParseContext, title: str) -> None:
        self.ctx = ctx
        self.title = title
        self.interval = Interval()
        self.reports = 0
        self.other_titles: set[str] = set()
        self.carriage_control: bool | None = None

    def __iter__(self) -> Iterator[tuple[str, int, str]]:
        # One loop, one generator, names bound locally: this runs once per line of reports of
        # millions of lines.
        ctx, wanted, title_of, header_of = self.ctx, self.title, page_title, header_fields
        in_report = False
        cc_on = self.carriage_control
        for lineno, raw in _numbered(line_chunks(ctx)):
            if raw[:1] == "#" and not raw[1:2].isalnum():
                # "# DERIVED TEXT ..." notes, not "#SWAPS 2828" (a WORKLOAD ACTIVITY row).
                ctx.unknown("comment line")
                continue
            text = raw.rstrip()
            if cc_on is None and text:
                if text[:1] == "1" and title_of(text[1:]):
                    cc_on = self.carriage_control = True
                elif title_of(text):
                    cc_on = self.carriage_control = False
            if cc_on and text:
                cc = text[0]
                if cc == "+":
                    ctx.skip("overprint line")
                    continue
                if cc in CC_CHARS:
                    text = " " + text[1:]
            stripped = text.lstrip()
            if not stripped:
                if in_report:
                    yield BLANK, lineno, text
                continue
            # page_title's own first test, inline: most lines are not spelled-out titles.
            title = (
                title_of(text)
                if stripped[1:2] == " " and stripped[3:4] == " "
                else _prefixed_title(stripped)
                if "A C T I V I T Y" in stripped
                else None
            )
            if title:
                in_report = title == wanted
                if in_report:
                    self.reports += 1
                else:
                    self.other_titles.add(title)
                yield TITLE, lineno, title
                continue
            if not in_report:
                ctx.skip(
                    "line of another RMF report" if self.other_titles else "line before the report"
                )
                continue
            if "z/OS" in text and ("SYSTEM ID" in text or "SYSPLEX" in text or "DATE" in text):
                # The first header line of a page starts a new identity.
                new = header_of(text, Interval(header_line=lineno))
                if new is not None:
                    self.interval = new
                    yield PAGE, lineno, text
                    continue
            if ("RPT VERSION" in text or "z/OS" in text) and (
                new := header_of(text, self.interval)
            ) is not None:
                self.interval = new
                yield HEADER, lineno, text
                continue
            if stripped[:4] == "PAGE" and _PAGE_ONLY.fullmatch(stripped):
                continue
            yield LINE, lineno, text

    def found(self, default: str) -> str:
        """The other reports' titles seen, for the message when this report was not found."""
        return ", ".join(sorted(self.other_titles)) or default


def _numbered(chunks: Iterator[tuple[int, list[str]]]) -> Iterator[tuple[int, str]]:
    for first, lines in chunks:
        yield from enumerate(lines, first)


_ZOS = re.compile(r"z/OS\s+(V\d+R\d+)")
_SYSID = re.compile(r"SYSTEM ID\s+(\S+)")
_SYSPLEX = re.compile(r"SYSPLEX\s+(\S+)")
_DATE = re.compile(r"(?<![A-Z/])DATE\s+(\d\d/\d\d/\d{4})")
_INTERVAL = re.compile(r"INTERVAL\s+(\d+\.\d\d\.\d{3})")
_RPT = re.compile(r"RPT VERSION\s+(V\d+R\d+)")
_TIME = re.compile(r"(?<![-/])TIME\s+(\d\d\.\d\d\.\d\d)(?!\.)")


def header_fields(text: str, current: Interval) -> Interval | None:
    """``current`` updated from a page-header line, or None when ``text`` is no header line.

    Example:
        >>> header_fields("RPT VERSION V2R2 RMF  TIME 09.00.00", Interval()).time
        '09.00.00'
    """
    if "z/OS" in text and (m := _ZOS.search(text)) and ("DATE" in text or "SYSTEM" in text):
        fields = {"zos_level": m.group(1)}
        for name, rx in (("system_id", _SYSID), ("sysplex", _SYSPLEX), ("date", _DATE)):
            if mm := rx.search(text):
                fields[name] = mm.group(1)
        if mm := _INTERVAL.search(text):
            fields["interval_text"] = mm.group(1)
        return replace(current, **fields)
    if "RPT VERSION" in text and (m := _RPT.search(text)):
        fields = {"rmf_version": m.group(1)}
        if mm := _TIME.search(text):
            fields["time"] = mm.group(1)
        return replace(current, **fields)
    return None


@lru_cache(maxsize=1024)
def _stamp(date: str, time: str) -> datetime | None:
    """``mm/dd/yyyy`` + ``hh.mm.ss`` as strptime reads them (None when invalid), without
    strptime's cost when both are the digits the header regexes match."""
    try:
        digits = date[:2] + date[3:5] + date[6:] + time[:2] + time[3:5] + time[6:]
        shaped = len(date) == 10 and len(time) == 8 and date[2] + date[5] + time[2] + time[5]
        if shaped == "//.." and digits.isdigit() and digits.isascii():
            y, m, d = int(date[6:]), int(date[:2]), int(date[3:5])
            return datetime(y, m, d, int(time[:2]), int(time[3:5]), int(time[6:]))
        return datetime.strptime(f"{date} {time}", "%m/%d/%Y %H.%M.%S")
    except ValueError:
        return None


def interval_start(ctx: ParseContext, iv: Interval, line: int) -> datetime:
    """DATE mm/dd/yyyy + TIME hh.mm.ss of a page header, as printed (no time zone)."""
    if iv.date is None or iv.time is None:
        raise ctx.error("RMF page header without DATE and TIME", line=iv.header_line or line)
    stamp = _stamp(iv.date, iv.time)  # every section of an interval asks again
    if stamp is None:
        raise ctx.error(
            f"RMF page header: bad DATE/TIME {iv.date} {iv.time}", line=iv.header_line or line
        )
    return stamp


def interval_seconds(ctx: ParseContext, iv: Interval, line: int) -> float | None:
    """INTERVAL mm.ss.ttt as seconds (``29.59.848`` -> 1799.848)."""
    if iv.interval_text is None:
        return None
    mm, ss, ttt = iv.interval_text.split(".")
    if int(ss) >= 60:
        raise ctx.error(f"RMF page header: bad INTERVAL {iv.interval_text}", line=line)
    return int(mm) * 60 + int(ss) + int(ttt) / 1000


_NUMBER = re.compile(r"-?\d+(?:\.\d+)?|-?\.\d+")


def number(text: str) -> float | None:
    """A printed RMF value as a float; ``N/A``, dashes and stars (overflow) are None.

    Example:
        >>> number("356803K"), number("N/A")
        (356803000.0, None)
    """
    t = text.strip()
    if t.isascii() and t.replace(".", "", 1).isdigit():  # the common case, fast
        return float(t)
    scale = 1.0
    if t[-1:] in "KMGT" and t[-1:]:
        scale = {"K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}[t[-1]]
        t = t[:-1]
    if not _NUMBER.fullmatch(t):
        return None
    return float(t) * scale


# -- the page/header state machine over whole chunks of lines (polars) ---------------------------
# Python's whitespace among latin-1 characters (str.strip, str.split): the regex engine's \s
# lacks the four separators \x1c-\x1f.
_S = r"[\s\x1c-\x1f]"
# Event codes of ReportFrames' ``ev`` column (the ReportPages events).
EV_TITLE, EV_PAGE, EV_HEADER, EV_BLANK, EV_LINE = 1, 2, 3, 4, 5
EVENT_OF = {EV_TITLE: TITLE, EV_PAGE: PAGE, EV_HEADER: HEADER, EV_BLANK: BLANK, EV_LINE: LINE}
# A superset of the lines page_title may accept (then asked one by one).
_SPACED_CAND = rf"^{_S}*[A-Z0-9/] . "
_CAND_WORDS = ["A C T I V I T Y", "z/OS", "RPT VERSION", "PAGE"]
_CC_CAND = rf"^.?{_S}*[A-Z0-9/] . |A C T I V I T Y|R E P O R T"
# header_fields' regexes without look-around (Rust regex), same matches.
_HDR_RX = {
    "zos_level": rf"z/OS{_S}+(V\d+R\d+)",
    "system_id": rf"SYSTEM ID{_S}+([^\s\x1c-\x1f]+)",
    "sysplex": rf"SYSPLEX{_S}+([^\s\x1c-\x1f]+)",
    "date": rf"(?:^|[^A-Z/])DATE{_S}+(\d\d/\d\d/\d{{4}})",
    "interval_text": rf"INTERVAL{_S}+(\d+\.\d\d\.\d{{3}})",
    "rmf_version": rf"RPT VERSION{_S}+(V\d+R\d+)",
    "time": rf"(?:^|[^-/])TIME{_S}+(\d\d\.\d\d\.\d\d)(?:[^.]|$)",
}
ZOS_FIELDS = ("zos_level", "system_id", "sysplex", "date", "interval_text")
RPT_FIELDS = ("rmf_version", "time")


@lru_cache(maxsize=256)  # title lines repeat page after page
def _line_title(text: str) -> str | None:
    """ReportPages' title test of one (carriage-control-free, stripped-right) line."""
    stripped = text.lstrip()
    if stripped[1:2] == " " and stripped[3:4] == " ":
        return page_title(text)
    return _prefixed_title(stripped) if "A C T I V I T Y" in stripped else None


class ReportFrames:
    """:class:`ReportPages` over whole chunks of lines: one polars frame per chunk.

    A frame holds the lines of the wanted report that ReportPages yields, in order: ``line``
    (number), ``ev`` (EV_TITLE ... EV_LINE), ``text`` (carriage control removed; the title for
    EV_TITLE; trailing blanks kept) and ``iv``, the page header in force at the line as an index
    into :attr:`intervals` (0: the one in force when the chunk began). Titles of other reports
    are kept (EV_TITLE); comment, overprint and skipped lines are counted as ReportPages counts
    them. Only the few lines that may be titles or page headers are looked at one by one.

    Example:
        frames = ReportFrames(ctx, WORKLOAD_TITLE)
        for df in frames:
            iv = frames.intervals[df["iv"][0]]
    """

    def __init__(self, ctx: ParseContext, title: str, chunk_bytes: int = FRAME_BYTES) -> None:
        self.ctx = ctx
        self.title = title
        self.chunk_bytes = chunk_bytes
        self.interval = Interval()
        self.intervals: list[Interval] = [self.interval]
        self.reports = 0
        self.other_titles: set[str] = set()
        self.carriage_control: bool | None = None
        self.in_report = False

    def __iter__(self) -> Iterator[pl.DataFrame]:
        for first, lines in line_chunks(self.ctx, self.chunk_bytes):
            df = self._frame(first, lines)
            if df.height:
                yield df

    def found(self, default: str) -> str:
        """The other reports' titles seen, for the message when this report was not found."""
        return ", ".join(sorted(self.other_titles)) or default

    def _frame(self, first: int, lines: list[str]) -> pl.DataFrame:
        df = pl.DataFrame({"text": pl.Series(lines, dtype=pl.Utf8)})
        df = df.with_row_index("line", first).with_columns(pl.col("line").cast(pl.Int64))
        hashed = df["text"].str.starts_with("#")
        if hashed.any():
            comment = hashed & df["text"].str.contains(r"^#(?:[^\p{L}\p{N}]|$)")
            if n := comment.sum():
                self.ctx.unknown("comment line", n)
                df = df.filter(~comment)
        df = self._carriage_control(df)
        text = pl.col("text")
        df = df.with_columns(
            text.str.contains(r"[^\s\x1c-\x1f]").alias("nonblank"),
            (text.str.contains_any(_CAND_WORDS) | text.str.contains(_SPACED_CAND)).alias("cand"),
        )
        in_report, others = self.in_report, bool(self.other_titles)
        marks = self._marks(df.filter(pl.col("nonblank") & pl.col("cand")))
        # Few marked lines: put them in place by position (line numbers are consecutive).
        pos = df["line"].search_sorted(marks["line"])
        df = df.with_columns(
            pl.Series("title", [None] * df.height, pl.Utf8).scatter(pos, marks["title"]),
            pl.Series("mark", [None] * df.height, pl.Int8).scatter(pos, marks["mark"]),
        )
        return self._events(df, in_report, others)

    def _carriage_control(self, df: pl.DataFrame) -> pl.DataFrame:
        """The carriage-control column removed (from the first title on), overprints dropped."""
        start = 0
        if self.carriage_control is None:
            cand = df.filter(pl.col("text").str.contains(_CC_CAND))
            for i, raw in zip(cand["line"].to_list(), cand["text"].to_list(), strict=True):
                text = raw.rstrip()
                if text[:1] == "1" and page_title(text[1:]):
                    self.carriage_control = True
                elif page_title(text):
                    self.carriage_control = False
                else:
                    continue
                # (its position among the lines kept: comment lines are gone from the frame)
                start = int(df["line"].search_sorted(i))
                break
            else:
                return df
        if not self.carriage_control:
            return df
        # Only lines starting with 1, 0, - or + change (most start with a blank): those alone.
        text = df["text"]
        cc = text.str.contains(r"^[10+\-]")
        if start:
            cc = cc & (pl.int_range(0, df.height, eager=True) >= start)
        at = cc.arg_true()
        heads = text.gather(at).str.slice(0, 1)
        over = at.filter(heads == "+")
        if over.len():
            self.ctx.skip("overprint line", over.len())
        moved = at.filter(heads != "+")
        if moved.len():
            text = text.scatter(moved, " " + text.gather(moved).str.slice(1))
        df = df.with_columns(text.alias("text"))
        if over.len():
            keep = pl.Series([True] * df.height).scatter(over, False)
            df = df.filter(keep)
        return df

    def _marks(self, cand: pl.DataFrame) -> pl.DataFrame:
        """The candidate lines' titles (``title``) and page-header kinds (``mark``: EV_PAGE,
        EV_HEADER, or 0 for a ``PAGE n`` line); the page headers read into :attr:`intervals`."""
        titles = [_line_title(t.rstrip()) for t in cand["text"].to_list()]
        text = pl.col("text")
        for title in titles:
            if title == self.title:
                self.reports += 1
            elif title:
                self.other_titles.add(title)
        cand = cand.select("line", "text", pl.Series("title", titles, dtype=pl.Utf8))
        cand = cand.with_columns(self._in_report(), (pl.col("title").is_null()).alias("plain"))
        if cand.height:
            self.in_report = bool(cand["in_report"][-1])
        plain = pl.col("plain") & pl.col("in_report")
        hdr = cand.filter(plain & text.str.contains_any(["z/OS", "RPT VERSION"]))
        hdr = hdr.select(
            "line",
            *[text.str.extract(rx, 1).alias(f"_{f}") for f, rx in _HDR_RX.items()],
            text.str.contains("z/OS", literal=True).alias("_zos"),
            text.str.contains("RPT VERSION", literal=True).alias("_rpt"),
            text.str.contains_any(["DATE", "SYSTEM"]).alias("_date_or_system"),
            text.str.contains_any(["SYSTEM ID", "SYSPLEX", "DATE"]).alias("_page_words"),
        )
        zos_hdr = pl.col("_zos") & pl.col("_zos_level").is_not_null() & pl.col("_date_or_system")
        hdr = hdr.with_columns(zos_hdr.alias("_zos_hdr")).with_columns(
            (~pl.col("_zos_hdr") & pl.col("_rpt") & pl.col("_rmf_version").is_not_null())
            .alias("_rpt_hdr")
        )  # fmt: skip
        hdr = hdr.filter(pl.col("_zos_hdr") | pl.col("_rpt_hdr")).select(
            "line",
            pl.when(pl.col("_zos") & pl.col("_page_words")).then(EV_PAGE).otherwise(EV_HEADER)
            .cast(pl.Int8).alias("mark"),
            *[pl.when(pl.col("_zos_hdr")).then(pl.col(f"_{f}")).alias(f) for f in ZOS_FIELDS],
            *[pl.when(pl.col("_rpt_hdr")).then(pl.col(f"_{f}")).alias(f) for f in RPT_FIELDS],
        )  # fmt: skip
        self._read_headers(hdr)
        page_only = cand.filter(plain & text.str.contains(rf"^{_S}*PAGE{_S}+[0-9]+{_S}*$")).select(
            "line", pl.lit(0, pl.Int8).alias("mark")
        )
        marks = pl.concat([hdr.select("line", "mark"), page_only]).unique("line", keep="first")
        return (
            cand.select("line", "title")
            .join(marks, on="line", how="left")
            .filter(pl.col("title").is_not_null() | pl.col("mark").is_not_null())
        )

    def _read_headers(self, hdr: pl.DataFrame) -> None:
        """Page headers, in order, into :attr:`intervals` (a PAGE line starts anew)."""
        iv = self.interval
        self.intervals = out = [iv]
        names = ZOS_FIELDS + RPT_FIELDS
        for line, mark, *values in hdr.iter_rows():
            got = {f: v for f, v in zip(names, values, strict=True) if v is not None}
            if mark == EV_PAGE:
                iv = Interval(header_line=line, **got)
            else:
                now = iv.__dict__.copy()
                now.update(got)
                iv = Interval(**now)
            out.append(iv)
        self.interval = iv

    def _in_report(self) -> pl.Expr:
        """In the wanted report at each line: set by the last title (this chunk's or before)."""
        title = pl.col("title")
        return (
            pl.when(title.is_not_null()).then(title == self.title).forward_fill()
            .fill_null(self.in_report).alias("in_report")
        )  # fmt: skip

    def _events(self, df: pl.DataFrame, in_report: bool, others: bool) -> pl.DataFrame:
        """The wanted report's lines with their events; the other lines counted and dropped.
        ``in_report``, ``others``: in the report, and other titles seen, as the chunk began."""
        title, mark, nonblank = pl.col("title"), pl.col("mark"), pl.col("nonblank")
        is_title = title.is_not_null()
        df = df.with_columns(
            pl.when(is_title).then(title == self.title).forward_fill()
            .fill_null(in_report).alias("in_report"),
        )  # fmt: skip
        out = ~is_title & nonblank & ~pl.col("in_report")
        seen = (is_title & (title != self.title)).cum_max() | others
        counts = df.select(out.alias("out"), seen.alias("seen")).filter("out")["seen"]
        if n := counts.len():
            if n_seen := counts.sum():
                self.ctx.skip("line of another RMF report", n_seen)
            if n - n_seen:
                self.ctx.skip("line before the report", n - n_seen)
        df = df.filter((is_title | pl.col("in_report")) & (mark.is_null() | (mark != 0)))
        return df.select(
            "line",
            pl.when(is_title).then(EV_TITLE).when(~nonblank).then(EV_BLANK)
            .when(mark.is_not_null()).then(mark).otherwise(EV_LINE).cast(pl.Int8).alias("ev"),
            pl.when(is_title).then(title).otherwise(pl.col("text")).alias("text"),
            mark.is_not_null().cum_sum().cast(pl.Int32).alias("iv"),
        )  # fmt: skip
