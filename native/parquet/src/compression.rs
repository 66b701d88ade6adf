//! Page compression for every codec Spark writes. The codec contexts are the thread's, reused
//! from page to page and from chunk to chunk: a context per column chunk (a zstd level-3
//! context is hundreds of KiB once used) would be held by each of the thousands of chunks a
//! partitioned or bucketed write keeps open. A context holds no state from one page to the
//! next (each page is a frame of its own), so the bytes are the same.

use crate::options::Codec;
use std::cell::RefCell;
use std::io::Write;

/// Largest uncompressed piece of one Hadoop LZ4 block; Hadoop's decompressor buffer is 256 KiB.
const LZ4_HADOOP_CHUNK: usize = 128 * 1024;

/// A column chunk's codec.
pub struct Compressor {
    codec: Codec,
}

/// The codec contexts of a thread, made when first used.
#[derive(Default)]
struct Contexts {
    snappy: Option<snap::raw::Encoder>,
    /// The zstd context and its level.
    zstd: Option<(i32, zstd::bulk::Compressor<'static>)>,
}

thread_local! {
    static CONTEXTS: RefCell<Contexts> = RefCell::new(Contexts::default());
}

impl Compressor {
    /// The codec's level was checked with the writer's options (`WriterOptions::validate`).
    pub fn new(codec: Codec) -> std::io::Result<Self> {
        Ok(Compressor { codec })
    }

    pub fn is_uncompressed(&self) -> bool {
        self.codec == Codec::Uncompressed
    }

    /// Compresses `input` into `buf[..n]` and returns `n`. `buf` keeps its length from call to
    /// call: growing a buffer to the codec's bound zero-fills it, and doing that for every page
    /// (a megabyte each) is a `memset` as large as the page.
    pub fn compress_into(&mut self, input: &[u8], buf: &mut Vec<u8>) -> std::io::Result<usize> {
        fn room(buf: &mut Vec<u8>, bound: usize) -> &mut [u8] {
            if buf.len() < bound {
                buf.resize(bound, 0);
            }
            buf
        }
        match self.codec {
            Codec::Snappy => CONTEXTS.with(|c| {
                c.borrow_mut()
                    .snappy
                    .get_or_insert_with(snap::raw::Encoder::new)
                    .compress(input, room(buf, snap::raw::max_compress_len(input.len())))
                    .map_err(std::io::Error::other)
            }),
            Codec::Zstd(level) => CONTEXTS.with(|c| {
                let mut c = c.borrow_mut();
                let z = match &mut c.zstd {
                    Some((l, z)) if *l == level => z,
                    slot => &mut slot.insert((level, zstd::bulk::Compressor::new(level)?)).1,
                };
                z.compress_to_buffer(
                    input,
                    room(buf, zstd::zstd_safe::compress_bound(input.len())),
                )
            }),
            Codec::Lz4Raw => lz4_flex::block::compress_into(
                input,
                room(buf, lz4_flex::block::get_maximum_output_size(input.len())),
            )
            .map_err(std::io::Error::other),
            Codec::Uncompressed | Codec::Gzip(_) | Codec::Lz4Hadoop => {
                buf.clear();
                self.compress_appending(input, buf)?;
                Ok(buf.len())
            }
        }
    }

    /// The codecs whose output is built by appending: none, gzip's stream, Hadoop's LZ4 frames.
    fn compress_appending(&mut self, input: &[u8], out: &mut Vec<u8>) -> std::io::Result<()> {
        match self.codec {
            Codec::Gzip(level) => {
                let mut enc = flate2::write::GzEncoder::new(out, flate2::Compression::new(level));
                enc.write_all(input)?;
                enc.finish()?;
            }
            Codec::Lz4Hadoop => {
                // Hadoop's BlockCompressorStream framing: per block, big-endian uncompressed
                // length, big-endian compressed length, raw LZ4 block.
                for piece in input.chunks(LZ4_HADOOP_CHUNK) {
                    out.extend_from_slice(&(piece.len() as u32).to_be_bytes());
                    let len_at = out.len();
                    out.extend_from_slice(&[0; 4]);
                    let start = out.len();
                    out.resize(
                        start + lz4_flex::block::get_maximum_output_size(piece.len()),
                        0,
                    );
                    let n = lz4_flex::block::compress_into(piece, &mut out[start..])
                        .map_err(std::io::Error::other)?;
                    out.truncate(start + n);
                    out[len_at..len_at + 4].copy_from_slice(&(n as u32).to_be_bytes());
                }
            }
            _ => out.extend_from_slice(input),
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pages of chunks of different codecs and zstd levels, interleaved on one thread, come out
    /// as fresh contexts of their own would make them.
    #[test]
    fn shared_contexts_compress_as_fresh_ones() {
        let pages: Vec<Vec<u8>> = (0..6u32)
            .map(|p| {
                (0..20_000u32)
                    .flat_map(|i| ((i * (p + 1)) % 977).to_le_bytes())
                    .collect()
            })
            .collect();
        let codecs = [
            Codec::Zstd(3),
            Codec::Snappy,
            Codec::Zstd(9),
            Codec::Zstd(3),
        ];
        let mut compressors: Vec<Compressor> = codecs
            .iter()
            .map(|&c| Compressor::new(c).unwrap())
            .collect();
        let mut buf = Vec::new();
        for page in &pages {
            for (c, &codec) in compressors.iter_mut().zip(&codecs) {
                let n = c.compress_into(page, &mut buf).unwrap();
                let fresh = match codec {
                    Codec::Zstd(level) => zstd::bulk::compress(page, level).unwrap(),
                    _ => snap::raw::Encoder::new().compress_vec(page).unwrap(),
                };
                assert_eq!(&buf[..n], &fresh[..], "{codec:?}");
            }
        }
    }
}
