"""``DISPLAY CHSTATUS`` captures (docs/formats.md section 3), distributed ``runmqsc`` and z/OS, as
repeated timestamped snapshots. Every ``KEY(value)`` is kept in long form.

Landing tables:

- ``chstatus_attr``: one row per attribute of a channel-status block, as printed (``KEY( )``
  keeps ``" "``, ``KEY()`` keeps ``""``, a stand-alone key such as ``CURRENT`` has a NULL value);
- ``chstatus_snapshot``: one row per snapshot (one run of the command): time, queue manager,
  form, channel count.

What the parser understands:

- distributed blocks opened by ``AMQ8417I:`` / ``AMQ8417:`` (or, header-less, by a line starting
  ``CHANNEL(``), ``KEY(value)`` in one or two columns, values with blanks and one level of nested
  parentheses (``CONNAME(127.0.0.1(1415))``), long values that break the columns, tab indents;
  a blank or non-attribute line ends the block;
- z/OS blocks ``CSQM201I <qmgr> CSQMDRTC DISPLAY CHSTATUS DETAILS`` ... ``END CHSTATUS DETAILS``
  (an unfinished block is an error), ``CSQM293I`` (count found: starts a snapshot),
  ``CSQ9022I`` (ends it), with or without job-log / SYSLOG prefixes (``hh.mm.ss JOBnnnnn``,
  ``N 0000000 SYSA yyddd hh:mm:ss.th ...``, continuation lines led by the message number);
- ``AMQ8420I`` / ``CSQM297I`` (no channel status found): a snapshot with no channel.

A snapshot starts at the first block after a boundary: a timestamp line, a command (``DIS
CHS(*)`` or its runmqsc echo ``  1 : DIS CHS(*)``), ``Starting MQSC``, the runmqsc trailer
(``One MQSC command read.``), ``CSQM293I``/``CSQ9022I``. Its time is the last timestamp line
before it (see ``_kv`` for the forms recognised), else the z/OS prefix time, else NULL (staging
and marts fall back to the file/run time). When a prefix gives only a time of day and no date
is known, ``snapshot_clock`` keeps it.

Other text is counted with ``ctx.unknown`` (the raw PCF dump some tools print after the MQSC
blocks is counted as ``PCF dump line`` and skipped). z/OS prints counters over 999,999,999 as
999999999: kept as printed.

Example::

    AMQ8417I: Display Channel Status details.
       CHANNEL(TO.QM2)                         CHLTYPE(SDR)
       NETTIME(25,0)                           XQTIME(3151,1099)
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import date, datetime, time, timedelta

from mqcap.arrowcols import constant_string
from mqcap.parsers import _native
from mqcap.parsers._kv import parse_clock, parse_jes_date, parse_stamp_line
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

ATTR = Table(
    "chstatus_attr",
    {
        **TEXT_LINEAGE,
        "snapshot_no": "BIGINT",
        "snapshot_time": "TIMESTAMP",
        "block_no": "BIGINT",
        "channel": "VARCHAR",
        "pair_no": "INTEGER",
        "key": "VARCHAR",
        "value": "VARCHAR",
    },
    "One row per KEY(value) (or stand-alone KEY) of a DISPLAY CHSTATUS block, value as printed.",
    identity=("snapshot_time", "channel"),  # per block, with its whole content (duplicates.py)
)
SNAPSHOT = Table(
    "chstatus_snapshot",
    {
        **TEXT_LINEAGE,
        "snapshot_no": "BIGINT",
        "snapshot_time": "TIMESTAMP",
        "snapshot_clock": "TIME",
        "time_line": "BIGINT",
        "qmgr": "VARCHAR",
        "form": "VARCHAR",
        "channel_count": "BIGINT",
        "expected_count": "BIGINT",
    },
    "One row per DISPLAY CHSTATUS snapshot (one run of the command) in a capture.",
    identity=("snapshot_time", "snapshot_clock", "qmgr", "form", "channel_count", "expected_count"),
)

# KEY(value), value with at most one level of nested parentheses, led by blanks or line start.
KV_RE = r"(?:^|\s+)[A-Z][A-Z0-9]*\((?:[^()]|\([^()]*\))*\)"
_PCF = re.compile(r"MQ[A-Z]{2,8}_[A-Z0-9_]+:")
_ECHO = re.compile(r"\d+\s*:\s*\S")
_JOBID = re.compile(r"(?:JOB|STC|TSU)\d{5}|[JST]\d{7}")
# The prompt of an interactive session, on the line of what follows it: runmqsc's MQPROMPT
# (``MQ1A> ``) or a z/OS command prefix (``+CSQ1 ``). Headers and command echoes after one are
# read as if the line started with them (a capture saved from a terminal keeps the prompt).
_PROMPT = re.compile(r"(?:[^\s()]*>|[+\-%!?/.][A-Z0-9@#$]{1,8})\s+")
# lines with "(" that the state machine sees: the channel line, commands, PCF dump, prompts
_NOT_ATTR_RE = r"^(?:CHANNEL\(|CHSTATUS\(|DIS|MQ|[^\s(]*>\s)"
_AFTER_PROMPT = ("AMQ84", "CSQM", "CSQ9", "DIS ", "DISPLAY ", "dis ", "display ")
_NAME_CHARS = set("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789@#$")
_BATCH_LINES = 200_000
_BATCH_SNAPSHOTS = 10_000
# Chunks of whole lines each parse step reads (both parsers: their batches end at the same lines).
CHUNK_BYTES = 4 * 1024 * 1024


def _v_schema() -> dict:
    return {"source_line": pl.Int64, "block_no": pl.Int64, "text": pl.Utf8}


def _attr_schema() -> dict:
    return {
        "source_line": pl.Int64,
        "block_no": pl.Int64,
        "pair_no": pl.Int32,
        "key": pl.Utf8,
        "value": pl.Utf8,
    }


_NO_META = (None, None, None, None)


def _unnamed_message(line: int) -> str:
    """The error of a block of attributes with no channel name (``unnamed_message`` in the
    compiled parser): its rows could not be told from another channel's."""
    return (
        f"channel-status block of line {line} names no channel (no CHANNEL( ) or CHSTATUS( )"
        " with a name)"
    )


