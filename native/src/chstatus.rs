//! `DISPLAY CHSTATUS` captures in one pass over the bytes: a port of
//! `mqcap/parsers/chstatus.py` (`_Parser.feed`, `step`, `event`, `other`, the z/OS lines and
//! `take`), for plain text only (printable ASCII, tab, carriage return: the Python side checks
//! the whole file first and parses anything else itself). The rows, counters, errors and the
//! batches' boundaries are the Python parser's; `tests/test_native.py` holds the two to that.

use crate::columns::ViewCol;
use crate::stamps::{parse_clock, parse_jes_date, parse_stamp_line};
use crate::text::*;

pub const U_OUTSIDE: usize = 0; // "chstatus: text outside a block"
pub const U_UNPARSABLE: usize = 1; // "chstatus: unparsable attribute line"
pub const U_PCF: usize = 2; // "PCF dump line"
pub const U_ZOS: usize = 3; // "chstatus: unknown line in a z/OS block"
pub const S_TRAILER: usize = 4; // "runmqsc trailer"
pub const S_BANNER: usize = 5; // "runmqsc banner"
pub const S_ECHO: usize = 6; // "command echo"
pub const S_ZOS_DONE: usize = 7; // "z/OS completion message"
pub const N_COUNTERS: usize = 8;

/// `_NAME_CHARS`: upper-case letters, digits, `@#$`.
#[inline(always)]
fn name_char(c: u8) -> bool {
    c.is_ascii_uppercase() || c.is_ascii_digit() || c == b'@' || c == b'#' || c == b'$'
}

#[derive(Clone)]
struct Snap {
    no: i64,
    line: i64,
    time: Option<i64>,
    clock: Option<i64>,
    time_line: Option<i64>,
    qmgr: Option<Vec<u8>>,
    form: Option<&'static [u8]>,
    blocks: i64,
    expected: Option<i64>,
}

struct Blk {
    no: i64,
    line: i64,
    zos: bool,
    channel: Option<Vec<u8>>,
    conn_id: Option<Vec<u8>>,
    fast: bool,
}

/// A string column: Arrow's large-utf8 layout (i64 offsets), validity as bools.
#[derive(Default)]
pub struct StrCol {
    pub offsets: Vec<i64>,
    pub data: Vec<u8>,
    pub valid: Vec<bool>,
}

impl StrCol {
    fn new() -> Self {
        StrCol {
            offsets: vec![0],
            data: Vec::new(),
            valid: Vec::new(),
        }
    }
    #[inline]
    fn push(&mut self, v: Option<&[u8]>) {
        if let Some(b) = v {
            self.data.extend_from_slice(b);
        }
        self.valid.push(v.is_some());
        self.offsets.push(self.data.len() as i64);
    }
}

/// Attribute rows waiting to be taken, as columns. The vector lines' rows and the rows the
/// state machine split are kept apart (as in Python) until `take`, which also counts the
/// vector lines that were unparsable.
pub struct Rows {
    pub line: Vec<i64>,
    pub block: Vec<i64>,
    pub pair: Vec<i32>,
    pub key: ViewCol,
    pub value: ViewCol,
}

impl Rows {
    fn new() -> Self {
        Rows {
            line: vec![],
            block: vec![],
            pair: vec![],
            key: ViewCol::new(),
            value: ViewCol::new(),
        }
    }
    #[inline]
    fn push(&mut self, line: i64, block: i64, pair: i32, key: &[u8], value: Option<&[u8]>) {
        self.line.push(line);
        self.block.push(block);
        self.pair.push(pair);
        self.key.push(Some(key));
        self.value.push(value);
    }
    pub fn len(&self) -> usize {
        self.line.len()
    }
    pub fn is_empty(&self) -> bool {
        self.line.is_empty()
    }
    /// The rows of block `held` at the end (all of its rows are there: it is the open block).
    fn split_held(&mut self, held: Option<i64>) -> Rows {
        let Some(h) = held else { return Rows::new() };
        let mut from = self.len();
        while from > 0 && self.block[from - 1] == h {
            from -= 1;
        }
        Rows {
            line: self.line.split_off(from),
            block: self.block.split_off(from),
            pair: self.pair.split_off(from),
            key: self.key.split_off(from),
            value: self.value.split_off(from),
        }
    }
    fn append(&mut self, o: &Rows) {
        for i in 0..o.len() {
            self.push(
                o.line[i],
                o.block[i],
                o.pair[i],
                o.key.get(i).unwrap(),
                o.value.get(i),
            );
        }
    }
}

