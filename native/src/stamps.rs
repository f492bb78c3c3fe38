//! Ports of `mqcap.parsers._kv`: `parse_stamp_line`, `parse_jes_date`, `parse_clock`, on plain
//! text (see `text`). Each regular expression of the Python module is matched by hand; where it
//! could backtrack, the comment says why the first choice is the only one that can succeed.

use crate::text::*;

const DECOR: &[u8] = b" \t#=-*[]<>|";

struct Cur<'a> {
    s: &'a [u8],
    p: usize,
}

impl<'a> Cur<'a> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.p).copied()
    }
    fn eat(&mut self, c: u8) -> bool {
        if self.peek() == Some(c) {
            self.p += 1;
            true
        } else {
            false
        }
    }
    /// Exactly `n` digits (not followed by anything in particular).
    fn digits(&mut self, n: usize) -> Option<&'a [u8]> {
        if self.p + n <= self.s.len()
            && self.s[self.p..self.p + n]
                .iter()
                .all(|c| c.is_ascii_digit())
        {
            let out = &self.s[self.p..self.p + n];
            self.p += n;
            Some(out)
        } else {
            None
        }
    }
    fn run(&mut self, f: impl Fn(u8) -> bool) -> &'a [u8] {
        let a = self.p;
        while self.p < self.s.len() && f(self.s[self.p]) {
            self.p += 1;
        }
        &self.s[a..self.p]
    }
    fn ws(&mut self) -> usize {
        self.run(is_ws).len()
    }
    fn at_end(&self) -> bool {
        self.p >= self.s.len()
    }
}

/// `(?:MON|...|SUN)[A-Z]*,?\s+` at the cursor (upper-case text): the letter run cannot give a
/// letter back, as `,?\s+` must follow it.
fn day_prefix(c: &mut Cur) -> bool {
    if c.p + 3 > c.s.len() || !DAYS.contains(&&c.s[c.p..c.p + 3]) {
        return false;
    }
    c.p += 3;
    c.run(|x| x.is_ascii_uppercase());
    c.eat(b',');
    c.ws() >= 1
}

/// `(\d{1,2})\s+`: a run of one or two digits, then blanks.
fn day_of_month(c: &mut Cur) -> Option<i64> {
    let d = c.run(is_digit);
    if d.is_empty() || d.len() > 2 || c.ws() == 0 {
        return None;
    }
    Some(to_int(d))
}

/// `([A-Z]{3})\s+`.
fn month_word<'a>(c: &mut Cur<'a>) -> Option<&'a [u8]> {
    if c.p + 3 > c.s.len() || !c.s[c.p..c.p + 3].iter().all(|x| x.is_ascii_uppercase()) {
        return None;
    }
    let m = &c.s[c.p..c.p + 3];
    c.p += 3;
    if c.ws() == 0 {
        return None;
    }
    Some(m)
}

/// `(\d\d):(\d\d):(\d\d)`.
fn hms(c: &mut Cur) -> Option<(i64, i64, i64)> {
    let h = to_int(c.digits(2)?);
    if !c.eat(b':') {
        return None;
    }
    let m = to_int(c.digits(2)?);
    if !c.eat(b':') {
        return None;
    }
    let s = to_int(c.digits(2)?);
    Some((h, m, s))
}

/// `_TZ` = `(?:[A-Z]{2,5}|[+-]\d{4})`, to be followed by a blank or the end.
fn tz(c: &mut Cur) -> bool {
    match c.peek() {
        Some(b'+') | Some(b'-') => {
            c.p += 1;
            c.digits(4).is_some()
        }
        Some(x) if x.is_ascii_uppercase() => {
            let r = c.run(|x| x.is_ascii_uppercase()).len();
            (2..=5).contains(&r)
        }
        _ => false,
    }
}

fn iso(s: &[u8]) -> Option<i64> {
    let mut c = Cur { s, p: 0 };
    let y = to_int(c.digits(4)?);
    if !c.eat(b'-') {
        return None;
    }
    let mo = to_int(c.digits(2)?);
    if !c.eat(b'-') {
        return None;
    }
    let d = to_int(c.digits(2)?);
    if !(c.eat(b'T') || c.eat(b' ')) {
        return None;
    }
    let h = to_int(c.digits(2)?);
    if !c.eat(b':') {
        return None;
    }
    let mi = to_int(c.digits(2)?);
    let mut sec = 0;
    let mut us = 0;
    // `(?::(\d\d)(?:[.,](\d{1,9}))?)?`: a ':' or '.' left over cannot match what follows.
    if c.eat(b':') {
        sec = to_int(c.digits(2)?);
        if c.eat(b'.') || c.eat(b',') {
            let f = c.run(is_digit);
            if f.is_empty() || f.len() > 9 {
                return None;
            }
            us = frac_us(f);
        }
    }
    c.ws();
    // `(?:Z|[+-]\d\d:?\d\d|UTC|GMT)?` then the end.
    if !c.at_end() {
        let rest = &s[c.p..];
        let ok = rest == b"Z"
            || rest == b"UTC"
            || rest == b"GMT"
            || ((rest[0] == b'+' || rest[0] == b'-')
                && ((rest.len() == 5 && is_decimal(&rest[1..5]))
                    || (rest.len() == 6
                        && rest[3] == b':'
                        && is_decimal(&rest[1..3])
                        && is_decimal(&rest[4..6]))));
        if !ok {
            return None;
        }
    }
    datetime_us(y, mo, d, h, mi, sec, us)
}

