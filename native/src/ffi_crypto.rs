//! The C ABI of the RMF CRYPTO parser (`rmf_crypto.rs`), modelled on the `mqn_chs_*` entry
//! points of `lib.rs`: a handle (new, feed, finish, error, pending, counters, take, free); a
//! take is a `lib.rs` `Batch` (read and freed by the `mqn_batch_*` entry points, no copy). Every entry point catches a panic (status
//! 2 or a null batch: a bug, reported in Python, never a crash). The plain-text test is this
//! parser's own (`rmf_crypto::is_plain`: printable ASCII and Python's ASCII whitespace), so that
//! reports with form feeds or the other ASCII separators are read here too.

use crate::rmf_crypto::{self, Parser};
use crate::{fd_is_plain, put_error, slice, status};
use std::panic::{catch_unwind, AssertUnwindSafe};

pub struct RcHandle {
    parser: Parser,
    error: Option<(String, i64)>,
    counts: Vec<u8>,
}

/// 1 when `len` bytes at `ptr` are plain text for this parser, 0 when not.
#[no_mangle]
pub extern "C" fn mqn_rc_plain(ptr: *const u8, len: usize) -> i32 {
    let data = unsafe { slice(ptr, len) };
    catch_unwind(|| rmf_crypto::is_plain(data) as i32).unwrap_or(2)
}

/// `mqn_fd_plain` with this parser's test: 1 when the file open on `fd` is plain from its start
/// (after an optional UTF-8 byte-order mark), 0 when not, -1 when it cannot be read. Read with
/// `pread`: the descriptor stays Python's.
#[no_mangle]
pub extern "C" fn mqn_rc_fd_plain(fd: i32) -> i32 {
    catch_unwind(|| fd_is_plain(fd, rmf_crypto::is_plain)).unwrap_or(2)
}

#[no_mangle]
pub extern "C" fn mqn_rc_new() -> *mut RcHandle {
    Box::into_raw(Box::new(RcHandle {
        parser: Parser::new(),
        error: None,
        counts: Vec::new(),
    }))
}

#[no_mangle]
pub extern "C" fn mqn_rc_free(h: *mut RcHandle) {
    if !h.is_null() {
        unsafe { drop(Box::from_raw(h)) };
    }
}

/// Parse one chunk of whole lines (`first`: its first line's number). 0 ok, 1 an input error
/// (`mqn_rc_error`), 2 a panic, 3 the chunk is not plain text.
#[no_mangle]
pub extern "C" fn mqn_rc_feed(h: *mut RcHandle, ptr: *const u8, len: usize, first: i64) -> i32 {
    let h = unsafe { &mut *h };
    let data = unsafe { slice(ptr, len) };
    if !rmf_crypto::is_plain(data) {
        return 3;
    }
    let r = catch_unwind(AssertUnwindSafe(|| h.parser.feed(data, first)));
    status(r, &mut h.error)
}

/// The end-of-file checks. 0 ok, 1 an input error, 2 a panic.
#[no_mangle]
pub extern "C" fn mqn_rc_finish(h: *mut RcHandle) -> i32 {
    let h = unsafe { &mut *h };
    let r = catch_unwind(AssertUnwindSafe(|| h.parser.finish()));
    status(r, &mut h.error)
}

/// The error of the last call that returned 1: its message (UTF-8) and line.
#[no_mangle]
pub extern "C" fn mqn_rc_error(
    h: *mut RcHandle,
    msg: *mut *const u8,
    len: *mut usize,
    line: *mut i64,
) {
    let h = unsafe { &mut *h };
    unsafe { put_error(&h.error, msg, len, line) };
}

/// The rows landed and not yet taken.
#[no_mangle]
pub extern "C" fn mqn_rc_pending(h: *mut RcHandle) -> i64 {
    let h = unsafe { &mut *h };
    h.parser.out.len() as i64
}

/// The counters since the last call (they are reset), as text: a line per counter, `U` (an
/// unknown line) or `S` (skipped), what, a tab, how many. Valid until the next call.
#[no_mangle]
pub extern "C" fn mqn_rc_counters(h: *mut RcHandle, ptr: *mut *const u8, len: *mut usize) {
    let h = unsafe { &mut *h };
    h.counts = h.parser.counters.drain();
    unsafe {
        *ptr = h.counts.as_ptr();
        *len = h.counts.len();
    }
}

/// Take the rows landed so far: a `Batch` (`lib.rs`) to read with `mqn_batch_buf` and
/// `mqn_batch_data` and free with `mqn_batch_free`, or null on a panic; `rows` gets their
/// number. Buffers: 0-2 system_id (string views: views at 0, validity at 2, the data buffers by
/// `mqn_batch_data`), 3-5 zos_level, 6 interval_start (microseconds), 7-8 interval_s (values,
/// validity), 9 source_line, 10-12 section, 13-15 card_type, 16-17 card_id (i32), 18-20
/// function, 21-22 key_size_bits (i32), 23-25 scope, 26-33 rate_per_s, exec_time_ms, util_pct,
/// keygen_rate_per_s (values, validity).
#[no_mangle]
pub extern "C" fn mqn_rc_take(h: *mut RcHandle, rows: *mut i64) -> *mut crate::Batch {
    use crate::raw;
    let h = unsafe { &mut *h };
    let r = catch_unwind(AssertUnwindSafe(|| {
        let out = h.parser.take();
        let mut bufs: Vec<(*const u8, usize)> = vec![(std::ptr::null(), 0); 34];
        let mut maps: Vec<Vec<u8>> = Vec::new();
        let mut data = Vec::new();
        let views = [
            (0usize, &out.system_id),
            (3, &out.zos_level),
            (10, &out.section),
            (13, &out.card_type),
            (18, &out.function),
            (23, &out.scope),
        ];
        for (base, col) in views {
            bufs[base] = raw(&col.views);
            maps.push(crate::bitmap(&col.valid));
            // pushes move the outer vector's items, never their heap buffers
            bufs[base + 2] = raw(maps.last().unwrap());
            data.push((base, col.bufs.iter().map(|b| raw(b)).collect()));
        }
        bufs[6] = raw(&out.interval_start);
        bufs[7] = raw(&out.interval_s.values);
        bufs[8] = raw(&out.interval_s.valid.bytes);
        bufs[9] = raw(&out.source_line);
        bufs[16] = raw(&out.card_id);
        bufs[17] = raw(&out.card_id_valid.bytes);
        bufs[21] = raw(&out.key_size_bits);
        bufs[22] = raw(&out.key_size_bits_valid.bytes);
        for (k, m) in out.metrics.iter().enumerate() {
            bufs[26 + 2 * k] = raw(&m.values);
            bufs[27 + 2 * k] = raw(&m.valid.bytes);
        }
        let n = out.len() as i64;
        // moving `out` into the box moves its vectors, never their heap buffers: the pointers
        // taken above stay valid
        let batch = crate::Batch {
            out: Box::new(out),
            maps,
            bufs,
            data,
        };
        (Box::into_raw(Box::new(batch)), n)
    }));
    match r {
        Ok((b, n)) => {
            unsafe { *rows = n };
            b
        }
        Err(_) => std::ptr::null_mut(),
    }
}
