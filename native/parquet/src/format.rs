//! The parquet.thrift structures the writer emits, serialised with [`crate::thrift`].

use crate::encoding::Encoding;
use crate::geospatial::GeoStats;
use crate::page_index::{ColumnIndex, PageLocation};
use crate::schema::{Field, Group, GroupType, LogicalType, Node, PhysicalType, Schema, TimeUnit};
use crate::thrift::{CompactWriter, T_BINARY, T_BOOL_TRUE, T_I32, T_I64, T_STRUCT};

pub const PAGE_DATA: i32 = 0;
pub const PAGE_DATA_V2: i32 = 3;
pub const PAGE_DICTIONARY: i32 = 2;

/// The fields every page header starts with: type, sizes, CRC.
fn page_header_start(w: &mut CompactWriter, page_type: i32, sizes: (i32, i32), crc: Option<u32>) {
    w.i32_field(1, page_type);
    w.i32_field(2, sizes.0);
    w.i32_field(3, sizes.1);
    if let Some(crc) = crc {
        w.i32_field(4, crc as i32);
    }
}

pub struct DataPageV2Header {
    pub uncompressed_size: i32,
    pub compressed_size: i32,
    pub crc: Option<u32>,
    pub num_values: i32,
    pub num_nulls: i32,
    pub num_rows: i32,
    pub encoding: Encoding,
    pub def_levels_len: i32,
    pub rep_levels_len: i32,
    pub is_compressed: bool,
}

impl DataPageV2Header {
    pub fn write(&self, out: &mut Vec<u8>) {
        let mut w = CompactWriter::new();
        let sizes = (self.uncompressed_size, self.compressed_size);
        page_header_start(&mut w, PAGE_DATA_V2, sizes, self.crc);
        w.struct_field_begin(8);
        w.i32_field(1, self.num_values);
        w.i32_field(2, self.num_nulls);
        w.i32_field(3, self.num_rows);
        w.i32_field(4, self.encoding.thrift_id());
        w.i32_field(5, self.def_levels_len);
        w.i32_field(6, self.rep_levels_len);
        w.bool_field(7, self.is_compressed);
        w.struct_end();
        w.finish();
        out.extend_from_slice(&w.buf);
    }
}

/// Data page v1: the levels are part of the (compressed) body; parquet-java writes no page
/// statistics.
pub struct DataPageV1Header {
    pub uncompressed_size: i32,
    pub compressed_size: i32,
    pub crc: Option<u32>,
    pub num_values: i32,
    pub encoding: Encoding,
    pub def_encoding: Encoding,
    pub rep_encoding: Encoding,
}

impl DataPageV1Header {
    pub fn write(&self, out: &mut Vec<u8>) {
        let mut w = CompactWriter::new();
        let sizes = (self.uncompressed_size, self.compressed_size);
        page_header_start(&mut w, PAGE_DATA, sizes, self.crc);
        w.struct_field_begin(5);
        w.i32_field(1, self.num_values);
        w.i32_field(2, self.encoding.thrift_id());
        w.i32_field(3, self.def_encoding.thrift_id());
        w.i32_field(4, self.rep_encoding.thrift_id());
        w.struct_end();
        w.finish();
        out.extend_from_slice(&w.buf);
    }
}

pub struct DictionaryPageHeader {
    pub uncompressed_size: i32,
    pub compressed_size: i32,
    pub crc: Option<u32>,
    pub num_values: i32,
    /// PLAIN (v2) or PLAIN_DICTIONARY (v1): the same bytes.
    pub encoding: Encoding,
}

impl DictionaryPageHeader {
    pub fn write(&self, out: &mut Vec<u8>) {
        let mut w = CompactWriter::new();
        let sizes = (self.uncompressed_size, self.compressed_size);
        page_header_start(&mut w, PAGE_DICTIONARY, sizes, self.crc);
        w.struct_field_begin(7);
        w.i32_field(1, self.num_values);
        w.i32_field(2, self.encoding.thrift_id());
        w.bool_field(3, false);
        w.struct_end();
        w.finish();
        out.extend_from_slice(&w.buf);
    }
}

