//! Byte buffers kept per thread between column chunks, row groups and files.
//!
//! A row group's pages are held in one buffer per column until the row group is written out.
//! Fresh multi-megabyte buffers cost page faults (the kernel zeroes every page on first touch)
//! and doubling reallocations; buffers handed back after a chunk is written are reused instead.
//! At most [`MAX_POOLED_BYTES`] are kept per thread (outside any writer's memory accounting), so
//! an idle thread holds little: 32 MiB, against the row group (128 MiB by default) a writer holds.
//! Page writes borrow their transient buffers from a few scratch buffers per thread
//! ([`scratch`]).

use std::cell::RefCell;

/// Bytes of spare buffers kept per thread.
pub const MAX_POOLED_BYTES: usize = 32 << 20;

thread_local! {
    static POOL: RefCell<Vec<Vec<u8>>> = const { RefCell::new(Vec::new()) };
}

/// An empty buffer with room for at least `capacity` bytes, reused when one is spare.
pub fn take(capacity: usize) -> Vec<u8> {
    let reused = POOL.with(|p| {
        let mut p = p.borrow_mut();
        // The largest spare buffer: chunks of one writer are of similar sizes.
        let i = (0..p.len()).max_by_key(|&i| p[i].capacity())?;
        Some(p.swap_remove(i))
    });
    let mut v = reused.unwrap_or_default();
    v.reserve(capacity);
    v
}

/// Hands a buffer back for reuse on this thread (dropped when the pool is full).
pub fn give(mut v: Vec<u8>) {
    if v.capacity() == 0 || v.capacity() > MAX_POOLED_BYTES {
        return;
    }
    v.clear();
    POOL.with(|p| {
        let mut p = p.borrow_mut();
        let held: usize = p.iter().map(Vec::capacity).sum();
        if held + v.capacity() <= MAX_POOLED_BYTES {
            p.push(v);
        }
    });
}

/// Bytes held by spare buffers on this thread.
pub fn pooled_bytes() -> usize {
    POOL.with(|p| p.borrow().iter().map(Vec::capacity).sum())
}

/// Scratch buffers a thread's page writes borrow (levels, a page body, the compressor's
/// output): each is needed only while one page is written, so a thread keeps a few instead of
/// every open column chunk holding its own. A partitioned write holds thousands of chunks open:
/// page-sized buffers each would be a page's worth of memory per chunk, faulted in and (the
/// compressor's, whose length is kept) zeroed once per chunk.
const SCRATCHES: usize = 8;

/// Scratch buffers larger than this are freed after use (one huge page is not kept).
const MAX_SCRATCH_BYTES: usize = 16 << 20;

thread_local! {
    static SCRATCH: RefCell<Vec<Vec<u8>>> = const { RefCell::new(Vec::new()) };
}

/// A scratch buffer for the duration of a page write, as it was last left: its length is
/// kept, so a buffer grown by zero-filling (the compressor's room) is not zeroed again.
pub fn scratch() -> Vec<u8> {
    SCRATCH.with(|s| s.borrow_mut().pop()).unwrap_or_default()
}

/// Hands a scratch buffer back (freed when too large or when the thread keeps enough).
pub fn return_scratch(v: Vec<u8>) {
    if v.capacity() == 0 || v.capacity() > MAX_SCRATCH_BYTES {
        return;
    }
    SCRATCH.with(|s| {
        let mut s = s.borrow_mut();
        if s.len() < SCRATCHES {
            s.push(v);
        }
    });
}

/// Bytes held by this thread's scratch buffers.
pub fn scratch_bytes() -> usize {
    SCRATCH.with(|s| s.borrow().iter().map(Vec::capacity).sum())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffers_are_reused_and_bounded() {
        let mut v = take(1000);
        v.extend_from_slice(&[1; 1000]);
        let cap = v.capacity();
        let ptr = v.as_ptr();
        give(v);
        assert_eq!(pooled_bytes(), cap);
        let w = take(10);
        assert_eq!(w.as_ptr(), ptr, "the spare buffer came back");
        assert!(w.is_empty());
        give(Vec::with_capacity(MAX_POOLED_BYTES + 1));
        assert_eq!(pooled_bytes(), 0, "an oversized buffer is not kept");
        give(w);
        give(Vec::with_capacity(MAX_POOLED_BYTES));
        assert!(pooled_bytes() <= MAX_POOLED_BYTES);
    }

    #[test]
    fn scratch_keeps_its_length_and_is_bounded() {
        let mut v = scratch();
        v.resize(4096, 7);
        let ptr = v.as_ptr();
        return_scratch(v);
        let w = scratch();
        assert_eq!(
            (w.as_ptr(), w.len()),
            (ptr, 4096),
            "the same buffer, length kept"
        );
        let kept = w.capacity();
        return_scratch(w);
        return_scratch(Vec::with_capacity(MAX_SCRATCH_BYTES + 1));
        let small = Vec::<u8>::with_capacity(16).capacity();
        for _ in 0..2 * SCRATCHES {
            return_scratch(Vec::with_capacity(16));
        }
        // Exactly SCRATCHES buffers: the first one and SCRATCHES - 1 small ones.
        assert_eq!(scratch_bytes(), kept + (SCRATCHES - 1) * small);
    }

    #[test]
    fn scratch_of_the_largest_kept_size_is_kept() {
        return_scratch(Vec::with_capacity(MAX_SCRATCH_BYTES));
        assert_eq!(scratch().capacity(), MAX_SCRATCH_BYTES);
    }
}