/// What one `take` gives: the attribute rows with their snapshot and channel, the snapshots.
pub struct Out {
    pub rows: Rows,
    /// vector lines taken (Python yields a batch, maybe empty, when there were any)
    pub lines_taken: i64,
    pub snapshot_no: Vec<i64>,
    pub snapshot_no_valid: Vec<bool>,
    pub snapshot_time: Vec<i64>,
    pub snapshot_time_valid: Vec<bool>,
    pub channel: ViewCol,
    pub s_line: Vec<i64>,
    pub s_no: Vec<i64>,
    pub s_time: Vec<Option<i64>>,
    pub s_clock: Vec<Option<i64>>,
    pub s_time_line: Vec<Option<i64>>,
    pub s_qmgr: StrCol,
    pub s_form: StrCol,
    pub s_count: Vec<i64>,
    pub s_expected: Vec<Option<i64>>,
}

impl Out {
    fn new() -> Self {
        Out {
            rows: Rows::new(),
            lines_taken: 0,
            snapshot_no: vec![],
            snapshot_no_valid: vec![],
            snapshot_time: vec![],
            snapshot_time_valid: vec![],
            channel: ViewCol::new(),
            s_line: vec![],
            s_no: vec![],
            s_time: vec![],
            s_clock: vec![],
            s_time_line: vec![],
            s_qmgr: StrCol::new(),
            s_form: StrCol::new(),
            s_count: vec![],
            s_expected: vec![],
        }
    }
}

/// A block's (snapshot no, snapshot time, channel), as its rows get them when taken, and the
/// block's first line.
type Meta = (i64, Option<i64>, Option<Vec<u8>>, i64);
type View = [u8; 16];

pub struct Parser {
    snap: Option<Snap>,
    blk: Option<Blk>,
    n_snap: i64,
    n_block: i64,
    pub n_seen_blocks: i64,
    pending_time: Option<i64>,
    pending_line: Option<i64>,
    qmgr: Option<Vec<u8>>,
    jes_date: Option<i64>,
    snap_rows: Vec<Snap>,
    /// block -> (snapshot no, snapshot time, channel, first line)
    meta: std::collections::HashMap<i64, Meta>,
    /// rows of the vector lines, and (block, lines) runs of those lines: all, unparsable
    v: Rows,
    v_lines: Vec<(i64, i64)>,
    v_bad: Vec<(i64, i64)>,
    /// rows the state machine split
    p: Rows,
    scratch: Vec<(u32, u32, u32, u32, bool)>,
    pub counters: [i64; N_COUNTERS],
    pub error: Option<(String, i64)>,
}

pub type Res = Result<(), (String, i64)>;

/// `scan_kv`: the pairs of a line (key range, value range, has a value) into `found`; false
/// when the line is not one (then `found` means nothing).
fn scan_kv(s: &[u8], found: &mut Vec<(u32, u32, u32, u32, bool)>) -> bool {
    found.clear();
    let n = s.len();
    let mut i = 0;
    while i < n {
        while i < n && is_ws(s[i]) {
            i += 1;
        }
        if i >= n {
            break;
        }
        let mut j = i;
        while j < n && name_char(s[j]) {
            j += 1;
        }
        if j == i || !s[i].is_ascii_alphabetic() {
            return false;
        }
        if j < n && s[j] == b'(' {
            let mut depth = 1;
            let mut k = j + 1;
            while k < n && depth > 0 {
                match s[k] {
                    b'(' => depth += 1,
                    b')' => depth -= 1,
                    _ => {}
                }
                k += 1;
            }
            if depth > 0 {
                return false;
            }
            found.push((i as u32, j as u32, (j + 1) as u32, (k - 1) as u32, true));
            i = k;
        } else {
            if j < n && !is_ws(s[j]) {
                return false;
            }
            found.push((i as u32, j as u32, 0, 0, false));
            i = j;
        }
    }
    !found.is_empty()
}