#[derive(Clone, Debug, Default)]
pub struct Statistics {
    pub null_count: Option<i64>,
    pub min: Option<Vec<u8>>,
    pub max: Option<Vec<u8>>,
    /// Also fill the deprecated `min`/`max` fields (signed sort orders, as parquet-java).
    pub legacy_min_max: bool,
}

#[derive(Clone, Debug)]
pub struct ColumnChunkMeta {
    pub physical_type: i32,
    pub encodings: Vec<Encoding>,
    pub path: Vec<String>,
    pub codec: i32,
    pub num_values: i64,
    pub total_uncompressed_size: i64,
    pub total_compressed_size: i64,
    pub data_page_offset: i64,
    pub dictionary_page_offset: Option<i64>,
    pub statistics: Statistics,
    /// (page type, encoding, count)
    pub encoding_stats: Vec<(i32, Encoding, i32)>,
    pub bloom_filter: Option<(i64, i32)>,
    pub offset_index: Option<(i64, i32)>,
    pub column_index: Option<(i64, i32)>,
    pub geospatial: Option<GeoStats>,
}

#[derive(Clone, Debug)]
pub struct RowGroupMeta {
    pub columns: Vec<ColumnChunkMeta>,
    pub total_byte_size: i64,
    pub num_rows: i64,
    pub file_offset: i64,
    pub total_compressed_size: i64,
    pub ordinal: i16,
}

fn write_statistics(w: &mut CompactWriter, id: i16, s: &Statistics) {
    w.struct_field_begin(id);
    if s.legacy_min_max {
        if let (Some(min), Some(max)) = (&s.min, &s.max) {
            w.binary_field(1, max);
            w.binary_field(2, min);
        }
    }
    if let Some(n) = s.null_count {
        w.i64_field(3, n);
    }
    if let (Some(min), Some(max)) = (&s.min, &s.max) {
        w.binary_field(5, max);
        w.binary_field(6, min);
    }
    w.struct_end();
}

fn write_column_chunk(w: &mut CompactWriter, c: &ColumnChunkMeta) {
    w.struct_begin();
    // file_offset: deprecated; parquet-java writes the chunk's first page offset.
    w.i64_field(2, c.dictionary_page_offset.unwrap_or(c.data_page_offset));
    w.struct_field_begin(3);
    w.i32_field(1, c.physical_type);
    w.list_field_begin(2, T_I32, c.encodings.len());
    for e in &c.encodings {
        w.i32_elem(e.thrift_id());
    }
    w.list_field_begin(3, T_BINARY, c.path.len());
    for name in &c.path {
        w.binary(name.as_bytes());
    }
    w.i32_field(4, c.codec);
    w.i64_field(5, c.num_values);
    w.i64_field(6, c.total_uncompressed_size);
    w.i64_field(7, c.total_compressed_size);
    w.i64_field(9, c.data_page_offset);
    if let Some(d) = c.dictionary_page_offset {
        w.i64_field(11, d);
    }
    write_statistics(w, 12, &c.statistics);
    w.list_field_begin(13, T_STRUCT, c.encoding_stats.len());
    for (page_type, enc, count) in &c.encoding_stats {
        w.struct_begin();
        w.i32_field(1, *page_type);
        w.i32_field(2, enc.thrift_id());
        w.i32_field(3, *count);
        w.struct_end();
    }
    if let Some((off, len)) = c.bloom_filter {
        w.i64_field(14, off);
        w.i32_field(15, len);
    }
    if let Some(g) = c.geospatial.as_ref().filter(|g| g.is_written()) {
        write_geospatial_statistics(w, g);
    }
    w.struct_end();
    if let Some((off, len)) = c.offset_index {
        w.i64_field(4, off);
        w.i32_field(5, len);
    }
    if let Some((off, len)) = c.column_index {
        w.i64_field(6, off);
        w.i32_field(7, len);
    }
    w.struct_end();
}

