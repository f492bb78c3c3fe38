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

from mqcap.arrowcols import constant_string
from mqcap.parsers import _lines, _native
from mqcap.parsers._kv import parse_clock, parse_stamp_line
from mqcap.parsers._lazy import lazy_module
from mqcap.parsers._lines import line_series, owner_column, texts
from mqcap.parsers.base import (
    TEXT_LINEAGE,
    Batch,
    ParseContext,
    Parser,
    Table,
    text_chunks,
)

pl = lazy_module("polars", __name__, "pl")

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
# Chunks of whole lines each parse step reads (both parsers: their batches end at the same lines).
CHUNK_BYTES = _lines.CHUNK_BYTES


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
        # socket lines split vectorised (netstat_pair rows) and the socket values of the chunk
        # to set on their blocks: (line, pair, conn_no, field, value)
        self.s_frames: list[pl.DataFrame] = []
        self.sock_ev: list[tuple[int, int, int, str, str]] = []

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
            if key in _SOCKET_KEYS:
                # set at the end of the chunk, in line order with the socket lines split there
                self.sock_ev.append((lineno, pos, self.conn_no, key, value))
            elif key is not None and c[key] is None:
                c[key] = value or None
            self.c_line.append(lineno)
            self.c_conn.append(self.conn_no)
            self.c_pos.append(pos)
            self.c_parent.append(parent)
            self.c_name.append(name)
            self.c_value.append(value)

    def feed(self, first: int, raw: pl.Series, plain: bool) -> None:
        """One chunk of lines: pair lines are told apart vectorised; only the others (headers,
        client and socket lines, timestamps, blanks) go through the state machine, as Python
        strings; a run of pair lines inside a block is handed to its block whole."""
        n = raw.len()
        s = raw.str.strip_chars_start()
        cand = s.str.contains(":", literal=True) & ~s.str.contains(_NOT_PAIR_RE)
        sock = _plain_sockets(s) if plain else None
        events = (~(cand | sock) if sock is not None else ~cand).arg_true().to_list()
        ev_text = texts(raw, events)
        events.append(n)
        starts: list[int] = []
        ends: list[int] = []
        owners: list[int] = []
        prev = -1
        for k, idx in enumerate(events):
            a = prev + 1
            if a < idx:
                if self.conn is not None:
                    starts.append(a)
                    ends.append(idx)
                    owners.append(self.conn_no)
                    self.conn_lines += idx - a
                else:
                    for j, line in enumerate(raw.slice(a, idx - a).to_list(), a):
                        self.step(first + j, line)
            if idx == n:
                break
            self.step(first + idx, ev_text[k])
            prev = idx
        if starts:
            owner = owner_column(n, starts, ends, owners)
            if sock is not None:
                self.socket_rows(first, s, owner, sock)
                mask = (owner > 0) & ~sock
            else:
                mask = owner > 0
            kept = raw.filter(mask)
            self.v_frames.append(
                pl.DataFrame(
                    {
                        "source_line": pl.int_range(first, first + n, eager=True).filter(mask),
                        "conn_no": owner.filter(mask),
                        "raw": kept,
                        # not plain printable ASCII (a plain chunk has none)
                        "np": pl.repeat(False, kept.len(), eager=True)
                        if plain
                        else _not_plain(kept),
                    }
                )
            )
        self.set_sockets()

    def socket_rows(self, first: int, s: pl.Series, owner: pl.Series, sock: pl.Series) -> None:
        """The one-socket lines of a plain chunk in a block (what :meth:`special` makes of
        them): their netstat_pair rows, then every socket value of the chunk set on its block
        in line order (the first non-empty one is kept)."""
        keep = sock & (owner > 0)
        if keep.any():
            parts = s.filter(keep).str.strip_chars_end().str.splitn(":", 2).struct.unnest()
            rows = pl.DataFrame(
                {
                    "source_line": pl.int_range(first, first + s.len(), eager=True).filter(keep),
                    "conn_no": owner.filter(keep),
                    "pair_no": pl.repeat(1, parts.height, dtype=pl.Int32, eager=True),
                    "parent": pl.repeat(None, parts.height, dtype=pl.Utf8, eager=True),
                    "name": parts.get_column("field_0"),
                    "value": parts.get_column("field_1").str.strip_chars(),
                }
            )
            self.s_frames.append(rows)
            keys = rows.get_column("name").replace_strict(_CONN_FIELDS, return_dtype=pl.Utf8)
            self.sock_ev.extend(
                zip(
                    rows.get_column("source_line").to_list(),
                    rows.get_column("pair_no").to_list(),
                    rows.get_column("conn_no").to_list(),
                    keys.to_list(),
                    rows.get_column("value").to_list(),
                    strict=True,
                )
            )

    def set_sockets(self) -> None:
        """Socket values of the blocks, in line order: the first non-empty one is kept."""
        if not self.sock_ev:
            return
        by_no = {c["conn_no"]: c for c in self.conns}
        if self.conn is not None:
            by_no[self.conn["conn_no"]] = self.conn
        for _, _, conn_no, key, value in sorted(self.sock_ev):
            c = by_no[conn_no]
            if c[key] is None:
                c[key] = value or None
        self.sock_ev.clear()

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
            passed = pl.DataFrame(
                {"source_line": self.v_line, "conn_no": self.v_conn, "raw": self.v_text},
                schema=_v_schema(),
            )
            vec.append(passed.with_columns(np=_not_plain(passed.get_column("raw"))))
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
        py_rows = pl.DataFrame(
            {
                "source_line": self.c_line,
                "conn_no": self.c_conn,
                "pair_no": self.c_pos,
                "parent": self.c_parent,
                "name": self.c_name,
                "value": self.c_value,
            },
            schema=_pair_schema(),
        )
        for lst in (self.c_line, self.c_conn, self.c_pos, self.c_parent, self.c_name, self.c_value):
            lst.clear()
        if self.s_frames:
            # socket lines split vectorised, back in line order among the state machine's rows
            py_rows = pl.concat([py_rows, *self.s_frames]).sort("source_line", maintain_order=True)
            self.s_frames = []
        if py_rows.height:
            frames.append(py_rows)
        if not frames:
            return
        df = pl.concat(frames)
        # poll of each row by position (connection numbers are consecutive): no join needed
        conn = df.get_column("conn_no")
        low, high = (conn.min(), conn.max()) if conn.len() else (0, -1)
        polls = pl.Series([self.conn_poll.get(u) for u in range(low, high + 1)], dtype=pl.Int64)
        for u in range(low, high + 1):
            if u != self.conn_no:
                self.conn_poll.pop(u, None)
        yield (
            PAIR.name,
            df.with_columns(
                poll_no=polls.gather(conn - low), source_file=pl.lit(self.ctx.source_file)
            ),
        )

    def split_frame(self, df: pl.DataFrame) -> pl.DataFrame:
        """The name/value pairs of a batch of block lines (``raw``), one row per pair; lines
        the vectorised split cannot read are split in Python.

        Long because: the vectorised split, one expression per column."""
        raw, c = pl.col("raw"), pl.col

        def part(col: str, i: int) -> pl.Expr:
            return c(col).struct.field(f"field_{i}")

        # Split with literal splits (much cheaper than a capturing regex): name up to the first
        # ":", value up to the first run of two blanks, then the second pair the same way; c1,
        # k, c2 are null where there is no ":", no two blanks, no second ":". Lines that are not
        # plain printable ASCII go to the Python splitter below.
        df = (
            df.lazy()
            .with_columns(lead=raw.str.strip_chars_start())
            .with_columns(
                indent=raw.str.len_bytes() - c("lead").str.len_bytes(),
                text=c("lead").str.strip_chars_end(),
            )
            .with_columns(a=c("text").str.splitn(":", 2))
            .with_columns(n1=part("a", 0), c1=part("a", 1))
            .with_columns(b=c("c1").str.strip_chars_start().str.splitn("  ", 2))
            .with_columns(v1=part("b", 0), k=part("b", 1))
            .with_columns(d=c("k").str.strip_chars_start().str.splitn(":", 2))
            .with_columns(
                n2=pl.when(part("d", 1).is_not_null()).then(part("d", 0)),
                c2=part("d", 1),
            )
            .with_columns(v2=c("c2").str.strip_chars_start().fill_null(""))
            .drop("lead", "a", "b", "d")
            .collect()
        )
        df = df.with_columns(parent=_parents(df))
        # A value holding ": " means more pairs than the columns show (the old one-blank
        # layout): those lines are split in Python.
        odd = (
            pl.col("c1").is_null()
            | (pl.col("k").is_not_null() & pl.col("c2").is_null())
            | ~pl.col("n1").str.contains(r"^[A-Za-z]")
            | (pl.col("n2").is_not_null() & ~pl.col("n2").str.contains(r"^[A-Za-z]"))
            | pl.col("np")
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
            rows: dict[str, list] = {k: [] for k in _pair_schema()}
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
            frames.append(pl.DataFrame(rows, schema=_pair_schema()))
        return pl.concat(frames)


def _adjacent(df: pl.DataFrame) -> bool:
    """Whether the frame's lines are in line order, each block's lines together."""
    conn = df.get_column("conn_no")
    line = df.get_column("source_line")
    return df.height < 2 or bool(
        ((conn.diff().fill_null(0) >= 0) & (line.diff().fill_null(1) > 0)).all()
    )


def _parents(df: pl.DataFrame) -> pl.Series:
    """Each line's parent: the name of the nearest line above it, in the same block, that is
    indented less (what an indentation stack gives). Lines of a block are usually adjacent and
    in order: then the nearest such line of the whole frame is taken and kept when it is of
    the same block, without grouping; otherwise (lines the state machine passed on come last)
    the search is made per block.

    Example:
        Round-trip information:            -> parent NULL
          Smooth trip time: 1.500          -> parent "Round-trip information"
    """
    levels = df.get_column("indent").unique().sort().to_list()
    adjacent = _adjacent(df)
    indent, n1, conn_no = pl.col("indent"), pl.col("n1"), pl.col("conn_no")
    parent = pl.lit(None, dtype=pl.Utf8)
    for lv in levels[1:]:
        lower = indent < lv
        if adjacent:
            name = pl.when(lower).then(n1).shift(1).forward_fill()
            owner = pl.when(lower).then(conn_no).shift(1).forward_fill()
            above = pl.when(owner == conn_no).then(name)
        else:
            above = pl.when(lower).then(n1).otherwise(None).shift(1).forward_fill().over("conn_no")
        parent = pl.when(indent == lv).then(above).otherwise(parent)
    return df.with_columns(parent.alias("parent")).get_column("parent")


def _pair_schema() -> dict:
    return {
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
_SOCKET_KEYS = frozenset(("local_socket", "foreign_socket"))
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


def _v_schema() -> dict:
    return {"source_line": pl.Int64, "conn_no": pl.Int64, "raw": pl.Utf8}


def _plain_sockets(s: pl.Series) -> pl.Series:
    """Lines (of a plain chunk, blanks stripped on the left) that :meth:`_State.special` takes as
    one socket: ``Local Socket:`` / ``Foreign Socket:``, a value without ``": "`` nor a final
    ``:``, no report header further on.

    Example:
        _plain_sockets(pl.Series(["Local Socket: 10.1.1.1..1414"])).to_list()  # [True]
    """
    start = s.str.starts_with("Local Socket:") | s.str.starts_with("Foreign Socket:")
    idx = start.arg_true()
    if idx.len() == 0:
        return start
    sub = s.gather(idx)
    value = sub.str.strip_chars_end().str.splitn(":", 2).struct.field("field_1").str.strip_chars()
    bad = (
        value.str.contains(": ", literal=True)
        | value.str.ends_with(":")
        | sub.str.contains("(?i:MVS TCP/IP NETSTAT)")
    )
    return start.scatter(idx.filter(bad), False) if bad.any() else start


def _not_plain(raw: pl.Series) -> pl.Series:
    """Lines that, stripped, hold something else than printable ASCII (tabs inside too): the
    literal splitter counts bytes and blanks, such lines go to :func:`split_pairs`.

    Example:
        _not_plain(pl.Series(["  a: b", "a:\tb"])).to_list()  # [False, True]
    """
    return raw.str.strip_chars().str.contains(r"[^\x20-\x7E]").alias("np")


def parse(ctx: ParseContext) -> Iterator[Batch]:
    """The compiled parser (``native/src/netstat.rs``) for a plain-text file when it is built,
    else :func:`parse_python`: the same rows, counters, errors and batches."""
    lib = _native.library()
    if lib is not None and _native.file_is_plain(lib, ctx):
        yield from parse_native(ctx, lib)
    else:
        yield from parse_python(ctx)


def parse_python(ctx: ParseContext) -> Iterator[Batch]:
    st = _State(ctx)
    last = 0
    for first, lines, plain in line_series(ctx, CHUNK_BYTES):
        st.feed(first, lines, plain)
        last = first + lines.len() - 1
        pending = sum(f.height for f in (*st.v_frames, *st.s_frames))
        pending += len(st.v_line) + len(st.c_line)
        if pending >= _BATCH_PAIRS:
            yield from st.take(final=False)
    st.end_conn(last)
    if st.conn_no == 0:
        raise ctx.error("no NETSTAT ALL connection block found", line=max(last, 1))
    yield from st.take(final=True)


# The compiled parser's counters, in its order (native/src/netstat.rs U_* and S_*).
_NATIVE_COUNTERS = (
    ("unknown", "netstat: line without a pair in a block"),
    ("unknown", "netstat: line outside a connection block"),
    ("skip", "command echo"),
)


def parse_native(ctx: ParseContext, lib) -> Iterator[Batch]:
    """:func:`parse_python`'s batches from the compiled parser, chunk by chunk."""
    import ctypes

    h = lib.mqn_ns_new()

    def check(rc: int) -> None:
        _native_counters(ctx, lib, h)
        _native.raise_for(ctx, lib, "ns", h, rc, "NETSTAT")

    try:
        pending = ctypes.c_int64()
        for first, data in text_chunks(ctx, CHUNK_BYTES):
            check(lib.mqn_ns_feed(h, data, len(data), first))
            lib.mqn_ns_pending(h, ctypes.byref(pending))
            if pending.value >= _BATCH_PAIRS:
                yield from _native_take(ctx, lib, h, final=False)
        check(lib.mqn_ns_finish(h))
        yield from _native_take(ctx, lib, h, final=True)
    finally:
        lib.mqn_ns_free(h)


def _native_counters(ctx: ParseContext, lib, h: int) -> None:
    """The unknown and skipped lines the compiled parser counted since the last call."""
    _native.add_counters(ctx, lib, "ns", h, _NATIVE_COUNTERS)


def _native_take(ctx: ParseContext, lib, h: int, final: bool) -> Iterator[Batch]:
    import ctypes

    pa = _native.pa
    rows, conns, lines = ctypes.c_int64(), ctypes.c_int64(), ctypes.c_int64()
    ptr = lib.mqn_ns_take(
        h, int(final), ctypes.byref(rows), ctypes.byref(conns), ctypes.byref(lines)
    )
    if not ptr:
        raise _native.NativeBug(f"{ctx.source_file}: the compiled NETSTAT parser failed")
    _native_counters(ctx, lib, h)  # the pair lines without a pair taken now
    b = _native.Batch(lib, ptr)
    n, k = rows.value, conns.value
    if k:
        conn = pa.table(
            {
                "source_file": constant_string(ctx.source_file, k),
                "source_line": b.ints(20, k),
                "poll_no": b.ints(21, k),
                "poll_time": b.ints(22, k, pa.time64("us"), valid=23),
                "poll_ts": b.ints(24, k, pa.timestamp("us"), valid=25),
                "poll_line": b.ints(26, k, valid=27),
                "netstat_release": b.views(28, k),
                "stack_name": b.views(31, k),
                "conn_no": b.ints(34, k),
                "client_name": b.views(35, k),
                "client_id": b.views(38, k),
                "local_socket": b.views(41, k),
                "foreign_socket": b.views(44, k),
            }
        )
        yield CONN.name, conn
    if n or lines.value:  # Python yields a frame, even an empty one, for any pair line
        df = pa.table(
            {
                "source_file": constant_string(ctx.source_file, n),
                "source_line": b.ints(0, n),
                "conn_no": b.ints(1, n),
                "pair_no": b.ints(2, n, pa.int32()),
                "parent": b.views(3, n),
                "name": b.views(6, n),
                "value": b.views(9, n),
                "poll_no": b.ints(12, n),
            }
        )
        yield PAIR.name, df


PARSER = Parser(
    kind="netstat",
    description="z/OS NETSTAT ALL report series (TCP connection details per poll)",
    tables=(CONN, PAIR),
    attributed_by_time=True,
    sniff=sniff,
    parse=parse,
    priority=40,
)
