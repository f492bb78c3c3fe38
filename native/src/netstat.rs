//! z/OS `NETSTAT ALL` poll series in one pass over the bytes: a port of
//! `mqcap/parsers/netstat.py` (`_State.feed`, `step`, `special`, `other`, `header`, the
//! connection blocks, `take`, `split_frame`, `_parents`, `split_pairs`, `_plain_sockets`), for
//! plain text only (printable ASCII, tab, carriage return: the Python side checks the whole
//! file first and parses anything else itself). The rows, counters, errors and the batches'
//! boundaries are the Python parser's; `tests/test_native_netstat.py` holds the two to that.
//!
//! What the Python parser does in bulk is done here line by line, keeping what its frames'
//! order decides: a pair line's parent is looked for among the lines before it *in the frame*
//! of its batch (held lines of the open block, the lines of the chunks, then the lines the state
//! machine passed on), so the three kinds are kept apart until `take` (`VStore`s `h`, `k`, `p`);
//! a chunk with a tab or a carriage return is not "plain" for Python (`_lines.line_series`), and
//! its socket lines go through the state machine, not through `_plain_sockets`.

use crate::columns::ViewCol;
use crate::stamps::{parse_clock, parse_stamp_line};
use crate::text::*;

pub const U_IN_BLOCK: usize = 0; // "netstat: line without a pair in a block"
pub const U_OUTSIDE: usize = 1; // "netstat: line outside a connection block"
pub const S_ECHO: usize = 2; // "command echo"
pub const N_COUNTERS: usize = 3;

const HEADER: &[u8] = b"MVS TCP/IP NETSTAT";
const SPECIAL_PREFIXES: [&[u8]; 6] = [
    b"Client Name:",
    b"Client:",
    b"Local Socket:",
    b"Foreign Socket:",
    b"MVS ",
    b"mvs ",
];
// the blocks' fields (`_CONN_FIELDS`): client_name, client_id, local_socket, foreign_socket
const F_LOCAL: usize = 2;
const F_FOREIGN: usize = 3;

fn field_of(name: &[u8]) -> Option<usize> {
    match name {
        b"Client Name" | b"Client" => Some(0),
        b"Client Id" => Some(1),
        b"Local Socket" => Some(F_LOCAL),
        b"Foreign Socket" => Some(F_FOREIGN),
        _ => None,
    }
}

/// Rows `a..b` of `o` appended to `c`.
fn extend_col(c: &mut ViewCol, o: &ViewCol, a: usize, b: usize) {
    for i in a..b {
        c.push(o.get(i));
    }
}

/// Rows `n..` of a column dropped (their bytes stay in its buffers, unreferenced).
fn truncate_col(c: &mut ViewCol, n: usize) {
    c.views.truncate(n);
    c.valid.truncate(n);
}

/// `netstat_pair` rows without their parent and poll, as columns.
#[derive(Default)]
pub struct Rows {
    pub line: Vec<i64>,
    pub conn: Vec<i64>,
    pub pair: Vec<i32>,
    pub name: ViewCol,
    pub value: ViewCol,
}

impl Rows {
    #[inline]
    fn push(&mut self, line: i64, conn: i64, pair: i32, name: &[u8], value: &[u8]) {
        self.line.push(line);
        self.conn.push(conn);
        self.pair.push(pair);
        self.name.push(Some(name));
        self.value.push(Some(value));
    }
    pub fn len(&self) -> usize {
        self.line.len()
    }
    pub fn is_empty(&self) -> bool {
        self.line.is_empty()
    }
    fn extend_from(&mut self, o: &Rows, a: usize, b: usize) {
        self.line.extend_from_slice(&o.line[a..b]);
        self.conn.extend_from_slice(&o.conn[a..b]);
        self.pair.extend_from_slice(&o.pair[a..b]);
        extend_col(&mut self.name, &o.name, a, b);
        extend_col(&mut self.value, &o.value, a, b);
    }
    fn truncate(&mut self, n: usize) {
        self.line.truncate(n);
        self.conn.truncate(n);
        self.pair.truncate(n);
        truncate_col(&mut self.name, n);
        truncate_col(&mut self.value, n);
    }
}