/// `_close_paren`.
fn close_paren(s: &[u8]) -> usize {
    let i = s.iter().position(|&c| c == b'(');
    let j = s.iter().position(|&c| c == b')');
    if let (Some(i), Some(j)) = (i, j) {
        if i < j && !s[i + 1..j].contains(&b'(') {
            return j;
        }
    }
    let mut depth = 0i64;
    for (k, &c) in s.iter().enumerate() {
        if c == b'(' {
            depth += 1;
        } else if c == b')' {
            depth -= 1;
            if depth == 0 {
                return k;
            }
        }
    }
    s.len()
}

fn channel_value(s: &[u8]) -> &[u8] {
    let a = s
        .iter()
        .position(|&c| c == b'(')
        .map(|p| p + 1)
        .unwrap_or(0);
    let b = close_paren(s);
    if a <= b {
        &s[a..b]
    } else {
        b""
    }
}

/// `_PROMPT.match(s)`: the end of the match.
fn prompt_end(s: &[u8]) -> Option<usize> {
    let n = s.len();
    // (?:[^\s()]*>) ...: the first blank or parenthesis, led by '>', and a blank
    let p = s
        .iter()
        .position(|&c| is_ws(c) || c == b'(' || c == b')')
        .unwrap_or(n);
    if p > 0 && p < n && s[p - 1] == b'>' && is_ws(s[p]) {
        let mut e = p;
        while e < n && is_ws(s[e]) {
            e += 1;
        }
        return Some(e);
    }
    // | [+\-%!?/.][A-Z0-9@#$]{1,8}) \s+
    if n > 0 && b"+-%!?/.".contains(&s[0]) {
        let mut r = 1;
        while r < n && name_char(s[r]) {
            r += 1;
        }
        let run = r - 1;
        if (1..=8).contains(&run) && r < n && is_ws(s[r]) {
            let mut e = r;
            while e < n && is_ws(s[e]) {
                e += 1;
            }
            return Some(e);
        }
    }
    None
}

/// `_ECHO.match(s)`: `\d+\s*:\s*\S`.
fn echo_match(s: &[u8]) -> bool {
    let n = s.len();
    let mut i = 0;
    while i < n && is_digit(s[i]) {
        i += 1;
    }
    if i == 0 {
        return false;
    }
    while i < n && is_ws(s[i]) {
        i += 1;
    }
    if i >= n || s[i] != b':' {
        return false;
    }
    i += 1;
    while i < n && is_ws(s[i]) {
        i += 1;
    }
    i < n
}

/// `_PCF.match(s)`: `MQ[A-Z]{2,8}_[A-Z0-9_]+:`.
fn pcf_match(s: &[u8]) -> bool {
    if !s.starts_with(b"MQ") {
        return false;
    }
    let n = s.len();
    let mut i = 2;
    while i < n && s[i].is_ascii_uppercase() {
        i += 1;
    }
    let r = i - 2;
    if !(2..=8).contains(&r) || i >= n || s[i] != b'_' {
        return false;
    }
    i += 1;
    let a = i;
    while i < n && (s[i].is_ascii_uppercase() || s[i].is_ascii_digit() || s[i] == b'_') {
        i += 1;
    }
    i > a && i < n && s[i] == b':'
}

/// `_JOBID.fullmatch(w)`.
fn jobid(w: &[u8]) -> bool {
    (w.len() == 8
        && (w.starts_with(b"JOB") || w.starts_with(b"STC") || w.starts_with(b"TSU"))
        && is_decimal(&w[3..]))
        || (w.len() == 8 && b"JST".contains(&w[0]) && is_decimal(&w[1..]))
}

/// Is a stripped line an attribute line the Python parser splits in bulk (`cand`)?
fn cand(s: &[u8]) -> bool {
    if s.is_empty() || !s[0].is_ascii_uppercase() || !s.contains(&b'(') {
        return false;
    }
    if s.starts_with(b"CHANNEL(")
        || s.starts_with(b"CHSTATUS(")
        || s.starts_with(b"DIS")
        || s.starts_with(b"MQ")
    {
        return false;
    }
    // [^\s(]*>\s
    let p = s
        .iter()
        .position(|&c| is_ws(c) || c == b'(')
        .unwrap_or(s.len());
    !(p > 0 && p < s.len() && is_ws(s[p]) && s[p - 1] == b'>')
}

