//! RMF Postprocessor CRYPTO HARDWARE ACTIVITY reports in one pass over the bytes: a port of
//! `mqcap/parsers/rmf_crypto.py`'s `parse_by_line` (the reference) with the page state machine
//! it reads the report through (`_rmf.ReportPages`, `page_title`, `header_fields`,
//! `interval_start`, `interval_seconds`, `number`). The rows, counters and errors are the
//! Python parser's; `tests/test_native_crypto.py` holds the two to that.
//!
//! The text given is "plain" for this parser (`is_plain`): printable ASCII, line feed and the
//! ASCII characters Python counts as whitespace (tab, vertical tab, form feed, carriage return,
//! the separators 0x1C-0x1F). On such text Python's `str.strip`/`split`/`isalnum`, the regular
//! expressions' `\s`, `\S`, `\d`, `\b` and a latin-1 decoding all agree with the byte tests
//! below, so the port is exact. Each regular expression is ported with its backtracking worked
//! out (see each function).

use crate::columns::ViewCol;
use std::collections::BTreeSet;

/// Python whitespace (`str.isspace`, regex `\s`) among the plain bytes: tab, LF, VT, FF, CR,
/// 0x1C-0x1F, space.
const WS_MASK: u64 = 0x3e00 | 0xf000_0000 | 1 << 32;

#[inline(always)]
pub fn is_ws(c: u8) -> bool {
    c <= b' ' && (WS_MASK >> c) & 1 != 0
}

/// A byte this parser reads exactly: printable ASCII, LF and the whitespace above.
#[inline(always)]
pub fn plain_byte(c: u8) -> bool {
    (0x20..0x7f).contains(&c) || (0x09..=0x0d).contains(&c) || (0x1c..=0x1f).contains(&c)
}

pub fn is_plain(data: &[u8]) -> bool {
    // in blocks, so that the compiler vectorises the test
    data.chunks(4096)
        .all(|b| b.iter().fold(true, |acc, &c| acc & plain_byte(c)))
}

fn rstrip(s: &[u8]) -> &[u8] {
    let mut b = s.len();
    // reports pad their rows with blanks: 8 at a time
    while b >= 8 && s[b - 8..b] == [b' '; 8] {
        b -= 8;
    }
    while b > 0 && is_ws(s[b - 1]) {
        b -= 1;
    }
    &s[..b]
}

fn lstrip(s: &[u8]) -> &[u8] {
    let mut a = 0;
    while a < s.len() && is_ws(s[a]) {
        a += 1;
    }
    &s[a..]
}

/// The text as a `str` (plain text is ASCII): the standard library's searches are vectorised.
#[inline(always)]
fn as_str(s: &[u8]) -> &str {
    debug_assert!(s.is_ascii());
    // SAFETY: the parser is only given plain text (`is_plain`), which is ASCII
    unsafe { std::str::from_utf8_unchecked(s) }
}

/// Python `hay.find(needle)`: the candidates found by the standard library's memchr of the
/// needle's byte `k` (a rare one).
#[inline]
fn find_by(hay: &[u8], needle: &[u8], k: usize) -> Option<usize> {
    let n = needle.len();
    if hay.len() < n {
        return None;
    }
    let s = as_str(&hay[k..hay.len() - (n - 1 - k)]);
    let b = needle[k] as char;
    let mut from = 0;
    while let Some(p) = s[from..].find(b) {
        let i = from + p;
        if &hay[i..i + n] == needle {
            return Some(i);
        }
        from = i + 1;
    }
    None
}

#[inline]
fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    find_by(hay, needle, 0)
}

#[inline]
fn contains(hay: &[u8], needle: &[u8]) -> bool {
    find(hay, needle).is_some()
}

/// The needles every line is searched for, by a rare byte.
#[inline]
fn has_activity(s: &[u8]) -> bool {
    find_by(s, b"A C T I V I T Y", 8).is_some()
}

#[inline]
fn has_zos(s: &[u8]) -> bool {
    find_by(s, b"z/OS", 0).is_some()
}

#[inline]
fn has_rpt(s: &[u8]) -> bool {
    find_by(s, b"RPT VERSION", 4).is_some()
}

fn to_int(s: &[u8]) -> i64 {
    s.iter().fold(0i64, |v, &c| v * 10 + (c - b'0') as i64)
}

/// `_INT.fullmatch`: 1 to 5 digits.
#[inline]
fn int5(s: &[u8]) -> bool {
    !s.is_empty() && s.len() <= 5 && s.iter().all(|c| c.is_ascii_digit())
}

/// `_WORD.fullmatch`: `[A-Z][A-Z-]*`.
#[inline]
fn word(s: &[u8]) -> bool {
    !s.is_empty()
        && s[0].is_ascii_uppercase()
        && s.iter().all(|&c| c.is_ascii_uppercase() || c == b'-')
}

/// `_CARD_TYPE.fullmatch`: `[A-Z][A-Z0-9]{2,7}`.
#[inline]
fn card_type(s: &[u8]) -> bool {
    (3..=8).contains(&s.len())
        && s[0].is_ascii_uppercase()
        && s[1..]
            .iter()
            .all(|&c| c.is_ascii_uppercase() || c.is_ascii_digit())
}

/// `FUNCTION_WORDS`.
#[inline]
fn function_word(s: &[u8]) -> bool {
    matches!(
        s,
        b"ASYM"
            | b"SYMM"
            | b"RSA"
            | b"FAST"
            | b"GEN"
            | b"SLOW"
            | b"COMPLETE"
            | b"PARTIAL"
            | b"ME"
            | b"CRT"
    )
}

/// Python `repr` of a string of printable ASCII.
fn pyrepr(s: &[u8]) -> String {
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
        }
        out.push(c as char);
    }
    out.push(q as char);
    out
}

fn text(s: &[u8]) -> String {
    String::from_utf8_lossy(s).into_owned()
}

// -- numbers ----------------------------------------------------------------------------------

const POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/// Python `float(s)` of `-?[0-9]*\.?[0-9]*` with at least one digit: exact (a mantissa below
/// 2**53 over a power of ten up to 1e22 is one correctly rounded division, Clinger's fast
/// path), else the standard library's correctly rounded parse.
fn parse_float(s: &[u8]) -> f64 {
    let (neg, digits) = match s.first() {
        Some(b'-') => (true, &s[1..]),
        _ => (false, s),
    };
    let mut m: u64 = 0;
    let mut frac: Option<usize> = None;
    let mut ok = true;
    for (i, &c) in digits.iter().enumerate() {
        if c == b'.' {
            frac = Some(digits.len() - i - 1);
            continue;
        }
        m = m * 10 + (c - b'0') as u64;
        if m > (1u64 << 53) {
            ok = false;
            break;
        }
    }
    let k = frac.unwrap_or(0);
    let v = if ok && k <= 22 {
        m as f64 / POW10[k]
    } else {
        std::str::from_utf8(digits).unwrap().parse::<f64>().unwrap()
    };
    if neg {
        -v
    } else {
        v
    }
}

