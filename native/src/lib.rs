//! mqcap's compiled parsers, loaded by `mqcap/parsers/_native.py` with ctypes (a C ABI, no
//! Python headers, no dependencies: `cargo build --release --offline`). Every entry point
//! catches a panic and reports it as status 2, so a bug here is an error in Python, never a
//! crash of the process. Python parses every file itself when the library is missing, when
//! `MQCAP_NATIVE=0`, or when a file is not plain text (printable ASCII, tab, CR, LF).

// The entry points take raw pointers from ctypes, which passes valid ones (`_native.py`).
#![allow(clippy::not_unsafe_ptr_arg_deref)]

pub mod chstatus;
pub mod columns;
pub mod ffi_crypto;
pub mod ffi_workload;
pub mod netstat;
pub mod rmf_crypto;
pub mod rmf_pages;
pub mod rmf_workload;
pub mod stamps;
pub mod text;

use std::panic::{catch_unwind, AssertUnwindSafe};

/// Bumped with any change of the functions below; Python refuses another version.
pub const ABI_VERSION: u32 = 3;

#[no_mangle]
pub extern "C" fn mqn_abi_version() -> u32 {
    ABI_VERSION
}

#[inline]
fn plain_byte(c: u8) -> bool {
    (0x20..0x7f).contains(&c) || c == b'\n' || c == b'\r' || c == b'\t'
}

/// Whether bytes are plain text: printable ASCII, tab, CR, LF.
pub fn is_plain(data: &[u8]) -> bool {
    // in blocks, so that the compiler vectorises the test
    data.chunks(4096)
        .all(|b| b.iter().fold(true, |acc, &c| acc & plain_byte(c)))
}

/// 1 when `len` bytes at `ptr` are plain text, 0 when not.
#[no_mangle]
pub extern "C" fn mqn_plain(ptr: *const u8, len: usize) -> i32 {
    let data = unsafe { slice(ptr, len) };
    catch_unwind(|| is_plain(data) as i32).unwrap_or(2)
}

/// 1 when the file open on descriptor `fd` is plain text from its start (after an optional
/// UTF-8 byte-order mark), 0 when not, -1 when it cannot be read (Python then reads it and
/// says why). Read with `pread`: the descriptor's position and ownership stay with Python,
/// which opened it (beneath the raw root, not following links, never waiting on a FIFO).
#[no_mangle]
pub extern "C" fn mqn_fd_plain(fd: i32) -> i32 {
    catch_unwind(|| fd_is_plain(fd, is_plain)).unwrap_or(2)
}

/// Whether the file open on `fd` is plain text by `plain` from its start, after an optional
/// UTF-8 byte-order mark (one split over two reads is not plain: Python decides then): 1, 0
/// when not, -1 when it cannot be read. Read with `pread`: the descriptor stays Python's.
pub(crate) fn fd_is_plain(fd: i32, plain: fn(&[u8]) -> bool) -> i32 {
    use std::mem::ManuallyDrop;
    use std::os::unix::fs::FileExt;
    use std::os::unix::io::FromRawFd;
    // not closed here: Python owns the descriptor
    let f = ManuallyDrop::new(unsafe { std::fs::File::from_raw_fd(fd) });
    let mut buf = vec![0u8; 1 << 20];
    let mut pos: u64 = 0;
    loop {
        let n = match f.read_at(&mut buf, pos) {
            Ok(0) => return 1,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => return -1,
        };
        let mut block = &buf[..n];
        if pos == 0 && block.starts_with(b"\xef\xbb\xbf") {
            block = &block[3..];
        }
        pos += n as u64;
        if !plain(block) {
            return 0;
        }
    }
}

/// A panic, caught as every entry point catches its own: status 2 (the tests call it to show a
/// panic is an error in Python, not the end of the process).
#[no_mangle]
pub extern "C" fn mqn_test_panic() -> i32 {
    catch_unwind(|| -> i32 { panic!("mqn_test_panic") }).unwrap_or(2)
}

pub(crate) unsafe fn slice<'a>(ptr: *const u8, len: usize) -> &'a [u8] {
    if len == 0 || ptr.is_null() {
        &[]
    } else {
        std::slice::from_raw_parts(ptr, len)
    }
}

