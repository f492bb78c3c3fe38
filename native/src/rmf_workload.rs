//! RMF Postprocessor WORKLOAD ACTIVITY reports in one pass over the bytes: a port of
//! `mqcap/parsers/rmf_workload.py`'s `parse_python` (the reference): its section state machine
//! (`_Reader`), the SERVICE TIME and APPL % cells of block rows (`_block_row`, which its
//! `block_cells` reads in bulk) and the page reading of `_rmf.ReportFrames` (`rmf_pages.rs`,
//! `Pages`). The rows, counters and errors are the Python parser's;
//! `tests/test_native_workload.py` holds the two to that.
//!
//! The text given is latin-1 without the control characters Python does not count as blanks
//! and without NEL and the no-break space (`rmf_pages::is_plain1`): on it Python's string and
//! regular-expression tests of the decoded text agree with the byte tests here (whitespace is
//! ASCII's, latin-1 letters are word characters: `alnum1`); strings land as UTF-8.
//!
//! The Python parser reads the file a frame at a time (`_rmf.FRAME_BYTES` of whole lines, cut
//! as `base.text_chunks` cuts them): the page lines of a whole frame are counted before its
//! sections are read, block rows are read and sections land when the frame ends, and the first
//! error in file order is raised then. Here every line is read in order; an error is kept and
//! given when its frame ends, the reading going on as Python's does up to there: after a block
//! error (a duplicate cell, a value that is no number, a section without CPU) the sections are
//! still followed (their counters, a later error of the section reading stops it), after an
//! error of the section reading only the page lines are counted. The frames are worked out
//! from the byte offsets (`new`: the frame size and whether a byte-order mark came first).

use crate::columns::ViewCol;
use crate::rmf_pages::*;

const TITLE: &[u8] = b"WORKLOAD ACTIVITY";
/// `BLOCK_MAX_ROWS`: rows of a SERVICE TIME block read at most.
const BLOCK_MAX_ROWS: i64 = 12;

/// SERVICE TIME keys (the value columns 0-6: cpu_s, srb_s, rct_s, iit_s, hst_s, aap_s, iip_s).
const ST_KEYS: [&[u8]; 7] = [b"CPU", b"SRB", b"RCT", b"IIT", b"HST", b"AAP", b"IIP"];
/// APPL % keys (the value columns 7-11: appl_cp_pct, appl_aapcp_pct, appl_iipcp_pct,
/// appl_aap_pct, appl_iip_pct).
const APPL_KEYS: [&[u8]; 5] = [b"CP", b"AAPCP", b"IIPCP", b"AAP", b"IIP"];
pub const N_VALUES: usize = 12;
const CPU: usize = 0;

// -- counters (Python's names: rmf_workload.py `_COUNTERS`) ----------------------------------------

pub const C_COMMENT: usize = COUNT_COMMENT;
pub const C_OVERPRINT: usize = COUNT_OVERPRINT;
pub const C_OTHER_REPORT: usize = COUNT_OTHER_REPORT;
pub const C_BEFORE: usize = COUNT_BEFORE;
/// "workload line outside a class section" (unknown)
pub const C_OUTSIDE: usize = 4;
/// "workload or policy total section" (skipped)
pub const C_TOTALS: usize = 5;
pub const N_COUNTERS: usize = 6;

/// What `ctx.nothing_to_land` was set to last: 0 nothing, 1 a report of totals only, 2 a
/// service policy page.
pub const NOTHING_TOTALS: i32 = 1;
pub const NOTHING_POLICY_PAGE: i32 = 2;

// -- latin-1 ------------------------------------------------------------------------------------

/// Latin-1 text as a `String` (a byte is the code point).
fn text1(s: &[u8]) -> String {
    s.iter().map(|&c| c as char).collect()
}

