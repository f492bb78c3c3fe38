//! RMF Postprocessor CRYPTO HARDWARE ACTIVITY reports in one pass over the bytes: a port of
//! `mqcap/parsers/rmf_crypto.py`'s `parse_by_line` (the reference). The page state machine it
//! reads the report through (`_rmf.ReportPages`, `page_title`, `header_fields`,
//! `interval_start`, `interval_seconds`, `number`) is `rmf_pages.rs`. The rows, counters and
//! errors are the Python parser's; `tests/test_native_crypto.py` holds the two to that.
//!
//! The text given is "plain" for this parser (`is_plain`, see `rmf_pages.rs`), on which the
//! port is exact. Each regular expression is ported with its backtracking worked out (see each
//! function).

use crate::columns::ViewCol;
use crate::rmf_pages::*;
pub use crate::rmf_pages::{is_plain, Res};
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

// the page counters first, at the indices `Pages::step` gives them
pub const C_COMMENT: usize = COUNT_COMMENT;
pub const C_OVERPRINT: usize = COUNT_OVERPRINT;
pub const C_OTHER_REPORT: usize = COUNT_OTHER_REPORT;
pub const C_BEFORE: usize = COUNT_BEFORE;
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

const TITLE: &[u8] = b"CRYPTO HARDWARE ACTIVITY";
const SLOT_CACHE_MAX: usize = 256;
const MIN_KEY_BITS: i64 = 256;

pub struct Parser {
    // ReportPages
    pages: Pages,
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
            pages: Pages::new(TITLE),
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
        match self.pages.step(lineno, raw, buf) {
            Ev::Counted(k) => {
                self.counters.add(k, 1);
                Ok(())
            }
            Ev::Skip | Ev::Blank | Ev::Title => Ok(()), // nothing for the reader
            Ev::Page => {
                self.ident_ok = false;
                Ok(())
            }
            Ev::Header => {
                self.ident_ok = false;
                // a page header of another interval ends the section being read
                if let Some(sec) = &self.section {
                    if !sec.key.same_key(&self.pages.iv) {
                        self.close(false)?;
                    }
                }
                Ok(())
            }
            Ev::Line(text) => self.line(lineno, text),
        }
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
            if self.pages.iv.date.is_none() {
                return Err((
                    "crypto section before the page header (DATE/TIME)".into(),
                    lineno,
                ));
            }
            self.section = Some(Section {
                name,
                line: lineno,
                key: self.pages.iv.clone(),
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
        let iv = &self.pages.iv;
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
        if self.pages.reports == 0 {
            let what = (self.pages.found()).unwrap_or_else(|| "no RMF report title".into());
            return Err((
                format!("no CRYPTO HARDWARE ACTIVITY report in file (found: {what})"),
                1,
            ));
        }
        Ok(())
    }
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