/// ColumnMetaData's `geospatial_statistics`: the box when X and Y saw values (Z and M each
/// when they did), the types when any.
fn write_geospatial_statistics(w: &mut CompactWriter, g: &GeoStats) {
    w.struct_field_begin(17);
    if g.has_bbox() {
        w.struct_field_begin(1);
        for (axis, id) in [(0, 1), (1, 3), (2, 5), (3, 7)] {
            if g.has(axis) {
                w.double_field(id, g.bounds[axis].0);
                w.double_field(id + 1, g.bounds[axis].1);
            }
        }
        w.struct_end();
    }
    let types = g.types();
    if !types.is_empty() {
        w.list_field_begin(2, T_I32, types.len());
        for t in types {
            w.i32_elem(t);
        }
    }
    w.struct_end();
}

fn write_schema(w: &mut CompactWriter, schema: &Schema) {
    w.list_field_begin(2, T_STRUCT, schema.num_nodes() + 1);
    w.struct_begin();
    w.binary_field(4, schema.root_name.as_bytes());
    w.i32_field(5, schema.fields.len() as i32);
    w.struct_end();
    schema.walk(|node| match node {
        Node::Leaf(f) => write_leaf(w, f),
        Node::Group(g) => write_group(w, g),
    });
}

fn write_group(w: &mut CompactWriter, g: &Group) {
    w.struct_begin();
    w.i32_field(3, g.repetition.thrift_id());
    w.binary_field(4, g.name.as_bytes());
    w.i32_field(5, g.children.len() as i32);
    if let Some(ct) = g.annotation.and_then(GroupType::converted_type) {
        w.i32_field(6, ct);
    }
    if let Some(id) = g.field_id {
        w.i32_field(9, id);
    }
    // parquet-java writes LIST and MAP as logical types too; MAP_KEY_VALUE has none.
    match g.annotation {
        Some(GroupType::Variant { spec_version }) => {
            w.struct_field_begin(10);
            w.struct_field_begin(16);
            w.i8_field(1, spec_version);
            w.struct_end();
            w.struct_end();
        }
        Some(GroupType::Map) => {
            w.struct_field_begin(10);
            w.empty_struct_field(2);
            w.struct_end();
        }
        Some(GroupType::List) => {
            w.struct_field_begin(10);
            w.empty_struct_field(3);
            w.struct_end();
        }
        Some(GroupType::MapKeyValue) | None => {}
    }
    w.struct_end();
}

fn write_leaf(w: &mut CompactWriter, f: &Field) {
    w.struct_begin();
    w.i32_field(1, f.physical.thrift_id());
    if let PhysicalType::FixedLenByteArray(n) = f.physical {
        w.i32_field(2, n as i32);
    }
    w.i32_field(3, f.repetition.thrift_id());
    w.binary_field(4, f.name.as_bytes());
    if let Some(ct) = f.converted_type() {
        w.i32_field(6, ct);
    }
    if let Some(LogicalType::Decimal { precision, scale }) = f.logical {
        w.i32_field(7, scale as i32);
        w.i32_field(8, precision as i32);
    }
    if let Some(id) = f.field_id {
        w.i32_field(9, id);
    }
    if let Some(l) = &f.logical {
        w.struct_field_begin(10);
        match *l {
            LogicalType::String => w.empty_struct_field(1),
            LogicalType::Decimal { precision, scale } => {
                w.struct_field_begin(5);
                w.i32_field(1, scale as i32);
                w.i32_field(2, precision as i32);
                w.struct_end();
            }
            LogicalType::Date => w.empty_struct_field(6),
            LogicalType::Unknown => w.empty_struct_field(11),
            LogicalType::Uuid => w.empty_struct_field(14),
            LogicalType::Timestamp {
                unit,
                adjusted_to_utc,
            }
            | LogicalType::Time {
                unit,
                adjusted_to_utc,
            } => {
                // TIME and TIMESTAMP share their struct: isAdjustedToUTC, unit.
                let id = if matches!(l, LogicalType::Time { .. }) {
                    7
                } else {
                    8
                };
                w.struct_field_begin(id);
                w.bool_field(1, adjusted_to_utc);
                w.struct_field_begin(2);
                w.empty_struct_field(match unit {
                    TimeUnit::Millis => 1,
                    TimeUnit::Micros => 2,
                });
                w.struct_end();
                w.struct_end();
            }
            LogicalType::Int { bit_width } => {
                w.struct_field_begin(10);
                w.i8_field(1, bit_width as i8);
                w.bool_field(2, true);
                w.struct_end();
            }
            // As parquet-java: the CRS only when it is not empty.
            LogicalType::Geometry { ref crs } => {
                w.struct_field_begin(17);
                if let Some(crs) = crs.as_deref().filter(|c| !c.is_empty()) {
                    w.binary_field(1, crs.as_bytes());
                }
                w.struct_end();
            }
            LogicalType::Geography { ref crs, algorithm } => {
                w.struct_field_begin(18);
                if let Some(crs) = crs.as_deref().filter(|c| !c.is_empty()) {
                    w.binary_field(1, crs.as_bytes());
                }
                if let Some(a) = algorithm {
                    w.i32_field(2, a.thrift_id());
                }
                w.struct_end();
            }
        }
        w.struct_end();
    }
    w.struct_end();
}