/// Python `repr` of latin-1 text (a value: no whitespace): the characters Python does not print
/// (the C0 controls, 0x7F-0xA0, the soft hyphen 0xAD) escaped.
fn pyrepr1(s: &[u8]) -> String {
    let q = if s.contains(&b'\'') && !s.contains(&b'"') {
        b'"'
    } else {
        b'\''
    };
    let mut out = String::with_capacity(s.len() + 2);
    out.push(q as char);
    for &c in s {
        if c == q || c == b'\\' {
            out.push('\\');
            out.push(c as char);
        } else if c == b'\t' || c == b'\n' || c == b'\r' {
            out.push('\\');
            out.push(match c {
                b'\t' => 't',
                b'\n' => 'n',
                _ => 'r',
            });
        } else if c < 0x20 || (0x7f..0xa1).contains(&c) || c == 0xad {
            out.push_str(&format!("\\x{c:02x}"));
        } else {
            out.push(c as char);
        }
    }
    out.push(q as char);
    out
}

/// Latin-1 bytes as UTF-8 (borrowed when they are ASCII).
fn utf8(s: &[u8]) -> std::borrow::Cow<'_, [u8]> {
    if s.is_ascii() {
        std::borrow::Cow::Borrowed(s)
    } else {
        std::borrow::Cow::Owned(text1(s).into_bytes())
    }
}

fn push1(col: &mut ViewCol, s: Option<&[u8]>) {
    col.push(s.map(utf8).as_deref());
}

// -- the regular expressions ---------------------------------------------------------------------

#[inline]
fn nonblank_end(s: &[u8], i: usize) -> usize {
    let mut j = i;
    while j < s.len() && !is_ws(s[j]) {
        j += 1;
    }
    j
}

#[inline]
fn blank_end(s: &[u8], i: usize) -> usize {
    let mut j = i;
    while j < s.len() && is_ws(s[j]) {
        j += 1;
    }
    j
}

/// The starts of `lit` in `s`, overlapping ones included (a search's start positions).
fn occurrences<'a>(s: &'a [u8], lit: &'a [u8]) -> impl Iterator<Item = usize> + 'a {
    let mut from = 0;
    std::iter::from_fn(move || {
        let k = find(s.get(from..)?, lit)?;
        let at = from + k;
        from = at + 1;
        Some(at)
    })
}

/// A `_CLASS` match: spans of policy, workload, name; kind 0 SERVICE, 1 REPORT.
struct ClassMatch {
    policy: (usize, usize),
    workload: Option<(usize, usize)>,
    kind: u8,
    name: (usize, usize),
}

/// `_CLASS.search(text)`: `POLICY=(\S+)\s+(?:WORKLOAD=(\S+)\s+)?(SERVICE|REPORT) CLASS=(\S+)`.
/// At a start nothing backtracks: each `\S+` and `\s+` is followed by what it cannot match, so
/// it takes the longest run; the optional group, when it matches, is the only way on (without
/// it `WORKLOAD=` would have to be the kind).
fn class_search(t: &[u8]) -> Option<ClassMatch> {
    for i in occurrences(t, b"POLICY=") {
        let p0 = i + 7;
        let p1 = nonblank_end(t, p0);
        let w1 = blank_end(t, p1);
        if p1 == p0 || w1 == p1 {
            continue;
        }
        let mut k = w1;
        let mut workload = None;
        if t[k..].starts_with(b"WORKLOAD=") {
            let a = k + 9;
            let b = nonblank_end(t, a);
            let c = blank_end(t, b);
            if b == a || c == b {
                continue;
            }
            workload = Some((a, b));
            k = c;
        }
        let (kind, n0) = if t[k..].starts_with(b"SERVICE CLASS=") {
            (0, k + 14)
        } else if t[k..].starts_with(b"REPORT CLASS=") {
            (1, k + 13)
        } else {
            continue;
        };
        let n1 = nonblank_end(t, n0);
        if n1 == n0 {
            continue;
        }
        return Some(ClassMatch {
            policy: (p0, p1),
            workload,
            kind,
            name: (n0, n1),
        });
    }
    None
}

/// `_SUMMARY.search(text)`: `REPORT BY:\s*POLICY=\S+`.
fn summary_search(t: &[u8]) -> bool {
    occurrences(t, b"REPORT BY:").any(|i| {
        let j = blank_end(t, i + 10);
        t[j..].starts_with(b"POLICY=") && j + 7 < t.len() && !is_ws(t[j + 7])
    })
}

/// `re.search(lit + r"(\S+)", t).group(1)`.
fn word_after<'a>(t: &'a [u8], lit: &[u8]) -> Option<&'a [u8]> {
    for i in occurrences(t, lit) {
        let a = i + lit.len();
        let b = nonblank_end(t, a);
        if b > a {
            return Some(&t[a..b]);
        }
    }
    None
}