/// `text.isascii() and text.replace(".", "", 1).isdigit()`.
#[inline]
fn fast_number(s: &[u8]) -> bool {
    let mut dots = 0;
    let mut digits = 0;
    for &c in s {
        if c.is_ascii_digit() {
            digits += 1;
        } else if c == b'.' && dots == 0 {
            dots = 1;
        } else {
            return false;
        }
    }
    digits > 0
}

/// `_rmf.number` of a token (no blanks): K/M/G/T scaled, `None` for what is no number.
fn number(t: &[u8]) -> Option<f64> {
    if fast_number(t) {
        return Some(parse_float(t));
    }
    let (t, scale) = match t.last() {
        Some(b'K') => (&t[..t.len() - 1], 1e3),
        Some(b'M') => (&t[..t.len() - 1], 1e6),
        Some(b'G') => (&t[..t.len() - 1], 1e9),
        Some(b'T') => (&t[..t.len() - 1], 1e12),
        _ => (t, 1.0),
    };
    // _NUMBER: -?\d+(?:\.\d+)?|-?\.\d+
    let body = t.strip_prefix(b"-").unwrap_or(t);
    let ok = match body.iter().position(|&c| c == b'.') {
        None => !body.is_empty() && body.iter().all(|c| c.is_ascii_digit()),
        Some(p) => {
            body[..p].iter().all(|c| c.is_ascii_digit())
                && p + 1 < body.len()
                && body[p + 1..].iter().all(|c| c.is_ascii_digit())
        }
    };
    if !ok {
        return None;
    }
    Some(parse_float(t) * scale)
}

// -- page titles (_rmf.page_title, _prefixed_title) --------------------------------------------

#[inline]
fn title_char(c: u8) -> bool {
    c.is_ascii_uppercase() || c.is_ascii_digit() || c == b'/'
}

/// `_PAGE.sub("", s)`: `\s*PAGE\s+\d+\s*$` cut off (worked out from the end: the match is
/// unique, and the leftmost start is the beginning of the blanks before PAGE).
fn cut_page(s: &[u8]) -> &[u8] {
    let mut e = s.len();
    while e > 0 && is_ws(s[e - 1]) {
        e -= 1;
    }
    let d = e;
    while e > 0 && s[e - 1].is_ascii_digit() {
        e -= 1;
    }
    if e == d {
        return s;
    }
    let w = e;
    while e > 0 && is_ws(s[e - 1]) {
        e -= 1;
    }
    if e == w || e < 4 || &s[e - 4..e] != b"PAGE" {
        return s;
    }
    e -= 4;
    while e > 0 && is_ws(s[e - 1]) {
        e -= 1;
    }
    &s[..e]
}

/// `_SPACED_TITLE.fullmatch`: `[A-Z0-9/](?: {1,4}[A-Z0-9/]){3,}`.
fn spaced_title(s: &[u8]) -> bool {
    let n = s.len();
    if n == 0 || !title_char(s[0]) {
        return false;
    }
    let mut i = 1;
    let mut reps = 0;
    while i < n {
        let j = i;
        while i < n && s[i] == b' ' {
            i += 1;
        }
        let sp = i - j;
        if sp == 0 || sp > 4 || i >= n || !title_char(s[i]) {
            return false;
        }
        i += 1;
        reps += 1;
    }
    reps >= 3
}

/// `page_title(text)`.
pub fn page_title(text: &[u8]) -> Option<Vec<u8>> {
    let s = lstrip(text);
    if !(s.len() >= 4 && s[1] == b' ' && s[3] == b' ') {
        return prefixed_title(s);
    }
    let s = rstrip(cut_page(s));
    if s.len() < 9 || !spaced_title(s) {
        return None;
    }
    // words split on 2+ blanks, their letters' blanks removed (every word is spelled out:
    // within a word the blanks are single ones)
    let mut out = Vec::with_capacity(s.len() / 2 + 4);
    let mut i = 0;
    while i < s.len() {
        if s[i] == b' ' {
            let j = i;
            while i < s.len() && s[i] == b' ' {
                i += 1;
            }
            if i - j >= 2 {
                out.push(b' ');
            }
        } else {
            out.push(s[i]);
            i += 1;
        }
    }
    Some(out)
}

/// `_prefixed_title(s)`: `_AFTER_PREFIX` = `\S\s{2,}(?=[A-Z0-9/] [A-Z0-9/] )`, its matches
/// in order (non-overlapping), the first whose title ends in ACTIVITY or REPORT.
fn prefixed_title(s: &[u8]) -> Option<Vec<u8>> {
    if !contains(s, b"A C T I V I T Y") && !contains(s, b"R E P O R T") {
        return None;
    }
    let n = s.len();
    let mut i = 0;
    while i < n {
        if !is_ws(s[i]) {
            let mut j = i + 1;
            while j < n && is_ws(s[j]) {
                j += 1;
            }
            if j - (i + 1) >= 2
                && j + 4 <= n
                && title_char(s[j])
                && s[j + 1] == b' '
                && title_char(s[j + 2])
                && s[j + 3] == b' '
            {
                if let Some(t) = page_title(&s[j..]) {
                    if t.ends_with(b"ACTIVITY") || t.ends_with(b"REPORT") {
                        return Some(t);
                    }
                }
                i = j;
                continue;
            }
        }
        i += 1;
    }
    None
}

// -- page headers (_rmf.header_fields) ----------------------------------------------------------

#[derive(Clone, Default)]
pub struct Interval {
    system_id: Option<Vec<u8>>,
    sysplex: Option<Vec<u8>>,
    zos_level: Option<Vec<u8>>,
    rmf_version: Option<Vec<u8>>,
    date: Option<Vec<u8>>,
    time: Option<Vec<u8>>,
    interval_text: Option<Vec<u8>>,
    header_line: Option<i64>,
}

impl Interval {
    /// `Interval.key` equality.
    fn same_key(&self, o: &Interval) -> bool {
        self.system_id == o.system_id
            && self.sysplex == o.sysplex
            && self.date == o.date
            && self.time == o.time
            && self.interval_text == o.interval_text
    }
}

/// Blanks (at least one) from `i`: their end, or None.
#[inline]
fn blanks(s: &[u8], i: usize) -> Option<usize> {
    let mut j = i;
    while j < s.len() && is_ws(s[j]) {
        j += 1;
    }
    (j > i).then_some(j)
}

#[inline]
fn digits(s: &[u8], i: usize) -> usize {
    let mut j = i;
    while j < s.len() && s[j].is_ascii_digit() {
        j += 1;
    }
    j
}

/// `s[i:]` starts with exactly the pattern `p` where `d` is a digit, else a literal byte.
fn shaped(s: &[u8], i: usize, p: &[u8]) -> bool {
    i + p.len() <= s.len()
        && p.iter().zip(&s[i..]).all(|(&pc, &c)| {
            if pc == b'd' {
                c.is_ascii_digit()
            } else {
                c == pc
            }
        })
}

