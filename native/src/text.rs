//! Byte-level helpers that mirror the Python string methods the parsers use, for plain text:
//! printable ASCII, tab and carriage return (the only text the native parsers are given; the
//! Python side checks it first). On such text Python's `str.isspace`, `str.strip`, `str.split`,
//! `str.isdecimal`, `str.isalpha`, `str.upper` and the regular expressions' `\s` and `\d` all
//! agree with the ASCII definitions below.

/// Python `str.isspace` of one character of plain text.
#[inline]
pub fn is_ws(c: u8) -> bool {
    c == b' ' || c == b'\t' || c == b'\r'
}

#[inline]
pub fn is_digit(c: u8) -> bool {
    c.is_ascii_digit()
}

#[inline]
pub fn is_upper(c: u8) -> bool {
    c.is_ascii_uppercase()
}

/// Python `s.strip()`.
pub fn strip(s: &[u8]) -> &[u8] {
    let mut a = 0;
    let mut b = s.len();
    while a < b && is_ws(s[a]) {
        a += 1;
    }
    while b > a && is_ws(s[b - 1]) {
        b -= 1;
    }
    &s[a..b]
}

/// Python `s.strip(chars)`.
pub fn strip_set<'a>(s: &'a [u8], chars: &[u8]) -> &'a [u8] {
    let mut a = 0;
    let mut b = s.len();
    while a < b && chars.contains(&s[a]) {
        a += 1;
    }
    while b > a && chars.contains(&s[b - 1]) {
        b -= 1;
    }
    &s[a..b]
}

/// Python `s.split()`.
pub fn split_ws(s: &[u8]) -> Vec<&[u8]> {
    let mut out = Vec::new();
    let mut i = 0;
    let n = s.len();
    while i < n {
        while i < n && is_ws(s[i]) {
            i += 1;
        }
        if i >= n {
            break;
        }
        let j0 = i;
        while i < n && !is_ws(s[i]) {
            i += 1;
        }
        out.push(&s[j0..i]);
    }
    out
}

/// Python `s.isdecimal()`.
pub fn is_decimal(s: &[u8]) -> bool {
    !s.is_empty() && s.iter().all(|c| c.is_ascii_digit())
}

/// Python `s.isalpha()`.
pub fn is_alpha(s: &[u8]) -> bool {
    !s.is_empty() && s.iter().all(|c| c.is_ascii_alphabetic())
}

/// Python `s.isupper()`: at least one cased character, none lower case.
pub fn is_upper_str(s: &[u8]) -> bool {
    s.iter().any(|c| c.is_ascii_alphabetic()) && !s.iter().any(|c| c.is_ascii_lowercase())
}

/// Python `s.isalnum()`.
pub fn is_alnum(s: &[u8]) -> bool {
    !s.is_empty() && s.iter().all(|c| c.is_ascii_alphanumeric())
}

pub fn upper(s: &[u8]) -> Vec<u8> {
    s.to_ascii_uppercase()
}

/// `needle in hay`.
pub fn contains(hay: &[u8], needle: &[u8]) -> bool {
    find(hay, needle).is_some()
}

/// Python `hay.find(needle)` (None for -1).
pub fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    if needle.is_empty() {
        return Some(0);
    }
    if needle.len() > hay.len() {
        return None;
    }
    let first = needle[0];
    let last = hay.len() - needle.len();
    let mut i = 0;
    while i <= last {
        match hay[i..=last].iter().position(|&c| c == first) {
            None => return None,
            Some(k) => {
                i += k;
                if &hay[i..i + needle.len()] == needle {
                    return Some(i);
                }
                i += 1;
            }
        }
    }
    None
}

pub fn to_int(s: &[u8]) -> i64 {
    let mut v: i64 = 0;
    for &c in s {
        v = v.saturating_mul(10).saturating_add((c - b'0') as i64);
    }
    v
}

pub const MONTHS: [&[u8]; 12] = [
    b"JAN", b"FEB", b"MAR", b"APR", b"MAY", b"JUN", b"JUL", b"AUG", b"SEP", b"OCT", b"NOV", b"DEC",
];
pub const DAYS: [&[u8]; 7] = [b"MON", b"TUE", b"WED", b"THU", b"FRI", b"SAT", b"SUN"];

pub fn month(s: &[u8]) -> Option<u32> {
    MONTHS.iter().position(|m| *m == s).map(|i| i as u32 + 1)
}

fn is_leap(y: i64) -> bool {
    (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
}

fn days_in_month(y: i64, m: i64) -> i64 {
    match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        _ => {
            if is_leap(y) {
                29
            } else {
                28
            }
        }
    }
}

/// Days since 1970-01-01 of a valid civil date.
pub fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146097 + doe - 719468
}

/// A date Python's `date(y, m, d)` accepts.
pub fn valid_date(y: i64, m: i64, d: i64) -> bool {
    (1..=9999).contains(&y) && (1..=12).contains(&m) && d >= 1 && d <= days_in_month(y, m)
}

pub const US_PER_DAY: i64 = 86_400_000_000;

/// Microseconds since the epoch of what Python's `datetime(...)` accepts, else None.
pub fn datetime_us(y: i64, mo: i64, d: i64, h: i64, mi: i64, s: i64, us: i64) -> Option<i64> {
    if !valid_date(y, mo, d)
        || !(0..24).contains(&h)
        || !(0..60).contains(&mi)
        || !(0..60).contains(&s)
    {
        return None;
    }
    Some(days_from_civil(y, mo, d) * US_PER_DAY + ((h * 60 + mi) * 60 + s) * 1_000_000 + us)
}

/// `int(frac[:6].ljust(6, "0"))`.
pub fn frac_us(frac: &[u8]) -> i64 {
    let mut v = 0i64;
    for k in 0..6 {
        v = v * 10
            + if k < frac.len() {
                (frac[k] - b'0') as i64
            } else {
                0
            };
    }
    v
}

/// Python `s.lstrip()`.
#[inline]
pub fn lstrip(s: &[u8]) -> &[u8] {
    let mut a = 0;
    while a < s.len() && is_ws(s[a]) {
        a += 1;
    }
    &s[a..]
}

/// Python `s.rstrip()`.
#[inline]
pub fn rstrip(s: &[u8]) -> &[u8] {
    let mut b = s.len();
    while b > 0 && is_ws(s[b - 1]) {
        b -= 1;
    }
    &s[..b]
}

/// Python `s.find(c)` for one byte (None for -1).
#[inline]
pub fn find_byte(s: &[u8], c: u8) -> Option<usize> {
    s.iter().position(|&x| x == c)
}

/// Python `s.upper().find(needle)` for an upper-case needle (plain text: ASCII only).
pub fn find_ci(hay: &[u8], needle: &[u8]) -> Option<usize> {
    if needle.len() > hay.len() {
        return None;
    }
    (0..=hay.len() - needle.len()).find(|&i| hay[i..i + needle.len()].eq_ignore_ascii_case(needle))
}

/// Python `s.upper().startswith(prefix)` for an upper-case prefix (plain text: ASCII only).
#[inline]
pub fn starts_with_ci(s: &[u8], prefix: &[u8]) -> bool {
    s.len() >= prefix.len() && s[..prefix.len()].eq_ignore_ascii_case(prefix)
}
