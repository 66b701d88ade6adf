//! Value encodings, one per file, each writing into a caller's `Vec<u8>`.

pub mod bit_pack;
pub mod byte_stream_split;
pub mod delta_binary_packed;
pub mod delta_byte_array;
pub mod dictionary;
pub mod plain;
pub mod rle;

/// Parquet `Encoding` ids.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Encoding {
    Plain,
    /// Data page v1's name for dictionary ids and the dictionary page (bytes as RLE_DICTIONARY
    /// and PLAIN).
    PlainDictionary,
    Rle,
    /// The level encoding data page v1 headers name for a column without those levels.
    BitPacked,
    DeltaBinaryPacked,
    DeltaLengthByteArray,
    DeltaByteArray,
    RleDictionary,
    ByteStreamSplit,
}

impl Encoding {
    pub fn thrift_id(self) -> i32 {
        match self {
            Encoding::Plain => 0,
            Encoding::PlainDictionary => 2,
            Encoding::Rle => 3,
            Encoding::BitPacked => 4,
            Encoding::DeltaBinaryPacked => 5,
            Encoding::DeltaLengthByteArray => 6,
            Encoding::DeltaByteArray => 7,
            Encoding::RleDictionary => 8,
            Encoding::ByteStreamSplit => 9,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Encoding::Plain => "PLAIN",
            Encoding::PlainDictionary => "PLAIN_DICTIONARY",
            Encoding::Rle => "RLE",
            Encoding::BitPacked => "BIT_PACKED",
            Encoding::DeltaBinaryPacked => "DELTA_BINARY_PACKED",
            Encoding::DeltaLengthByteArray => "DELTA_LENGTH_BYTE_ARRAY",
            Encoding::DeltaByteArray => "DELTA_BYTE_ARRAY",
            Encoding::RleDictionary => "RLE_DICTIONARY",
            Encoding::ByteStreamSplit => "BYTE_STREAM_SPLIT",
        }
    }
}

/// Bits needed to represent `max` (0 for 0), as parquet-java's `getWidthFromMaxInt`.
pub fn bit_width(max: u64) -> u32 {
    64 - max.leading_zeros()
}

/// Appends the first `len` bytes of `buf`. A fixed-size copy cut back to length compiles to a
/// few vector moves; a variable-length `extend_from_slice` is a `memcpy` call, which costs more
/// than the copy for the handful of bytes bit packing produces.
#[inline(always)]
pub(crate) fn append_prefix<const N: usize>(out: &mut Vec<u8>, buf: &[u8; N], len: usize) {
    debug_assert!(len <= N);
    let start = out.len();
    out.extend_from_slice(buf);
    out.truncate(start + len);
}

pub(crate) fn write_uleb(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

pub(crate) fn write_zigzag(out: &mut Vec<u8>, v: i64) {
    write_uleb(out, ((v << 1) ^ (v >> 63)) as u64);
}