fn qmgr_of(word: &[u8]) -> Option<Vec<u8>> {
    let k = word
        .iter()
        .position(|&c| name_char(c))
        .unwrap_or(word.len());
    if k < word.len() {
        Some(word[k..].to_vec())
    } else {
        None
    }
}

/// `_zos_prefix_time`: (timestamp, clock).
fn zos_prefix_time(tokens: &[&[u8]]) -> (Option<i64>, Option<i64>) {
    for (k, tok) in tokens.iter().enumerate() {
        let Some(clock) = parse_clock(tok) else {
            continue;
        };
        if k > 0 && tokens[k - 1].len() == 5 && is_decimal(tokens[k - 1]) {
            let yyddd = tokens[k - 1];
            let day = to_int(&yyddd[2..]);
            if (1..=366).contains(&day) {
                let year = 2000 + to_int(&yyddd[..2]);
                let d = days_from_civil(year, 1, 1) + day - 1;
                // Python's date arithmetic: day 366 of a common year is 1 January next year.
                return (Some(d * US_PER_DAY + clock), Some(clock));
            }
        }
        return (None, Some(clock));
    }
    (None, None)
}

impl Default for Parser {
    fn default() -> Self {
        Self::new()
    }
}

impl Parser {
    pub fn new() -> Self {
        Parser {
            snap: None,
            blk: None,
            n_snap: 0,
            n_block: 0,
            n_seen_blocks: 0,
            pending_time: None,
            pending_line: None,
            qmgr: None,
            jes_date: None,
            snap_rows: vec![],
            meta: Default::default(),
            v: Rows::new(),
            v_lines: vec![],
            v_bad: vec![],
            p: Rows::new(),
            scratch: Vec::with_capacity(16),
            counters: [0; N_COUNTERS],
            error: None,
        }
    }

    fn has_content(s: &Snap) -> bool {
        s.blocks > 0 || s.expected.is_some() || s.form.is_some()
    }

    fn close_snapshot(&mut self) {
        if let Some(s) = &self.snap {
            if Self::has_content(s) {
                self.snap_rows.push(s.clone());
                self.snap = None;
            }
        }
    }

    fn boundary(&mut self) {
        self.blk = None;
        if matches!(&self.snap, Some(s) if Self::has_content(s)) {
            self.close_snapshot();
        }
    }

    fn open_snapshot(&mut self, lineno: i64) {
        if self.snap.is_none() {
            self.n_snap += 1;
            self.snap = Some(Snap {
                no: self.n_snap,
                line: lineno,
                time: self.pending_time.take(),
                clock: None,
                time_line: self.pending_line.take(),
                qmgr: self.qmgr.clone(),
                form: None,
                blocks: 0,
                expected: None,
            });
        }
    }

    fn open_block(&mut self, lineno: i64, zos: bool) {
        self.open_snapshot(lineno);
        let s = self.snap.as_mut().unwrap();
        if s.form.is_none() {
            s.form = Some(if zos { b"zos" } else { b"runmqsc" });
        }
        s.blocks += 1;
        self.n_block += 1;
        self.n_seen_blocks += 1;
        let (sno, stime) = (s.no, s.time);
        self.meta.insert(self.n_block, (sno, stime, None, lineno));
        self.blk = Some(Blk {
            no: self.n_block,
            line: lineno,
            zos,
            channel: None,
            conn_id: None,
            fast: true,
        });
    }

    fn set_channel(&mut self, value: &[u8]) {
        let ch = strip(value).to_vec();
        let s = self.snap.as_ref().unwrap();
        let b = self.blk.as_mut().unwrap();
        b.channel = Some(ch.clone());
        self.meta.insert(b.no, (s.no, s.time, Some(ch), b.line));
    }

    fn add_pairs_line(&mut self, lineno: i64, s: &[u8]) -> bool {
        let mut found = std::mem::take(&mut self.scratch);
        let ok = scan_kv(s, &mut found);
        if ok {
            for (k, &(a, b, c, d, has)) in found.iter().enumerate() {
                let value = if has {
                    Some(&s[c as usize..d as usize])
                } else {
                    None
                };
                self.add_pair(lineno, k as i32 + 1, &s[a as usize..b as usize], value);
            }
        }
        self.scratch = found;
        ok
    }