fn date_cmd(u: &[u8]) -> Option<Option<i64>> {
    // Some(None): the pattern matched, the date is not valid (Python returns None at once).
    let mut c = Cur { s: u, p: 0 };
    if !day_prefix(&mut c) {
        return None;
    }
    let mon = month_word(&mut c)?;
    let d = day_of_month(&mut c)?;
    let (h, mi, sec) = hms(&mut c)?;
    if c.ws() == 0 {
        return None;
    }
    // `(?:\s+_TZ)?\s+(\d{4})$`
    if !matches!(c.peek(), Some(x) if x.is_ascii_digit()) && (!tz(&mut c) || c.ws() == 0) {
        return None;
    }
    let y = c.digits(4)?;
    if !c.at_end() {
        return None;
    }
    let Some(m) = month(mon) else {
        return Some(None);
    };
    Some(datetime_us(to_int(y), m as i64, d, h, mi, sec, 0))
}

fn date_gb(u: &[u8]) -> Option<Option<i64>> {
    let mut c = Cur { s: u, p: 0 };
    if !day_prefix(&mut c) {
        return None;
    }
    let d = day_of_month(&mut c)?;
    let mon = month_word(&mut c)?;
    // `(?:(\d{4})\s+)?` then `(\d\d):`: four digits and a blank, or the time.
    let mut y1 = None;
    if c.p + 5 <= u.len() && is_decimal(&u[c.p..c.p + 4]) && is_ws(u[c.p + 4]) {
        y1 = Some(to_int(&u[c.p..c.p + 4]));
        c.p += 4;
        c.ws();
    }
    let (h, mi, sec) = hms(&mut c)?;
    // `(?:\s+_TZ)?(?:\s+(\d{4}))?$`
    let mut y2 = None;
    if !c.at_end() {
        if c.ws() == 0 {
            return None;
        }
        if !matches!(c.peek(), Some(x) if x.is_ascii_digit()) {
            if !tz(&mut c) {
                return None;
            }
            if !c.at_end() && c.ws() == 0 {
                return None;
            }
        }
        if !c.at_end() {
            y2 = Some(to_int(c.digits(4)?));
            if !c.at_end() {
                return None;
            }
        }
    }
    let Some(m) = month(mon) else {
        return Some(None);
    };
    let Some(y) = y1.or(y2) else {
        return Some(None);
    };
    Some(datetime_us(y, m as i64, d, h, mi, sec, 0))
}

/// `_kv.parse_stamp_line`: microseconds since the epoch, or None.
pub fn parse_stamp_line(text: &[u8]) -> Option<i64> {
    let s = strip_set(text, DECOR);
    if s.len() < 16 || s.len() > 48 {
        return None;
    }
    let c = s[0];
    if c.is_ascii_digit() {
        return iso(s);
    }
    if !c.is_ascii_alphabetic() || !DAYS.contains(&upper(&s[..3]).as_slice()) {
        return None;
    }
    let u = upper(s);
    if let Some(r) = date_cmd(&u) {
        return r;
    }
    if let Some(r) = date_gb(&u) {
        return r;
    }
    None
}

/// `_kv.parse_jes_date`: days since the epoch, or None.
pub fn parse_jes_date(text: &[u8]) -> Option<i64> {
    if !contains(text, b"--") {
        return None;
    }
    let u = upper(text);
    let n = u.len();
    let mut i = 0;
    while i + 1 < n {
        if u[i] != b'-' {
            i += 1;
            continue;
        }
        let mut j = i;
        while j < n && u[j] == b'-' {
            j += 1;
        }
        if j - i >= 2 {
            // the first match starts in this run of dashes, or not at all in it
            if let Some(r) = jes_rest(&u, j) {
                return r;
            }
        }
        i = j;
    }
    None
}

fn jes_rest(u: &[u8], at: usize) -> Option<Option<i64>> {
    let mut c = Cur { s: u, p: at };
    c.ws();
    if !day_prefix(&mut c) {
        return None;
    }
    let d = day_of_month(&mut c)?;
    let mon = month_word(&mut c)?;
    let y = c.digits(4)?;
    c.ws();
    if !(c.eat(b'-') && c.eat(b'-')) {
        return None;
    }
    let Some(m) = month(mon) else {
        return Some(None);
    };
    let y = to_int(y);
    if !valid_date(y, m as i64, d) {
        return Some(None);
    }
    Some(Some(days_from_civil(y, m as i64, d)))
}

/// `_kv.parse_clock`: microseconds since midnight, or None.
pub fn parse_clock(token: &[u8]) -> Option<i64> {
    if token.len() < 7 || token.len() > 15 {
        return None;
    }
    let mut t: Vec<u8> = token.to_vec();
    let sep = t[2];
    if !(sep == b'.' || sep == b':') || t[5] != sep {
        if (t[1] == b'.' || t[1] == b':') && t[4] == t[1] {
            t.insert(0, b'0');
        } else {
            return None;
        }
    }
    let sl = |a: usize, b: usize| -> &[u8] {
        let a = a.min(t.len());
        let b = b.min(t.len());
        &t[a..b]
    };
    let (hh, mm, ss) = (sl(0, 2), sl(3, 5), sl(6, 8));
    if !(is_decimal(hh) && is_decimal(mm) && is_decimal(ss)) {
        return None;
    }
    let n = t.len();
    let frac: &[u8] = if n > 8 && (t[8] == b'.' || t[8] == b',') {
        &t[9..]
    } else {
        b""
    };
    if n > 8 && (!(t[8] == b'.' || t[8] == b',') || !is_decimal(frac)) {
        return None;
    }
    let (h, m, s) = (to_int(hh), to_int(mm), to_int(ss));
    if h >= 24 || m >= 60 || s >= 60 {
        return None;
    }
    let us = if frac.is_empty() { 0 } else { frac_us(frac) };
    Some(((h * 60 + m) * 60 + s) * 1_000_000 + us)
}