/// Pair lines of blocks waiting for `take` (Python's `v_frames` / `v_line` lines), split as
/// `split_frame` splits them; their parents are found in `take`. Per line: its block, indent,
/// `n1` (the text before its first ":", what a line below it gets as parent), its rows (the
/// rows of lines `..i` end at `row_end[i]`), and whether `split_pairs` found no pair in it
/// (counted when taken, as Python counts it).
#[derive(Default)]
struct VStore {
    rows: Rows,
    conn: Vec<i64>,
    indent: Vec<i64>,
    n1: ViewCol,
    row_end: Vec<usize>,
    unknown: Vec<bool>,
}

/// Scratch space of `split_pairs`: separator positions and (name, value) ranges.
#[derive(Default)]
struct Scratch {
    seps: Vec<usize>,
    pairs: Vec<(usize, usize, usize, usize)>,
}

impl VStore {
    fn len(&self) -> usize {
        self.conn.len()
    }
    /// Room for the pair lines of `bytes` more of text (a guess: growing by copies costs more).
    fn reserve(&mut self, bytes: usize) {
        let (lines, rows) = (bytes / 32, bytes / 24);
        self.conn.reserve(lines);
        self.indent.reserve(lines);
        self.n1.views.reserve(lines);
        self.n1.valid.reserve(lines);
        self.row_end.reserve(lines);
        self.unknown.reserve(lines);
        let r = &mut self.rows;
        r.line.reserve(rows);
        r.conn.reserve(rows);
        r.pair.reserve(rows);
        for col in [&mut r.name, &mut r.value] {
            col.views.reserve(rows);
            col.valid.reserve(rows);
        }
    }
    fn row_start(&self, i: usize) -> usize {
        if i == 0 {
            0
        } else {
            self.row_end[i - 1]
        }
    }
    /// Where the lines of block `held` start (they are the last ones: it is the open block).
    fn held_from(&self, held: Option<i64>) -> usize {
        let mut n = self.len();
        if let Some(h) = held {
            while n > 0 && self.conn[n - 1] == h {
                n -= 1;
            }
        }
        n
    }
    /// Appends lines `a..` of `o`.
    fn extend_from(&mut self, o: &VStore, a: usize) {
        let n = o.len();
        if a >= n {
            return;
        }
        let r0 = o.row_start(a);
        let shift = self.rows.len() as isize - r0 as isize;
        self.rows.extend_from(&o.rows, r0, o.rows.len());
        self.conn.extend_from_slice(&o.conn[a..]);
        self.indent.extend_from_slice(&o.indent[a..]);
        extend_col(&mut self.n1, &o.n1, a, n);
        self.row_end.extend(
            o.row_end[a..]
                .iter()
                .map(|&e| (e as isize + shift) as usize),
        );
        self.unknown.extend_from_slice(&o.unknown[a..]);
    }
    fn truncate(&mut self, n: usize) {
        if n >= self.len() {
            return;
        }
        self.rows.truncate(self.row_start(n));
        self.conn.truncate(n);
        self.indent.truncate(n);
        truncate_col(&mut self.n1, n);
        self.row_end.truncate(n);
        self.unknown.truncate(n);
    }

    /// One pair line of block `conn`: `split_frame`'s literal split when the line is not odd,
    /// else `split_pairs`. `lead`: the line stripped on the left (`indent` blanks dropped);
    /// `colon`: where its first ":" is (the state machine sends only lines with one); `plain`:
    /// the chunk has no tab nor carriage return (then no line has one inside).
    #[allow(clippy::too_many_arguments)]
    fn push_line(
        &mut self,
        lineno: i64,
        conn: i64,
        lead: &[u8],
        indent: usize,
        colon: usize,
        plain: bool,
        sc: &mut Scratch,
    ) {
        let indent = indent as i64;
        let text = rstrip(lead);
        let i = colon.min(text.len());
        let n1 = &text[..i];
        self.conn.push(conn);
        self.indent.push(indent);
        self.n1.push(Some(n1));
        // np: a tab or carriage return inside (the stripped line is not printable ASCII)
        let mut odd = n1.first().is_none_or(|c| !c.is_ascii_alphabetic())
            || (!plain && text.iter().any(|&c| c == b'\t' || c == b'\r'));
        let c1l = lstrip(if i < text.len() { &text[i + 1..] } else { b"" });
        let (v1, n2, v2): (&[u8], Option<&[u8]>, &[u8]) = match find(c1l, b"  ") {
            Some(j) => {
                let kl = lstrip(&c1l[j + 2..]);
                match find_byte(kl, b':') {
                    Some(m) => (&c1l[..j], Some(&kl[..m]), lstrip(&kl[m + 1..])),
                    None => {
                        odd = true;
                        (&c1l[..j], None, b"")
                    }
                }
            }
            None => (c1l, None, b""),
        };
        if let Some(n2) = n2 {
            odd |= n2.first().is_none_or(|c| !c.is_ascii_alphabetic());
        }
        odd = odd
            || contains(v1, b": ")
            || v1.ends_with(b":")
            || contains(v2, b": ")
            || v2.ends_with(b":");
        let mut unknown = false;
        if !odd {
            self.rows.push(lineno, conn, 1, n1, v1);
            if let Some(n2) = n2 {
                self.rows.push(lineno, conn, 2, n2, v2);
            }
        } else if split_pairs(text, sc) {
            for (k, &(a, b, c, d)) in sc.pairs.iter().enumerate() {
                self.rows
                    .push(lineno, conn, k as i32 + 1, &text[a..b], &text[c..d]);
            }
        } else {
            unknown = true;
        }
        self.row_end.push(self.rows.len());
        self.unknown.push(unknown);
    }
}