def sniff(head: bytes, name: str) -> bool:
    if b"AMQ8417" in head:
        return True
    if b"CSQM201I" in head and b"CHSTATUS DETAILS" in head:
        return True
    return (
        re.search(rb"(?m)^\s*CHANNEL\([^)\n]*\)\s+CHLTYPE\(", head) is not None
        and b"STATUS(" in head
        and b"AMQ8414" not in head
    )


def scan_kv(s: str) -> list[tuple[str, str | None]] | None:
    """Attributes of one line, in order, by counting parentheses; None when it is not one.

    Example:
        >>> scan_kv("CONNAME(127.0.0.1(1415))   CURRENT")
        [('CONNAME', '127.0.0.1(1415)'), ('CURRENT', None)]
    """
    out: list[tuple[str, str | None]] = []
    i, n = 0, len(s)
    while i < n:
        while i < n and s[i].isspace():
            i += 1
        if i >= n:
            break
        j = i
        while j < n and s[j] in _NAME_CHARS:
            j += 1
        key = s[i:j]
        if not key or not key[0].isalpha():
            return None
        if j < n and s[j] == "(":
            depth, k = 1, j + 1
            while k < n and depth:
                c = s[k]
                if c == "(":
                    depth += 1
                elif c == ")":
                    depth -= 1
                k += 1
            if depth:
                return None
            out.append((key, s[j + 1 : k - 1]))
            i = k
        else:
            if j < n and not s[j].isspace():
                return None
            out.append((key, None))
            i = j
    return out or None


def _zos_prefix_time(tokens: list[str]) -> tuple[datetime | None, time | None]:
    """Time from job-log / SYSLOG prefix tokens: (timestamp if a date is printed, clock)."""
    for k, tok in enumerate(tokens):
        clock = parse_clock(tok)
        if clock is None:
            continue
        if k > 0 and len(tokens[k - 1]) == 5 and tokens[k - 1].isdecimal():
            yyddd = tokens[k - 1]
            day = int(yyddd[2:])
            if 1 <= day <= 366:
                d = date(2000 + int(yyddd[:2]), 1, 1) + timedelta(days=day - 1)
                return datetime.combine(d, clock), clock
        return None, clock
    return None, None


