//! The C ABI of the RMF WORKLOAD ACTIVITY parser (`rmf_workload.rs`), modelled on the `mqn_rc_*`
//! entry points of `ffi_crypto.rs`: a handle (new, feed, finish, error, pending, counters,
//! nothing, take, free); a take is a `lib.rs` `Batch` (read and freed by the `mqn_batch_*`
//! entry points, no copy). Every entry point catches a panic (status 2 or a null batch: a bug,
//! reported in Python, never a crash). The plain-text test is this parser's own
//! (`rmf_pages::is_plain1`: latin-1 text but the C0 controls that are no whitespace, NEL and
//! the no-break space).

use crate::rmf_pages;
use crate::rmf_workload::{Parser, N_COUNTERS};
use crate::{fd_is_plain, put_error, slice, status};
use std::panic::{catch_unwind, AssertUnwindSafe};

pub struct RwHandle {
    parser: Parser,
    error: Option<(String, i64)>,
}

/// 1 when `len` bytes at `ptr` are plain text for this parser, 0 when not.
#[no_mangle]
pub extern "C" fn mqn_rw_plain(ptr: *const u8, len: usize) -> i32 {
    let data = unsafe { slice(ptr, len) };
    catch_unwind(|| rmf_pages::is_plain1(data) as i32).unwrap_or(2)
}

/// `mqn_fd_plain` with this parser's test (see `fd_is_plain`).
#[no_mangle]
pub extern "C" fn mqn_rw_fd_plain(fd: i32) -> i32 {
    catch_unwind(|| fd_is_plain(fd, rmf_pages::is_plain1)).unwrap_or(2)
}

/// A parser for one file: `frame_bytes` the Python parser's frame size (`_rmf.FRAME_BYTES`,
/// capped as `base.text_chunks` caps it), `bom` 1 when the file starts with a UTF-8 byte-order
/// mark (the chunks fed start after it).
#[no_mangle]
pub extern "C" fn mqn_rw_new(frame_bytes: u64, bom: i32) -> *mut RwHandle {
    Box::into_raw(Box::new(RwHandle {
        parser: Parser::new(frame_bytes, bom != 0),
        error: None,
    }))
}

#[no_mangle]
pub extern "C" fn mqn_rw_free(h: *mut RwHandle) {
    if !h.is_null() {
        unsafe { drop(Box::from_raw(h)) };
    }
}

/// Parse one chunk of whole lines (`first`: its first line's number). 0 ok, 1 an input error
/// (`mqn_rw_error`), 2 a panic, 3 the chunk is not plain text.
#[no_mangle]
pub extern "C" fn mqn_rw_feed(h: *mut RwHandle, ptr: *const u8, len: usize, first: i64) -> i32 {
    let h = unsafe { &mut *h };
    let data = unsafe { slice(ptr, len) };
    if !rmf_pages::is_plain1(data) {
        return 3;
    }
    let r = catch_unwind(AssertUnwindSafe(|| h.parser.feed(data, first)));
    status(r, &mut h.error)
}

/// The end-of-file checks. 0 ok, 1 an input error, 2 a panic.
#[no_mangle]
pub extern "C" fn mqn_rw_finish(h: *mut RwHandle) -> i32 {
    let h = unsafe { &mut *h };
    let r = catch_unwind(AssertUnwindSafe(|| h.parser.finish()));
    status(r, &mut h.error)
}

/// The error of the last call that returned 1: its message (UTF-8) and line.
#[no_mangle]
pub extern "C" fn mqn_rw_error(
    h: *mut RwHandle,
    msg: *mut *const u8,
    len: *mut usize,
    line: *mut i64,
) {
    let h = unsafe { &mut *h };
    unsafe { put_error(&h.error, msg, len, line) };
}

/// The rows landed and not yet taken.
#[no_mangle]
pub extern "C" fn mqn_rw_pending(h: *mut RwHandle) -> i64 {
    let h = unsafe { &mut *h };
    h.parser.out.len() as i64
}

/// The counters (`rmf_workload::C_*`) since the last call, into `out[0..N_COUNTERS]`; they are
/// reset.
#[no_mangle]
pub extern "C" fn mqn_rw_counters(h: *mut RwHandle, out: *mut i64) {
    let h = unsafe { &mut *h };
    for k in 0..N_COUNTERS {
        unsafe { *out.add(k) = h.parser.counters[k] };
        h.parser.counters[k] = 0;
    }
}

/// What `ctx.nothing_to_land` was last set to (`rmf_workload::NOTHING_*`, 0: never).
#[no_mangle]
pub extern "C" fn mqn_rw_nothing(h: *mut RwHandle) -> i32 {
    let h = unsafe { &mut *h };
    h.parser.nothing
}

/// Take the rows landed so far: a `Batch` (`lib.rs`) to read with `mqn_batch_buf` and
/// `mqn_batch_data` and free with `mqn_batch_free`, or null on a panic; `rows` gets their
/// number. Buffers: 0-2 sysplex (string views: views at 0, validity at 2, the data buffers by
/// `mqn_batch_data`), 3-5 zos_level, 6 interval_start (microseconds), 7-8 interval_s (values,
/// validity), 9 source_line, 10-12 policy, 13-15 workload, 16-18 class_kind, 19-21
/// class_name, 22-24 resource_group, 25-26 period (i32, validity), 27-29 importance, 30-53 the
/// twelve values cpu_s ... appl_iip_pct (values, validity).
#[no_mangle]
pub extern "C" fn mqn_rw_take(h: *mut RwHandle, rows: *mut i64) -> *mut crate::Batch {
    use crate::raw;
    let h = unsafe { &mut *h };
    let r = catch_unwind(AssertUnwindSafe(|| {
        let out = h.parser.take();
        let mut bufs: Vec<(*const u8, usize)> = vec![(std::ptr::null(), 0); 54];
        let mut maps: Vec<Vec<u8>> = Vec::new();
        let mut data = Vec::new();
        let views = [
            (0usize, &out.sysplex),
            (3, &out.zos_level),
            (10, &out.policy),
            (13, &out.workload),
            (16, &out.class_kind),
            (19, &out.class_name),
            (22, &out.resource_group),
            (27, &out.importance),
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
        bufs[25] = raw(&out.period);
        bufs[26] = raw(&out.period_valid.bytes);
        for (k, m) in out.values.iter().enumerate() {
            bufs[30 + 2 * k] = raw(&m.values);
            bufs[31 + 2 * k] = raw(&m.valid.bytes);
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
