//! The page reading every RMF Postprocessor text report shares, ported from
//! `mqcap/parsers/_rmf.py`: carriage control, comment lines, page titles (`page_title`,
//! `_prefixed_title`), the page header (`header_fields`, `interval_start`, `interval_seconds`),
//! printed numbers (`number`) and the `ReportPages` state machine (`Pages`). Used by the
//! CRYPTO HARDWARE ACTIVITY parser (`rmf_crypto.rs`) and the WORKLOAD ACTIVITY one
//! (`rmf_workload.rs`).
//!
//! The text given is "plain" for these parsers: for the CRYPTO parser (`is_plain`) printable
//! ASCII, line feed and the ASCII characters Python counts as whitespace (tab, vertical tab, form
//! feed, carriage return, the separators 0x1C-0x1F); for the WORKLOAD parser (`is_plain1`) any
//! latin-1 text whose whitespace is that ASCII whitespace (no NEL, no no-break space, no other
//! control character below 0x20). On such text Python's `str.strip`/`split`/`isalnum` (`alnum1`),
//! the regular expressions' `\s`, `\S`, `\d`, `\b` of the latin-1 decoded text all agree with
//! the byte tests below, so the port is exact. Each regular expression is ported with its
//! backtracking worked out (see each function).

use std::collections::BTreeSet;

pub type Res = Result<(), (String, i64)>;
pub type ResT<T> = Result<T, (String, i64)>;

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

/// Latin-1 text a parser reads exactly as Python reads the decoded text (the WORKLOAD ACTIVITY
/// parser's test): any byte but the C0 controls Python does not count as whitespace (NUL among
/// them), NEL (0x85) and the no-break space (0xA0), Python's whitespace beyond ASCII. Bytes from
/// 0x7F on are characters like any other letter-less, digit-less one, but for the latin-1 letters
/// and digits (`alnum1`).
#[inline(always)]
pub fn plain_byte1(c: u8) -> bool {
    // (no branches: the test of a block is vectorised)
    !((c < 0x09) | (c.wrapping_sub(0x0e) < 0x0e) | (c == 0x85) | (c == 0xa0))
}

pub fn is_plain1(data: &[u8]) -> bool {
    data.chunks(4096)
        .all(|b| b.iter().fold(true, |acc, &c| acc & plain_byte1(c)))
}

/// Latin-1 characters Python's `str.isalnum` accepts (the same as regex `\w` but `_`, and as
/// `[\p{L}\p{N}]`): ASCII letters and digits, ª ² ³ µ ¹ º ¼ ½ ¾ and the letters 0xC0-0xFF but
/// × and ÷.
#[inline]
pub fn alnum1(c: u8) -> bool {
    c.is_ascii_alphanumeric()
        || matches!(c, 0xaa | 0xb2 | 0xb3 | 0xb5 | 0xb9 | 0xba | 0xbc..=0xbe)
        || (c >= 0xc0 && c != 0xd7 && c != 0xf7)
}

pub fn rstrip(s: &[u8]) -> &[u8] {
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

pub fn lstrip(s: &[u8]) -> &[u8] {
    let mut a = 0;
    while a < s.len() && is_ws(s[a]) {
        a += 1;
    }
    &s[a..]
}

/// The text as a `str` (plain text is ASCII): the standard library's searches are vectorised.
#[inline(always)]
pub fn as_str(s: &[u8]) -> &str {
    debug_assert!(s.is_ascii());
    // SAFETY: the parser is only given plain text (`is_plain`), which is ASCII
    unsafe { std::str::from_utf8_unchecked(s) }
}

/// The first `b` in `hay` (a byte at a time for the tail, eight at a time before: the lowest
/// byte flagged by the zero-byte test of a word is always a zero one).
#[inline]
pub fn memchr(b: u8, hay: &[u8]) -> Option<usize> {
    const LO: u64 = 0x0101_0101_0101_0101;
    const HI: u64 = 0x8080_8080_8080_8080;
    let rep = LO * b as u64;
    let n = hay.len();
    let mut i = 0;
    while i + 8 <= n {
        let w = u64::from_le_bytes(hay[i..i + 8].try_into().unwrap()) ^ rep;
        let z = w.wrapping_sub(LO) & !w & HI;
        if z != 0 {
            return Some(i + (z.trailing_zeros() / 8) as usize);
        }
        i += 8;
    }
    hay[i..].iter().position(|&c| c == b).map(|k| i + k)
}

/// Python `hay.find(needle)`: the candidates found by a memchr of the needle's byte `k` (a rare
/// one).
#[inline]
pub fn find_by(hay: &[u8], needle: &[u8], k: usize) -> Option<usize> {
    let n = needle.len();
    if hay.len() < n {
        return None;
    }
    let s = &hay[k..hay.len() - (n - 1 - k)];
    let b = needle[k];
    let mut from = 0;
    while let Some(p) = memchr(b, &s[from..]) {
        let i = from + p;
        if &hay[i..i + n] == needle {
            return Some(i);
        }
        from = i + 1;
    }
    None
}

#[inline]
pub fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    find_by(hay, needle, 0)
}