class _Snapshot:
    __slots__ = ("blocks", "clock", "expected", "form", "line", "no", "qmgr", "time", "time_line")

    def __init__(self, no: int, line: int) -> None:
        self.no = no
        self.line = line
        self.time: datetime | None = None
        self.clock: time | None = None
        self.time_line: int | None = None
        self.qmgr: str | None = None
        self.form: str | None = None
        self.blocks = 0
        self.expected: int | None = None


class _Block:
    __slots__ = ("channel", "conn_id", "fast", "line", "no", "snap", "zos")

    def __init__(self, no: int, line: int, snap: _Snapshot, zos: bool) -> None:
        self.no = no
        self.line = line
        self.snap = snap
        self.zos = zos
        self.channel: str | None = None
        self.conn_id: str | None = None
        # True when attribute lines can go straight to the vectorised splitter.
        self.fast = True


class _Parser:
    def __init__(self, ctx: ParseContext) -> None:
        self.ctx = ctx
        self.snap: _Snapshot | None = None
        self.blk: _Block | None = None
        self.n_snap = 0
        self.n_block = 0
        self.n_seen_blocks = 0
        self.pending_time: datetime | None = None
        self.pending_line: int | None = None
        self.qmgr: str | None = None
        self.jes_date: date | None = None
        self.snap_rows: list[dict] = []
        # block -> (snapshot no, snapshot time, channel, the block's first line)
        self.block_meta: dict[int, tuple[int, datetime | None, str | None, int]] = {}
        # vectorised attribute lines: frames per chunk, plus lines the state machine passed on
        self.v_frames: list[pl.DataFrame] = []
        self.v_line: list[int] = []
        self.v_block: list[int] = []
        self.v_text: list[str] = []
        # attributes split here (stand-alone keys, odd lines)
        self.p_line: list[int] = []
        self.p_block: list[int] = []
        self.p_pair: list[int] = []
        self.p_key: list[str] = []
        self.p_value: list[str | None] = []

    # -- snapshots and blocks ----------------------------------------------------------------
    def close_snapshot(self) -> None:
        s = self.snap
        if s is None:
            return
        if s.blocks or s.expected is not None or s.form is not None:
            self.snap_rows.append(
                {
                    "source_file": self.ctx.source_file,
                    "source_line": s.line,
                    "snapshot_no": s.no,
                    "snapshot_time": s.time,
                    "snapshot_clock": s.clock,
                    "time_line": s.time_line,
                    "qmgr": s.qmgr,
                    "form": s.form,
                    "channel_count": s.blocks,
                    "expected_count": s.expected,
                }
            )
            self.snap = None

    def boundary(self) -> None:
        """A line that ends the current snapshot if it holds anything."""
        self.blk = None
        s = self.snap
        if s is not None and (s.blocks or s.expected is not None or s.form is not None):
            self.close_snapshot()

    def open_snapshot(self, lineno: int) -> _Snapshot:
        if self.snap is None:
            self.n_snap += 1
            s = _Snapshot(self.n_snap, lineno)
            s.time, s.time_line = self.pending_time, self.pending_line
            s.qmgr = self.qmgr
            self.pending_time = self.pending_line = None
            self.snap = s
        return self.snap

    def open_block(self, lineno: int, zos: bool) -> _Block:
        s = self.open_snapshot(lineno)
        s.form = s.form or ("zos" if zos else "runmqsc")
        s.blocks += 1
        self.n_block += 1
        self.n_seen_blocks += 1
        b = _Block(self.n_block, lineno, s, zos)
        self.block_meta[b.no] = (s.no, s.time, None, lineno)
        self.blk = b
        return b

    def set_channel(self, b: _Block, value: str) -> None:
        b.channel = value.strip()
        self.block_meta[b.no] = (b.snap.no, b.snap.time, b.channel, b.line)

    def add_pairs(self, b: _Block, lineno: int, pairs: list[tuple[str, str | None]]) -> None:
        for k, (key, value) in enumerate(pairs, start=1):
            if (key == "CHANNEL" or key == "CHSTATUS") and b.channel is None and value:
                self.set_channel(b, value)
            self.p_line.append(lineno)
            self.p_block.append(b.no)
            self.p_pair.append(k)
            self.p_key.append(key)
            self.p_value.append(value)

    # -- the line loop ------------------------------------------------------------------------
    def feed(self, first: int, lines: pl.Series) -> None:
        """One chunk of lines: attribute lines are told apart vectorised; only the others
        (headers, blanks, timestamps, the channel line...) go through the state machine, as
        Python strings; a run of attribute lines in a block is handed to its block whole."""
        n = lines.len()
        s = lines.str.strip_chars()
        cand = (
            s.str.contains("(", literal=True)
            & s.str.contains("^[A-Z]")
            & ~s.str.contains(_NOT_ATTR_RE)
        )
        events = (~cand).arg_true().to_list()
        ev_text = texts(lines, events)
        events.append(n)
        starts: list[int] = []
        ends: list[int] = []
        owners: list[int] = []
        outside = 0
        prev = -1
        for k, idx in enumerate(events):
            a = prev + 1
            if a < idx:
                blk = self.blk
                if blk is None:
                    outside += idx - a
                elif blk.fast:
                    starts.append(a)
                    ends.append(idx)
                    owners.append(blk.no)
                else:
                    for j, line in enumerate(lines.slice(a, idx - a).to_list(), a):
                        self.step(first + j, line.strip())
            if idx == n:
                break
            self.step(first + idx, ev_text[k].strip())
            prev = idx
        if outside:
            self.ctx.unknown("chstatus: text outside a block", outside)
        if starts:
            owner = owner_column(n, starts, ends, owners)
            mask = owner > 0
            self.v_frames.append(
                pl.DataFrame(
                    {
                        "source_line": pl.int_range(first, first + n, eager=True).filter(mask),
                        "block_no": owner.filter(mask),
                        "text": s.filter(mask),
                    }
                )
            )

    def step(self, lineno: int, s: str) -> None:
        blk = self.blk
        if (
            blk is not None
            and blk.fast
            and s
            and "A" <= s[0] <= "Z"
            and "(" in s
            and not (">" in s and _PROMPT.match(s))
        ):
            if s.startswith(("CHANNEL(", "CHSTATUS(")):
                if blk.channel is None:
                    self.set_channel(blk, s[s.find("(") + 1 : _close_paren(s)])
                elif not blk.zos:
                    blk = self.open_block(lineno, zos=False)
                    self.set_channel(blk, s[s.find("(") + 1 : _close_paren(s)])
            self.v_line.append(lineno)
            self.v_block.append(blk.no)
            self.v_text.append(s)
            return
        self.event(lineno, s)

    def event(self, lineno: int, s: str) -> None:
        ctx = self.ctx
        blk = self.blk
        if blk is not None and blk.zos:
            if "END CHSTATUS DETAILS" in s:
                self.blk = None
                return
            if "CSQM201I" in s:
                raise ctx.error(
                    f"CSQM201I block of line {blk.line} has no END CHSTATUS DETAILS", line=lineno
                )
            self.zos_line(blk, lineno, s)
            return
        if blk is not None:
            if not s:
                self.blk = None
                return
            if s.isalnum() and s.isupper() and s[0].isalpha() and len(s) <= 12:
                self.add_pairs(blk, lineno, [(s, None)])
                return
            self.blk = None
        if not s:
            return
        if (m := _PROMPT.match(s)) and (
            s[m.end() :].startswith(_AFTER_PROMPT) or _ECHO.match(s[m.end() :])
        ):
            s = s[m.end() :]
        if s.startswith("AMQ8417"):
            if self.snap is not None and self.snap.form == "zos":
                self.boundary()
            self.open_block(lineno, zos=False)
            return
        if "CSQM201I" in s:
            self.zos_header(lineno, s)
            return
        stamp = parse_stamp_line(s) if len(s) < 50 else None
        if stamp is not None:
            self.boundary()
            if self.snap is not None:
                self.snap.time, self.snap.time_line = stamp, lineno
            else:
                self.pending_time, self.pending_line = stamp, lineno
            return
        if s.startswith(("CHANNEL(", "CHSTATUS(")):
            b = self.open_block(lineno, zos=False)
            pairs = scan_kv(s)
            if pairs is None:
                ctx.unknown("chstatus: unparsable attribute line")
            else:
                self.add_pairs(b, lineno, pairs)
            return
        if s.startswith("MQ") and _PCF.match(s):
            ctx.unknown("PCF dump line")
            return
        self.other(lineno, s)

    def other(self, lineno: int, s: str) -> None:
        ctx = self.ctx
        u = s.upper()
        if "MQSC COMMAND" in u or "SYNTAX ERROR" in u:
            self.boundary()
            ctx.skip("runmqsc trailer")
        elif u.startswith("STARTING MQSC FOR QUEUE MANAGER"):
            self.boundary()
            self.qmgr = s.split()[-1].rstrip(".") or None
            ctx.skip("runmqsc banner")
        elif u.startswith(("DIS ", "DISPLAY ")) or (_ECHO.match(s) and " DIS" in u):
            self.boundary()
            ctx.skip("command echo")
        elif s.startswith("AMQ8420") or "CSQM297I" in s:
            self.boundary()
            snap = self.open_snapshot(lineno)
            snap.form = "zos" if "CSQM297I" in s else "runmqsc"
            snap.expected = 0
            self.close_snapshot()
        elif "CSQM293I" in s:
            self.boundary()
            snap = self.open_snapshot(lineno)
            snap.form = "zos"
            idx = s.find("CSQM293I")
            words = s[idx:].split()
            for k, w in enumerate(words):
                if w == "CHSTATUS" and k and words[k - 1].isdecimal() and len(words[k - 1]) < 10:
                    snap.expected = int(words[k - 1])
            self.zos_snapshot_time(snap, s[:idx].split(), lineno)
            if snap.qmgr is None and len(words) > 1:
                snap.qmgr = _qmgr(words[1])
        elif "CSQ9022I" in s:
            self.boundary()
            ctx.skip("z/OS completion message")
        elif "5724-H72" in s or "COPYRIGHT IBM" in u:
            ctx.skip("runmqsc banner")
        else:
            jes = parse_jes_date(s)
            if jes is not None:
                self.jes_date = jes
                return
            ctx.unknown("chstatus: text outside a block")

    # -- z/OS -------------------------------------------------------------------------------
    def zos_snapshot_time(self, snap: _Snapshot, prefix: list[str], lineno: int) -> None:
        if snap.time is not None or not prefix:
            return
        stamp, clock = _zos_prefix_time(prefix)
        if stamp is None and clock is not None and self.jes_date is not None:
            stamp = datetime.combine(self.jes_date, clock)
        if stamp is not None:
            snap.time, snap.time_line = stamp, lineno
        elif clock is not None:
            snap.clock, snap.time_line = clock, lineno

    def zos_header(self, lineno: int, s: str) -> None:
        idx = s.find("CSQM201I")
        prefix = s[:idx].split()
        words = s[idx:].split()
        if self.snap is not None and self.snap.form == "runmqsc":
            self.boundary()
        b = self.open_block(lineno, zos=True)
        snap = b.snap
        if len(words) > 1 and snap.qmgr is None:
            snap.qmgr = _qmgr(words[1])
        self.zos_snapshot_time(snap, prefix, lineno)
        self.block_meta[b.no] = (snap.no, snap.time, None, b.line)
        if words and words[-1].isdecimal() and len(words) > 6:
            b.conn_id = words[-1]
        b.fast = not prefix

    def zos_line(self, b: _Block, lineno: int, s: str) -> None:
        if not s:
            return
        p = s.find("(")
        if p < 0:
            last = s.split()[-1]
            if last.isalpha() and last.isupper() and not _JOBID.fullmatch(last):
                self.add_pairs(b, lineno, [(last, None)])
            elif not (last.isdecimal() or last == b.conn_id):
                self.ctx.unknown("chstatus: unknown line in a z/OS block")
            return
        k = p
        while k > 0 and s[k - 1] in _NAME_CHARS:
            k -= 1
        pairs = scan_kv(s[k:])
        if pairs is None:
            self.ctx.unknown("chstatus: unparsable attribute line")
            return
        self.add_pairs(b, lineno, pairs)

    # -- batches ----------------------------------------------------------------------------
    def take(self, final: bool) -> Iterator[Batch]:
        snap_rows = self.snap_rows
        self.snap_rows = []
        frames = self.v_frames
        self.v_frames = []
        if self.v_line:
            frames.append(
                pl.DataFrame(
                    {"source_line": self.v_line, "block_no": self.v_block, "text": self.v_text},
                    schema=_v_schema(),
                )
            )
            self.v_line, self.v_block, self.v_text = [], [], []
        keep_p = len(self.p_line)
        b = self.blk
        vec = pl.concat(frames) if frames else None
        if not final and b is not None and b.channel is None:
            # The channel line of the open block is still to come: hold its attributes back.
            keep_p = _first_of(self.p_block, b.no)
            if vec is not None:
                held = vec.filter(pl.col("block_no") == b.no)
                if held.height:
                    self.v_frames.append(held)
                    vec = vec.filter(pl.col("block_no") != b.no)
        frames = []
        if vec is not None and vec.height:
            frames.append(self.vector_frame(vec))
        if keep_p:
            frames.append(
                pl.DataFrame(
                    {
                        "source_line": self.p_line[:keep_p],
                        "block_no": self.p_block[:keep_p],
                        "pair_no": self.p_pair[:keep_p],
                        "key": self.p_key[:keep_p],
                        "value": self.p_value[:keep_p],
                    },
                    schema=_attr_schema(),
                )
            )
            for lst in (self.p_line, self.p_block, self.p_pair, self.p_key, self.p_value):
                del lst[:keep_p]
        if not frames:
            if snap_rows:
                yield SNAPSHOT.name, snap_rows
            return
        df = pl.concat(frames, how="vertical")
        # block of each row by position (block numbers are consecutive): no join needed
        block = df.get_column("block_no")
        low, high = (block.min(), block.max()) if block.len() else (0, -1)
        meta = [self.block_meta.get(u, _NO_META) for u in range(low, high + 1)]
        unnamed = [u for u, m in enumerate(meta, low) if m[3] is not None and not m[2]]
        if unnamed and (hit := block.filter(block.is_in(unnamed)).min()) is not None:
            line = meta[hit - low][3]
            raise self.ctx.error(_unnamed_message(line), line=line)
        if snap_rows:
            yield SNAPSHOT.name, snap_rows
        at = block - low
        open_no = self.blk.no if self.blk is not None else None
        for u in range(low, high + 1):
            if u != open_no:
                self.block_meta.pop(u, None)
        df = df.with_columns(
            snapshot_no=pl.Series([m[0] for m in meta], dtype=pl.Int64).gather(at),
            snapshot_time=pl.Series([m[1] for m in meta], dtype=pl.Datetime("us")).gather(at),
            channel=pl.Series([m[2] for m in meta], dtype=pl.Utf8).gather(at),
            source_file=pl.lit(self.ctx.source_file),
        )
        yield ATTR.name, df

    def vector_frame(self, df: pl.DataFrame) -> pl.DataFrame:
        """Attributes of the attribute lines: a line is clean when its ``KEY(value)`` matches
        cover it (one trailing stand-alone key allowed); other lines go to :func:`scan_kv`."""
        text = pl.col("text")
        df = df.with_columns(p=text.str.extract_all(KV_RE))
        # The matches are disjoint and in order: they cover the line exactly when their lengths
        # add up to its length (as fast as that test is, joining them to compare is not).
        whole = (
            pl.col("p").list.eval(pl.element().str.len_bytes()).list.sum() == text.str.len_bytes()
        )
        clean = df.filter(whole)
        rest = df.filter(~whole)
        if rest.height:
            # A trailing stand-alone key (``CURMSGS(0)   CURRENT``) is one more pair, no value.
            joined = pl.col("p").list.join("")
            tail = text.str.slice(joined.str.len_chars()).str.strip_chars()
            rest = rest.with_columns(
                ok=text.str.starts_with(joined) & tail.str.contains(r"^[A-Z][A-Z0-9]*$"),
                p=pl.concat_list(pl.col("p"), tail),
            )
            odd = rest.filter(~pl.col("ok"))
            clean = pl.concat([clean, rest.filter(pl.col("ok")).drop("ok")])
        else:
            odd = rest
        # Keys are ASCII, so the byte offset of the first "(" is also its character offset.
        out = (
            clean.lazy()
            .select("source_line", "block_no", "p")
            .with_columns(pair_no=pl.int_ranges(1, pl.col("p").list.len() + 1, dtype=pl.Int32))
            .explode(["p", "pair_no"])
            .with_columns(pl.col("p").str.strip_chars_start())
            .with_columns(i=pl.col("p").str.find("(", literal=True))
            .select(
                "source_line",
                "block_no",
                "pair_no",
                pl.when(pl.col("i").is_null())
                .then(pl.col("p"))
                .otherwise(pl.col("p").str.head(pl.col("i")))
                .alias("key"),
                pl.col("p").str.slice(pl.col("i") + 1).str.head(-1).alias("value"),
            )
            .collect()
        )
        if odd.height:
            rows: dict[str, list] = {k: [] for k in _attr_schema()}
            for lineno, block_no, text in odd.select("source_line", "block_no", "text").iter_rows():
                pairs = scan_kv(text)
                if pairs is None:
                    self.ctx.unknown("chstatus: unparsable attribute line")
                    continue
                for k, (key, value) in enumerate(pairs, start=1):
                    rows["source_line"].append(lineno)
                    rows["block_no"].append(block_no)
                    rows["pair_no"].append(k)
                    rows["key"].append(key)
                    rows["value"].append(value)
            out = pl.concat([out, pl.DataFrame(rows, schema=_attr_schema())])
        return out