    fn add_pair(&mut self, lineno: i64, k: i32, key: &[u8], value: Option<&[u8]>) {
        let b = self.blk.as_ref().unwrap();
        let bno = b.no;
        if (key == b"CHANNEL" || key == b"CHSTATUS")
            && b.channel.is_none()
            && matches!(value, Some(v) if !v.is_empty())
        {
            self.set_channel(value.unwrap());
        }
        self.p.push(lineno, bno, k, key, value);
    }

    #[inline]
    fn vector_line(&mut self, lineno: i64, bno: i64, s: &[u8]) {
        bump(&mut self.v_lines, bno);
        if scan_kv(s, &mut self.scratch) {
            for (k, &(a, b, c, d, has)) in self.scratch.iter().enumerate() {
                let value = if has {
                    Some(&s[c as usize..d as usize])
                } else {
                    None
                };
                self.v
                    .push(lineno, bno, k as i32 + 1, &s[a as usize..b as usize], value);
            }
        } else {
            bump(&mut self.v_bad, bno);
        }
    }

    /// `_Parser.feed` over one chunk of text (what `text_chunks` gives).
    pub fn feed(&mut self, data: &[u8], first: i64) -> Res {
        let text = if data.last() == Some(&b'\n') {
            &data[..data.len() - 1]
        } else {
            data
        };
        let mut outside = 0i64;
        for (lineno, line) in (first..).zip(text.split(|&c| c == b'\n')) {
            let s = strip(line);
            if cand(s) {
                match &self.blk {
                    None => outside += 1,
                    Some(b) if b.fast => {
                        let bno = b.no;
                        self.vector_line(lineno, bno, s);
                    }
                    Some(_) => self.step(lineno, s)?,
                }
            } else {
                self.step(lineno, s)?;
            }
        }
        if outside > 0 {
            self.counters[U_OUTSIDE] += outside;
        }
        Ok(())
    }

    fn step(&mut self, lineno: i64, s: &[u8]) -> Res {
        if let Some(b) = &self.blk {
            if b.fast
                && !s.is_empty()
                && s[0].is_ascii_uppercase()
                && s.contains(&b'(')
                && !(s.contains(&b'>') && prompt_end(s).is_some())
            {
                if s.starts_with(b"CHANNEL(") || s.starts_with(b"CHSTATUS(") {
                    if b.channel.is_none() {
                        self.set_channel(channel_value(s));
                    } else if !b.zos {
                        self.open_block(lineno, false);
                        self.set_channel(channel_value(s));
                    }
                }
                let bno = self.blk.as_ref().unwrap().no;
                self.vector_line(lineno, bno, s);
                return Ok(());
            }
        }
        self.event(lineno, s)
    }

    fn event(&mut self, lineno: i64, s: &[u8]) -> Res {
        if let Some(b) = &self.blk {
            if b.zos {
                if contains(s, b"END CHSTATUS DETAILS") {
                    self.blk = None;
                    return Ok(());
                }
                if contains(s, b"CSQM201I") {
                    return Err((
                        format!(
                            "CSQM201I block of line {} has no END CHSTATUS DETAILS",
                            b.line
                        ),
                        lineno,
                    ));
                }
                self.zos_line(lineno, s);
                return Ok(());
            }
            if s.is_empty() {
                self.blk = None;
                return Ok(());
            }
            if is_alnum(s) && is_upper_str(s) && s[0].is_ascii_alphabetic() && s.len() <= 12 {
                self.add_pair(lineno, 1, s, None);
                return Ok(());
            }
            self.blk = None;
        }
        if s.is_empty() {
            return Ok(());
        }
        let mut s = s;
        if let Some(e) = prompt_end(s) {
            let rest = &s[e..];
            let after = [
                &b"AMQ84"[..],
                b"CSQM",
                b"CSQ9",
                b"DIS ",
                b"DISPLAY ",
                b"dis ",
                b"display ",
            ];
            if after.iter().any(|a| rest.starts_with(a)) || echo_match(rest) {
                s = rest;
            }
        }
        if s.starts_with(b"AMQ8417") {
            if matches!(&self.snap, Some(sn) if sn.form == Some(b"zos")) {
                self.boundary();
            }
            self.open_block(lineno, false);
            return Ok(());
        }
        if contains(s, b"CSQM201I") {
            self.zos_header(lineno, s);
            return Ok(());
        }
        let stamp = if s.len() < 50 {
            parse_stamp_line(s)
        } else {
            None
        };
        if let Some(t) = stamp {
            self.boundary();
            if let Some(sn) = self.snap.as_mut() {
                sn.time = Some(t);
                sn.time_line = Some(lineno);
            } else {
                self.pending_time = Some(t);
                self.pending_line = Some(lineno);
            }
            return Ok(());
        }
        if s.starts_with(b"CHANNEL(") || s.starts_with(b"CHSTATUS(") {
            self.open_block(lineno, false);
            if !self.add_pairs_line(lineno, s) {
                self.counters[U_UNPARSABLE] += 1;
            }
            return Ok(());
        }
        if s.starts_with(b"MQ") && pcf_match(s) {
            self.counters[U_PCF] += 1;
            return Ok(());
        }
        self.other(lineno, s);
        Ok(())
    }

