//! The footer summary as bytes for the Java side (`FooterSummary.decode`): little-endian,
//! strings and byte strings as an i32 length (-1 for absent) and the bytes; a column's path
//! as an i32 count and its names.

use vecruntime_parquet::FooterSummary;

pub fn encode(s: &FooterSummary) -> Vec<u8> {
    let mut out = Vec::new();
    let i64s = |out: &mut Vec<u8>, v: i64| out.extend_from_slice(&v.to_le_bytes());
    let i32s = |out: &mut Vec<u8>, v: i32| out.extend_from_slice(&v.to_le_bytes());
    let bytes = |out: &mut Vec<u8>, v: Option<&[u8]>| match v {
        Some(b) => {
            out.extend_from_slice(&(b.len() as i32).to_le_bytes());
            out.extend_from_slice(b);
        }
        None => out.extend_from_slice(&(-1i32).to_le_bytes()),
    };
    i64s(&mut out, s.num_rows);
    i64s(&mut out, s.file_size as i64);
    i64s(&mut out, s.footer_size as i64);
    i32s(&mut out, s.row_groups.len() as i32);
    for rg in &s.row_groups {
        i64s(&mut out, rg.num_rows);
        i64s(&mut out, rg.total_byte_size);
        i64s(&mut out, rg.compressed_size);
        i32s(&mut out, rg.columns.len() as i32);
        for c in &rg.columns {
            i32s(&mut out, c.path.len() as i32);
            for name in &c.path {
                bytes(&mut out, Some(name.as_bytes()));
            }
            i32s(&mut out, c.encodings.len() as i32);
            for e in &c.encodings {
                i32s(&mut out, e.thrift_id());
            }
            i64s(&mut out, c.compressed_size);
            i64s(&mut out, c.uncompressed_size);
            i64s(&mut out, c.num_values);
            i64s(&mut out, c.null_count);
            bytes(&mut out, c.min.as_deref());
            bytes(&mut out, c.max.as_deref());
            out.push(c.dictionary_page as u8);
            out.push(c.dictionary_fallback as u8);
            i64s(&mut out, c.bloom_filter_bytes.map_or(-1, |b| b as i64));
            out.push(c.column_index as u8);
            let whole = c.whole_bounds.as_ref();
            bytes(&mut out, whole.map(|(min, _)| min.as_slice()));
            bytes(&mut out, whole.map(|(_, max)| max.as_slice()));
        }
    }
    out
}