/// The range of `s[a..b].strip()`.
#[inline]
fn strip_range(s: &[u8], mut a: usize, mut b: usize) -> (usize, usize) {
    while a < b && is_ws(s[a]) {
        a += 1;
    }
    while b > a && is_ws(s[b - 1]) {
        b -= 1;
    }
    (a, b)
}

/// Python `seg.rfind("  ")`.
fn rfind2(seg: &[u8]) -> Option<usize> {
    if seg.len() < 2 {
        return None;
    }
    (0..seg.len() - 1)
        .rev()
        .find(|&i| seg[i] == b' ' && seg[i + 1] == b' ')
}

/// `split_pairs`: the (name, value) ranges of one stripped line into `sc.pairs`; false when
/// there is none.
fn split_pairs(s: &[u8], sc: &mut Scratch) -> bool {
    sc.seps.clear();
    sc.pairs.clear();
    let n = s.len();
    for k in 0..n {
        if s[k] == b':' && (k + 1 == n || s[k + 1] == b' ' || s[k + 1] == b'\t') {
            sc.seps.push(k);
        }
    }
    if sc.seps.is_empty() {
        return false;
    }
    let mut name = strip_range(s, 0, sc.seps[0]);
    if name.0 == name.1 || !s[name.0].is_ascii_alphabetic() {
        return false;
    }
    let mut start = sc.seps[0] + 1;
    for idx in 1..sc.seps.len() {
        let c = sc.seps[idx];
        let (sa, sb) = strip_range(s, start, c);
        let seg = &s[sa..sb];
        let cut = rfind2(seg).or_else(|| seg.iter().rposition(|&x| x == b'\t'));
        let (value, nxt) = match cut {
            Some(cut) => {
                let value = rstrip(&s[sa..sa + cut]);
                ((sa, sa + value.len()), strip_range(s, sa + cut, sb))
            }
            None => match find_byte(seg, b' ') {
                // "a: b:c" - the colon belongs to the value
                None => continue,
                Some(sp) => ((sa, sa + sp), strip_range(s, sa + sp + 1, sb)),
            },
        };
        if nxt.0 == nxt.1 || !s[nxt.0].is_ascii_alphabetic() {
            continue;
        }
        sc.pairs.push((name.0, name.1, value.0, value.1));
        name = nxt;
        start = c + 1;
    }
    let last = strip_range(s, start, n);
    sc.pairs.push((name.0, name.1, last.0, last.1));
    true
}

/// `_STAMP_START.match(s)`: `\d{4}-\d\d-\d\d[T ]\d|(?i:(?:mon|...|sun)[a-z]*,? )`.
fn stamp_start(s: &[u8]) -> bool {
    let d = |i: usize| s[i].is_ascii_digit();
    if s.len() >= 12
        && d(0)
        && d(1)
        && d(2)
        && d(3)
        && s[4] == b'-'
        && d(5)
        && d(6)
        && s[7] == b'-'
        && d(8)
        && d(9)
        && (s[10] == b'T' || s[10] == b' ')
        && d(11)
    {
        return true;
    }
    if s.len() < 4 || !DAYS.iter().any(|day| s[..3].eq_ignore_ascii_case(day)) {
        return false;
    }
    // the letter run cannot give a letter back: ",? " must follow it
    let mut i = 3;
    while i < s.len() && s[i].is_ascii_alphabetic() {
        i += 1;
    }
    if i < s.len() && s[i] == b',' {
        i += 1;
    }
    i < s.len() && s[i] == b' '
}