/// `re.search(lit + r"\s+" + tail, s).group(1)`: the first occurrence of `lit` (whose previous
/// byte passes `before`) after which `tail` matches; `tail(s, i)` gives the group's end.
fn search_after(
    s: &[u8],
    lit: &[u8],
    before: impl Fn(u8) -> bool,
    tail: impl Fn(&[u8], usize) -> Option<usize>,
) -> Option<Vec<u8>> {
    let mut from = 0;
    while let Some(k) = find(&s[from..], lit) {
        let at = from + k;
        from = at + 1;
        if at > 0 && !before(s[at - 1]) {
            continue;
        }
        if let Some(g) = blanks(s, at + lit.len()) {
            if let Some(e) = tail(s, g) {
                return Some(s[g..e].to_vec());
            }
        }
    }
    None
}

/// `V\d+R\d+`.
fn version_tail(s: &[u8], i: usize) -> Option<usize> {
    if s.get(i) != Some(&b'V') {
        return None;
    }
    let e = digits(s, i + 1);
    if e == i + 1 || s.get(e) != Some(&b'R') {
        return None;
    }
    let f = digits(s, e + 1);
    (f > e + 1).then_some(f)
}

/// `\S+`.
fn word_tail(s: &[u8], i: usize) -> Option<usize> {
    let mut j = i;
    while j < s.len() && !is_ws(s[j]) {
        j += 1;
    }
    (j > i).then_some(j)
}

fn any(_: u8) -> bool {
    true
}

/// `header_fields(text, current)`.
fn header_fields(s: &[u8], current: &Interval) -> Option<Interval> {
    if contains(s, b"z/OS") {
        if let Some(level) = search_after(s, b"z/OS", any, version_tail) {
            if contains(s, b"DATE") || contains(s, b"SYSTEM") {
                let mut iv = current.clone();
                iv.zos_level = Some(level);
                if let Some(v) = search_after(s, b"SYSTEM ID", any, word_tail) {
                    iv.system_id = Some(v);
                }
                if let Some(v) = search_after(s, b"SYSPLEX", any, word_tail) {
                    iv.sysplex = Some(v);
                }
                let date = |s: &[u8], i| shaped(s, i, b"dd/dd/dddd").then_some(i + 10);
                let not_upper_slash = |c: u8| !(c.is_ascii_uppercase() || c == b'/');
                if let Some(v) = search_after(s, b"DATE", not_upper_slash, date) {
                    iv.date = Some(v);
                }
                // \d+\.\d\d\.\d{3}
                let interval = |s: &[u8], i: usize| {
                    let e = digits(s, i);
                    (e > i && shaped(s, e, b".dd.ddd")).then_some(e + 7)
                };
                if let Some(v) = search_after(s, b"INTERVAL", any, interval) {
                    iv.interval_text = Some(v);
                }
                return Some(iv);
            }
        }
    }
    if contains(s, b"RPT VERSION") {
        if let Some(v) = search_after(s, b"RPT VERSION", any, version_tail) {
            let mut iv = current.clone();
            iv.rmf_version = Some(v);
            // (?<![-/])TIME\s+(\d\d\.\d\d\.\d\d)(?!\.)
            let time = |s: &[u8], i| {
                (shaped(s, i, b"dd.dd.dd") && s.get(i + 8) != Some(&b'.')).then_some(i + 8)
            };
            if let Some(t) = search_after(s, b"TIME", |c| c != b'-' && c != b'/', time) {
                iv.time = Some(t);
            }
            return Some(iv);
        }
    }
    None
}

// -- sections, column headers -------------------------------------------------------------------

pub const SECTION_NAMES: [&[u8]; 3] = [b"CCA COPROCESSOR", b"PKCS11 COPROCESSOR", b"ACCELERATOR"];
const CCA: u8 = 0;
const ACCEL: u8 = 2;
pub const SCOPES: [&[u8]; 3] = [b"TOTAL", b"LPAR", b"CPC"];
const FUNCTIONS: [&[u8]; 3] = [b"", b"RSA ME", b"RSA CRT"];
const FUNCTION_VIEWS: [[u8; 16]; 3] = [[0; 16], short_view(FUNCTIONS[1]), short_view(FUNCTIONS[2])];
const SCOPE_VIEWS: [[u8; 16]; 3] = [
    short_view(SCOPES[0]),
    short_view(SCOPES[1]),
    short_view(SCOPES[2]),
];
const KEY: u8 = 4; // Slot.metric: 0-3 the METRIC_COLUMNS, 4 the key size
const LPAR_CPC: u8 = 1; // Section.layout: 0 TOTAL

/// `_SECTION.match(text)`: `^\s*-+\s*CRYPTOGRAPHIC\s+([A-Z0-9 ]+?)\s*-*\s*$`, its group. Up to
/// CRYPTOGRAPHIC nothing backtracks; then `\s+` gives back blanks (greedy: the longest first)
/// and the lazy group grows until the rest is `\s*-*\s*`, i.e. reaches `tail`, the start of the
/// longest such suffix (any suffix of one is one).
fn section_match(t: &[u8]) -> Option<&[u8]> {
    let n = t.len();
    let mut i = n - lstrip(t).len();
    let d = i;
    while i < n && t[i] == b'-' {
        i += 1;
    }
    if i == d {
        return None;
    }
    while i < n && is_ws(t[i]) {
        i += 1;
    }
    if !t[i..].starts_with(b"CRYPTOGRAPHIC") {
        return None;
    }
    let c = i + 13;
    let mut k = 0;
    while c + k < n && is_ws(t[c + k]) {
        k += 1;
    }
    if k == 0 {
        return None;
    }
    let mut tail = n;
    while tail > 0 && is_ws(t[tail - 1]) {
        tail -= 1;
    }
    while tail > 0 && t[tail - 1] == b'-' {
        tail -= 1;
    }
    while tail > 0 && is_ws(t[tail - 1]) {
        tail -= 1;
    }
    let class = |c: u8| c.is_ascii_uppercase() || c.is_ascii_digit() || c == b' ';
    for j in (1..=k).rev() {
        let g = c + j;
        let mut e = g + 1;
        while e <= n && class(t[e - 1]) {
            if e >= tail {
                return Some(&t[g..e]);
            }
            e += 1;
        }
    }
    None
}

/// `_OTHER_SECTION.match(text)`: `^\s*-{3,}\s*([A-Z][A-Z0-9 /]*?[A-Z0-9])\s*-{3,}\s*$`, its
/// group. The group starts at the first non-blank after the leading dashes; it ends where the
/// rest is `\s*-{3,}\s*`, which only the end of the last byte that is neither blank nor dash can
/// be (the group's last byte is neither).
fn other_section_match(t: &[u8]) -> Option<&[u8]> {
    let n = t.len();
    let mut i = 0;
    while i < n && is_ws(t[i]) {
        i += 1;
    }
    let d = i;
    while i < n && t[i] == b'-' {
        i += 1;
    }
    if i - d < 3 {
        return None;
    }
    while i < n && is_ws(t[i]) {
        i += 1;
    }
    let g = i;
    let mut e = n;
    while e > 0 && (is_ws(t[e - 1]) || t[e - 1] == b'-') {
        e -= 1;
    }
    if e < g + 2 {
        return None;
    }
    // the rest: \s*-{3,}\s*$
    let mut r = e;
    while r < n && is_ws(t[r]) {
        r += 1;
    }
    let rd = r;
    while r < n && t[r] == b'-' {
        r += 1;
    }
    if r - rd < 3 {
        return None;
    }
    while r < n && is_ws(t[r]) {
        r += 1;
    }
    if r != n {
        return None;
    }
    let grp = &t[g..e];
    let last = grp[grp.len() - 1];
    if !grp[0].is_ascii_uppercase()
        || !(last.is_ascii_uppercase() || last.is_ascii_digit())
        || !grp[1..grp.len() - 1]
            .iter()
            .all(|&c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == b' ' || c == b'/')
    {
        return None;
    }
    Some(grp)
}