/// `_PERIOD.search(text)`: `PERIOD=(\d{1,4})\b`, as an int (the digits' run must end within 4
/// digits, before a byte that is no word byte).
fn period_search(t: &[u8]) -> Option<i64> {
    let word = |c: u8| alnum1(c) || c == b'_';
    for i in occurrences(t, b"PERIOD=") {
        let a = i + 7;
        let mut b = a;
        while b < t.len() && t[b].is_ascii_digit() {
            b += 1;
        }
        if b > a && b - a <= 4 && (b == t.len() || !word(t[b])) {
            return Some(to_int(&t[a..b]));
        }
    }
    None
}

/// `_VALUE.fullmatch(v)`: `-?\d[\d.]*[KMGT]?|-?\.\d+|N/A|\*+`.
fn is_value(v: &[u8]) -> bool {
    if v == b"N/A" {
        return true;
    }
    if v[0] == b'*' {
        return v.iter().all(|&c| c == b'*');
    }
    let b = v.strip_prefix(b"-").unwrap_or(v);
    match b.first() {
        Some(c) if c.is_ascii_digit() => {
            let body = match b.last() {
                Some(b'K' | b'M' | b'G' | b'T') => &b[..b.len() - 1],
                _ => b,
            };
            body.iter().all(|&c| c.is_ascii_digit() || c == b'.')
        }
        Some(b'.') => b.len() > 1 && b[1..].iter().all(|c| c.is_ascii_digit()),
        _ => false,
    }
}

#[inline]
fn st_key(k: &[u8]) -> Option<usize> {
    ST_KEYS.iter().position(|&s| s == k)
}

#[inline]
fn appl_key(k: &[u8]) -> Option<usize> {
    APPL_KEYS.iter().position(|&s| s == k)
}

// -- sections and rows --------------------------------------------------------------------------

struct Section {
    line: i64,
    key: Interval,
    block_seen: bool,
    in_block: bool,
    block_rows: i64,
    /// None: not read; Some(None): N/A or stars
    values: [Option<Option<f64>>; N_VALUES],
    sysplex: Option<Vec<u8>>,
    zos_level: Option<Vec<u8>>,
    start: i64,
    secs: Option<f64>,
    policy: Vec<u8>,
    workload: Option<Vec<u8>>,
    kind: u8,
    name: Vec<u8>,
    group: Option<Vec<u8>>,
    period: Option<i64>,
    importance: Option<Vec<u8>>,
}

const KINDS: [&[u8]; 2] = [b"service", b"report"];

/// The landed rows of one take, as columns (the table's, but source_file).
#[derive(Default)]
pub struct Out {
    pub sysplex: ViewCol,
    pub zos_level: ViewCol,
    pub interval_start: Vec<i64>,
    pub interval_s: F64Col,
    pub source_line: Vec<i64>,
    pub policy: ViewCol,
    pub workload: ViewCol,
    pub class_kind: ViewCol,
    pub class_name: ViewCol,
    pub resource_group: ViewCol,
    pub period: Vec<i32>,
    pub period_valid: Bits,
    pub importance: ViewCol,
    pub values: [F64Col; N_VALUES],
}

impl Out {
    pub fn len(&self) -> usize {
        self.source_line.len()
    }

    pub fn is_empty(&self) -> bool {
        self.source_line.is_empty()
    }

    fn land(&mut self, s: &Section) {
        push1(&mut self.sysplex, s.sysplex.as_deref());
        push1(&mut self.zos_level, s.zos_level.as_deref());
        self.interval_start.push(s.start);
        self.interval_s.push(s.secs);
        self.source_line.push(s.line);
        push1(&mut self.policy, Some(&s.policy));
        push1(&mut self.workload, s.workload.as_deref());
        self.class_kind.push(Some(KINDS[s.kind as usize]));
        push1(&mut self.class_name, Some(&s.name));
        push1(&mut self.resource_group, s.group.as_deref());
        self.period.push(s.period.unwrap_or(0) as i32);
        self.period_valid.push(s.period.is_some());
        push1(&mut self.importance, s.importance.as_deref());
        for (col, v) in self.values.iter_mut().zip(s.values.iter()) {
            col.push(v.flatten());
        }
    }
}