/// What a parser call's outcome is for Python: 0 ok, 1 an input error (kept in `error` for the
/// parser's `mqn_<prefix>_error`), 2 a panic.
pub(crate) fn status(
    r: std::thread::Result<Result<(), (String, i64)>>,
    error: &mut Option<(String, i64)>,
) -> i32 {
    match r {
        Ok(Ok(())) => 0,
        Ok(Err(e)) => {
            *error = Some(e);
            1
        }
        Err(_) => 2,
    }
}

/// A parser's `mqn_<prefix>_error`: the message (UTF-8, owned by the handle) and line of the
/// error kept by the last call that returned 1; nothing written when there is none.
pub(crate) unsafe fn put_error(
    error: &Option<(String, i64)>,
    msg: *mut *const u8,
    len: *mut usize,
    line: *mut i64,
) {
    if let Some((m, l)) = error {
        *msg = m.as_ptr();
        *len = m.len();
        *line = *l;
    }
}

// -- CHSTATUS ------------------------------------------------------------------------------

pub struct ChsHandle {
    parser: chstatus::Parser,
    error: Option<(String, i64)>,
}

/// The buffers of one take, owned by Python until it frees them (`mqn_batch_free`): pointers
/// into the columns themselves, no copy.
pub struct Batch {
    // owned here: `bufs` points into them (a parser's `Out`: `chstatus::Out`, `netstat::Out`)
    #[allow(dead_code)]
    out: Box<dyn std::any::Any>,
    #[allow(dead_code)]
    maps: Vec<Vec<u8>>,
    bufs: Vec<(*const u8, usize)>,
    /// the data buffers of the string-view columns, by the column's first buffer index
    data: Vec<(usize, Vec<(*const u8, usize)>)>,
}

#[no_mangle]
pub extern "C" fn mqn_chs_new() -> *mut ChsHandle {
    Box::into_raw(Box::new(ChsHandle {
        parser: chstatus::Parser::new(),
        error: None,
    }))
}

#[no_mangle]
pub extern "C" fn mqn_chs_free(h: *mut ChsHandle) {
    if !h.is_null() {
        unsafe { drop(Box::from_raw(h)) };
    }
}

/// Parse one chunk of whole lines (`first`: its first line's number). 0 ok, 1 an input error
/// (`mqn_chs_error`), 2 a panic, 3 the chunk is not plain text.
#[no_mangle]
pub extern "C" fn mqn_chs_feed(h: *mut ChsHandle, ptr: *const u8, len: usize, first: i64) -> i32 {
    let h = unsafe { &mut *h };
    let data = unsafe { slice(ptr, len) };
    if !is_plain(data) {
        return 3;
    }
    let r = catch_unwind(AssertUnwindSafe(|| h.parser.feed(data, first)));
    status(r, &mut h.error)
}

/// The end-of-file checks. 0 ok, 1 an input error, 2 a panic.
#[no_mangle]
pub extern "C" fn mqn_chs_finish(h: *mut ChsHandle) -> i32 {
    let h = unsafe { &mut *h };
    let r = catch_unwind(AssertUnwindSafe(|| h.parser.finish()));
    status(r, &mut h.error)
}

/// The checks of a take (`final_`: the last one) before it is taken: 0 ok, 1 an input error
/// (a block of attributes that names no channel), 2 a panic.
#[no_mangle]
pub extern "C" fn mqn_chs_check(h: *mut ChsHandle, final_: i32) -> i32 {
    let h = unsafe { &mut *h };
    let r = catch_unwind(AssertUnwindSafe(|| h.parser.check_named(final_ != 0)));
    status(r, &mut h.error)
}

/// The error of the last call that returned 1: its message (UTF-8) and line.
#[no_mangle]
pub extern "C" fn mqn_chs_error(
    h: *mut ChsHandle,
    msg: *mut *const u8,
    len: *mut usize,
    line: *mut i64,
) {
    let h = unsafe { &mut *h };
    unsafe { put_error(&h.error, msg, len, line) };
}

/// Vector lines pending and snapshot rows pending (what decides a batch).
#[no_mangle]
pub extern "C" fn mqn_chs_pending(h: *mut ChsHandle, lines: *mut i64, snaps: *mut i64) {
    let h = unsafe { &mut *h };
    let (a, b) = h.parser.pending();
    unsafe {
        *lines = a;
        *snaps = b;
    }
}

/// The counters (unknown and skipped lines, `chstatus::U_*`/`S_*`) since the last call, into
/// `out[0..N_COUNTERS]`; they are reset.
#[no_mangle]
pub extern "C" fn mqn_chs_counters(h: *mut ChsHandle, out: *mut i64) {
    let h = unsafe { &mut *h };
    for (k, v) in h.parser.counters.iter_mut().enumerate() {
        unsafe { *out.add(k) = *v };
        *v = 0;
    }
}

