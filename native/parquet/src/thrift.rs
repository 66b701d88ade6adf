//! Minimal Thrift compact-protocol writer: just what the Parquet footer and page headers need.
//!
//! Field ids are written as deltas from the previous id of the same struct, as the compact
//! protocol specifies; a stack keeps the last id of each open struct.

pub const T_BOOL_TRUE: u8 = 1;
pub const T_BOOL_FALSE: u8 = 2;
pub const T_BYTE: u8 = 3;
pub const T_I16: u8 = 4;
pub const T_I32: u8 = 5;
pub const T_I64: u8 = 6;
pub const T_DOUBLE: u8 = 7;
pub const T_BINARY: u8 = 8;
pub const T_LIST: u8 = 9;
pub const T_STRUCT: u8 = 12;

#[derive(Default)]
pub struct CompactWriter {
    pub buf: Vec<u8>,
    last_ids: Vec<i16>,
    last_id: i16,
}

impl CompactWriter {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn into_bytes(self) -> Vec<u8> {
        self.buf
    }

    fn varint(&mut self, mut v: u64) {
        while v >= 0x80 {
            self.buf.push((v as u8) | 0x80);
            v >>= 7;
        }
        self.buf.push(v as u8);
    }

    fn zigzag32(&mut self, v: i32) {
        self.varint(((v << 1) ^ (v >> 31)) as u32 as u64);
    }

    fn zigzag64(&mut self, v: i64) {
        self.varint(((v << 1) ^ (v >> 63)) as u64);
    }

    fn field_header(&mut self, id: i16, ty: u8) {
        let delta = id - self.last_id;
        if delta > 0 && delta <= 15 {
            self.buf.push(((delta as u8) << 4) | ty);
        } else {
            self.buf.push(ty);
            self.zigzag32(id as i32);
        }
        self.last_id = id;
    }

    pub fn i32_field(&mut self, id: i16, v: i32) {
        self.field_header(id, T_I32);
        self.zigzag32(v);
    }

    pub fn i16_field(&mut self, id: i16, v: i16) {
        self.field_header(id, T_I16);
        self.zigzag32(v as i32);
    }

    pub fn i64_field(&mut self, id: i16, v: i64) {
        self.field_header(id, T_I64);
        self.zigzag64(v);
    }

    /// Compact protocol doubles: 8 bytes, little-endian.
    pub fn double_field(&mut self, id: i16, v: f64) {
        self.field_header(id, T_DOUBLE);
        self.buf.extend_from_slice(&v.to_le_bytes());
    }

    pub fn i8_field(&mut self, id: i16, v: i8) {
        self.field_header(id, T_BYTE);
        self.buf.push(v as u8);
    }

    pub fn bool_field(&mut self, id: i16, v: bool) {
        self.field_header(id, if v { T_BOOL_TRUE } else { T_BOOL_FALSE });
    }

    pub fn binary_field(&mut self, id: i16, v: &[u8]) {
        self.field_header(id, T_BINARY);
        self.binary(v);
    }

    /// Opens a nested struct in field `id`; close it with [`Self::struct_end`].
    pub fn struct_field_begin(&mut self, id: i16) {
        self.field_header(id, T_STRUCT);
        self.struct_begin();
    }

    /// Opens a struct that is a list element (no field header).
    pub fn struct_begin(&mut self) {
        self.last_ids.push(self.last_id);
        self.last_id = 0;
    }

    /// Writes the stop byte and returns to the enclosing struct.
    pub fn struct_end(&mut self) {
        self.buf.push(0);
        self.last_id = self.last_ids.pop().unwrap_or(0);
    }

    /// An empty struct in field `id` (the union arms such as `StringType {}`).
    pub fn empty_struct_field(&mut self, id: i16) {
        self.struct_field_begin(id);
        self.struct_end();
    }

    pub fn list_field_begin(&mut self, id: i16, elem_type: u8, len: usize) {
        self.field_header(id, T_LIST);
        if len < 15 {
            self.buf.push(((len as u8) << 4) | elem_type);
        } else {
            self.buf.push(0xF0 | elem_type);
            self.varint(len as u64);
        }
    }

    pub fn i32_elem(&mut self, v: i32) {
        self.zigzag32(v);
    }

    pub fn i64_elem(&mut self, v: i64) {
        self.zigzag64(v);
    }

    pub fn bool_elem(&mut self, v: bool) {
        self.buf.push(if v { T_BOOL_TRUE } else { T_BOOL_FALSE });
    }

    pub fn binary(&mut self, v: &[u8]) {
        self.varint(v.len() as u64);
        self.buf.extend_from_slice(v);
    }

    /// Writes the stop byte of the outermost struct.
    pub fn finish(&mut self) {
        self.buf.push(0);
    }
}
