//! Off-heap buffers the JVM fills and the writer reads. Every allocation is registered, so an
//! address and length coming from Java are checked to lie inside one live allocation before
//! Rust builds a slice over them, and freeing twice or freeing a foreign address is an error.

use crate::errors::{argument, JniError, JniResult};
use parking_lot::{Condvar, Mutex};
use std::alloc::{alloc_zeroed, dealloc, Layout};
use std::cell::RefCell;
use std::collections::BTreeMap;

/// Cache-line alignment: any primitive slice over the start of a buffer is aligned.
const ALIGN: usize = 64;

/// A live allocation: its size, and how many [`Pin`]s are reading it now.
struct Allocation {
    size: usize,
    pins: usize,
}

/// Live allocations by start address. Held only to look up, register or unregister: a
/// native call pins the buffers it reads (not the registry), so one task's allocations and
/// frees do not wait for another task's write to finish.
static LIVE: Mutex<BTreeMap<usize, Allocation>> = Mutex::new(BTreeMap::new());
/// Signalled when an allocation's last pin goes.
static UNPINNED: Condvar = Condvar::new();

pub fn allocate(size: i64) -> JniResult<i64> {
    if size < 0 || size > (isize::MAX as i64) - ALIGN as i64 {
        return Err(argument(format!("cannot allocate {size} bytes")));
    }
    let size = size as usize;
    let layout = Layout::from_size_align(size.max(1), ALIGN)
        .map_err(|e| argument(format!("cannot allocate {size} bytes: {e}")))?;
    // SAFETY: the layout has a non-zero size.
    let ptr = unsafe { alloc_zeroed(layout) };
    if ptr.is_null() {
        return Err(JniError::Runtime(format!(
            "out of native memory allocating {size} bytes"
        )));
    }
    LIVE.lock()
        .insert(ptr as usize, Allocation { size, pins: 0 });
    Ok(ptr as i64)
}

pub fn free(address: i64) -> JniResult<()> {
    let mut live = LIVE.lock();
    // A buffer another thread's native call is reading is freed once that call is done.
    while live.get(&(address as usize)).is_some_and(|a| a.pins > 0) {
        UNPINNED.wait(&mut live);
    }
    let size = live
        .remove(&(address as usize))
        .ok_or_else(|| {
            JniError::State(format!(
                "address {address:#x} is not a live vecruntime buffer (freed twice?)"
            ))
        })?
        .size;
    drop(live);
    let layout =
        Layout::from_size_align(size.max(1), ALIGN).expect("layout was valid at allocation");
    // SAFETY: the address came from alloc_zeroed with this layout and was just unregistered
    // unpinned, so no other free can reach it and no reader holds a slice over it.
    unsafe { dealloc(address as usize as *mut u8, layout) };
    Ok(())
}

/// Bytes held by live allocations.
pub fn allocated_bytes() -> i64 {
    LIVE.lock().values().map(|a| a.size as i64).sum()
}

/// Held while slices over registered memory are in use: each buffer a slice was taken from
/// stays allocated until the pin is dropped.
pub struct Pin {
    /// Start addresses of the allocations pinned (once per slice taken).
    pinned: RefCell<Vec<usize>>,
    /// The byte ranges handed out and whether to write: a range to write overlaps no other.
    taken: RefCell<Vec<(usize, usize, bool)>>,
}

pub fn pin() -> Pin {
    Pin {
        pinned: RefCell::new(Vec::new()),
        taken: RefCell::new(Vec::new()),
    }
}

impl Drop for Pin {
    fn drop(&mut self) {
        let pinned = self.pinned.get_mut();
        if pinned.is_empty() {
            return;
        }
        let mut live = LIVE.lock();
        let mut unpinned = false;
        for base in pinned.drain(..) {
            if let Some(a) = live.get_mut(&base) {
                a.pins -= 1;
                unpinned |= a.pins == 0;
            }
        }
        drop(live);
        if unpinned {
            UNPINNED.notify_all();
        }
    }
}