    fn other(&mut self, lineno: i64, s: &[u8]) {
        let u = upper(s);
        if contains(&u, b"MQSC COMMAND") || contains(&u, b"SYNTAX ERROR") {
            self.boundary();
            self.counters[S_TRAILER] += 1;
        } else if u.starts_with(b"STARTING MQSC FOR QUEUE MANAGER") {
            self.boundary();
            let words = split_ws(s);
            let last = words.last().copied().unwrap_or(b"");
            let mut e = last.len();
            while e > 0 && last[e - 1] == b'.' {
                e -= 1;
            }
            self.qmgr = if e > 0 {
                Some(last[..e].to_vec())
            } else {
                None
            };
            self.counters[S_BANNER] += 1;
        } else if u.starts_with(b"DIS ")
            || u.starts_with(b"DISPLAY ")
            || (echo_match(s) && contains(&u, b" DIS"))
        {
            self.boundary();
            self.counters[S_ECHO] += 1;
        } else if s.starts_with(b"AMQ8420") || contains(s, b"CSQM297I") {
            self.boundary();
            self.open_snapshot(lineno);
            let sn = self.snap.as_mut().unwrap();
            sn.form = Some(if contains(s, b"CSQM297I") {
                b"zos"
            } else {
                b"runmqsc"
            });
            sn.expected = Some(0);
            self.close_snapshot();
        } else if let Some(idx) = find(s, b"CSQM293I") {
            self.boundary();
            self.open_snapshot(lineno);
            let words = split_ws(&s[idx..]);
            let sn = self.snap.as_mut().unwrap();
            sn.form = Some(b"zos");
            for k in 1..words.len() {
                if words[k] == b"CHSTATUS" && is_decimal(words[k - 1]) && words[k - 1].len() < 10 {
                    sn.expected = Some(to_int(words[k - 1]));
                }
            }
            let prefix = split_ws(&s[..idx]);
            self.zos_snapshot_time(&prefix, lineno);
            let sn = self.snap.as_mut().unwrap();
            if sn.qmgr.is_none() && words.len() > 1 {
                sn.qmgr = qmgr_of(words[1]);
            }
        } else if contains(s, b"CSQ9022I") {
            self.boundary();
            self.counters[S_ZOS_DONE] += 1;
        } else if contains(s, b"5724-H72") || contains(&u, b"COPYRIGHT IBM") {
            self.counters[S_BANNER] += 1;
        } else if let Some(d) = parse_jes_date(s) {
            self.jes_date = Some(d);
        } else {
            self.counters[U_OUTSIDE] += 1;
        }
    }

    fn zos_snapshot_time(&mut self, prefix: &[&[u8]], lineno: i64) {
        let jes = self.jes_date;
        let sn = self.snap.as_mut().unwrap();
        if sn.time.is_some() || prefix.is_empty() {
            return;
        }
        let (mut stamp, clock) = zos_prefix_time(prefix);
        if stamp.is_none() {
            if let (Some(c), Some(d)) = (clock, jes) {
                stamp = Some(d * US_PER_DAY + c);
            }
        }
        if stamp.is_some() {
            sn.time = stamp;
            sn.time_line = Some(lineno);
        } else if clock.is_some() {
            sn.clock = clock;
            sn.time_line = Some(lineno);
        }
    }