/// Whether bytes hold a tab or a carriage return (in blocks, so that the test is vectorised).
fn has_tab_or_cr(data: &[u8]) -> bool {
    data.chunks(4096).any(|b| {
        b.iter()
            .fold(false, |acc, &c| acc | (c == b'\t') | (c == b'\r'))
    })
}

/// `s.upper().find("MVS TCP/IP NETSTAT")`: found by its one "/".
#[inline]
fn find_header(s: &[u8]) -> Option<usize> {
    if s.len() < HEADER.len() || !s.contains(&b'/') {
        return None;
    }
    let mut from = 7;
    while from + 11 <= s.len() {
        let p = from + find_byte(&s[from..s.len() - 10], b'/')?;
        if s[p - 7..p + 11].eq_ignore_ascii_case(HEADER) {
            return Some(p - 7);
        }
        from = p + 1;
    }
    None
}

#[inline]
fn starts_header(s: &[u8]) -> bool {
    starts_with_ci(s, HEADER)
}

/// Not a pair line though it has a ":" (`_NOT_PAIR_RE`), `s` stripped on the left.
#[inline]
fn not_pair(s: &[u8]) -> bool {
    s.starts_with(b"Client Name:")
        || s.starts_with(b"Client:")
        || s.starts_with(b"Local Socket:")
        || s.starts_with(b"Foreign Socket:")
        || starts_with_ci(s, b"MVS ")
        || stamp_start(s)
        || find_header(s).is_some()
}

/// `_plain_sockets` for one line (stripped on the left).
#[inline]
fn plain_socket(s: &[u8]) -> bool {
    if !(s.starts_with(b"Local Socket:") || s.starts_with(b"Foreign Socket:")) {
        return false;
    }
    let r = rstrip(s);
    let i = find_byte(r, b':').unwrap_or(r.len());
    let value = strip(&r[(i + 1).min(r.len())..]);
    !contains(value, b": ") && !value.ends_with(b":") && find_header(s).is_none()
}

struct Conn {
    line: i64,
    poll_no: i64,
    poll_time: Option<i64>,
    poll_ts: Option<i64>,
    poll_line: Option<i64>,
    release: Option<Vec<u8>>,
    stack: Option<Vec<u8>>,
    no: i64,
    /// client_name, client_id, local_socket, foreign_socket
    f: [Option<Vec<u8>>; 4],
}

/// What one `take` gives: the `netstat_pair` rows (with parent and poll), the blocks ended.
#[derive(Default)]
pub struct Out {
    pub rows: Rows,
    pub parent: ViewCol,
    pub poll: Vec<i64>,
    /// pair lines taken (Python yields a frame, maybe empty, when there were any)
    pub lines_taken: i64,
    pub c_line: Vec<i64>,
    pub c_poll: Vec<i64>,
    pub c_time: Vec<Option<i64>>,
    pub c_ts: Vec<Option<i64>>,
    pub c_poll_line: Vec<Option<i64>>,
    pub c_release: ViewCol,
    pub c_stack: ViewCol,
    pub c_no: Vec<i64>,
    pub c_fields: [ViewCol; 4],
}

pub type Res = Result<(), (String, i64)>;

/// Python's `datetime.date.max` (9999-12-31) in days since 1970-01-01.
const MAX_DAY: i64 = 2_932_896;

#[derive(Default)]
pub struct Parser {
    poll_no: i64,
    poll_open: bool,
    poll_time: Option<i64>,
    poll_ts: Option<i64>,
    poll_line: Option<i64>,
    release: Option<Vec<u8>>,
    stack: Option<Vec<u8>>,
    pending: Option<i64>,
    last_date: Option<i64>,
    last_clock: Option<i64>,
    pub conn_no: i64,
    conn: Option<Conn>,
    conn_lines: i64,
    conns: Vec<Conn>,
    /// poll of block `1 + poll_base + i` (blocks before the open one are dropped at each take)
    poll_base: i64,
    poll_of: Vec<i64>,
    /// pair lines: held back (of the open block), of chunks, passed on by the state machine
    h: VStore,
    k: VStore,
    p: VStore,
    /// rows the state machine made (and the one-socket lines of plain chunks): no parent
    c: Rows,
    /// socket values to set on their blocks at the end of the chunk: (line, pair, block,
    /// field, value range in `sock_buf`)
    sock_ev: Vec<(i64, i32, i64, usize, usize, usize)>,
    sock_buf: Vec<u8>,
    sc: Scratch,
    /// the chunk being read is plain for Python (no tab, no carriage return)
    plain: bool,
    last: i64,
    pub counters: [i64; N_COUNTERS],
}