#[inline]
pub fn contains(hay: &[u8], needle: &[u8]) -> bool {
    find(hay, needle).is_some()
}

/// The needles every line is searched for, by a rare byte.
#[inline]
pub fn has_activity(s: &[u8]) -> bool {
    find_by(s, b"A C T I V I T Y", 8).is_some()
}

#[inline]
pub fn has_zos(s: &[u8]) -> bool {
    find_by(s, b"z/OS", 0).is_some()
}

#[inline]
pub fn has_rpt(s: &[u8]) -> bool {
    find_by(s, b"RPT VERSION", 4).is_some()
}

pub fn to_int(s: &[u8]) -> i64 {
    s.iter().fold(0i64, |v, &c| v * 10 + (c - b'0') as i64)
}

/// Python `repr` of a string of printable ASCII.
pub fn pyrepr(s: &[u8]) -> String {
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

pub fn text(s: &[u8]) -> String {
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
pub fn parse_float(s: &[u8]) -> f64 {
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
pub fn fast_number(s: &[u8]) -> bool {
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
pub fn number(t: &[u8]) -> Option<f64> {
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
pub fn title_char(c: u8) -> bool {
    c.is_ascii_uppercase() || c.is_ascii_digit() || c == b'/'
}

/// `_PAGE.sub("", s)`: `\s*PAGE\s+\d+\s*$` cut off (worked out from the end: the match is
/// unique, and the leftmost start is the beginning of the blanks before PAGE).
pub fn cut_page(s: &[u8]) -> &[u8] {
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
pub fn spaced_title(s: &[u8]) -> bool {
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
pub fn prefixed_title(s: &[u8]) -> Option<Vec<u8>> {
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
    pub system_id: Option<Vec<u8>>,
    pub sysplex: Option<Vec<u8>>,
    pub zos_level: Option<Vec<u8>>,
    pub rmf_version: Option<Vec<u8>>,
    pub date: Option<Vec<u8>>,
    pub time: Option<Vec<u8>>,
    pub interval_text: Option<Vec<u8>>,
    pub header_line: Option<i64>,
}

impl Interval {
    /// `Interval.key` equality.
    pub fn same_key(&self, o: &Interval) -> bool {
        self.system_id == o.system_id
            && self.sysplex == o.sysplex
            && self.date == o.date
            && self.time == o.time
            && self.interval_text == o.interval_text
    }
}

/// Blanks (at least one) from `i`: their end, or None.
#[inline]
pub fn blanks(s: &[u8], i: usize) -> Option<usize> {
    let mut j = i;
    while j < s.len() && is_ws(s[j]) {
        j += 1;
    }
    (j > i).then_some(j)
}

#[inline]
pub fn digits(s: &[u8], i: usize) -> usize {
    let mut j = i;
    while j < s.len() && s[j].is_ascii_digit() {
        j += 1;
    }
    j
}

/// `s[i:]` starts with exactly the pattern `p` where `d` is a digit, else a literal byte.
pub fn shaped(s: &[u8], i: usize, p: &[u8]) -> bool {
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
pub fn search_after(
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
pub fn version_tail(s: &[u8], i: usize) -> Option<usize> {
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
pub fn word_tail(s: &[u8], i: usize) -> Option<usize> {
    let mut j = i;
    while j < s.len() && !is_ws(s[j]) {
        j += 1;
    }
    (j > i).then_some(j)
}

pub fn any(_: u8) -> bool {
    true
}

/// `header_fields(text, current)`.
pub fn header_fields(s: &[u8], current: &Interval) -> Option<Interval> {
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

/// Arrow validity bits, built as the rows come.
#[derive(Default)]
pub struct Bits {
    pub bytes: Vec<u8>,
    pub len: usize,
}

impl Bits {
    #[inline]
    pub fn push(&mut self, v: bool) {
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
pub const fn short_view(b: &[u8]) -> [u8; 16] {
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
    pub fn push(&mut self, v: Option<f64>) {
        self.values.push(v.unwrap_or(0.0));
        self.valid.push(v.is_some());
    }
}

/// `_rmf.interval_start`: microseconds since the epoch of the page header's DATE and TIME.
pub fn interval_start(iv: &Interval, line: i64) -> ResT<i64> {
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
pub fn interval_seconds(iv: &Interval, line: i64) -> ResT<Option<f64>> {
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

// -- the page state machine (_rmf.ReportPages) ---------------------------------------------------

/// The lines `Pages::step` counts (the index of their counter in the parsers' counters).
pub const COUNT_COMMENT: usize = 0;
pub const COUNT_OVERPRINT: usize = 1;
pub const COUNT_OTHER_REPORT: usize = 2;
pub const COUNT_BEFORE: usize = 3;

/// What `ReportPages` makes of one line.
pub enum Ev<'a> {
    /// dropped and counted (`COUNT_*`): a comment, an overprint, a line outside the report
    Counted(usize),
    /// dropped: a blank line outside the report, a `PAGE n` line
    Skip,
    /// a page title (this report's when `in_report`, else another one's)
    Title,
    /// the first page-header line started a new identity (`iv`)
    Page,
    /// a page-header line completed the identity (`iv`)
    Header,
    Blank,
    /// any other line of the report (carriage control removed, trailing blanks stripped)
    Line(&'a [u8]),
}

/// `_rmf.ReportPages`: carriage control, comments, titles and page headers, one line at a time
/// (what `_rmf.ReportFrames` also gives, a few MB of lines at a time).
pub struct Pages {
    wanted: &'static [u8],
    pub cc_on: Option<bool>,
    pub in_report: bool,
    pub reports: i64,
    pub other_titles: BTreeSet<Vec<u8>>,
    pub iv: Interval,
    /// which of the rare bytes the last line has: 1 V, 2 z, 4 `=`, 8 Y
    pub rare: u8,
}

impl Pages {
    pub fn new(wanted: &'static [u8]) -> Self {
        Pages {
            wanted,
            cc_on: None,
            in_report: false,
            reports: 0,
            other_titles: BTreeSet::new(),
            iv: Interval::default(),
            rare: 0,
        }
    }

    /// `ReportPages.__iter__` for one line (`raw`: without its line feed); `buf` holds the line
    /// when its carriage control is replaced.
    #[inline]
    pub fn step<'a>(&mut self, lineno: i64, raw: &'a [u8], buf: &'a mut Vec<u8>) -> Ev<'a> {
        if raw.first() == Some(&b'#') && !raw.get(1).is_some_and(|&c| alnum1(c)) {
            return Ev::Counted(COUNT_COMMENT);
        }
        let mut text = rstrip(raw);
        // which of the rare bytes of the needles searched for the line has (one vectorised
        // pass): V for "A C T I V I T Y", "RPT VERSION" and "SERVICE", z for "z/OS"; = and Y
        // for the report parsers' own needles
        let rare = text.iter().fold(0u8, |a, &c| {
            a | (c == b'V') as u8
                | ((c == b'z') as u8) << 1
                | ((c == b'=') as u8) << 2
                | ((c == b'Y') as u8) << 3
        });
        self.rare = rare;
        if self.cc_on.is_none() && !text.is_empty() {
            if text[0] == b'1' && page_title(&text[1..]).is_some() {
                self.cc_on = Some(true);
            } else if page_title(text).is_some() {
                self.cc_on = Some(false);
            }
        }
        if self.cc_on == Some(true) && !text.is_empty() {
            match text[0] {
                b'+' => return Ev::Counted(COUNT_OVERPRINT),
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
            return if self.in_report { Ev::Blank } else { Ev::Skip };
        }
        let title = if stripped.len() >= 4 && stripped[1] == b' ' && stripped[3] == b' ' {
            page_title(text)
        } else if rare & 1 != 0 && has_activity(stripped) {
            prefixed_title(stripped)
        } else {
            None
        };
        if let Some(t) = title {
            self.in_report = t == self.wanted;
            if self.in_report {
                self.reports += 1;
            } else {
                self.other_titles.insert(t);
            }
            return Ev::Title;
        }
        if !self.in_report {
            return Ev::Counted(if self.other_titles.is_empty() {
                COUNT_BEFORE
            } else {
                COUNT_OTHER_REPORT
            });
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
                return Ev::Page;
            }
        }
        if zos || (rare & 1 != 0 && has_rpt(text)) {
            if let Some(new) = header_fields(text, &self.iv) {
                self.iv = new;
                return Ev::Header;
            }
        }
        if stripped.starts_with(b"PAGE") {
            // _PAGE_ONLY.fullmatch: PAGE\s+\d+
            if let Some(e) = blanks(stripped, 4) {
                let d = digits(stripped, e);
                if d > e && d == stripped.len() {
                    return Ev::Skip;
                }
            }
        }
        Ev::Line(text)
    }

    /// The other reports' titles seen, sorted, joined by ", " (`ReportPages.found`).
    pub fn found(&self) -> Option<String> {
        let found: Vec<String> = self.other_titles.iter().map(|t| text(t)).collect();
        (!found.is_empty()).then(|| found.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memchr_finds_the_first() {
        let hay: Vec<u8> = (0..100u8).map(|i| b'a' + i % 7).collect();
        for b in 0..=255u8 {
            for from in 0..20 {
                let want = hay[from..].iter().position(|&c| c == b);
                assert_eq!(memchr(b, &hay[from..]), want);
            }
        }
        assert_eq!(memchr(0x80, b"\x7f\x81\x00\x80\xff\x80"), Some(3));
        assert_eq!(find_by(b"xx SERVICE TIME", b"SERVICE TIME", 3), Some(3));
    }

    #[test]
    fn latin1_tests() {
        let alnum: Vec<u8> = (0x80..=0xffu8).filter(|&c| alnum1(c)).collect();
        assert_eq!(alnum.len(), 71);
        assert!(!alnum1(0xd7) && alnum1(0xaa) && !alnum1(b'_') && alnum1(b'z'));
        assert!(is_plain1(b"\t\x0b\x0c\r\n\x1c\x1f \x7f\x80\xad\xff"));
        for c in [0u8, 8, 0x0e, 0x1b, 0x85, 0xa0] {
            assert!(!is_plain1(&[c]), "{c}");
        }
    }
}
