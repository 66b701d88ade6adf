//! Open writers behind integer handles. A handle that was released (or never existed) is an
//! IllegalStateException, never a dangling pointer; calls on one handle are serialised.

use crate::errors::{JniError, JniResult};
use parking_lot::Mutex;
use std::collections::{HashMap, VecDeque};
use std::io::Write;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;
use vecruntime_kernels::transpose::RowTransposer;
use vecruntime_parquet::{buffers, FileWriter, Sink};

/// Bytes the writer has produced that the JVM has not taken yet: finished row groups, then
/// the file's tail. The JVM drains them into its OutputStream after each call. A row group's
/// page segments are kept as the writer hands them over, not copied into one growing buffer
/// (that copy, its reallocations and the page faults of fresh memory cost tens of ms a large
/// row group); small writes (headers, dictionary pages, indexes, footer) are appended.
#[derive(Default)]
pub struct Output {
    segments: VecDeque<Vec<u8>>,
    /// Bytes of the front segment the JVM has taken.
    taken: usize,
    pending: usize,
    capacity: usize,
}

/// Room of a segment opened for small writes.
const SMALL_SEGMENT: usize = 64 << 10;

impl Write for Output {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        if data.is_empty() {
            return Ok(0);
        }
        let fits = self
            .segments
            .back()
            .is_some_and(|s| s.capacity() - s.len() >= data.len());
        if !fits {
            let segment = buffers::take(data.len().max(SMALL_SEGMENT));
            self.capacity += segment.capacity();
            self.segments.push_back(segment);
        }
        let back = self.segments.back_mut().expect("a segment with room");
        back.extend_from_slice(data);
        self.pending += data.len();
        Ok(data.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Sink for Output {
    fn write_segment(&mut self, segment: Vec<u8>) -> std::io::Result<()> {
        if segment.is_empty() {
            buffers::give(segment);
            return Ok(());
        }
        self.pending += segment.len();
        self.capacity += segment.capacity();
        self.segments.push_back(segment);
        Ok(())
    }
}

impl Output {
    pub fn pending(&self) -> usize {
        self.pending
    }

    /// Up to `max` pending bytes, from the oldest (at most one segment's).
    pub fn peek(&self, max: usize) -> &[u8] {
        match self.segments.front() {
            Some(s) => &s[self.taken..s.len().min(self.taken + max)],
            None => &[],
        }
    }

    /// Marks `n` bytes of [`Self::peek`] as taken by the JVM; spent segments are recycled.
    pub fn advance(&mut self, n: usize) {
        let Some(front) = self.segments.front() else {
            return;
        };
        let n = n.min(front.len() - self.taken);
        self.taken += n;
        self.pending -= n;
        if self.taken == front.len() {
            let spent = self.segments.pop_front().expect("the front segment");
            self.capacity -= spent.capacity();
            self.taken = 0;
            buffers::give(spent);
        }
    }

    /// Native bytes held by pending segments.
    pub fn capacity(&self) -> usize {
        self.capacity
    }
}

pub struct Session {
    pub writer: FileWriter<Output>,
    /// Set once the JVM sends UnsafeRow batches: decodes them into column buffers.
    pub rows: Option<RowTransposer>,
    /// Time spent turning UnsafeRow batches into columns (the row kernel), for Spark's metrics.
    pub kernel_nanos: u64,
}

impl Session {
    /// Native bytes this writer holds: buffered pages of the open row group and output not
    /// yet taken by the JVM.
    pub fn native_bytes(&mut self) -> usize {
        self.writer.buffered_bytes()
            + self.writer.sink_mut().capacity()
            + self.rows.as_ref().map_or(0, RowTransposer::buffered_bytes)
    }
}

/// A session slot: `None` once a panic went through it.
type Slot = Arc<Mutex<Option<Session>>>;

static SESSIONS: Mutex<Option<HashMap<i64, Slot>>> = Mutex::new(None);
static NEXT_HANDLE: AtomicI64 = AtomicI64::new(1);

pub fn register(session: Session) -> i64 {
    let handle = NEXT_HANDLE.fetch_add(1, Ordering::Relaxed);
    SESSIONS
        .lock()
        .get_or_insert_with(HashMap::new)
        .insert(handle, Arc::new(Mutex::new(Some(session))));
    handle
}

fn lookup(handle: i64) -> JniResult<Slot> {
    SESSIONS
        .lock()
        .as_ref()
        .and_then(|m| m.get(&handle).cloned())
        .ok_or_else(|| JniError::State(format!("writer handle {handle} is closed or unknown")))
}

/// Runs `f` on the session of `handle`. A panic inside marks the session broken.
pub fn with<T>(handle: i64, f: impl FnOnce(&mut Session) -> JniResult<T>) -> JniResult<T> {
    let session = lookup(handle)?;
    let mut guard = session.lock();
    let s = guard.as_mut().ok_or_else(|| {
        JniError::State(format!(
            "writer handle {handle} failed with an internal error and cannot be used"
        ))
    })?;
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(s)));
    outcome.unwrap_or_else(|panic| {
        // The writer's state cannot be trusted after a panic: drop it now.
        *guard = None;
        Err(JniError::Runtime(format!(
            "internal error in the native writer: {}",
            crate::errors::panic_message(&panic)
        )))
    })
}

/// Drops the session of `handle` and everything it holds.
pub fn release(handle: i64) -> JniResult<()> {
    let removed = SESSIONS.lock().as_mut().and_then(|m| m.remove(&handle));
    match removed {
        Some(_) => Ok(()),
        None => Err(JniError::State(format!(
            "writer handle {handle} is closed or unknown"
        ))),
    }
}

/// Writers open in this process (for leak checks in tests).
pub fn open_count() -> i64 {
    SESSIONS.lock().as_ref().map_or(0, |m| m.len() as i64)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Drains `out` as the JVM does, `max` bytes a call.
    fn drain(out: &mut Output, max: usize) -> Vec<u8> {
        let mut all = Vec::new();
        loop {
            let chunk = out.peek(max).to_vec();
            if chunk.is_empty() {
                return all;
            }
            out.advance(chunk.len());
            all.extend_from_slice(&chunk);
        }
    }

    #[test]
    fn output_keeps_order_across_small_writes_and_segments() {
        let mut out = Output::default();
        let mut expected = Vec::new();
        out.write_all(b"PAR1").unwrap();
        expected.extend_from_slice(b"PAR1");
        out.write_all(&[]).unwrap();
        for k in 0..5u8 {
            let mut segment = Vec::with_capacity(3000);
            segment.extend((0..2500).map(|i| (i as u8).wrapping_mul(k + 1)));
            expected.extend_from_slice(&segment);
            out.write_segment(segment).unwrap();
            out.write_segment(Vec::new()).unwrap();
            // A header after a segment lands in its spare room or a new one.
            let header = vec![k; 700];
            expected.extend_from_slice(&header);
            out.write_all(&header).unwrap();
        }
        assert_eq!(out.pending(), expected.len());
        assert!(out.capacity() >= expected.len());
        // Partly drained, then more written, then the rest.
        let first = {
            let chunk = out.peek(1000).to_vec();
            out.advance(chunk.len());
            chunk
        };
        assert_eq!(first[..], expected[..first.len()]);
        out.write_all(b"tail").unwrap();
        expected.extend_from_slice(b"tail");
        let mut got = first;
        got.extend(drain(&mut out, 999));
        assert_eq!(got, expected);
        assert_eq!(out.pending(), 0);
        assert_eq!(out.capacity(), 0, "spent segments are released");
        assert!(out.peek(10).is_empty());
    }
}