def _first_of(blocks: list[int], no: int) -> int:
    """Index of the first entry of block ``no`` in a list that ends with that block's entries."""
    i = len(blocks)
    while i and blocks[i - 1] == no:
        i -= 1
    return i


def _close_paren(s: str) -> int:
    """Index of the parenthesis closing the first one opened in ``s`` (or the line end)."""
    i, j = s.find("("), s.find(")")
    if 0 <= i < j and s.find("(", i + 1, j) < 0:
        return j
    depth = 0
    for k, c in enumerate(s):
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return k
    return len(s)


def _qmgr(word: str) -> str | None:
    """Queue manager name from the word after a CSQ message id (command prefix removed)."""
    k = 0
    while k < len(word) and word[k] not in _NAME_CHARS:
        k += 1
    return word[k:] or None


def parse(ctx: ParseContext) -> Iterator[Batch]:
    """The compiled parser (``native/src/chstatus.rs``) for a plain-text file when it is built,
    else :func:`parse_python`: the same rows, counters, errors and batches."""
    lib = _native.library()
    if lib is not None and _native.file_is_plain(lib, ctx):
        yield from parse_native(ctx, lib)
    else:
        yield from parse_python(ctx)


def parse_python(ctx: ParseContext) -> Iterator[Batch]:
    p = _Parser(ctx)
    for first, lines, _ in line_series(ctx, CHUNK_BYTES):
        p.feed(first, lines)
        pending = sum(f.height for f in p.v_frames) + len(p.v_line)
        if pending >= _BATCH_LINES or len(p.snap_rows) >= _BATCH_SNAPSHOTS:
            yield from p.take(final=False)
    if p.blk is not None and p.blk.zos:
        raise ctx.error(
            f"z/OS CHSTATUS block of line {p.blk.line} cut: no END CHSTATUS DETAILS before the end",
            line=p.blk.line,
        )
    p.blk = None
    p.close_snapshot()
    if p.n_seen_blocks == 0 and p.n_snap == 0:
        raise ctx.error("no DISPLAY CHSTATUS block found", line=1)
    yield from p.take(final=True)