impl Parser {
    pub fn new() -> Self {
        Self::default()
    }

    /// `_State.feed` over one chunk of text (what `text_chunks` gives).
    pub fn feed(&mut self, data: &[u8], first: i64) -> Res {
        let text = if data.last() == Some(&b'\n') {
            &data[..data.len() - 1]
        } else {
            data
        };
        // Python's plain chunk (`line_series`): no tab, no carriage return
        let plain = !has_tab_or_cr(data);
        self.plain = plain;
        self.k.reserve(data.len());
        // plain text is ASCII: a str, whose split on a character is a memchr
        let text = std::str::from_utf8(text).expect("plain text");
        // how the current run of pair (and socket) lines goes: 0 none yet, 1 to the open block
        // whole, 2 line by line through the state machine
        let mut run = 0u8;
        let mut lineno = first;
        for raw in text.split('\n') {
            let raw = raw.trim_end_matches('\r');
            let lead = raw.trim_start_matches([' ', '\t', '\r']);
            let colon = lead.find(':');
            let (raw, s) = (raw.as_bytes(), lead.as_bytes());
            let cand = colon.is_some() && !not_pair(s);
            let sock = !cand && plain && plain_socket(s);
            if !(cand || sock) {
                run = 0;
                self.step(lineno, raw)?;
            } else {
                if run == 0 {
                    run = if self.conn.is_some() { 1 } else { 2 };
                }
                if run == 1 {
                    self.conn_lines += 1;
                    if sock {
                        self.socket_row(lineno, s);
                    } else {
                        let (indent, colon) = (raw.len() - s.len(), colon.unwrap_or(s.len()));
                        let k = &mut self.k;
                        k.push_line(lineno, self.conn_no, s, indent, colon, plain, &mut self.sc);
                    }
                } else {
                    self.step(lineno, raw)?;
                }
            }
            lineno += 1;
        }
        self.last = lineno - 1;
        self.set_sockets();
        Ok(())
    }

    /// A one-socket line of a plain chunk in a block (`socket_rows`).
    fn socket_row(&mut self, lineno: i64, s: &[u8]) {
        let r = rstrip(s);
        let i = find_byte(r, b':').unwrap_or(r.len());
        let name = &r[..i];
        let value = strip(&r[(i + 1).min(r.len())..]);
        self.c.push(lineno, self.conn_no, 1, name, value);
        let key = if name == b"Local Socket" {
            F_LOCAL
        } else {
            F_FOREIGN
        };
        self.sock_event(lineno, 1, key, value);
    }

    fn sock_event(&mut self, lineno: i64, pos: i32, key: usize, value: &[u8]) {
        let a = self.sock_buf.len();
        self.sock_buf.extend_from_slice(value);
        self.sock_ev
            .push((lineno, pos, self.conn_no, key, a, self.sock_buf.len()));
    }

    /// `set_sockets`: the socket values of the chunk, in line order; the first non-empty one
    /// is kept.
    fn set_sockets(&mut self) {
        if self.sock_ev.is_empty() {
            return;
        }
        let mut ev = std::mem::take(&mut self.sock_ev);
        ev.sort_by_key(|e| (e.0, e.1));
        for &(_, _, no, key, a, b) in &ev {
            let c = match &mut self.conn {
                Some(c) if c.no == no => c,
                _ => {
                    let at = self
                        .conns
                        .binary_search_by_key(&no, |c| c.no)
                        .expect("a socket of a block not taken yet");
                    &mut self.conns[at]
                }
            };
            if c.f[key].is_none() && a < b {
                c.f[key] = Some(self.sock_buf[a..b].to_vec());
            }
        }
        ev.clear();
        self.sock_ev = ev;
        self.sock_buf.clear();
    }