    fn zos_header(&mut self, lineno: i64, s: &[u8]) {
        let idx = find(s, b"CSQM201I").unwrap();
        let prefix = split_ws(&s[..idx]);
        let words = split_ws(&s[idx..]);
        if matches!(&self.snap, Some(sn) if sn.form == Some(b"runmqsc")) {
            self.boundary();
        }
        self.open_block(lineno, true);
        {
            let sn = self.snap.as_mut().unwrap();
            if words.len() > 1 && sn.qmgr.is_none() {
                sn.qmgr = qmgr_of(words[1]);
            }
        }
        self.zos_snapshot_time(&prefix, lineno);
        let sn = self.snap.as_ref().unwrap();
        let b = self.blk.as_mut().unwrap();
        self.meta.insert(b.no, (sn.no, sn.time, None, b.line));
        if let Some(last) = words.last() {
            if is_decimal(last) && words.len() > 6 {
                b.conn_id = Some(last.to_vec());
            }
        }
        b.fast = prefix.is_empty();
    }

    fn zos_line(&mut self, lineno: i64, s: &[u8]) {
        if s.is_empty() {
            return;
        }
        let Some(p) = s.iter().position(|&c| c == b'(') else {
            let words = split_ws(s);
            let last = words[words.len() - 1];
            if is_alpha(last) && is_upper_str(last) && !jobid(last) {
                self.add_pair(lineno, 1, last, None);
            } else {
                let b = self.blk.as_ref().unwrap();
                if !(is_decimal(last) || b.conn_id.as_deref() == Some(last)) {
                    self.counters[U_ZOS] += 1;
                }
            }
            return;
        };
        let mut k = p;
        while k > 0 && name_char(s[k - 1]) {
            k -= 1;
        }
        if !self.add_pairs_line(lineno, &s[k..]) {
            self.counters[U_UNPARSABLE] += 1;
        }
    }

    /// What Python's `parse` checks before it yields: vector lines pending, snapshot rows.
    pub fn pending(&self) -> (i64, i64) {
        (
            self.v_lines.iter().map(|r| r.1).sum(),
            self.snap_rows.len() as i64,
        )
    }

    /// The end of the file: the checks of `parse` after the last chunk.
    pub fn finish(&mut self) -> Res {
        if let Some(b) = &self.blk {
            if b.zos {
                return Err((
                    format!(
                        "z/OS CHSTATUS block of line {} cut: no END CHSTATUS DETAILS before the end",
                        b.line
                    ),
                    b.line,
                ));
            }
        }
        self.blk = None;
        if let Some(s) = &self.snap {
            if Self::has_content(s) {
                self.snap_rows.push(s.clone());
                self.snap = None;
            }
        }
        if self.n_seen_blocks == 0 && self.n_snap == 0 {
            return Err(("no DISPLAY CHSTATUS block found".to_string(), 1));
        }
        Ok(())
    }

    /// The open block when its channel line is still to come: its attributes are held back.
    fn held(&self, final_: bool) -> Option<i64> {
        match &self.blk {
            Some(b) if !final_ && b.channel.is_none() => Some(b.no),
            _ => None,
        }
    }

    /// Unparsable vector lines are counted when taken (Python's vector_frame), but those of
    /// the block held back.
    fn count_unparsable(&mut self, held: Option<i64>) {
        for (b, n) in std::mem::take(&mut self.v_bad) {
            if Some(b) == held {
                self.v_bad.push((b, n));
            } else {
                self.counters[U_UNPARSABLE] += n;
            }
        }
    }