/// `_GROUPS.search(s)`: `\b(?:TOTAL|LPAR|CPC)\b`.
fn groups_search(s: &[u8]) -> bool {
    let w = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    for i in 0..s.len() {
        if i > 0 && w(s[i - 1]) {
            continue;
        }
        for lit in [&b"TOTAL"[..], b"LPAR", b"CPC"] {
            if s[i..].starts_with(lit) && (i + lit.len() == s.len() || !w(s[i + lit.len()])) {
                return true;
            }
        }
    }
    false
}

fn section_kind(name: &[u8]) -> u8 {
    if contains(name, b"PKCS11") {
        1
    } else if contains(name, b"ACCELERATOR") {
        2
    } else {
        0
    }
}

/// One value column of the column-header line (`Slot`); centers doubled (exact integers).
#[derive(Clone, Copy, PartialEq)]
pub struct Slot {
    center2: i64,
    func: bool,
    metric: u8,
    scope: u8,
    function: u8,
}

/// A column header read: its layout and slots, and the ID, FUNCTION and KEY columns it sets
/// (None: it has no such label, and the section keeps its own).
#[derive(Clone)]
struct SlotRead {
    layout: u8,
    slots: Vec<Slot>,
    id_end: Option<i64>,
    func_start: Option<i64>,
    key_end: Option<i64>,
}

struct Section {
    name: u8,
    line: i64,
    key: Interval,
    layout: Option<u8>,
    slots: Option<Vec<Slot>>,
    func_slots: Vec<Slot>,
    id_end: i64,
    func_start: Option<i64>,
    key_end: Option<i64>,
    rows: i64,
    /// the card type's string view (a card type has 3 to 8 bytes)
    card_type: Option<[u8; 16]>,
    card_id: Option<i64>,
    has_card: bool,
}

const LABELS: [&[u8]; 8] = [
    b"KEY-GEN RATE",
    b"EXEC TIME",
    b"UTIL%",
    b"RATE",
    b"KEY",
    b"FUNCTION",
    b"TYPE",
    b"ID",
];

/// `_read_slots(section, text)`: the labels (`_LABELS.finditer`: the alternatives in order at
/// each position, no word boundaries) read into slots; what the line has no label for is None
/// (the section keeps its value: `slots`).
fn read_slots(sec: &Section, t: &[u8]) -> SlotRead {
    let mut labels: Vec<(usize, usize, usize)> = Vec::new();
    let mut p = 0;
    while p < t.len() {
        match LABELS.iter().position(|l| t[p..].starts_with(l)) {
            Some(k) => {
                labels.push((k, p, p + LABELS[k].len()));
                p += LABELS[k].len();
            }
            None => p += 1,
        }
    }
    let layout = sec
        .layout
        .unwrap_or(if labels.len() > 12 { LPAR_CPC } else { 0 });
    let scopes: &[u8] = if layout == LPAR_CPC { &[1, 2] } else { &[0] };
    let mut r = SlotRead {
        layout,
        slots: Vec::new(),
        id_end: None,
        func_start: None,
        key_end: None,
    };
    let (mut func, mut groups, mut keygens) = (false, -1i64, 0usize);
    let accel_total = sec.name == ACCEL && layout != LPAR_CPC;
    for (k, start, end) in labels {
        let center2 = (start + end) as i64;
        let label = LABELS[k];
        match label {
            b"ID" => r.id_end = Some(end as i64),
            b"TYPE" => {}
            b"FUNCTION" => {
                func = true;
                groups = -1;
                r.func_start = Some(start as i64);
            }
            b"KEY" => {
                func = true;
                groups = -1;
                r.func_start = Some(start as i64);
                r.key_end = Some(end as i64);
                r.slots.push(Slot {
                    center2,
                    func,
                    metric: KEY,
                    scope: scopes[0],
                    function: 0,
                });
            }
            _ if label == b"KEY-GEN RATE"
                || (label == b"RATE"
                    && !func
                    && sec.name == CCA
                    && groups >= 0
                    && layout != LPAR_CPC) =>
            {
                let scope = scopes[keygens.min(scopes.len() - 1)];
                keygens += 1;
                r.slots.push(Slot {
                    center2,
                    func,
                    metric: 3,
                    scope,
                    function: 0,
                });
            }
            _ => {
                if label == b"RATE" {
                    groups += 1;
                }
                let g = groups.max(0) as usize;
                let (scope, function) = if accel_total && func {
                    (0, 1 + g.min(1) as u8)
                } else {
                    (scopes[g.min(scopes.len() - 1)], 0)
                };
                let metric = match label {
                    b"RATE" => 0,
                    b"EXEC TIME" => 1,
                    _ => 2,
                };
                r.slots.push(Slot {
                    center2,
                    func,
                    metric,
                    scope,
                    function,
                });
            }
        }
    }
    r
}

// -- the rows ------------------------------------------------------------------------------

/// Arrow validity bits, built as the rows come.
#[derive(Default)]
pub struct Bits {
    pub bytes: Vec<u8>,
    len: usize,
}

impl Bits {
    #[inline]
    fn push(&mut self, v: bool) {
        if self.len & 7 == 0 {
            self.bytes.push(0);
        }
        if v {
            *self.bytes.last_mut().unwrap() |= 1 << (self.len & 7);
        }
        self.len += 1;
    }
}

/// The string view of up to 12 bytes (`columns::ViewCol::make`'s), for constants.
const fn short_view(b: &[u8]) -> [u8; 16] {
    let mut v = [0u8; 16];
    v[0] = b.len() as u8;
    let mut i = 0;
    while i < b.len() {
        v[4 + i] = b[i];
        i += 1;
    }
    v
}

/// A float column: values and validity.
#[derive(Default)]
pub struct F64Col {
    pub values: Vec<f64>,
    pub valid: Bits,
}

impl F64Col {
    #[inline]
    fn push(&mut self, v: Option<f64>) {
        self.values.push(v.unwrap_or(0.0));
        self.valid.push(v.is_some());
    }
}

/// The landed rows of one take, as columns (`Rows.NAMES` but source_file).
pub struct Out {
    pub system_id: ViewCol,
    pub zos_level: ViewCol,
    pub interval_start: Vec<i64>,
    pub interval_s: F64Col,
    pub source_line: Vec<i64>,
    pub section: ViewCol,
    pub card_type: ViewCol,
    pub card_id: Vec<i32>,
    pub card_id_valid: Bits,
    pub function: ViewCol,
    pub key_size_bits: Vec<i32>,
    pub key_size_bits_valid: Bits,
    pub scope: ViewCol,
    pub metrics: [F64Col; 4],
    section_views: [[u8; 16]; 3],
}