    fn step(&mut self, lineno: i64, raw: &[u8]) -> Res {
        let s = lstrip(raw);
        if s.is_empty() {
            return Ok(());
        }
        if let Some(at) = find_header(s) {
            if at > 0 {
                // the header after a prefix: read from the header on
                return self.header(lineno, rstrip(&s[at..]));
            }
        }
        if self.conn.is_some() && s.contains(&b':') && !stamp_start(s) {
            if b"CLFMm".contains(&s[0]) && SPECIAL_PREFIXES.iter().any(|p| s.starts_with(p)) {
                let s = rstrip(s);
                let name = &s[..find_byte(s, b':').unwrap_or(s.len())];
                return self.special(lineno, s, name);
            }
            let (indent, colon) = (raw.len() - s.len(), find_byte(s, b':').unwrap_or(s.len()));
            let p = &mut self.p;
            p.push_line(
                lineno,
                self.conn_no,
                s,
                indent,
                colon,
                self.plain,
                &mut self.sc,
            );
            self.conn_lines += 1;
            return Ok(());
        }
        self.other(lineno, rstrip(s))
    }

    fn special(&mut self, lineno: i64, s: &[u8], name: &[u8]) -> Res {
        let socket = name == b"Local Socket" || name == b"Foreign Socket";
        if socket {
            let value = strip(&s[name.len() + 1..]);
            if !contains(value, b": ") && !value.ends_with(b":") {
                // One socket per line (V2R2+): no need for the general splitter.
                let key = field_of(name).unwrap();
                let c = self.conn.as_mut().unwrap();
                if c.f[key].is_none() && !value.is_empty() {
                    c.f[key] = Some(value.to_vec());
                }
                self.c.push(lineno, self.conn_no, 1, name, value);
                self.conn_lines += 1;
                return Ok(());
            }
        }
        if (name == b"Client Name" || name == b"Client") && split_pairs(s, &mut self.sc) {
            return self.start_conn(lineno, s);
        }
        if socket && split_pairs(s, &mut self.sc) {
            self.add(lineno, s);
            self.conn_lines += 1;
            return Ok(());
        }
        if starts_header(s) {
            return self.header(lineno, s);
        }
        self.counters[U_IN_BLOCK] += 1;
        Ok(())
    }

    fn other(&mut self, lineno: i64, s: &[u8]) -> Res {
        if starts_header(s) {
            return self.header(lineno, s);
        }
        if (s.starts_with(b"Client Name:")
            || s.starts_with(b"Client:")
            || s.starts_with(b"Client :"))
            && split_pairs(s, &mut self.sc)
        {
            return self.start_conn(lineno, s);
        }
        let stamp = if s.len() < 50 {
            parse_stamp_line(s)
        } else {
            None
        };
        if let Some(t) = stamp {
            self.end_conn()?;
            self.poll_open = false;
            self.pending = Some(t);
            return Ok(());
        }
        if starts_with_ci(s, b"NETSTAT") || starts_with_ci(s, b"READY") {
            self.counters[S_ECHO] += 1;
        } else if self.conn.is_some() {
            self.counters[U_IN_BLOCK] += 1;
        } else {
            self.counters[U_OUTSIDE] += 1;
        }
        Ok(())
    }

    fn header(&mut self, lineno: i64, s: &[u8]) -> Res {
        self.end_conn()?;
        self.poll_no += 1;
        self.poll_open = true;
        self.poll_line = Some(lineno);
        let words = split_ws(s);
        self.release = None;
        if words.len() > 3 {
            let rel = &words[3..];
            let stop = rel
                .iter()
                .position(|w| w.eq_ignore_ascii_case(b"TCPIP") || w.eq_ignore_ascii_case(b"NAME:"))
                .unwrap_or(rel.len());
            if stop > 0 {
                self.release = Some(rel[..stop].join(&b' '));
            }
        }
        self.stack = None;
        if let Some(k) = find_ci(s, b"NAME:") {
            self.stack = split_ws(&s[k + 5..]).first().map(|w| w.to_vec());
        }
        let clock = words.last().and_then(|w| parse_clock(w));
        self.poll_time = clock;
        if let Some(stamp) = self.pending.take() {
            let day = stamp.div_euclid(US_PER_DAY);
            self.last_date = Some(day);
            self.poll_ts = Some(match clock {
                Some(c) => day * US_PER_DAY + c,
                None => stamp,
            });
        } else if let (Some(c), Some(mut day)) = (clock, self.last_date) {
            if matches!(self.last_clock, Some(lc) if c < lc) {
                day += 1;
                // Python: OverflowError (not an input error): a failure here too
                assert!(day <= MAX_DAY, "date value out of range");
                self.last_date = Some(day);
            }
            self.poll_ts = Some(day * US_PER_DAY + c);
        } else {
            self.poll_ts = None;
        }
        if clock.is_some() {
            self.last_clock = clock;
        }
        Ok(())
    }