    /// `_Parser.take`'s check, before anything is taken: the first block (by number) among the
    /// rows `take(final_)` would give that names no channel (no `CHANNEL( )` or `CHSTATUS( )`
    /// with a name). Its rows could not be told from another channel's.
    pub fn check_named(&mut self, final_: bool) -> Res {
        let held = self.held(final_);
        // as Python's take counts them before its check
        self.count_unparsable(held);
        let mut first: Option<(i64, i64)> = None;
        for rows in [&self.v, &self.p] {
            let mut last = None;
            for &b in rows.block.iter() {
                if Some(b) == held || Some(b) == last {
                    continue;
                }
                last = Some(b);
                if let Some(m) = self.meta.get(&b) {
                    let unnamed = match &m.2 {
                        Some(c) => c.is_empty(),
                        None => true,
                    };
                    let earlier = match first {
                        Some((f, _)) => b < f,
                        None => true,
                    };
                    if unnamed && earlier {
                        first = Some((b, m.3));
                    }
                }
            }
        }
        match first {
            Some((_, line)) => Err((unnamed_message(line), line)),
            None => Ok(()),
        }
    }

    /// `_Parser.take`: the rows (and snapshot rows) taken now.
    pub fn take(&mut self, final_: bool) -> Out {
        let mut out = Out::new();
        for s in std::mem::take(&mut self.snap_rows) {
            out.s_line.push(s.line);
            out.s_no.push(s.no);
            out.s_time.push(s.time);
            out.s_clock.push(s.clock);
            out.s_time_line.push(s.time_line);
            out.s_qmgr.push(s.qmgr.as_deref());
            out.s_form.push(s.form);
            out.s_count.push(s.blocks);
            out.s_expected.push(s.expected);
        }
        let held = self.held(final_);
        let v_keep = self.v.split_held(held);
        let p_keep = self.p.split_held(held);
        let mut rows = std::mem::replace(&mut self.v, v_keep);
        rows.append(&std::mem::replace(&mut self.p, p_keep));
        self.count_unparsable(held);
        out.lines_taken = self
            .v_lines
            .iter()
            .filter(|r| Some(r.0) != held)
            .map(|r| r.1)
            .sum();
        let kept: Vec<(i64, i64)> = self
            .v_lines
            .iter()
            .filter(|r| Some(r.0) == held)
            .copied()
            .collect();
        self.v_lines = kept;
        let n = rows.len();
        out.snapshot_no.reserve(n);
        out.snapshot_time.reserve(n);
        let (mut low, mut high) = (i64::MAX, i64::MIN);
        // the block's meta and its channel's view, made once per run of the block's rows
        let mut last: Option<(i64, Option<&Meta>, Option<View>)> = None;
        for &b in rows.block.iter() {
            low = low.min(b);
            high = high.max(b);
            let (m, view) = match last {
                Some((lb, m, v)) if lb == b => (m, v),
                _ => {
                    let m = self.meta.get(&b);
                    let v = m.and_then(|x| x.2.as_deref()).map(|c| out.channel.make(c));
                    last = Some((b, m, v));
                    (m, v)
                }
            };
            match m {
                Some((sno, stime, _, _)) => {
                    out.snapshot_no.push(*sno);
                    out.snapshot_no_valid.push(true);
                    out.snapshot_time.push(stime.unwrap_or(0));
                    out.snapshot_time_valid.push(stime.is_some());
                    match view {
                        Some(v) => out.channel.push_view(v),
                        None => out.channel.push(None),
                    }
                }
                None => {
                    out.snapshot_no.push(0);
                    out.snapshot_no_valid.push(false);
                    out.snapshot_time.push(0);
                    out.snapshot_time_valid.push(false);
                    out.channel.push(None);
                }
            }
        }
        if low <= high {
            let open_no = self.blk.as_ref().map(|b| b.no);
            for u in low..=high {
                if Some(u) != open_no {
                    self.meta.remove(&u);
                }
            }
        }
        out.rows = rows;
        out
    }
}

/// The error of a block of attributes with no channel name (`_unnamed_message` in Python).
fn unnamed_message(line: i64) -> String {
    format!(
        "channel-status block of line {line} names no channel (no CHANNEL( ) or CHSTATUS( ) with a name)"
    )
}

/// One more line of block `b` in a run-length list.
#[inline]
fn bump(runs: &mut Vec<(i64, i64)>, b: i64) {
    match runs.last_mut() {
        Some((lb, n)) if *lb == b => *n += 1,
        _ => runs.push((b, 1)),
    }
}