fn raw<T>(v: &[T]) -> (*const u8, usize) {
    (v.as_ptr() as *const u8, std::mem::size_of_val(v))
}

fn bitmap(v: &[bool]) -> Vec<u8> {
    let mut out = vec![0u8; v.len().div_ceil(8)];
    for (i, &b) in v.iter().enumerate() {
        if b {
            out[i >> 3] |= 1 << (i & 7);
        }
    }
    out
}

fn opt_split(v: &[Option<i64>]) -> (Vec<i64>, Vec<bool>) {
    (
        v.iter().map(|x| x.unwrap_or(0)).collect(),
        v.iter().map(|x| x.is_some()).collect(),
    )
}

/// Take a batch (`final_`: the last one): a `Batch` to read with `mqn_batch_buf` and free with
/// `mqn_batch_free`, or null on a panic. `rows` and `snaps` get the numbers of attribute and
/// snapshot rows, `lines` the number of vector lines taken (rows or not). Buffers: 0 source_line, 1 block_no, 2 pair_no (i32), 3-5 key (i64 offsets,
/// bytes, validity bitmap), 6-8 value, 9-10 snapshot_no (values, validity), 11-12
/// snapshot_time (microseconds), 13-15 channel (key, value and channel are string views: views
/// at 3, 6, 13, validity at 5, 8, 15, data buffers by `mqn_batch_data`); the snapshots: 20 source_line, 21 snapshot_no,
/// 22-23 snapshot_time, 24-25 snapshot_clock (microseconds of the day), 26-27 time_line, 28-30
/// qmgr, 31-33 form, 34 channel_count, 35-36 expected_count.
#[no_mangle]
pub extern "C" fn mqn_chs_take(
    h: *mut ChsHandle,
    final_: i32,
    rows: *mut i64,
    snaps: *mut i64,
    lines: *mut i64,
) -> *mut Batch {
    let h = unsafe { &mut *h };
    let r = catch_unwind(AssertUnwindSafe(|| {
        let out = h.parser.take(final_ != 0);
        let (st, stv) = opt_split(&out.s_time);
        let (sc, scv) = opt_split(&out.s_clock);
        let (tl, tlv) = opt_split(&out.s_time_line);
        let (ex, exv) = opt_split(&out.s_expected);
        let mut maps: Vec<Vec<u8>> = Vec::new();
        let keep = |v: Vec<u8>, maps: &mut Vec<Vec<u8>>| -> (*const u8, usize) {
            maps.push(v);
            let last = maps.last().unwrap();
            (last.as_ptr(), last.len())
        };
        let mut bufs: Vec<(*const u8, usize)> = vec![(std::ptr::null(), 0); 37];
        let o = &out;
        bufs[0] = raw(&o.rows.line);
        bufs[1] = raw(&o.rows.block);
        bufs[2] = raw(&o.rows.pair);
        let mut data = Vec::new();
        for (base, col) in [(3usize, &o.rows.key), (6, &o.rows.value), (13, &o.channel)] {
            bufs[base] = raw(&col.views);
            bufs[base + 2] = keep(bitmap(&col.valid), &mut maps);
            data.push((base, col.bufs.iter().map(|b| raw(b)).collect::<Vec<_>>()));
        }
        for (base, col) in [(28usize, &o.s_qmgr), (31, &o.s_form)] {
            bufs[base] = raw(&col.offsets);
            bufs[base + 1] = raw(&col.data);
            bufs[base + 2] = keep(bitmap(&col.valid), &mut maps);
        }
        bufs[9] = raw(&o.snapshot_no);
        bufs[10] = keep(bitmap(&o.snapshot_no_valid), &mut maps);
        bufs[11] = raw(&o.snapshot_time);
        bufs[12] = keep(bitmap(&o.snapshot_time_valid), &mut maps);
        bufs[20] = raw(&o.s_line);
        bufs[21] = raw(&o.s_no);
        bufs[34] = raw(&o.s_count);
        for (idx, (vals, valid)) in [
            (22usize, (st, stv)),
            (24, (sc, scv)),
            (26, (tl, tlv)),
            (35, (ex, exv)),
        ] {
            bufs[idx] = keep(bytes_of(&vals), &mut maps);
            bufs[idx + 1] = keep(bitmap(&valid), &mut maps);
        }
        let (nr, ns, nl) = (o.rows.len() as i64, o.s_line.len() as i64, o.lines_taken);
        // Vec<Vec<u8>> pushes move the outer vector's items, never their heap buffers: the
        // pointers taken above stay valid.
        (
            Box::into_raw(Box::new(Batch {
                out: Box::new(out),
                maps,
                bufs,
                data,
            })),
            nr,
            ns,
            nl,
        )
    }));
    match r {
        Ok((b, nr, ns, nl)) => {
            unsafe {
                *rows = nr;
                *snaps = ns;
                *lines = nl;
            }
            b
        }
        Err(_) => std::ptr::null_mut(),
    }
}