// -- the parser ------------------------------------------------------------------------------

pub struct Parser {
    pages: Pages,
    section: Option<Section>,
    pub out: Out,
    pub counters: [i64; N_COUNTERS],
    /// `ctx.nothing_to_land` as last set (`NOTHING_*`, 0: never)
    pub nothing: i32,
    // ReportFrames' frames: their size, the byte-order mark before the first, where the next
    // chunk starts (after the mark), the frame of the last line read
    frame_bytes: u64,
    bom: u64,
    pos: u64,
    frame: u64,
    /// the first error, given when its frame ends
    error: Option<(String, i64)>,
    /// the sections are followed (no error of the section reading yet)
    reader_on: bool,
    line_buf: Vec<u8>,
}

impl Parser {
    /// `frame_bytes`: the Python parser's frame (`_rmf.FRAME_BYTES`, at most
    /// `base.MAX_LINE_BYTES`); `bom`: the file starts with a UTF-8 byte-order mark.
    pub fn new(frame_bytes: u64, bom: bool) -> Self {
        Parser {
            pages: Pages::new(TITLE),
            section: None,
            out: Out::default(),
            counters: [0; N_COUNTERS],
            nothing: 0,
            frame_bytes: frame_bytes.max(1),
            bom: if bom { 3 } else { 0 },
            pos: 0,
            frame: 0,
            error: None,
            reader_on: true,
            line_buf: Vec::new(),
        }
    }

    /// The rows landed since the last take.
    pub fn take(&mut self) -> Out {
        std::mem::take(&mut self.out)
    }

    /// One chunk of whole lines (`first`: its first line's number); the chunks follow each
    /// other from the start of the file (after its byte-order mark).
    pub fn feed(&mut self, data: &[u8], first: i64) -> Res {
        if data.is_empty() {
            return Ok(());
        }
        let ends_nl = data.last() == Some(&b'\n');
        let text = if ends_nl {
            &data[..data.len() - 1]
        } else {
            data
        };
        let mut buf = std::mem::take(&mut self.line_buf);
        let mut r = Ok(());
        let mut lineno = first;
        let mut at = 0;
        loop {
            let end = memchr(b'\n', &text[at..]).map_or(text.len(), |k| at + k);
            // the line's frame: where its line feed is (the last line of a file without one
            // is a frame of its own)
            let frame = if end < text.len() || ends_nl {
                (self.pos + end as u64 + self.bom) / self.frame_bytes
            } else {
                u64::MAX
            };
            if frame != self.frame {
                if let Some(e) = &self.error {
                    r = Err(e.clone());
                    break;
                }
                self.frame = frame;
            }
            self.page_line(lineno, &text[at..end], &mut buf);
            if end >= text.len() {
                break;
            }
            at = end + 1;
            lineno += 1;
        }
        self.pos += data.len() as u64;
        self.line_buf = buf;
        r
    }

    /// The end of the file: the error kept, else `reader.close(at_eof=True)` and its checks,
    /// then a WORKLOAD ACTIVITY report must have been found.
    pub fn finish(&mut self) -> Res {
        if let Some(e) = &self.error {
            return Err(e.clone());
        }
        self.close(true)?;
        if let Some(e) = &self.error {
            return Err(e.clone());
        }
        if self.pages.reports == 0 {
            let found = self.pages.found().unwrap_or_else(|| "no RMF report".into());
            return Err((
                format!(
                    "RMF Postprocessor report(s) {found}: recognised but not supported (mqcap \
                     reads CRYPTO HARDWARE ACTIVITY and WORKLOAD ACTIVITY)"
                ),
                1,
            ));
        }
        Ok(())
    }

    /// A block error (Python finds it when the frame ends): kept when it is the first.
    fn defer(&mut self, e: (String, i64)) {
        if self.error.is_none() {
            self.error = Some(e);
        }
    }