impl Pin {
    /// `len` bytes at `address`, checked to lie inside one live allocation.
    pub fn bytes(&self, address: i64, len: i64, what: &dyn Fn() -> String) -> JniResult<&[u8]> {
        self.range(address, len, 1, what, false)?;
        if len == 0 {
            return Ok(&[]);
        }
        // SAFETY: [address, address + len) lies inside a live allocation (checked above) that
        // this pin holds allocated until it is dropped; the memory is initialised (allocations
        // are zeroed).
        Ok(unsafe { std::slice::from_raw_parts(address as usize as *const u8, len as usize) })
    }

    /// `len` bytes at `address` to write, as `bytes` checks them, and apart from every other
    /// range this pin has handed out (and will: a later range overlapping it is refused).
    #[allow(clippy::mut_from_ref)]
    pub fn bytes_mut(
        &self,
        address: i64,
        len: i64,
        what: &dyn Fn() -> String,
    ) -> JniResult<&mut [u8]> {
        self.range(address, len, 1, what, true)?;
        if len == 0 {
            return Ok(&mut []);
        }
        // SAFETY: as in `bytes`; no other slice this pin gave or gives overlaps the range
        // (`range`), and the JVM thread that owns the buffer is in this call.
        Ok(unsafe { std::slice::from_raw_parts_mut(address as usize as *mut u8, len as usize) })
    }

    /// `len` bytes at `address` to write as `T`s, as `values` and `bytes_mut` check them.
    #[allow(clippy::mut_from_ref)]
    pub fn values_mut<T: Copy>(
        &self,
        address: i64,
        len: i64,
        what: &dyn Fn() -> String,
    ) -> JniResult<&mut [T]> {
        let size = std::mem::size_of::<T>();
        self.range(address, len, size, what, true)?;
        if len == 0 {
            return Ok(&mut []);
        }
        // SAFETY: as in `values` and `bytes_mut`.
        Ok(unsafe {
            std::slice::from_raw_parts_mut(address as usize as *mut T, len as usize / size)
        })
    }

    /// `len` bytes at `address` read as `T`s (a whole number of them, aligned).
    pub fn values<T: Copy>(
        &self,
        address: i64,
        len: i64,
        what: &dyn Fn() -> String,
    ) -> JniResult<&[T]> {
        let size = std::mem::size_of::<T>();
        self.range(address, len, size, what, false)?;
        if len == 0 {
            return Ok(&[]);
        }
        // SAFETY: as in `bytes`; the address is aligned for T and the length a multiple of its
        // size (checked in `range`); T is a primitive number for which every bit pattern is valid.
        Ok(
            unsafe {
                std::slice::from_raw_parts(address as usize as *const T, len as usize / size)
            },
        )
    }