fn bytes_of<T: Copy>(v: &[T]) -> Vec<u8> {
    let n = std::mem::size_of_val(v);
    let mut out = vec![0u8; n];
    unsafe { std::ptr::copy_nonoverlapping(v.as_ptr() as *const u8, out.as_mut_ptr(), n) };
    out
}

/// Buffer `idx` of a batch: its address and length in bytes (valid until `mqn_batch_free`).
#[no_mangle]
pub extern "C" fn mqn_batch_buf(b: *mut Batch, idx: usize, ptr: *mut *const u8, len: *mut usize) {
    let b = unsafe { &*b };
    let (p, n) = b.bufs.get(idx).copied().unwrap_or((std::ptr::null(), 0));
    unsafe {
        *ptr = p;
        *len = n;
    }
}

/// Data buffer `k` of the string-view column whose views are buffer `base` (views at `base`,
/// validity at `base + 2`): 1 and its address and length, or 0 when there is no such buffer.
#[no_mangle]
pub extern "C" fn mqn_batch_data(
    b: *mut Batch,
    base: usize,
    k: usize,
    ptr: *mut *const u8,
    len: *mut usize,
) -> i32 {
    let b = unsafe { &*b };
    let found = b
        .data
        .iter()
        .find(|(c, _)| *c == base)
        .and_then(|(_, v)| v.get(k).copied());
    match found {
        Some((p, n)) => {
            unsafe {
                *ptr = p;
                *len = n;
            }
            1
        }
        None => 0,
    }
}

/// The largest data buffer of a string-view column (the tests lower it); the default is the
/// largest an i32 offset reaches.
#[no_mangle]
pub extern "C" fn mqn_set_view_limit(n: usize) {
    columns::set_limit(n)
}

#[no_mangle]
pub extern "C" fn mqn_batch_free(b: *mut Batch) {
    if !b.is_null() {
        unsafe { drop(Box::from_raw(b)) };
    }
}

// -- NETSTAT -------------------------------------------------------------------------------

pub struct NsHandle {
    parser: netstat::Parser,
    error: Option<(String, i64)>,
}

#[no_mangle]
pub extern "C" fn mqn_ns_new() -> *mut NsHandle {
    Box::into_raw(Box::new(NsHandle {
        parser: netstat::Parser::new(),
        error: None,
    }))
}

#[no_mangle]
pub extern "C" fn mqn_ns_free(h: *mut NsHandle) {
    if !h.is_null() {
        unsafe { drop(Box::from_raw(h)) };
    }
}

/// Parse one chunk of whole lines (`first`: its first line's number). 0 ok, 1 an input error
/// (`mqn_ns_error`), 2 a panic, 3 the chunk is not plain text.
#[no_mangle]
pub extern "C" fn mqn_ns_feed(h: *mut NsHandle, ptr: *const u8, len: usize, first: i64) -> i32 {
    let h = unsafe { &mut *h };
    let data = unsafe { slice(ptr, len) };
    if !is_plain(data) {
        return 3;
    }
    let r = catch_unwind(AssertUnwindSafe(|| h.parser.feed(data, first)));
    status(r, &mut h.error)
}

/// The end-of-file checks. 0 ok, 1 an input error, 2 a panic.
#[no_mangle]
pub extern "C" fn mqn_ns_finish(h: *mut NsHandle) -> i32 {
    let h = unsafe { &mut *h };
    let r = catch_unwind(AssertUnwindSafe(|| h.parser.finish()));
    status(r, &mut h.error)
}

/// The error of the last call that returned 1: its message (UTF-8) and line.
#[no_mangle]
pub extern "C" fn mqn_ns_error(
    h: *mut NsHandle,
    msg: *mut *const u8,
    len: *mut usize,
    line: *mut i64,
) {
    let h = unsafe { &mut *h };
    unsafe { put_error(&h.error, msg, len, line) };
}