# The compiled parser's counters, in its order (native/src/chstatus.rs U_* and S_*).
_NATIVE_COUNTERS = (
    ("unknown", "chstatus: text outside a block"),
    ("unknown", "chstatus: unparsable attribute line"),
    ("unknown", "PCF dump line"),
    ("unknown", "chstatus: unknown line in a z/OS block"),
    ("skip", "runmqsc trailer"),
    ("skip", "runmqsc banner"),
    ("skip", "command echo"),
    ("skip", "z/OS completion message"),
)


def parse_native(ctx: ParseContext, lib) -> Iterator[Batch]:
    """:func:`parse_python`'s batches from the compiled parser, chunk by chunk."""
    import ctypes

    h = lib.mqn_chs_new()

    def check(rc: int) -> None:
        _native_counters(ctx, lib, h)
        _native.raise_for(ctx, lib, "chs", h, rc, "CHSTATUS")

    try:
        lines, snaps = ctypes.c_int64(), ctypes.c_int64()
        for first, data in text_chunks(ctx, CHUNK_BYTES):
            check(lib.mqn_chs_feed(h, data, len(data), first))
            lib.mqn_chs_pending(h, ctypes.byref(lines), ctypes.byref(snaps))
            if lines.value >= _BATCH_LINES or snaps.value >= _BATCH_SNAPSHOTS:
                yield from _native_take(ctx, lib, h, final=False)
        check(lib.mqn_chs_finish(h))
        yield from _native_take(ctx, lib, h, final=True)
    finally:
        lib.mqn_chs_free(h)