pub fn write_file_metadata(
    schema: &Schema,
    num_rows: i64,
    row_groups: &[RowGroupMeta],
    kv: &[(String, String)],
    created_by: &str,
) -> Vec<u8> {
    let mut w = CompactWriter::new();
    w.i32_field(1, 1);
    write_schema(&mut w, schema);
    w.i64_field(3, num_rows);
    w.list_field_begin(4, T_STRUCT, row_groups.len());
    for rg in row_groups {
        w.struct_begin();
        w.list_field_begin(1, T_STRUCT, rg.columns.len());
        for c in &rg.columns {
            write_column_chunk(&mut w, c);
        }
        w.i64_field(2, rg.total_byte_size);
        w.i64_field(3, rg.num_rows);
        w.i64_field(5, rg.file_offset);
        w.i64_field(6, rg.total_compressed_size);
        w.i16_field(7, rg.ordinal);
        w.struct_end();
    }
    if !kv.is_empty() {
        w.list_field_begin(5, T_STRUCT, kv.len());
        for (k, v) in kv {
            w.struct_begin();
            w.binary_field(1, k.as_bytes());
            w.binary_field(2, v.as_bytes());
            w.struct_end();
        }
    }
    w.binary_field(6, created_by.as_bytes());
    w.list_field_begin(7, T_STRUCT, schema.columns().len());
    for _ in schema.columns() {
        w.struct_begin();
        w.empty_struct_field(1);
        w.struct_end();
    }
    w.finish();
    w.into_bytes()
}

pub fn write_column_index(idx: &ColumnIndex) -> Vec<u8> {
    let mut w = CompactWriter::new();
    w.list_field_begin(1, T_BOOL_TRUE, idx.null_pages.len());
    for &b in &idx.null_pages {
        w.bool_elem(b);
    }
    w.list_field_begin(2, T_BINARY, idx.min_values.len());
    for v in &idx.min_values {
        w.binary(v);
    }
    w.list_field_begin(3, T_BINARY, idx.max_values.len());
    for v in &idx.max_values {
        w.binary(v);
    }
    w.i32_field(4, idx.boundary_order.thrift_id());
    w.list_field_begin(5, T_I64, idx.null_counts.len());
    for &n in &idx.null_counts {
        w.i64_elem(n);
    }
    w.finish();
    w.into_bytes()
}

pub fn write_offset_index(pages: &[PageLocation]) -> Vec<u8> {
    let mut w = CompactWriter::new();
    w.list_field_begin(1, T_STRUCT, pages.len());
    for p in pages {
        w.struct_begin();
        w.i64_field(1, p.offset);
        w.i32_field(2, p.compressed_page_size);
        w.i64_field(3, p.first_row_index);
        w.struct_end();
    }
    w.finish();
    w.into_bytes()
}

pub fn write_bloom_filter_header(num_bytes: usize) -> Vec<u8> {
    let mut w = CompactWriter::new();
    w.i32_field(1, num_bytes as i32);
    w.struct_field_begin(2);
    w.empty_struct_field(1);
    w.struct_end();
    w.struct_field_begin(3);
    w.empty_struct_field(1);
    w.struct_end();
    w.struct_field_begin(4);
    w.empty_struct_field(1);
    w.struct_end();
    w.finish();
    w.into_bytes()
}
