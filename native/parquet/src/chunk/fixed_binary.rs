//! What FIXED_LEN_BYTE_ARRAY (wide decimals, fixed binaries, UUIDs) and INT96 chunks do
//! differently from BYTE_ARRAY:
//! values are sliced at a fixed width, plain-encoded without a length prefix, and fall back to
//! DELTA_BYTE_ARRAY (FLBA), BYTE_STREAM_SPLIT (FLBA on request) or PLAIN (INT96, and all of
//! them in v1).

use crate::encoding::Encoding;

/// Layout of the values of a byte-string chunk.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Layout {
    /// BYTE_ARRAY: 4-byte length prefix in PLAIN.
    Variable,
    /// FIXED_LEN_BYTE_ARRAY / INT96 of this width.
    Fixed(usize),
}

impl Layout {
    /// Bytes a new dictionary entry adds (parquet-java's `dictionaryByteSize`).
    #[inline]
    pub fn dictionary_entry_size(self, len: usize) -> usize {
        match self {
            Layout::Variable => len + 4,
            Layout::Fixed(_) => len,
        }
    }

    #[inline]
    pub fn put_plain(self, out: &mut Vec<u8>, v: &[u8]) {
        if self == Layout::Variable {
            out.extend_from_slice(&(v.len() as u32).to_le_bytes());
        }
        out.extend_from_slice(v);
    }
}

/// The encoding after a fallback (or with the dictionary off); v1 has no DELTA_BYTE_ARRAY.
pub(crate) fn fallback_encoding(
    layout: Layout,
    int96: bool,
    byte_stream_split: bool,
    v1: bool,
) -> Encoding {
    match layout {
        Layout::Fixed(_) if int96 => Encoding::Plain,
        Layout::Fixed(_) if byte_stream_split => Encoding::ByteStreamSplit,
        _ if v1 => Encoding::Plain,
        _ => Encoding::DeltaByteArray,
    }
}

/// parquet-java's v1 writer has no dictionary for FIXED_LEN_BYTE_ARRAY (INT96 has one).
pub(crate) fn dictionary_allowed(layout: Layout, int96: bool, v1: bool) -> bool {
    !(v1 && matches!(layout, Layout::Fixed(_)) && !int96)
}

#[inline]
pub(crate) fn fixed_value(data: &[u8], width: usize, i: usize) -> &[u8] {
    &data[i * width..(i + 1) * width]
}
