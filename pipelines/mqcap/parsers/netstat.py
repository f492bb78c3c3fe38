"""z/OS ``NETSTAT ALL`` (TSO ``NETSTAT ALL (CLIENT name)`` / z/OS UNIX ``netstat -A``) reports,
one or many polls per file (docs/formats.md section 4).

Landing tables:

- ``netstat_conn``: one row per poll x connection block: poll number and time (from the report
  header ``MVS TCP/IP NETSTAT CS V2R4   TCPIP Name: TCPIP   17:04:33``), stack name, client
  name and id, local and foreign socket;
- ``netstat_pair``: every ``Name: value`` pair of a block, as printed, unknown names too, with
  its position on the line (1 or 2) and ``parent``: the pair it is nested under by indentation
  (``Smooth trip time`` under ``Round-trip information``, ``TTLSRule`` under ``TTLSPolicy``,
  ``OldestDate`` under ``SendDataQueued``).

Both layouts are read: V2R2 and later (``Client Name: X   Client Id: Y``, two pairs per line in
columns) and the old MVS TCP/IP layout (``Client: X Last Touched: 1:52:31``, one pair per line,
names with blanks). Two pairs on a line are told apart by a run of two or more blanks, or, with
one blank, by taking the first word as the value (``Local Socket: *..FTP-C Foreign Socket: *..*``).

A poll's date comes from a timestamp line before its header (forms listed in ``_kv``); later
headers carry it forward (a clock going backwards moves to the next day). Without any, only
``poll_time`` (time of day) is known. Lines outside a block are counted with ``ctx.unknown``.
A connection block with no pair after its ``Client`` line (a report cut short) is an error.

Example::

    MVS TCP/IP NETSTAT CS V2R4       TCPIP Name: TCPIP           17:04:33
    Client Name: CSQ1CHIN                 Client Id: 000000B2
      Local Socket: 10.1.1.1..1414
      Foreign Socket: 10.1.1.2..1046
        CongestionWindow:    0000131072           SlowStartThreshold:  0000065535
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import date, datetime, time, timedelta

import polars as pl

from mqcap.parsers._kv import iter_line_chunks, parse_clock, parse_stamp_line
from mqcap.parsers.base import TEXT_LINEAGE, Batch, ParseContext, Parser, Table

CONN = Table(
    "netstat_conn",
    {
        **TEXT_LINEAGE,
        "poll_no": "BIGINT",
        "poll_time": "TIME",
        "poll_ts": "TIMESTAMP",
        "poll_line": "BIGINT",
        "netstat_release": "VARCHAR",
        "stack_name": "VARCHAR",
        "conn_no": "BIGINT",
        "client_name": "VARCHAR",
        "client_id": "VARCHAR",
        "local_socket": "VARCHAR",
        "foreign_socket": "VARCHAR",
    },
    "One row per poll x connection block of a z/OS NETSTAT ALL report series.",
    identity=(
        "poll_ts",
        "netstat_release",
        "stack_name",
        "client_name",
        "client_id",
        "local_socket",
        "foreign_socket",
    ),
)
PAIR = Table(
    "netstat_pair",
    {
        **TEXT_LINEAGE,
        "poll_no": "BIGINT",
        "conn_no": "BIGINT",
        "pair_no": "INTEGER",
        "parent": "VARCHAR",
        "name": "VARCHAR",
        "value": "VARCHAR",
    },
    "One row per 'Name: value' pair of a NETSTAT ALL connection block, value as printed.",
)

_BATCH_PAIRS = 200_000


def sniff(head: bytes, name: str) -> bool:
    text = head.decode("utf-8", errors="replace")
    upper = text.upper()
    if "MVS TCP/IP NETSTAT" in upper and ("CLIENT NAME:" in upper or "CLIENT:" in upper):
        return True
    return "Client Name:" in text and "Local Socket:" in text and "Foreign Socket:" in text


def split_pairs(s: str) -> list[tuple[str, str]] | None:
    """``Name: value`` pairs of one stripped line, left to right; None when there is none.

    Example:
        >>> split_pairs("Last Touched:        17:04:33             State:      Establsh")
        [('Last Touched', '17:04:33'), ('State', 'Establsh')]
    """
    n = len(s)
    seps = []
    k = s.find(":")
    while k != -1:
        if k + 1 == n or s[k + 1] == " " or s[k + 1] == "\t":
            seps.append(k)
        k = s.find(":", k + 1)
    if not seps:
        return None
    name = s[: seps[0]].strip()
    if not name or not name[0].isalpha():
        return None
    out = []
    start = seps[0] + 1
    for c in seps[1:]:
        seg = s[start:c].strip()
        cut = seg.rfind("  ")
        if cut < 0:
            cut = seg.rfind("\t")
        if cut >= 0:
            value, nxt = seg[:cut].rstrip(), seg[cut:].strip()
        else:
            sp = seg.find(" ")
            if sp < 0:
                continue  # "a: b:c" - the colon belongs to the value
            value, nxt = seg[:sp], seg[sp + 1 :].strip()
        if not nxt or not nxt[0].isalpha():
            continue
        out.append((name, value))
        name = nxt
        start = c + 1
    out.append((name, s[start:].strip()))
    return out


class _State:
    def __init__(self, ctx: ParseContext) -> None:
        self.ctx = ctx
        self.poll_no = 0
        self.poll_open = False
        self.poll_time: time | None = None
        self.poll_ts: datetime | None = None
        self.poll_line: int | None = None
        self.release: str | None = None
        self.stack: str | None = None
        self.pending: datetime | None = None
        self.last_date: date | None = None
        self.last_clock: time | None = None
        self.conn_no = 0
        self.conn: dict | None = None
        self.conn_lines = 0
        # pair lines split in take(): frames per chunk plus lines the state machine passed on
        self.v_frames: list[pl.DataFrame] = []
        self.v_line: list[int] = []
        self.v_conn: list[int] = []
        self.v_text: list[str] = []
        self.conn_poll: dict[int, int] = {}
        self.conns: list[dict] = []
        # netstat_pair, column-wise
        self.c_line: list[int] = []
        self.c_conn: list[int] = []
        self.c_pos: list[int] = []
        self.c_parent: list[str | None] = []
        self.c_name: list[str] = []
        self.c_value: list[str] = []

    def header(self, lineno: int, s: str) -> None:
        self.end_conn(lineno)
        self.poll_no += 1
        self.poll_open = True
        self.poll_line = lineno
        words = s.split()
        self.release = None
        if len(words) > 3:
            rel = words[3:]
            stop = next((i for i, w in enumerate(rel) if w.upper() in ("TCPIP", "NAME:")), len(rel))
            self.release = " ".join(rel[:stop]) or None
        self.stack = None
        k = s.upper().find("NAME:")
        if k >= 0:
            rest = s[k + 5 :].split()
            self.stack = rest[0] if rest else None
        clock = parse_clock(words[-1]) if words else None
        self.poll_time = clock
        stamp = self.pending
        self.pending = None
        if stamp is not None:
            self.last_date = stamp.date()
            self.poll_ts = datetime.combine(stamp.date(), clock) if clock else stamp
        elif clock is not None and self.last_date is not None:
            if self.last_clock is not None and clock < self.last_clock:
                self.last_date += timedelta(days=1)
            self.poll_ts = datetime.combine(self.last_date, clock)
        else:
            self.poll_ts = None
        if clock is not None:
            self.last_clock = clock

    def start_conn(self, lineno: int, pairs: list[tuple[str, str]]) -> None:
        self.end_conn(lineno)
        if not self.poll_open:
            self.poll_no += 1
            self.poll_open = True
            self.poll_line = None
            self.poll_time = self.poll_ts = None
            if self.pending is not None:
                self.poll_ts, self.poll_time = self.pending, self.pending.time()
                self.pending = None
        self.conn_no += 1
        self.conn_poll[self.conn_no] = self.poll_no
        self.conn = {
            "source_file": self.ctx.source_file,
            "source_line": lineno,
            "poll_no": self.poll_no,
            "poll_time": self.poll_time,
            "poll_ts": self.poll_ts,
            "poll_line": self.poll_line,
            "netstat_release": self.release,
            "stack_name": self.stack,
            "conn_no": self.conn_no,
            "client_name": None,
            "client_id": None,
            "local_socket": None,
            "foreign_socket": None,
        }
        self.conn_lines = 0
        self.add(lineno, pairs, None)

    def end_conn(self, lineno: int) -> None:
        c = self.conn
        if c is None:
            return
        if self.conn_lines == 0:
            raise self.ctx.error(
                f"connection block of line {c['source_line']} cut before any pair",
                line=c["source_line"],
            )
        self.conns.append(c)
        self.conn = None

    def add(self, lineno: int, pairs: list[tuple[str, str]], parent: str | None) -> None:
        c = self.conn
        for pos, (name, value) in enumerate(pairs, 1):
            key = _CONN_FIELDS.get(name)
            if key is not None and c[key] is None:
                c[key] = value or None
            self.c_line.append(lineno)
            self.c_conn.append(self.conn_no)
            self.c_pos.append(pos)
            self.c_parent.append(parent)
            self.c_name.append(name)
            self.c_value.append(value)

    def feed(self, first: int, lines: list[str]) -> None:
        """One chunk of lines: pair lines are told apart vectorised; only the others (headers,
        client and socket lines, timestamps, blanks) go through the state machine."""
        n = len(lines)
        raw = pl.Series("raw", lines, dtype=pl.Utf8)
        s = raw.str.strip_chars_start()
        cand = s.str.contains(":", literal=True) & ~s.str.contains(_NOT_PAIR_RE)
        events = (~cand).arg_true().to_list()
        events.append(n)
        conn_of = [0] * n
        prev = -1
        for idx in events:
            a = prev + 1
            if a < idx:
                if self.conn is not None:
                    conn_of[a:idx] = [self.conn_no] * (idx - a)
                    self.conn_lines += idx - a
                else:
                    for j in range(a, idx):
                        self.step(first + j, lines[j])
            if idx == n:
                break
            self.step(first + idx, lines[idx])
            prev = idx
        owner = pl.Series("conn_no", conn_of, dtype=pl.Int64)
        mask = owner > 0
        if mask.any():
            self.v_frames.append(
                pl.DataFrame(
                    {
                        "source_line": pl.int_range(first, first + n, eager=True).filter(mask),
                        "conn_no": owner.filter(mask),
                        "raw": raw.filter(mask),
                    }
                )
            )

    def step(self, lineno: int, line: str) -> None:
        s = line.lstrip()
        if not s:
            return
        at = s.upper().find(_HEADER)
        if at > 0:  # the header after a prefix: read from the header on
            self.header(lineno, s[at:].rstrip())
            return
        if self.conn is not None and ":" in s and not _STAMP_START.match(s):
            if s[0] in _SPECIAL_FIRST and s.startswith(_SPECIAL_PREFIXES):
                s = s.rstrip()
                self.special(lineno, s, s[: s.find(":")])
            else:
                self.v_line.append(lineno)
                self.v_conn.append(self.conn_no)
                self.v_text.append(line)
                self.conn_lines += 1
            return
        self.other(lineno, s.rstrip())

    def special(self, lineno: int, s: str, name: str) -> None:
        c = self.conn
        if c is not None and (name == "Local Socket" or name == "Foreign Socket"):
            value = s[len(name) + 1 :].strip()
            if ": " not in value and not value.endswith(":"):
                # One socket per line (V2R2+): no need for the general splitter.
                key = _CONN_FIELDS[name]
                if c[key] is None:
                    c[key] = value or None
                self.c_line.append(lineno)
                self.c_conn.append(self.conn_no)
                self.c_pos.append(1)
                self.c_parent.append(None)
                self.c_name.append(name)
                self.c_value.append(value)
                self.conn_lines += 1
                return
        if name in _CLIENT:
            pairs = split_pairs(s)
            if pairs:
                self.start_conn(lineno, pairs)
                return
        if name in _SOCKET_NAMES:
            pairs = split_pairs(s)
            if pairs:
                self.add(lineno, pairs, None)
                self.conn_lines += 1
                return
        if s[:18].upper() == "MVS TCP/IP NETSTAT":
            self.header(lineno, s)
            return
        self.ctx.unknown("netstat: line without a pair in a block")

    def other(self, lineno: int, s: str) -> None:
        if s[:18].upper() == "MVS TCP/IP NETSTAT":
            self.header(lineno, s)
            return
        if s.startswith(("Client Name:", "Client:", "Client :")):
            pairs = split_pairs(s)
            if pairs:
                self.start_conn(lineno, pairs)
                return
        stamp = parse_stamp_line(s) if len(s) < 50 else None
        if stamp is not None:
            self.end_conn(lineno)
            self.poll_open = False
            self.pending = stamp
            return
        if s.lower().startswith("netstat") or s.upper().startswith("READY"):
            self.ctx.skip("command echo")
            return
        if self.conn is not None:
            self.ctx.unknown("netstat: line without a pair in a block")
        else:
            self.ctx.unknown("netstat: line outside a connection block")

    def take(self, final: bool) -> Iterator[Batch]:
        if self.conns:
            yield CONN.name, self.conns
            self.conns = []
        frames = []
        vec = self.v_frames
        self.v_frames = []
        if self.v_line:
            vec.append(
                pl.DataFrame(
                    {"source_line": self.v_line, "conn_no": self.v_conn, "raw": self.v_text},
                    schema=_V_SCHEMA,
                )
            )
            self.v_line, self.v_conn, self.v_text = [], [], []
        if vec:
            df = pl.concat(vec)
            if not final and self.conn is not None:
                # Nesting needs the whole block: hold back the lines of the open one.
                held = df.filter(pl.col("conn_no") == self.conn_no)
                if held.height:
                    self.v_frames.append(held)
                    df = df.filter(pl.col("conn_no") != self.conn_no)
            if df.height:
                frames.append(self.split_frame(df))
        if self.c_line:
            frames.append(
                pl.DataFrame(
                    {
                        "source_line": self.c_line,
                        "conn_no": self.c_conn,
                        "pair_no": self.c_pos,
                        "parent": self.c_parent,
                        "name": self.c_name,
                        "value": self.c_value,
                    },
                    schema=_PAIR_SCHEMA,
                )
            )
            for lst in (
                self.c_line,
                self.c_conn,
                self.c_pos,
                self.c_parent,
                self.c_name,
                self.c_value,
            ):
                lst.clear()
        if not frames:
            return
        df = pl.concat(frames)
        used = df.get_column("conn_no").unique().to_list()
        polls = pl.DataFrame(
            {"conn_no": used, "poll_no": [self.conn_poll[u] for u in used]},
            schema={"conn_no": pl.Int64, "poll_no": pl.Int64},
        )
        for u in used:
            if u != self.conn_no:
                del self.conn_poll[u]
        yield (
            PAIR.name,
            df.join(polls, on="conn_no", how="left").with_columns(
                source_file=pl.lit(self.ctx.source_file)
            ),
        )

    def split_frame(self, df: pl.DataFrame) -> pl.DataFrame:
        raw = pl.col("raw")
        c = pl.col
        # Split with literal finds (much cheaper than a capturing regex): name up to the first
        # ":", value up to the first run of two blanks, then the second pair the same way.
        # Offsets from find() are bytes, head()/slice() count characters: lines that are not
        # plain ASCII go to the Python splitter below.
        df = (
            df.lazy()
            .with_columns(text=raw.str.strip_chars())
            .with_columns(
                indent=raw.str.len_bytes() - raw.str.strip_chars_start().str.len_bytes(),
                c1=c("text").str.find(":", literal=True),
            )
            .with_columns(
                n1=c("text").str.head(c("c1")),
                rest=c("text").str.slice(c("c1") + 1).str.strip_chars_start(),
            )
            .with_columns(k=c("rest").str.find("  ", literal=True))
            .with_columns(
                v1=pl.when(c("k").is_null()).then(c("rest")).otherwise(c("rest").str.head(c("k"))),
                tail=c("rest").str.slice(c("k")).str.strip_chars_start(),
            )
            .with_columns(c2=c("tail").str.find(":", literal=True))
            .with_columns(
                n2=c("tail").str.head(c("c2")),
                v2=c("tail").str.slice(c("c2") + 1).str.strip_chars_start().fill_null(""),
            )
            .collect()
        )
        # Nesting: a line's parent is the nearest line above it, in the same block, that is
        # indented less (what an indentation stack gives).
        levels = df.get_column("indent").unique().sort().to_list()
        parent = pl.lit(None, dtype=pl.Utf8)
        for lv in levels[1:]:
            above = (
                pl.when(pl.col("indent") < lv)
                .then(pl.col("n1"))
                .otherwise(None)
                .shift(1)
                .forward_fill()
                .over("conn_no")
            )
            parent = pl.when(pl.col("indent") == lv).then(above).otherwise(parent)
        df = df.with_columns(parent=parent)
        # A value holding ": " means more pairs than the columns show (the old one-blank
        # layout): those lines are split in Python.
        odd = (
            pl.col("c1").is_null()
            | (pl.col("k").is_not_null() & pl.col("c2").is_null())
            | ~pl.col("n1").str.contains(r"^[A-Za-z]")
            | (pl.col("n2").is_not_null() & ~pl.col("n2").str.contains(r"^[A-Za-z]"))
            | pl.col("text").str.contains(r"[^\x20-\x7E]")
            | pl.col("v1").str.contains(": ", literal=True)
            | pl.col("v1").str.ends_with(":")
            | pl.col("v2").str.contains(": ", literal=True)
            | pl.col("v2").str.ends_with(":")
        )
        df = df.with_columns(odd=odd)
        good = df.filter(~pl.col("odd"))
        first = good.select(
            "source_line",
            "conn_no",
            pl.lit(1, dtype=pl.Int32).alias("pair_no"),
            "parent",
            pl.col("n1").alias("name"),
            pl.col("v1").alias("value"),
        )
        second = good.filter(pl.col("n2").is_not_null()).select(
            "source_line",
            "conn_no",
            pl.lit(2, dtype=pl.Int32).alias("pair_no"),
            "parent",
            pl.col("n2").alias("name"),
            pl.col("v2").alias("value"),
        )
        frames = [first, second]
        bad = df.filter(pl.col("odd"))
        if bad.height:
            rows: dict[str, list] = {k: [] for k in _PAIR_SCHEMA}
            for lineno, conn_no, parent_name, text in bad.select(
                "source_line", "conn_no", "parent", "text"
            ).iter_rows():
                pairs = split_pairs(text)
                if pairs is None:
                    self.ctx.unknown("netstat: line without a pair in a block")
                    continue
                for pos, (name, value) in enumerate(pairs, 1):
                    rows["source_line"].append(lineno)
                    rows["conn_no"].append(conn_no)
                    rows["pair_no"].append(pos)
                    rows["parent"].append(parent_name)
                    rows["name"].append(name)
                    rows["value"].append(value)
            frames.append(pl.DataFrame(rows, schema=_PAIR_SCHEMA))
        return pl.concat(frames)


_PAIR_SCHEMA = {
    "source_line": pl.Int64,
    "conn_no": pl.Int64,
    "pair_no": pl.Int32,
    "parent": pl.Utf8,
    "name": pl.Utf8,
    "value": pl.Utf8,
}
_CONN_FIELDS = {
    "Client Name": "client_name",
    "Client": "client_name",
    "Client Id": "client_id",
    "Local Socket": "local_socket",
    "Foreign Socket": "foreign_socket",
}
_SOCKET_NAMES = frozenset(("Local Socket", "Foreign Socket"))
_CLIENT = frozenset(("Client Name", "Client"))
_SPECIAL_FIRST = frozenset("CLFMm")
_SPECIAL_PREFIXES = ("Client Name:", "Client:", "Local Socket:", "Foreign Socket:", "MVS ", "mvs ")
_SPECIAL = _SOCKET_NAMES | _CLIENT
# Lines with a colon that are not plain pairs: block openers, report headers, timestamp lines.
_STAMP_START_RE = r"\d{4}-\d\d-\d\d[T ]\d|(?i:(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*,? )"
# The report header may follow what a tool printed before it on its line: a console message id
# (``EZZ2350I MVS TCP/IP NETSTAT CS V2R4 ...``), a TSO prompt (``READY``), a job-log prefix.
_HEADER = "MVS TCP/IP NETSTAT"
_NOT_PAIR_RE = (
    rf"^(?:Client Name:|Client:|Local Socket:|Foreign Socket:|(?i:mvs )|{_STAMP_START_RE})"
    r"|(?i:MVS TCP/IP NETSTAT)"
)
_STAMP_START = re.compile(_STAMP_START_RE)
_V_SCHEMA = {"source_line": pl.Int64, "conn_no": pl.Int64, "raw": pl.Utf8}


def parse(ctx: ParseContext) -> Iterator[Batch]:
    st = _State(ctx)
    last = 0
    for first, lines in iter_line_chunks(ctx):
        st.feed(first, lines)
        last = first + len(lines) - 1
        pending = sum(f.height for f in st.v_frames) + len(st.v_line) + len(st.c_line)
        if pending >= _BATCH_PAIRS:
            yield from st.take(final=False)
    st.end_conn(last)
    if st.conn_no == 0:
        raise ctx.error("no NETSTAT ALL connection block found", line=max(last, 1))
    yield from st.take(final=True)


PARSER = Parser(
    kind="netstat",
    description="z/OS NETSTAT ALL report series (TCP connection details per poll)",
    tables=(CONN, PAIR),
    sniff=sniff,
    parse=parse,
    priority=40,
)