impl Out {
    fn new() -> Self {
        let mut section = ViewCol::new();
        let section_views = SECTION_NAMES.map(|name| section.make(name));
        Out {
            system_id: ViewCol::new(),
            zos_level: ViewCol::new(),
            interval_start: Vec::new(),
            interval_s: F64Col::default(),
            source_line: Vec::new(),
            section,
            card_type: ViewCol::new(),
            card_id: Vec::new(),
            card_id_valid: Bits::default(),
            function: ViewCol::new(),
            key_size_bits: Vec::new(),
            key_size_bits_valid: Bits::default(),
            scope: ViewCol::new(),
            metrics: Default::default(),
            section_views,
        }
    }

    pub fn len(&self) -> usize {
        self.source_line.len()
    }

    pub fn is_empty(&self) -> bool {
        self.source_line.is_empty()
    }

    /// Room for `n` more rows.
    fn reserve(&mut self, n: usize) {
        for c in [
            &mut self.system_id,
            &mut self.zos_level,
            &mut self.section,
            &mut self.card_type,
            &mut self.function,
            &mut self.scope,
        ] {
            c.views.reserve(n);
            c.valid.reserve(n);
        }
        self.interval_start.reserve(n);
        self.interval_s.values.reserve(n);
        self.interval_s.valid.bytes.reserve(n / 8 + 1);
        self.source_line.reserve(n);
        self.card_id.reserve(n);
        self.card_id_valid.bytes.reserve(n / 8 + 1);
        self.key_size_bits.reserve(n);
        self.key_size_bits_valid.bytes.reserve(n / 8 + 1);
        for m in self.metrics.iter_mut() {
            m.values.reserve(n);
            m.valid.bytes.reserve(n / 8 + 1);
        }
    }
}

/// The identity columns of an interval (`_Reader.ident`), kept for one interval key.
struct Ident {
    key: Interval,
    system_id: Option<Vec<u8>>,
    zos_level: Option<Vec<u8>>,
    /// their string views when they are short (a long one is written to every batch)
    views: [Option<[u8; 16]>; 2],
    start: i64,
    secs: Option<f64>,
}

/// One (function, scope) of a row's values (`_emit`'s groups): `vals[m]` is None when the
/// metric was not placed, Some(None) for a placed value that is no number.
struct Group {
    func: u8, // 0 none, 1-2 FUNCTIONS, 3 the row's function name
    scope: u8,
    vals: [Option<Option<f64>>; 4],
}

// -- counters ----------------------------------------------------------------------------------

pub const C_COMMENT: usize = 0;
pub const C_OVERPRINT: usize = 1;
pub const C_OTHER_REPORT: usize = 2;
pub const C_BEFORE: usize = 3;
pub const C_OUTSIDE: usize = 4;
pub const C_BEFORE_HEADER: usize = 5;
pub const C_IN_SECTION: usize = 6;
pub const C_NO_VALUES: usize = 7;

/// Counted lines by (unknown or skipped, what): the fixed ones first, then the other sections'
/// ("ICSF SERVICES section", "ICSF SERVICES line").
pub struct Counters {
    pub entries: Vec<(bool, Vec<u8>, i64)>,
}

impl Counters {
    fn new() -> Self {
        let fixed: [(bool, &[u8]); 8] = [
            (true, b"comment line"),
            (false, b"overprint line"),
            (false, b"line of another RMF report"),
            (false, b"line before the report"),
            (true, b"crypto line outside a section"),
            (true, b"crypto line before the column header"),
            (true, b"crypto line in a section"),
            (false, b"crypto scope with no values"),
        ];
        Counters {
            entries: fixed.iter().map(|(u, n)| (*u, n.to_vec(), 0)).collect(),
        }
    }
    #[inline]
    fn add(&mut self, k: usize, n: i64) {
        self.entries[k].2 += n;
    }
    /// The index of a skipped-line counter named `name` + `suffix`.
    fn named(&mut self, name: &[u8], suffix: &[u8]) -> usize {
        let mut full = name.to_vec();
        full.extend_from_slice(suffix);
        match self.entries.iter().position(|(u, n, _)| !*u && *n == full) {
            Some(k) => k,
            None => {
                self.entries.push((false, full, 0));
                self.entries.len() - 1
            }
        }
    }
    /// `U<what>\t<n>\n` / `S<what>\t<n>\n` lines of the nonzero counters, which are reset.
    pub fn drain(&mut self) -> Vec<u8> {
        let mut out = Vec::new();
        for (u, name, n) in self.entries.iter_mut() {
            if *n != 0 {
                out.push(if *u { b'U' } else { b'S' });
                out.extend_from_slice(name);
                out.push(b'\t');
                out.extend_from_slice(n.to_string().as_bytes());
                out.push(b'\n');
                *n = 0;
            }
        }
        out
    }
}

// -- the parser ------------------------------------------------------------------------------

pub type Res = Result<(), (String, i64)>;
type ResT<T> = Result<T, (String, i64)>;

const TITLE: &[u8] = b"CRYPTO HARDWARE ACTIVITY";
const SLOT_CACHE_MAX: usize = 256;
const MIN_KEY_BITS: i64 = 256;

pub struct Parser {
    // ReportPages
    cc_on: Option<bool>,
    in_report: bool,
    reports: i64,
    other_titles: BTreeSet<Vec<u8>>,
    iv: Interval,
    // _Reader
    section: Option<Section>,
    other_section: Option<Vec<u8>>,
    other_line: usize,
    ident: Option<Ident>,
    ident_ok: bool,
    /// `_SLOT_CACHE`, this parse's: (section name, layout before, header text) -> what was read
    slot_cache: Vec<(u8, Option<u8>, Vec<u8>, SlotRead)>,
    // scratch, kept between rows
    toks: Vec<(u32, u32)>,
    values: Vec<(u32, u32, i64)>,
    placed: Vec<(u32, u32, u32)>,
    fname: Vec<u8>,
    groups: Vec<Group>,
    line_buf: Vec<u8>,
    pub out: Out,
    pub counters: Counters,
}

impl Default for Parser {
    fn default() -> Self {
        Self::new()
    }
}

impl Parser {
    pub fn new() -> Self {
        Parser {
            cc_on: None,
            in_report: false,
            reports: 0,
            other_titles: BTreeSet::new(),
            iv: Interval::default(),
            section: None,
            other_section: None,
            other_line: 0,
            ident: None,
            ident_ok: false,
            slot_cache: Vec::new(),
            toks: Vec::new(),
            values: Vec::new(),
            placed: Vec::new(),
            fname: Vec::new(),
            groups: Vec::new(),
            line_buf: Vec::new(),
            out: Out::new(),
            counters: Counters::new(),
        }
    }

    /// The rows landed since the last take.
    pub fn take(&mut self) -> Out {
        std::mem::replace(&mut self.out, Out::new())
    }