def _native_counters(ctx: ParseContext, lib, h: int) -> None:
    """The unknown and skipped lines the compiled parser counted since the last call."""
    _native.add_counters(ctx, lib, "chs", h, _NATIVE_COUNTERS)


def _native_take(ctx: ParseContext, lib, h: int, final: bool) -> Iterator[Batch]:
    import ctypes

    pa = _native.pa
    rows, snaps, lines = ctypes.c_int64(), ctypes.c_int64(), ctypes.c_int64()
    # a block of attributes that names no channel: the error before anything is taken (the
    # unparsable lines it counts first, as Python's take does)
    rc = lib.mqn_chs_check(h, int(final))
    _native_counters(ctx, lib, h)
    _native.raise_for(ctx, lib, "chs", h, rc, "CHSTATUS")
    ptr = lib.mqn_chs_take(
        h, int(final), ctypes.byref(rows), ctypes.byref(snaps), ctypes.byref(lines)
    )
    if not ptr:
        raise _native.NativeBug(f"{ctx.source_file}: the compiled CHSTATUS parser failed")
    _native_counters(ctx, lib, h)  # the unparsable attribute lines taken now
    b = _native.Batch(lib, ptr)
    n, k = rows.value, snaps.value
    if k:
        snap = pa.table(
            {
                "source_file": constant_string(ctx.source_file, k),
                "source_line": b.ints(20, k),
                "snapshot_no": b.ints(21, k),
                "snapshot_time": b.ints(22, k, pa.timestamp("us"), valid=23),
                "snapshot_clock": b.ints(24, k, pa.time64("us"), valid=25),
                "time_line": b.ints(26, k, valid=27),
                "qmgr": b.strings(28, k),
                "form": b.strings(31, k),
                "channel_count": b.ints(34, k),
                "expected_count": b.ints(35, k, valid=36),
            }
        )
        yield SNAPSHOT.name, snap
    if n or lines.value:  # Python yields a frame, even an empty one, for any attribute line
        df = pa.table(
            {
                "source_file": constant_string(ctx.source_file, n),
                "source_line": b.ints(0, n),
                "block_no": b.ints(1, n),
                "pair_no": b.ints(2, n, pa.int32()),
                "key": b.views(3, n),
                "value": b.views(6, n),
                "snapshot_no": b.ints(9, n, valid=10),
                "snapshot_time": b.ints(11, n, pa.timestamp("us"), valid=12),
                "channel": b.views(13, n),
            }
        )
        yield ATTR.name, df


PARSER = Parser(
    kind="chstatus",
    description="DISPLAY CHSTATUS captures (runmqsc AMQ8417 blocks, z/OS CSQM201I), snapshots",
    tables=(ATTR, SNAPSHOT),
    sniff=sniff,
    parse=parse,
    priority=40,
)
