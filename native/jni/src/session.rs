//! Open writers behind integer handles. A handle that was released (or never existed) is an
//! IllegalStateException, never a dangling pointer; calls on one handle are serialised.

use crate::errors::{JniError, JniResult};
use parking_lot::Mutex;
use std::collections::HashMap;
use std::io::Write;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;
use vecruntime_kernels::unsafe_row::RowTransposer;
use vecruntime_parquet::FileWriter;

/// Bytes the writer has produced that the JVM has not taken yet: finished row groups, then
/// the file's tail. The JVM drains them into its OutputStream after each call.
#[derive(Default)]
pub struct Output {
    buf: Vec<u8>,
    taken: usize,
}

impl Write for Output {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        self.buf.extend_from_slice(data);
        Ok(data.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Output {
    pub fn pending(&self) -> usize {
        self.buf.len() - self.taken
    }

    /// Up to `max` pending bytes, from the oldest.
    pub fn peek(&self, max: usize) -> &[u8] {
        let n = max.min(self.pending());
        &self.buf[self.taken..self.taken + n]
    }

    /// Marks `n` bytes as taken by the JVM.
    pub fn advance(&mut self, n: usize) {
        self.taken += n.min(self.pending());
        if self.taken == self.buf.len() {
            self.buf.clear();
            self.taken = 0;
            // Keep one row group's worth of capacity for the next, but not a huge outlier.
            if self.buf.capacity() > 256 << 20 {
                self.buf.shrink_to(0);
            }
        }
    }

    pub fn capacity(&self) -> usize {
        self.buf.capacity()
    }
}

pub struct Session {
    pub writer: FileWriter<Output>,
    /// Set once the JVM sends UnsafeRow batches: decodes them into column buffers.
    pub rows: Option<RowTransposer>,
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