    /// One chunk of whole lines (`first`: its first line's number).
    pub fn feed(&mut self, data: &[u8], first: i64) -> Res {
        let text = if data.last() == Some(&b'\n') {
            &data[..data.len() - 1]
        } else {
            data
        };
        let mut buf = std::mem::take(&mut self.line_buf);
        let mut r;
        let mut lineno = first;
        let mut pos = 0;
        self.out.reserve(data.len() / 64);
        let all = as_str(text);
        loop {
            let end = all[pos..].find('\n').map_or(text.len(), |k| pos + k);
            r = self.page_line(lineno, &text[pos..end], &mut buf);
            if r.is_err() || end >= text.len() {
                break;
            }
            pos = end + 1;
            lineno += 1;
        }
        self.line_buf = buf;
        r
    }

    /// `ReportPages.__iter__` for one line, then `parse_by_line`'s step for its event.
    fn page_line(&mut self, lineno: i64, raw: &[u8], buf: &mut Vec<u8>) -> Res {
        if raw.first() == Some(&b'#') && !raw.get(1).is_some_and(|c| c.is_ascii_alphanumeric()) {
            self.counters.add(C_COMMENT, 1);
            return Ok(());
        }
        let mut text = rstrip(raw);
        // which of the rare bytes of the needles searched below the line has (one vectorised
        // pass): V for "A C T I V I T Y" and "RPT VERSION", z for "z/OS"
        let rare = text.iter().fold(0u8, |a, &c| {
            a | (c == b'V') as u8 | ((c == b'z') as u8) << 1
        });
        if self.cc_on.is_none() && !text.is_empty() {
            if text[0] == b'1' && page_title(&text[1..]).is_some() {
                self.cc_on = Some(true);
            } else if page_title(text).is_some() {
                self.cc_on = Some(false);
            }
        }
        if self.cc_on == Some(true) && !text.is_empty() {
            match text[0] {
                b'+' => {
                    self.counters.add(C_OVERPRINT, 1);
                    return Ok(());
                }
                b'1' | b'0' | b'-' => {
                    buf.clear();
                    buf.push(b' ');
                    buf.extend_from_slice(&text[1..]);
                    text = &buf[..];
                }
                _ => {}
            }
        }
        let stripped = lstrip(text);
        if stripped.is_empty() {
            return Ok(()); // BLANK: nothing for the reader
        }
        let title = if stripped.len() >= 4 && stripped[1] == b' ' && stripped[3] == b' ' {
            page_title(text)
        } else if rare & 1 != 0 && has_activity(stripped) {
            prefixed_title(stripped)
        } else {
            None
        };
        if let Some(t) = title {
            self.in_report = t == TITLE;
            if self.in_report {
                self.reports += 1;
            } else {
                self.other_titles.insert(t);
            }
            return Ok(());
        }
        if !self.in_report {
            let k = if self.other_titles.is_empty() {
                C_BEFORE
            } else {
                C_OTHER_REPORT
            };
            self.counters.add(k, 1);
            return Ok(());
        }
        let zos = rare & 2 != 0 && has_zos(text);
        if zos
            && (contains(text, b"SYSTEM ID")
                || contains(text, b"SYSPLEX")
                || contains(text, b"DATE"))
        {
            let fresh = Interval {
                header_line: Some(lineno),
                ..Interval::default()
            };
            if let Some(new) = header_fields(text, &fresh) {
                self.iv = new;
                self.ident_ok = false;
                return Ok(()); // PAGE: nothing for the reader
            }
        }
        if zos || (rare & 1 != 0 && has_rpt(text)) {
            if let Some(new) = header_fields(text, &self.iv) {
                self.iv = new;
                self.ident_ok = false;
                // HEADER: a page header of another interval ends the section being read
                if let Some(sec) = &self.section {
                    if !sec.key.same_key(&self.iv) {
                        self.close(false)?;
                    }
                }
                return Ok(());
            }
        }
        if stripped.starts_with(b"PAGE") {
            // _PAGE_ONLY.fullmatch: PAGE\s+\d+
            if let Some(e) = blanks(stripped, 4) {
                let d = digits(stripped, e);
                if d > e && d == stripped.len() {
                    return Ok(());
                }
            }
        }
        self.line(lineno, text)
    }

    /// `parse_by_line`'s step for a LINE event.
    fn line(&mut self, lineno: i64, text: &[u8]) -> Res {
        let stripped = rstrip(lstrip(text));
        if stripped[0] == b'-' && self.section_line(lineno, text)? {
            return Ok(());
        }
        let Some(sec) = self.section.as_mut() else {
            match &self.other_section {
                Some(_) => self.counters.add(self.other_line, 1),
                None => self.counters.add(C_OUTSIDE, 1),
            }
            return Ok(());
        };
        if stripped[0] == b'-' && (contains(text, b"TOTAL") || contains(text, b"LPAR")) {
            sec.layout = Some(if contains(text, b"LPAR") { LPAR_CPC } else { 0 });
            return Ok(());
        }
        if stripped.starts_with(b"TYPE") && contains(text, b"RATE") {
            self.slots(text);
            return Ok(());
        }
        if sec.slots.is_none() {
            self.counters.add(C_BEFORE_HEADER, 1);
            return Ok(());
        }
        self.check_ident(lineno)?;
        if !self.data_row(lineno, text)? {
            self.counters.add(C_IN_SECTION, 1);
        }
        Ok(())
    }

    /// `_Reader.close`.
    fn close(&mut self, at_eof: bool) -> Res {
        if let Some(sec) = &self.section {
            if sec.rows == 0 {
                let name = text(SECTION_NAMES[sec.name as usize]);
                let at = if at_eof {
                    "end of file"
                } else {
                    "the next section"
                };
                return Err((
                    format!(
                        "CRYPTOGRAPHIC {name} section has no card rows before {at} (report cut?)"
                    ),
                    sec.line,
                ));
            }
        }
        self.section = None;
        Ok(())
    }