    /// One line through the page state machine, then `_Reader.event` for its event.
    fn page_line(&mut self, lineno: i64, raw: &[u8], buf: &mut Vec<u8>) {
        let ev = self.pages.step(lineno, raw, buf);
        let r = match ev {
            Ev::Counted(k) => {
                self.counters[k] += 1;
                return;
            }
            Ev::Skip | Ev::Page => return,
            _ if !self.reader_on => return,
            Ev::Title => {
                if !self.pages.in_report {
                    self.close(false)
                } else {
                    if let Some(s) = self.section.as_mut() {
                        s.in_block = false;
                    }
                    Ok(())
                }
            }
            Ev::Header => match &self.section {
                Some(s) if !s.key.same_key(&self.pages.iv) => self.close(false),
                _ => Ok(()),
            },
            Ev::Blank => {
                if let Some(s) = self.section.as_mut() {
                    s.in_block = false;
                }
                Ok(())
            }
            Ev::Line(text) => self.line(lineno, text),
        };
        if let Err(e) = r {
            // an error of the section reading: Python stops reading sections there
            self.defer(e);
            self.reader_on = false;
        }
    }

    /// `_Reader.close`: a section without a block is an error now; one without CPU when the
    /// frame ends (kept); else its row lands.
    fn close(&mut self, at_eof: bool) -> Res {
        let Some(s) = self.section.take() else {
            return Ok(());
        };
        if !s.block_seen {
            let at = if at_eof {
                "end of file"
            } else {
                "the next section"
            };
            return Err((
                format!(
                    "WORKLOAD ACTIVITY {} class {} has no SERVICE TIME block before {at} (report \
                     cut?)",
                    text1(KINDS[s.kind as usize]),
                    text1(&s.name)
                ),
                s.line,
            ));
        }
        if self.error.is_some() {
            return Ok(());
        }
        if s.values[CPU].is_none() {
            self.defer((
                format!(
                    "WORKLOAD ACTIVITY class {}: SERVICE TIME block without CPU",
                    text1(&s.name)
                ),
                s.line,
            ));
            return Ok(());
        }
        self.out.land(&s);
        Ok(())
    }

    /// `_Reader.event` for a LINE event.
    fn line(&mut self, lineno: i64, t: &[u8]) -> Res {
        let rare = self.pages.rare;
        if rare & 4 != 0 && contains(t, b"CLASS=") {
            if let Some(m) = class_search(t) {
                self.close(false)?;
                return self.new_section(m, lineno, t);
            }
        }
        if rare & 8 != 0 && contains(t, b"REPORT BY") && summary_search(t) {
            self.close(false)?;
            self.counters[C_TOTALS] += 1;
            self.nothing = NOTHING_TOTALS;
            return Ok(());
        }
        let Some(sec) = self.section.as_mut() else {
            if rare & 9 == 9 && contains(t, b"SERVICE POLICY PAGE") {
                self.nothing = NOTHING_POLICY_PAGE;
            }
            self.counters[C_OUTSIDE] += 1;
            return Ok(());
        };
        if rare & 1 != 0 && find_by(t, b"SERVICE TIME", 3).is_some() && contains(t, b"APPL %") {
            if sec.block_seen {
                return Err((
                    "second SERVICE TIME block in one class section".into(),
                    lineno,
                ));
            }
            sec.block_seen = true;
            sec.in_block = true;
            sec.block_rows = 0;
            return Ok(());
        }
        if sec.in_block {
            if lstrip(t).first() == Some(&b'-') || sec.block_rows >= BLOCK_MAX_ROWS {
                sec.in_block = false;
                return Ok(());
            }
            sec.block_rows += 1;
            if self.error.is_none() {
                if let Err(e) = block_row(sec, lineno, t) {
                    self.defer(e);
                }
            }
        }
        Ok(())
    }

    /// `_new_section`.
    fn new_section(&mut self, m: ClassMatch, lineno: i64, t: &[u8]) -> Res {
        let iv = &self.pages.iv;
        if iv.date.is_none() || iv.time.is_none() {
            return Err((
                "WORKLOAD ACTIVITY section before the page header".into(),
                lineno,
            ));
        }
        let start = interval_start(iv, lineno)?;
        let secs = interval_seconds(iv, lineno)?;
        let span = |(a, b): (usize, usize)| t[a..b].to_vec();
        self.section = Some(Section {
            line: lineno,
            key: iv.clone(),
            block_seen: false,
            in_block: false,
            block_rows: 0,
            values: [None; N_VALUES],
            sysplex: iv.sysplex.clone().or_else(|| iv.system_id.clone()),
            zos_level: iv.zos_level.clone(),
            start,
            secs,
            policy: span(m.policy),
            workload: m.workload.map(span),
            kind: m.kind,
            name: span(m.name),
            group: word_after(t, b"RESOURCE GROUP=").map(|v| v.to_vec()),
            period: period_search(t),
            importance: word_after(t, b"IMPORTANCE=").map(|v| v.to_vec()),
        });
        Ok(())
    }
}