    /// A block opens on line `s` (its pairs in `self.sc`).
    fn start_conn(&mut self, lineno: i64, s: &[u8]) -> Res {
        self.end_conn()?;
        if !self.poll_open {
            self.poll_no += 1;
            self.poll_open = true;
            self.poll_line = None;
            self.poll_time = None;
            self.poll_ts = None;
            if let Some(p) = self.pending.take() {
                self.poll_ts = Some(p);
                self.poll_time = Some(p.rem_euclid(US_PER_DAY));
            }
        }
        self.conn_no += 1;
        self.poll_of.push(self.poll_no);
        self.conn = Some(Conn {
            line: lineno,
            poll_no: self.poll_no,
            poll_time: self.poll_time,
            poll_ts: self.poll_ts,
            poll_line: self.poll_line,
            release: self.release.clone(),
            stack: self.stack.clone(),
            no: self.conn_no,
            f: Default::default(),
        });
        self.conn_lines = 0;
        self.add(lineno, s);
        Ok(())
    }

    fn end_conn(&mut self) -> Res {
        if let Some(c) = &self.conn {
            if self.conn_lines == 0 {
                return Err((
                    format!("connection block of line {} cut before any pair", c.line),
                    c.line,
                ));
            }
            self.conns.push(self.conn.take().unwrap());
        }
        Ok(())
    }

    /// `add`: the pairs of line `s` in `self.sc` as rows of the open block.
    fn add(&mut self, lineno: i64, s: &[u8]) {
        let pairs = std::mem::take(&mut self.sc.pairs);
        for (k, &(a, b, c, d)) in pairs.iter().enumerate() {
            let (name, value) = (&s[a..b], &s[c..d]);
            let pos = k as i32 + 1;
            match field_of(name) {
                Some(key @ (F_LOCAL | F_FOREIGN)) => {
                    // set at the end of the chunk, in line order with the socket lines there
                    self.sock_event(lineno, pos, key, value);
                }
                Some(key) => {
                    let c = self.conn.as_mut().unwrap();
                    if c.f[key].is_none() && !value.is_empty() {
                        c.f[key] = Some(value.to_vec());
                    }
                }
                None => {}
            }
            self.c.push(lineno, self.conn_no, pos, name, value);
        }
        self.sc.pairs = pairs;
    }

    /// What Python's `parse` checks before it takes: pair lines and rows pending.
    pub fn pending(&self) -> i64 {
        (self.h.len() + self.k.len() + self.p.len() + self.c.len()) as i64
    }

    /// The end of the file: the checks of `parse` after the last chunk.
    pub fn finish(&mut self) -> Res {
        self.end_conn()?;
        if self.conn_no == 0 {
            return Err((
                "no NETSTAT ALL connection block found".to_string(),
                self.last.max(1),
            ));
        }
        Ok(())
    }

