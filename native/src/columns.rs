//! Arrow string-view columns (`utf8_view`) built in place: polars takes them without a copy
//! (a large-utf8 column is converted, about 5 ms per 200,000 strings). A string of up to 12
//! bytes lives in its 16-byte view; a longer one in a data buffer, the view holding its length,
//! first 4 bytes, buffer index and offset. Buffers are cut before `limit()` bytes (the offset is
//! an i32), so a batch of any size has valid views.

use std::sync::atomic::{AtomicUsize, Ordering};

static LIMIT: AtomicUsize = AtomicUsize::new(i32::MAX as usize);

/// The largest data buffer of a view column (tests lower it to reach the buffer change).
pub fn limit() -> usize {
    LIMIT.load(Ordering::Relaxed)
}

pub fn set_limit(n: usize) {
    LIMIT.store(n.clamp(16, i32::MAX as usize), Ordering::Relaxed);
}

pub struct ViewCol {
    pub views: Vec<[u8; 16]>,
    pub bufs: Vec<Vec<u8>>,
    pub valid: Vec<bool>,
}

impl Default for ViewCol {
    fn default() -> Self {
        Self::new()
    }
}

impl ViewCol {
    pub fn new() -> Self {
        ViewCol {
            views: Vec::new(),
            bufs: vec![Vec::new()],
            valid: Vec::new(),
        }
    }

    pub fn len(&self) -> usize {
        self.valid.len()
    }

    pub fn is_empty(&self) -> bool {
        self.valid.is_empty()
    }

    /// The view a string gets (its bytes appended to the last buffer when it is long).
    #[inline]
    pub fn make(&mut self, b: &[u8]) -> [u8; 16] {
        let mut v = [0u8; 16];
        v[..4].copy_from_slice(&(b.len() as u32).to_le_bytes());
        if b.len() <= 12 {
            v[4..4 + b.len()].copy_from_slice(b);
            return v;
        }
        if self.bufs.last().unwrap().len() + b.len() > limit() {
            self.bufs.push(Vec::new());
        }
        let idx = self.bufs.len() - 1;
        let buf = self.bufs.last_mut().unwrap();
        v[4..8].copy_from_slice(&b[..4]);
        v[8..12].copy_from_slice(&(idx as u32).to_le_bytes());
        v[12..16].copy_from_slice(&(buf.len() as u32).to_le_bytes());
        buf.extend_from_slice(b);
        v
    }

    #[inline]
    pub fn push(&mut self, s: Option<&[u8]>) {
        match s {
            Some(b) => {
                let v = self.make(b);
                self.views.push(v);
                self.valid.push(true);
            }
            None => {
                self.views.push([0u8; 16]);
                self.valid.push(false);
            }
        }
    }

    /// Another row with a view made before (the same string again, its bytes not copied).
    #[inline]
    pub fn push_view(&mut self, v: [u8; 16]) {
        self.views.push(v);
        self.valid.push(true);
    }

    pub fn get(&self, i: usize) -> Option<&[u8]> {
        if !self.valid[i] {
            return None;
        }
        let v = &self.views[i];
        let n = u32::from_le_bytes(v[..4].try_into().unwrap()) as usize;
        if n <= 12 {
            return Some(&v[4..4 + n]);
        }
        let idx = u32::from_le_bytes(v[8..12].try_into().unwrap()) as usize;
        let off = u32::from_le_bytes(v[12..16].try_into().unwrap()) as usize;
        Some(&self.bufs[idx][off..off + n])
    }

    /// Removes rows `from..` and returns them as a column of their own.
    pub fn split_off(&mut self, from: usize) -> ViewCol {
        let mut tail = ViewCol::new();
        for i in from..self.len() {
            tail.push(self.get(i));
        }
        self.views.truncate(from);
        self.valid.truncate(from);
        // the tail's bytes stay in the buffers (unreferenced) until the column is freed
        tail
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn views_give_back_their_strings_across_buffers() {
        let mut c = ViewCol::new();
        let words: Vec<Vec<u8>> = (0..200)
            .map(|i| format!("value number {i:04} {}", "x".repeat(i % 30)).into_bytes())
            .collect();
        set_limit(64);
        for (i, w) in words.iter().enumerate() {
            c.push(if i % 7 == 0 { None } else { Some(w) });
        }
        set_limit(i32::MAX as usize);
        assert!(c.bufs.len() > 10);
        for (i, w) in words.iter().enumerate() {
            assert_eq!(c.get(i), if i % 7 == 0 { None } else { Some(&w[..]) });
        }
        let tail = c.split_off(150);
        assert_eq!(c.len(), 150);
        assert_eq!(tail.get(1), Some(&words[151][..]));
    }
}