/// `_block_row`: the SERVICE TIME and APPL % cells of one block row into the section's values.
/// The row is read as `KEY value` pairs left to right (a key of several words is no cell's: the
/// keys are single words), up to the APPL % cell.
fn block_row(sec: &mut Section, lineno: i64, t: &[u8]) -> Res {
    let mut st_taken = false;
    let mut words = 0usize;
    let mut key: &[u8] = &[];
    let n = t.len();
    let mut i = 0;
    loop {
        i = blank_end(t, i);
        if i >= n {
            return Ok(());
        }
        let e = nonblank_end(t, i);
        let v = &t[i..e];
        i = e;
        if words == 0 || !is_value(v) {
            if words == 0 {
                key = v;
            }
            words += 1;
            continue;
        }
        let single = words == 1;
        words = 0;
        if !single {
            continue;
        }
        let (col, last) = match (st_key(key), appl_key(key)) {
            (Some(k), _) if !st_taken => {
                if k < 2 && !v.contains(&b'.') && v != b"N/A" {
                    continue; // CPU/SRB service units
                }
                st_taken = true;
                (k, false)
            }
            (s, Some(k)) if st_taken || s.is_none() => (7 + k, true),
            _ => continue,
        };
        if sec.values[col].is_some() {
            return Err((
                format!("WORKLOAD ACTIVITY block: {} appears twice", text1(key)),
                lineno,
            ));
        }
        let num = number(v);
        if num.is_none() && v != b"N/A" && v[0] != b'*' {
            return Err((
                format!(
                    "WORKLOAD ACTIVITY block: {} {} is not a number",
                    text1(key),
                    pyrepr1(v)
                ),
                lineno,
            ));
        }
        sec.values[col] = Some(num);
        if last {
            return Ok(());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn class_lines() {
        let t = b"REPORT BY: POLICY=BASEPOL    WORKLOAD=SYSTEM     SERVICE CLASS=SYSSTC  X";
        let m = class_search(t).unwrap();
        assert_eq!(&t[m.policy.0..m.policy.1], b"BASEPOL");
        assert_eq!(&t[m.name.0..m.name.1], b"SYSSTC");
        assert!(m.workload.is_some() && m.kind == 0);
        let t = b"POLICY=P   REPORT CLASS=R PERIOD=1";
        let m = class_search(t).unwrap();
        assert!(m.workload.is_none() && m.kind == 1);
        assert!(class_search(b"POLICY=P WORKLOAD=W  REPORT CLASS= x").is_none());
        assert!(class_search(b"POLICY=POLICY=P SERVICE CLASS=S").is_some());
        assert!(summary_search(b"REPORT BY:POLICY=X"));
        assert!(!summary_search(b"REPORT BY: POLICY= X"));
        assert_eq!(period_search(b"PERIOD=12345 PERIOD=7"), Some(7));
        assert_eq!(period_search(b"PERIOD=12_ PERIOD=0012."), Some(12));
        assert_eq!(period_search(b"PERIOD=x"), None);
    }

    #[test]
    fn values() {
        for v in [&b"1"[..], b"-1.2.3K", b"-.5", b"N/A", b"***", b"9T"] {
            assert!(is_value(v), "{v:?}");
        }
        for v in [&b"-"[..], b"-.", b".K", b"K", b"N/AX", b"*-", b"1KK", b"x1"] {
            assert!(!is_value(v), "{v:?}");
        }
        assert_eq!(pyrepr1(b"a'\x7f\xe9\xad\\"), "\"a'\\x7f\u{e9}\\xad\\\\\"");
        assert_eq!(utf8(b"caf\xe9").as_ref(), "caf\u{e9}".as_bytes());
        assert_eq!(pyrepr1(b"\t\x0b\xa0"), "'\\t\\x0b\\xa0'");
    }
}