    /// `_State.take`: the blocks ended and the rows taken now.
    pub fn take(&mut self, final_: bool) -> Out {
        let mut out = Out::default();
        for c in self.conns.drain(..) {
            out.c_line.push(c.line);
            out.c_poll.push(c.poll_no);
            out.c_time.push(c.poll_time);
            out.c_ts.push(c.poll_ts);
            out.c_poll_line.push(c.poll_line);
            out.c_release.push(c.release.as_deref());
            out.c_stack.push(c.stack.as_deref());
            out.c_no.push(c.no);
            for (col, v) in out.c_fields.iter_mut().zip(c.f.iter()) {
                col.push(v.as_deref());
            }
        }
        // Nesting needs the whole block: hold back the lines of the open one.
        let held = if !final_ && self.conn.is_some() {
            Some(self.conn_no)
        } else {
            None
        };
        let (hn, kn, pn) = (
            self.h.held_from(held),
            self.k.held_from(held),
            self.p.held_from(held),
        );
        let mut next = VStore::default();
        next.extend_from(&self.h, hn);
        next.extend_from(&self.k, kn);
        next.extend_from(&self.p, pn);
        let mut h = std::mem::replace(&mut self.h, next);
        let mut k = std::mem::take(&mut self.k);
        let mut p = std::mem::take(&mut self.p);
        h.truncate(hn);
        k.truncate(kn);
        p.truncate(pn);
        out.lines_taken = (h.len() + k.len() + p.len()) as i64;
        let unknown = [&h, &k, &p]
            .iter()
            .map(|st| st.unknown.iter().filter(|&&u| u).count())
            .sum::<usize>();
        self.counters[U_IN_BLOCK] += unknown as i64;
        let par = parents([&h, &k, &p]);
        // the rows: the chunks' lines' (moved), then the held and passed ones', then the state
        // machine's; row order is of no account (Python's differs)
        let mut rows = std::mem::take(&mut k.rows);
        rows.extend_from(&h.rows, 0, h.rows.len());
        rows.extend_from(&p.rows, 0, p.rows.len());
        let stores = [&h, &k, &p];
        let n_vec = rows.len();
        out.parent.views.reserve(n_vec + self.c.len());
        out.parent.valid.reserve(n_vec + self.c.len());
        for s in [1usize, 0, 2] {
            let st = stores[s];
            for (i, pr) in par[s].iter().enumerate() {
                let n = st.row_end[i] - st.row_start(i);
                match pr.and_then(|(ps, pi)| stores[ps as usize].n1.get(pi as usize)) {
                    Some(v) if n > 0 => {
                        // the rows of a line share their parent's bytes
                        let w = out.parent.make(v);
                        for _ in 0..n {
                            out.parent.push_view(w);
                        }
                    }
                    _ => {
                        for _ in 0..n {
                            out.parent.push(None);
                        }
                    }
                }
            }
        }
        let c = std::mem::take(&mut self.c);
        rows.extend_from(&c, 0, c.len());
        for _ in 0..c.len() {
            out.parent.push(None);
        }
        out.poll = rows
            .conn
            .iter()
            .map(|&cn| self.poll_of[(cn - 1 - self.poll_base) as usize])
            .collect();
        // polls of the blocks before the open one are no longer needed
        let drop = (self.conn_no - 1 - self.poll_base).clamp(0, self.poll_of.len() as i64) as usize;
        self.poll_of.drain(..drop);
        self.poll_base += drop as i64;
        out.rows = rows;
        out
    }
}

/// `_parents`: each pair line's parent, the nearest line above it in the frame (stores `h`,
/// `k`, `p` in that order), of the same block, that is indented less; as (store, line).
fn parents(stores: [&VStore; 3]) -> [Vec<Option<(u8, u32)>>; 3] {
    let mut par = [
        vec![None; stores[0].len()],
        vec![None; stores[1].len()],
        vec![None; stores[2].len()],
    ];
    let mut in_order = true;
    let mut last = i64::MIN;
    for st in stores {
        for &c in &st.conn {
            in_order &= c >= last;
            last = c;
        }
    }
    // an indentation stack of (indent, store, line) of the current block
    let mut stack: Vec<(i64, u8, u32)> = Vec::new();
    let mut cur = i64::MIN;
    let mut visit = |s: u8, i: u32| {
        let st = stores[s as usize];
        let (conn, ind) = (st.conn[i as usize], st.indent[i as usize]);
        if conn != cur {
            stack.clear();
            cur = conn;
        }
        while matches!(stack.last(), Some(&(d, _, _)) if d >= ind) {
            stack.pop();
        }
        par[s as usize][i as usize] = stack.last().map(|&(_, ps, pi)| (ps, pi));
        stack.push((ind, s, i));
    };
    if in_order {
        for (s, st) in stores.iter().enumerate() {
            for i in 0..st.len() {
                visit(s as u8, i as u32);
            }
        }
    } else {
        // lines the state machine passed on come after the chunks' lines of their block
        let mut order: Vec<(i64, u8, u32)> = Vec::new();
        for (s, st) in stores.iter().enumerate() {
            for (i, &c) in st.conn.iter().enumerate() {
                order.push((c, s as u8, i as u32));
            }
        }
        order.sort_by_key(|e| e.0); // stable: frame order within a block
        for (_, s, i) in order {
            visit(s, i);
        }
    }
    par
}
