//! Where a [`FileWriter`](crate::FileWriter) puts the file's bytes.

use std::io::{self, Write};

/// A [`Write`] that can also take finished segments of a row group's pages (about 1 MiB each)
/// by value. A sink that keeps the output in memory until someone drains it (the JVM bridge)
/// keeps the segments as they are instead of copying every page of a row group once more; the
/// default writes them and recycles the buffer ([`crate::buffers`]).
///
/// Implemented for the usual writers; for another `Write`, `impl Sink for MyWriter {}`.
pub trait Sink: Write {
    fn write_segment(&mut self, segment: Vec<u8>) -> io::Result<()> {
        let written = self.write_all(&segment);
        crate::buffers::give(segment);
        written
    }
}

impl<S: Sink + ?Sized> Sink for &mut S {
    fn write_segment(&mut self, segment: Vec<u8>) -> io::Result<()> {
        (**self).write_segment(segment)
    }
}

impl<S: Sink + ?Sized> Sink for Box<S> {
    fn write_segment(&mut self, segment: Vec<u8>) -> io::Result<()> {
        (**self).write_segment(segment)
    }
}

impl Sink for Vec<u8> {}
impl Sink for std::fs::File {}
impl Sink for io::Sink {}
impl<W: Write> Sink for io::BufWriter<W> {}
impl<T> Sink for io::Cursor<T> where io::Cursor<T>: Write {}