/// Pair lines and rows pending (what decides a batch).
#[no_mangle]
pub extern "C" fn mqn_ns_pending(h: *mut NsHandle, pending: *mut i64) {
    let h = unsafe { &mut *h };
    unsafe { *pending = h.parser.pending() };
}

/// The counters (unknown and skipped lines, `netstat::U_*`/`S_*`) since the last call, into
/// `out[0..N_COUNTERS]`; they are reset.
#[no_mangle]
pub extern "C" fn mqn_ns_counters(h: *mut NsHandle, out: *mut i64) {
    let h = unsafe { &mut *h };
    for (k, v) in h.parser.counters.iter_mut().enumerate() {
        unsafe { *out.add(k) = *v };
        *v = 0;
    }
}

/// Take a batch (`final_`: the last one): a `Batch` to read with `mqn_batch_buf` and free with
/// `mqn_batch_free`, or null on a panic. `rows` and `conns` get the numbers of pair and block
/// rows, `lines` the number of pair lines taken (rows or not). Buffers: 0 source_line, 1
/// conn_no, 2 pair_no (i32), 3 parent (string views; validity at 5, data buffers by
/// `mqn_batch_data`), 6 name, 9 value, 12 poll_no; the blocks: 20 source_line, 21 poll_no, 22-23 poll_time (microseconds of
/// the day, validity), 24-25 poll_ts (microseconds), 26-27 poll_line, 28 netstat_release
/// (string views, as parent), 31 stack_name, 34 conn_no, 35 client_name, 38 client_id, 41
/// local_socket, 44 foreign_socket.
#[no_mangle]
pub extern "C" fn mqn_ns_take(
    h: *mut NsHandle,
    final_: i32,
    rows: *mut i64,
    conns: *mut i64,
    lines: *mut i64,
) -> *mut Batch {
    let h = unsafe { &mut *h };
    let r = catch_unwind(AssertUnwindSafe(|| {
        let out = h.parser.take(final_ != 0);
        let (pt, ptv) = opt_split(&out.c_time);
        let (ts, tsv) = opt_split(&out.c_ts);
        let (pl, plv) = opt_split(&out.c_poll_line);
        let mut maps: Vec<Vec<u8>> = Vec::new();
        let keep = |v: Vec<u8>, maps: &mut Vec<Vec<u8>>| -> (*const u8, usize) {
            maps.push(v);
            let last = maps.last().unwrap();
            (last.as_ptr(), last.len())
        };
        let mut bufs: Vec<(*const u8, usize)> = vec![(std::ptr::null(), 0); 47];
        let mut data = Vec::new();
        let o = &out;
        bufs[0] = raw(&o.rows.line);
        bufs[1] = raw(&o.rows.conn);
        bufs[2] = raw(&o.rows.pair);
        bufs[12] = raw(&o.poll);
        for (base, col) in [
            (3usize, &o.parent),
            (6, &o.rows.name),
            (9, &o.rows.value),
            (28, &o.c_release),
            (31, &o.c_stack),
            (35, &o.c_fields[0]),
            (38, &o.c_fields[1]),
            (41, &o.c_fields[2]),
            (44, &o.c_fields[3]),
        ] {
            bufs[base] = raw(&col.views);
            bufs[base + 2] = keep(bitmap(&col.valid), &mut maps);
            data.push((base, col.bufs.iter().map(|b| raw(b)).collect::<Vec<_>>()));
        }
        bufs[20] = raw(&o.c_line);
        bufs[21] = raw(&o.c_poll);
        bufs[34] = raw(&o.c_no);
        for (idx, (vals, valid)) in [(22usize, (pt, ptv)), (24, (ts, tsv)), (26, (pl, plv))] {
            bufs[idx] = keep(bytes_of(&vals), &mut maps);
            bufs[idx + 1] = keep(bitmap(&valid), &mut maps);
        }
        let (nr, nc, nl) = (o.rows.len() as i64, o.c_line.len() as i64, o.lines_taken);
        (
            Box::into_raw(Box::new(Batch {
                out: Box::new(out),
                maps,
                bufs,
                data,
            })),
            nr,
            nc,
            nl,
        )
    }));
    match r {
        Ok((b, nr, nc, nl)) => {
            unsafe {
                *rows = nr;
                *conns = nc;
                *lines = nl;
            }
            b
        }
        Err(_) => std::ptr::null_mut(),
    }
}