    fn range(
        &self,
        address: i64,
        len: i64,
        elem: usize,
        what: &dyn Fn() -> String,
        mutable: bool,
    ) -> JniResult<()> {
        if len < 0 {
            return Err(argument(format!("{}: negative length {len}", what())));
        }
        if len == 0 {
            return Ok(());
        }
        if address == 0 {
            return Err(argument(format!(
                "{}: null address with length {len}",
                what()
            )));
        }
        if !(len as usize).is_multiple_of(elem) {
            return Err(argument(format!(
                "{}: length {len} is not a multiple of the {elem}-byte value size",
                what()
            )));
        }
        if !(address as usize).is_multiple_of(elem) {
            return Err(argument(format!(
                "{}: address {address:#x} is not aligned to {elem} bytes",
                what()
            )));
        }
        let start = address as usize;
        let end = start.saturating_add(len as usize);
        let overlaps = self
            .taken
            .borrow()
            .iter()
            .any(|&(s, e, m)| (m || mutable) && s < end && start < e);
        if overlaps {
            return Err(argument(format!(
                "{}: {len} bytes at {address:#x} overlap another buffer of the call",
                what()
            )));
        }
        let mut live = LIVE.lock();
        let inside = live
            .range_mut(..=start)
            .next_back()
            .filter(|(&base, a)| {
                start
                    .checked_add(len as usize)
                    .is_some_and(|end| end <= base + a.size)
            })
            .map(|(&base, a)| {
                a.pins += 1;
                self.pinned.borrow_mut().push(base);
            })
            .is_some();
        if !inside {
            return Err(argument(format!(
                "{}: {len} bytes at {address:#x} are not inside a live vecruntime buffer",
                what()
            )));
        }
        self.taken.borrow_mut().push((start, end, mutable));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_are_checked_against_live_allocations() {
        let a = allocate(64).unwrap();
        let what = || "test".to_string();
        {
            let pin = pin();
            assert_eq!(pin.bytes(a, 64, &what).unwrap().len(), 64);
            assert_eq!(pin.values::<i64>(a + 8, 56, &what).unwrap().len(), 7);
            assert!(pin.bytes(a, 65, &what).is_err());
            assert!(pin.bytes(a + 1, 64, &what).is_err());
            assert!(pin.values::<i32>(a + 2, 4, &what).is_err());
            assert!(pin.values::<i32>(a, 6, &what).is_err());
            assert!(pin.bytes(a, -1, &what).is_err());
            assert!(pin.bytes(0, 4, &what).is_err());
            assert!(pin.bytes(0, 0, &what).unwrap().is_empty());
        }
        free(a).unwrap();
        assert!(pin().bytes(a, 1, &what).is_err());
        assert!(free(a).is_err());
        assert!(allocate(-1).is_err());
    }

    /// A range to write never overlaps another range of the same pin, before or after it.
    #[test]
    fn ranges_to_write_are_apart() {
        let a = allocate(64).unwrap();
        let what = || "test".to_string();
        {
            let pin = pin();
            assert_eq!(pin.bytes(a, 16, &what).unwrap().len(), 16);
            assert!(pin.bytes_mut(a + 8, 16, &what).is_err());
            assert!(pin.values_mut::<i32>(a + 12, 8, &what).is_err());
            let out = pin.bytes_mut(a + 16, 16, &what).unwrap();
            out[0] = 7;
            assert!(pin.bytes(a + 24, 8, &what).is_err());
            assert!(pin.values_mut::<i32>(a + 28, 8, &what).is_err());
            // Reads may overlap each other, and a range may end where a range to write starts.
            assert_eq!(pin.bytes(a, 16, &what).unwrap().len(), 16);
            assert_eq!(pin.values_mut::<i32>(a + 32, 32, &what).unwrap().len(), 8);
            assert!(pin.bytes_mut(a + 60, 8, &what).is_err());
        }
        free(a).unwrap();
    }

    #[test]
    fn a_pin_holds_only_its_buffers() {
        use std::sync::mpsc;
        use std::time::Duration;
        let a = allocate(64).unwrap();
        let what = || "test".to_string();
        let pin = pin();
        // (Pinned once: its one release must wake the free below.)
        let bytes = pin.bytes(a, 64, &what).unwrap();
        // Other buffers come and go while `a` is pinned.
        let (done, other) = mpsc::channel();
        std::thread::spawn(move || {
            let b = allocate(1 << 20).unwrap();
            // (Other tests allocate meanwhile: only a lower bound holds.)
            assert!(allocated_bytes() >= 64 + (1 << 20));
            free(b).unwrap();
            done.send(()).unwrap();
        });
        other
            .recv_timeout(Duration::from_secs(10))
            .expect("allocating and freeing another buffer waited for the pin");
        // Freeing `a` itself waits until the pin is dropped.
        let (freed, waiting) = mpsc::channel();
        let t = std::thread::spawn(move || {
            free(a).unwrap();
            freed.send(()).unwrap();
        });
        assert!(waiting.recv_timeout(Duration::from_millis(200)).is_err());
        assert_eq!(bytes[63], 0);
        drop(pin);
        waiting.recv_timeout(Duration::from_secs(10)).unwrap();
        t.join().unwrap();
        assert!(free(a).is_err());
    }
}