    /// `_Reader.section_line`.
    fn section_line(&mut self, lineno: i64, t: &[u8]) -> ResT<bool> {
        if let Some(g) = section_match(t) {
            let name = section_kind(g);
            self.close(false)?;
            if self.iv.date.is_none() {
                return Err((
                    "crypto section before the page header (DATE/TIME)".into(),
                    lineno,
                ));
            }
            self.section = Some(Section {
                name,
                line: lineno,
                key: self.iv.clone(),
                layout: None,
                slots: None,
                func_slots: Vec::new(),
                id_end: 9,
                func_start: None,
                key_end: None,
                rows: 0,
                card_type: None,
                card_id: None,
                has_card: false,
            });
            self.other_section = None;
            return Ok(true);
        }
        if let Some(g) = other_section_match(t) {
            if !groups_search(g) {
                let g = g.to_vec();
                self.close(false)?;
                let k = self.counters.named(&g, b" section");
                self.counters.add(k, 1);
                self.other_line = self.counters.named(&g, b" line");
                self.other_section = Some(g);
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// `_slots(section, text)`, with `_SLOT_CACHE` (this parse's; it keeps only what a header
    /// sets, so a cached read gives what a fresh one gives).
    fn slots(&mut self, t: &[u8]) {
        let sec = self.section.as_mut().unwrap();
        let hit = self
            .slot_cache
            .iter()
            .position(|(n, l, k, _)| *n == sec.name && *l == sec.layout && k == t);
        let read = match hit {
            Some(i) => self.slot_cache[i].3.clone(),
            None => {
                let read = read_slots(sec, t);
                if self.slot_cache.len() < SLOT_CACHE_MAX {
                    self.slot_cache
                        .push((sec.name, sec.layout, t.to_vec(), read.clone()));
                }
                read
            }
        };
        sec.layout = Some(read.layout);
        sec.func_slots = read.slots.iter().copied().filter(|s| s.func).collect();
        sec.slots = Some(read.slots);
        if let Some(v) = read.id_end {
            sec.id_end = v;
        }
        if read.func_start.is_some() {
            sec.func_start = read.func_start;
        }
        if read.key_end.is_some() {
            sec.key_end = read.key_end;
        }
    }

    /// `_Reader.ident`: the interval's identity columns, worked out once per interval key.
    fn check_ident(&mut self, lineno: i64) -> Res {
        if self.ident_ok {
            return Ok(());
        }
        let iv = &self.iv;
        if !self.ident.as_ref().is_some_and(|d| d.key.same_key(iv)) {
            self.ident = None;
            let start = interval_start(iv, lineno)?;
            let secs = interval_seconds(iv, lineno)?;
            let short = |v: &Option<Vec<u8>>| match v {
                Some(b) if b.len() <= 12 => Some(short_view(b)),
                _ => None,
            };
            self.ident = Some(Ident {
                key: iv.clone(),
                views: [short(&iv.system_id), short(&iv.zos_level)],
                system_id: iv.system_id.clone(),
                zos_level: iv.zos_level.clone(),
                start,
                secs,
            });
        }
        self.ident_ok = true;
        Ok(())
    }

    /// `_data_row`: the rows of one data line; false when the line is not one.
    fn data_row(&mut self, lineno: i64, t: &[u8]) -> ResT<bool> {
        let toks = &mut self.toks;
        toks.clear();
        let n = t.len();
        let mut i = 0;
        while i < n {
            while i < n && is_ws(t[i]) {
                i += 1;
            }
            if i >= n {
                break;
            }
            let s = i;
            while i < n && !is_ws(t[i]) {
                i += 1;
            }
            toks.push((s as u32, i as u32));
        }
        let tk = |k: usize| &t[toks[k].0 as usize..toks[k].1 as usize];
        let sec = self.section.as_mut().unwrap();
        let first = tk(0);
        let (card, shift, rest) =
            if toks.len() > 1 && card_type(first) && !function_word(first) && int5(tk(1)) {
                sec.card_type = Some(short_view(first));
                sec.card_id = Some(to_int(tk(1)));
                sec.has_card = true;
                (true, sec.id_end - toks[1].1 as i64, 2)
            } else if int5(first) && (sec.key_end.is_none() || to_int(first) < MIN_KEY_BITS) {
                if !sec.has_card {
                    return Err((
                        "crypto row continues a card type, but no card row came before".into(),
                        lineno,
                    ));
                }
                sec.card_id = Some(to_int(first));
                (true, sec.id_end - toks[0].1 as i64, 1)
            } else if let (true, Some(key_end)) = (int5(first), sec.key_end) {
                if !sec.has_card {
                    return Err(("crypto key-size row before any card row".into(), lineno));
                }
                (false, key_end - toks[0].1 as i64, 0)
            } else if let (true, Some(func_start)) =
                (word(first) && function_word(first), sec.func_start)
            {
                if !sec.has_card {
                    return Err(("crypto function row before any card row".into(), lineno));
                }
                (false, func_start - toks[0].0 as i64, 0)
            } else {
                return Ok(false);
            };

        // the function name (and, in the LPAR/CPC accelerator, the key size after it)
        let fname = &mut self.fname;
        fname.clear();
        let mut has_fn = false;
        let mut key_bits: Option<i64> = None;
        let values = &mut self.values;
        values.clear();
        let mut i = rest;
        let nt = toks.len();
        while i < nt {
            let (s, e) = toks[i];
            if word(tk(i)) {
                let w0 = i;
                while i < nt && word(tk(i)) && tk(i) != b"N/A" {
                    i += 1;
                }
                if has_fn {
                    fname.clear();
                }
                for k in w0..i {
                    if k > w0 {
                        fname.push(b' ');
                    }
                    fname.extend_from_slice(tk(k));
                }
                if has_fn {
                    return Err((
                        format!("crypto row: unexpected text {}", pyrepr(fname)),
                        lineno,
                    ));
                }
                has_fn = true;
                if sec.name == ACCEL && i < nt && sec.key_end.is_none() {
                    if !int5(tk(i)) {
                        return Err((
                            "accelerator row: key size missing after function".into(),
                            lineno,
                        ));
                    }
                    key_bits = Some(to_int(tk(i)));
                    i += 1;
                }
                continue;
            }
            values.push((s, e, (s + e) as i64 + 2 * shift));
            i += 1;
        }
        if !card && !has_fn && sec.key_end.is_none() {
            return Err(("crypto function row without a function name".into(), lineno));
        }
        let slots: &[Slot] = if card {
            sec.slots.as_ref().unwrap()
        } else {
            &sec.func_slots
        };
        if values.len() > slots.len() {
            return Err((
                format!(
                    "crypto row has {} values where the column header has {}",
                    values.len(),
                    slots.len()
                ),
                lineno,
            ));
        }
        // _place / _nearest
        let placed = &mut self.placed;
        placed.clear();
        if values.len() == slots.len() {
            for (k, &(s, e, _)) in values.iter().enumerate() {
                placed.push((k as u32, s, e));
            }
        } else {
            let nv = values.len();
            let mut nxt = 0;
            for (k, &(s, e, c2)) in values.iter().enumerate() {
                let last = slots.len() - (nv - k);
                let mut best = nxt;
                let mut dist = (slots[nxt].center2 - c2).abs();
                for (j, slot) in slots.iter().enumerate().take(last + 1).skip(nxt + 1) {
                    let d = (slot.center2 - c2).abs();
                    if d < dist {
                        best = j;
                        dist = d;
                    }
                }
                placed.push((best as u32, s, e));
                nxt = best + 1;
            }
        }
        if !has_fn
            && placed.iter().any(|&(j, _, _)| {
                let s = &slots[j as usize];
                s.func && s.function == 0 && s.metric != KEY
            })
        {
            return Err((
                "crypto row has function values but no function name".into(),
                lineno,
            ));
        }
        sec.rows += 1;

        // _emit
        let groups = &mut self.groups;
        groups.clear();
        let fn_bytes = |f: u8| -> &[u8] {
            if f == 3 {
                &fname[..]
            } else {
                FUNCTIONS[f as usize]
            }
        };
        for &(j, s, e) in placed.iter() {
            let slot = slots[j as usize];
            let v = &t[s as usize..e as usize];
            if slot.metric == KEY {
                if !int5(v) {
                    return Err((
                        format!("accelerator row: key size {} is not a number", pyrepr(v)),
                        lineno,
                    ));
                }
                key_bits = Some(to_int(v));
                continue;
            }
            let f = if !slot.func {
                0
            } else if slot.function != 0 {
                slot.function
            } else if has_fn {
                3
            } else {
                0
            };
            let g = match groups.iter().position(|g| {
                g.scope == slot.scope
                    && (g.func == f || (g.func != 0 && f != 0 && fn_bytes(g.func) == fn_bytes(f)))
            }) {
                Some(k) => k,
                None => {
                    groups.push(Group {
                        func: f,
                        scope: slot.scope,
                        vals: [None; 4],
                    });
                    groups.len() - 1
                }
            };
            let value = number(v);
            if value.is_none() && !v.iter().all(|&c| c == b'*' || c == b'-') && v != b"N/A" {
                return Err((format!("crypto row: {} is not a number", pyrepr(v)), lineno));
            }
            groups[g].vals[slot.metric as usize] = Some(value);
        }
        let ident = self.ident.as_ref().unwrap();
        let out = &mut self.out;
        let mut fn_view: Option<[u8; 16]> = None;
        for g in groups.iter() {
            if g.vals.iter().all(|v| !matches!(v, Some(Some(_)))) {
                self.counters.add(C_NO_VALUES, 1);
                continue;
            }
            for (col, v, view) in [
                (&mut out.system_id, &ident.system_id, ident.views[0]),
                (&mut out.zos_level, &ident.zos_level, ident.views[1]),
            ] {
                match view {
                    Some(view) => col.push_view(view),
                    None => col.push(v.as_deref()),
                }
            }
            out.interval_start.push(ident.start);
            out.interval_s.push(ident.secs);
            out.source_line.push(lineno);
            out.section.push_view(out.section_views[sec.name as usize]);
            match sec.card_type {
                Some(view) => out.card_type.push_view(view),
                None => out.card_type.push(None),
            }
            out.card_id.push(sec.card_id.unwrap_or(0) as i32);
            out.card_id_valid.push(sec.card_id.is_some());
            match g.func {
                0 => out.function.push(None),
                3 => {
                    let v = *fn_view.get_or_insert_with(|| out.function.make(fname));
                    out.function.push_view(v);
                }
                f => out.function.push_view(FUNCTION_VIEWS[f as usize]),
            }
            let kb = if g.func != 0 { key_bits } else { None };
            out.key_size_bits.push(kb.unwrap_or(0) as i32);
            out.key_size_bits_valid.push(kb.is_some());
            out.scope.push_view(SCOPE_VIEWS[g.scope as usize]);
            for (m, col) in out.metrics.iter_mut().enumerate() {
                col.push(g.vals[m].flatten());
            }
        }
        Ok(true)
    }

    /// The end of the file: `reader.close(at_eof=True)`, then a report must have been found.
    pub fn finish(&mut self) -> Res {
        self.close(true)?;
        if self.reports == 0 {
            let found: Vec<String> = self.other_titles.iter().map(|t| text(t)).collect();
            let what = if found.is_empty() {
                "no RMF report title".to_string()
            } else {
                found.join(", ")
            };
            return Err((
                format!("no CRYPTO HARDWARE ACTIVITY report in file (found: {what})"),
                1,
            ));
        }
        Ok(())
    }
}

/// `_rmf.interval_start`: microseconds since the epoch of the page header's DATE and TIME.
fn interval_start(iv: &Interval, line: i64) -> ResT<i64> {
    let at = iv.header_line.unwrap_or(line);
    let (Some(d), Some(t)) = (&iv.date, &iv.time) else {
        return Err(("RMF page header without DATE and TIME".into(), at));
    };
    let num = |s: &[u8]| to_int(s);
    crate::text::datetime_us(
        num(&d[6..10]),
        num(&d[0..2]),
        num(&d[3..5]),
        num(&t[0..2]),
        num(&t[3..5]),
        num(&t[6..8]),
        0,
    )
    .ok_or_else(|| {
        (
            format!("RMF page header: bad DATE/TIME {} {}", text(d), text(t)),
            at,
        )
    })
}

/// `_rmf.interval_seconds`: `int(mm) * 60 + int(ss) + int(ttt) / 1000` as Python computes it
/// (the integer part converted to a float once, correctly rounded).
fn interval_seconds(iv: &Interval, line: i64) -> ResT<Option<f64>> {
    let Some(it) = &iv.interval_text else {
        return Ok(None);
    };
    let p = it.iter().position(|&c| c == b'.').unwrap();
    let (mm, ss, ttt) = (&it[..p], &it[p + 1..p + 3], &it[p + 4..p + 7]);
    let ss = to_int(ss);
    if ss >= 60 {
        return Err((format!("RMF page header: bad INTERVAL {}", text(it)), line));
    }
    let mm = {
        let z = mm.iter().take_while(|&&c| c == b'0').count();
        &mm[z..]
    };
    let whole = if mm.len() <= 30 {
        (mm.iter().fold(0u128, |v, &c| v * 10 + (c - b'0') as u128) * 60 + ss as u128) as f64
    } else {
        // mm * 60 + ss in decimal, then one correctly rounded conversion
        let mut digits: Vec<u32> = mm.iter().rev().map(|&c| (c - b'0') as u32).collect();
        let mut carry = ss as u32;
        for d in digits.iter_mut() {
            let v = *d * 60 + carry;
            *d = v % 10;
            carry = v / 10;
        }
        while carry > 0 {
            digits.push(carry % 10);
            carry /= 10;
        }
        let s: String = digits
            .iter()
            .rev()
            .map(|&d| (b'0' + d as u8) as char)
            .collect();
        let v: f64 = s.parse().unwrap();
        // Python raises OverflowError (no input error): a bug report, not a misread
        assert!(v.is_finite(), "INTERVAL too large for a float");
        v
    };
    Ok(Some(whole + to_int(ttt) as f64 / 1000.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles() {
        assert_eq!(
            page_title(b"   C R Y P T O  H A R D W A R E  A C T I V I T Y      PAGE   3").unwrap(),
            b"CRYPTO HARDWARE ACTIVITY"
        );
        assert_eq!(
            page_title(b"READY   C R Y P T O  H A R D W A R E  A C T I V I T Y  PAGE 1").unwrap(),
            b"CRYPTO HARDWARE ACTIVITY"
        );
        assert!(page_title(b"1   1927    0.201    38.8     0.24").is_none());
    }

    #[test]
    fn sections() {
        assert_eq!(
            section_match(b" -------- CRYPTOGRAPHIC CCA COPROCESSOR ----").unwrap(),
            b"CCA COPROCESSOR"
        );
        assert_eq!(section_match(b"-- CRYPTOGRAPHIC  ----").unwrap(), b" ");
        assert_eq!(
            other_section_match(b"-------- ICSF SERVICES --------").unwrap(),
            b"ICSF SERVICES"
        );
        assert!(groups_search(b"A TOTAL"));
        assert!(!groups_search(b"TOTALS"));
    }

    #[test]
    fn numbers() {
        assert_eq!(number(b"356803K"), Some(356803000.0));
        assert_eq!(number(b"N/A"), None);
        assert_eq!(number(b"-.5"), Some(-0.5));
        assert_eq!(number(b"0.1"), Some(0.1));
        assert_eq!(number(b"5."), Some(5.0));
        assert_eq!(number(b"-5."), None);
        assert_eq!(pyrepr(b"a'b"), "\"a'b\"");
        assert_eq!(pyrepr(b"a'\"b\\"), "'a\\'\"b\\\\'");
    }
}
