//! Spark `UnsafeRow` batches to column buffers.
//!
//! An `UnsafeRow` of `n` fields is: a null bitset of `ceil(n / 64)` 8-byte words (bit `i` set
//! when field `i` is null), then one 8-byte slot per field, then the variable-length region.
//! Fixed-width values sit in their slot (little-endian, from the slot's start); strings,
//! binaries and decimals of more than 18 digits hold `offset << 32 | size` in the slot, the
//! offset counted from the row's start. Decimals up to 18 digits hold the unscaled long.
//!
//! A batch is the rows' bytes back to back plus `num_rows + 1` i32 offsets (row `i` is
//! `rows[offsets[i]..offsets[i + 1]]`). Every offset and size is checked against the row it is
//! read from; a malformed row is an error naming the column and the row.

use crate::nested::{shred_rows, LeafBuf, Scratch, Shape};
use crate::rebase::{Ancient, Rebase};
use vecruntime_parquet::error::Result;
use vecruntime_parquet::schema::decimal_min_bytes;
use vecruntime_parquet::{
    Batch, ColumnData, ColumnDescriptor, ColumnView, Error, LogicalType, Node, PhysicalType,
    Schema, TimeUnit,
};

/// Spark's flat types as they are written (the output timestamp type already chosen).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SparkType {
    Boolean,
    Byte,
    Short,
    Int,
    Long,
    Float,
    Double,
    Date,
    /// TimestampType written as INT96 (Julian day + nanos of day).
    TimestampInt96,
    /// TimestampType written as INT64 micros.
    TimestampMicros,
    /// TimestampType written as INT64 millis (floor of micros / 1000).
    TimestampMillis,
    /// TimestampNTZType: INT64 micros.
    TimestampNtz,
    /// TimeType (nanos of day) as INT64 TIME micros: the nanos floor-divided by 1000.
    Time,
    Decimal {
        precision: u32,
    },
    /// A decimal of at most 18 digits in `writeLegacyFormat`'s FIXED_LEN_BYTE_ARRAY of the
    /// minimal width: the unscaled long's low bytes, big-endian.
    LegacyDecimal {
        precision: u32,
    },
    String,
    Binary,
    /// GEOMETRY or GEOGRAPHY: SRID header and WKB, written as Spark's writer re-encodes it
    /// ([`crate::wkb`]).
    Geo {
        geography: bool,
    },
}

impl SparkType {
    /// How Spark's writer fills a flat column of this Parquet type: Spark's
    /// `SparkToParquetSchemaConverter` decides the Parquet type, and the row decoding follows
    /// from it (no Spark type is written as two different leaves). `None` for a leaf no Spark
    /// type is written as by this kernel (a nested leaf, a legacy-layout decimal).
    pub fn of_column(c: &ColumnDescriptor) -> Option<SparkType> {
        if !c.is_flat() || c.path.len() != 1 {
            return None;
        }
        Self::of_leaf(c.physical, c.logical.as_ref())
    }

    /// The row type of a leaf of this physical and logical type, wherever it sits.
    pub fn of_leaf(physical: PhysicalType, logical: Option<&LogicalType>) -> Option<SparkType> {
        use PhysicalType as P;
        Some(match (physical, logical) {
            // Spark's void columns: BOOLEAN UNKNOWN, every value null.
            (P::Boolean, None | Some(LogicalType::Unknown)) => SparkType::Boolean,
            (P::Int32, Some(LogicalType::Int { bit_width: 8 })) => SparkType::Byte,
            (P::Int32, Some(LogicalType::Int { bit_width: 16 })) => SparkType::Short,
            (P::Int32, None) => SparkType::Int,
            (P::Int32, Some(LogicalType::Date)) => SparkType::Date,
            (P::Int64, None) => SparkType::Long,
            (P::Float, None) => SparkType::Float,
            (P::Double, None) => SparkType::Double,
            (P::Int96, None) => SparkType::TimestampInt96,
            (
                P::Int64,
                Some(LogicalType::Timestamp {
                    unit,
                    adjusted_to_utc,
                }),
            ) => match (*unit, *adjusted_to_utc) {
                (TimeUnit::Micros, true) => SparkType::TimestampMicros,
                (TimeUnit::Millis, true) => SparkType::TimestampMillis,
                (TimeUnit::Micros, false) => SparkType::TimestampNtz,
                (TimeUnit::Millis, false) => return None,
            },
            (
                P::Int64,
                Some(LogicalType::Time {
                    unit: TimeUnit::Micros,
                    adjusted_to_utc: false,
                }),
            ) => SparkType::Time,
            (physical, Some(&LogicalType::Decimal { precision, .. })) => {
                // The standard layout, or the legacy one: the minimal FIXED_LEN_BYTE_ARRAY.
                let standard = vecruntime_parquet::Field::decimal("", precision, 0, true).physical;
                let legacy = P::FixedLenByteArray(decimal_min_bytes(precision));
                if precision > 38 {
                    return None;
                } else if physical == standard {
                    SparkType::Decimal { precision }
                } else if physical == legacy && precision <= 18 {
                    SparkType::LegacyDecimal { precision }
                } else {
                    return None;
                }
            }
            (P::ByteArray, Some(LogicalType::String)) => SparkType::String,
            (P::ByteArray, None) => SparkType::Binary,
            (P::ByteArray, Some(LogicalType::Geometry { .. })) => {
                SparkType::Geo { geography: false }
            }
            (P::ByteArray, Some(LogicalType::Geography { .. })) => {
                SparkType::Geo { geography: true }
            }
            _ => return None,
        })
    }

    /// The JVM's type code of this type: `[code, precision]` (`RowType`'s codes).
    pub const fn code(self) -> [i32; 2] {
        let code = match self {
            SparkType::Boolean => 0,
            SparkType::Byte => 1,
            SparkType::Short => 2,
            SparkType::Int => 3,
            SparkType::Long => 4,
            SparkType::Float => 5,
            SparkType::Double => 6,
            SparkType::Date => 7,
            SparkType::TimestampInt96 => 8,
            SparkType::TimestampMicros => 9,
            SparkType::TimestampMillis => 10,
            SparkType::TimestampNtz => 11,
            SparkType::Time => 16,
            SparkType::Decimal { precision } => return [12, precision as i32],
            SparkType::LegacyDecimal { precision } => return [15, precision as i32],
            SparkType::String => 13,
            SparkType::Binary => 14,
            SparkType::Geo { geography: false } => 17,
            SparkType::Geo { geography: true } => 18,
        };
        [code, 0]
    }

    /// Decodes the JVM's type code: `[code, precision]` pairs (see `RowType.java`).
    pub fn from_code(code: i32, precision: i32) -> Option<SparkType> {
        Some(match code {
            0 => SparkType::Boolean,
            1 => SparkType::Byte,
            2 => SparkType::Short,
            3 => SparkType::Int,
            4 => SparkType::Long,
            5 => SparkType::Float,
            6 => SparkType::Double,
            7 => SparkType::Date,
            8 => SparkType::TimestampInt96,
            9 => SparkType::TimestampMicros,
            10 => SparkType::TimestampMillis,
            11 => SparkType::TimestampNtz,
            16 => SparkType::Time,
            12 if (1..=38).contains(&precision) => SparkType::Decimal {
                precision: precision as u32,
            },
            15 if (1..=18).contains(&precision) => SparkType::LegacyDecimal {
                precision: precision as u32,
            },
            13 => SparkType::String,
            14 => SparkType::Binary,
            17 => SparkType::Geo { geography: false },
            18 => SparkType::Geo { geography: true },
            _ => return None,
        })
    }
}

/// The row type of leaf `leaf` of a shape.
fn shape_leaf_type(shape: &Shape, leaf: usize) -> Option<SparkType> {
    match shape {
        Shape::Leaf { leaf: l, ty, .. } => (*l == leaf).then_some(*ty),
        Shape::Struct { fields, .. } => fields.iter().find_map(|f| shape_leaf_type(f, leaf)),
        Shape::List { element, .. } => shape_leaf_type(element, leaf),
        Shape::Map { key, value, .. } => {
            shape_leaf_type(key, leaf).or_else(|| shape_leaf_type(value, leaf))
        }
    }
}

/// Julian day of 1970-01-01, as Spark's `DateTimeUtils.JULIAN_DAY_OF_EPOCH`.
const JULIAN_DAY_OF_EPOCH: i64 = 2_440_588;
const MICROS_PER_DAY: i64 = 86_400_000_000;

/// Spark's `DateTimeUtils.toJulianDay` and `ParquetWriteSupport`'s INT96 bytes: nanos of day
/// (i64 LE) then the Julian day (i32 LE). Truncating division, as Spark's.
pub fn int96_from_micros(micros: i64) -> [u8; 12] {
    let julian_us = micros.wrapping_add(JULIAN_DAY_OF_EPOCH * MICROS_PER_DAY);
    let day = (julian_us / MICROS_PER_DAY) as i32;
    let nanos = (julian_us % MICROS_PER_DAY) * 1000;
    let mut out = [0u8; 12];
    out[..8].copy_from_slice(&nanos.to_le_bytes());
    out[8..].copy_from_slice(&day.to_le_bytes());
    out
}

/// The micros of Spark's INT96 bytes ([`int96_from_micros`] undone).
fn int96_micros(b: &[u8]) -> i64 {
    let nanos = i64::from_le_bytes(b[..8].try_into().unwrap());
    let day = i32::from_le_bytes(b[8..12].try_into().unwrap()) as i64;
    (day * MICROS_PER_DAY + nanos / 1000).wrapping_sub(JULIAN_DAY_OF_EPOCH * MICROS_PER_DAY)
}

/// The rebase in write of a batch's datetime values (see [`crate::rebase`]): dates and
/// timestamps by `datetime`, INT96 timestamps by `int96`; None writes them as they are.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Rebases {
    pub datetime: Option<Rebase>,
    pub int96: Option<Rebase>,
}

impl Rebases {
    /// Rebases the values of one column in place: numbers in `i32s` / `i64s`, INT96 in `int96`
    /// (12 bytes a value; rows whose bit in `valid` is clear hold no value).
    pub(crate) fn column(
        &self,
        ty: SparkType,
        name: &str,
        i32s: &mut [i32],
        i64s: &mut [i64],
        int96: &mut [u8],
        valid: Option<&[u8]>,
    ) -> Result<()> {
        let refused = |_: Ancient| {
            let what = match ty {
                SparkType::Date => "a date before 1582-10-15",
                _ => "a timestamp before 1900-01-01T00:00:00Z",
            };
            Error::Refused {
                column: name.to_string(),
                message: format!("{what} in rebase mode EXCEPTION"),
            }
        };
        match (ty, &self.datetime, &self.int96) {
            (SparkType::Date, Some(r), _) => r.days_in_place(i32s).map_err(refused),
            (SparkType::TimestampMicros, Some(r), _) => r.micros_in_place(i64s, 1).map_err(refused),
            (SparkType::TimestampMillis, Some(r), _) => {
                r.micros_in_place(i64s, 1000).map_err(refused)
            }
            (SparkType::TimestampInt96, _, Some(r)) => {
                for (i, v) in int96.chunks_exact_mut(12).enumerate() {
                    if valid.is_none_or(|bits| bits[i / 8] >> (i % 8) & 1 == 1) {
                        let micros = r.micros(int96_micros(v)).map_err(refused)?;
                        v.copy_from_slice(&int96_from_micros(micros));
                    }
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }
}

/// Transposes a 64x64 bit matrix in place (bit `c` of row `r` becomes bit `r` of row `c`),
/// swapping ever smaller blocks: 6 rounds of 32 masked swaps.
fn transpose64(m: &mut [u64; 64]) {
    let mut width = 32;
    let mut mask: u64 = 0x0000_0000_FFFF_FFFF;
    while width != 0 {
        // Block by block rather than testing `k & width` per row: the condition made LLVM
        // vectorise with masked loads and stores, which are slow on AMD (the x86-64-v3 build
        // ran the whole kernel 38% slower).
        for block in (0..64).step_by(2 * width) {
            for k in block..block + width {
                let t = ((m[k] >> width) ^ m[k + width]) & mask;
                m[k] ^= t << width;
                m[k + width] ^= t;
            }
        }
        width >>= 1;
        mask ^= mask << width;
    }
}

/// Column buffers of one batch, reused from batch to batch.
#[derive(Default)]
struct ColumnBuf {
    validity: Vec<u8>,
    has_null: bool,
    /// Fixed-width values, boolean bitmap, or binary data.
    values: Vec<u8>,
    i32s: Vec<i32>,
    i64s: Vec<i64>,
    f32s: Vec<f32>,
    f64s: Vec<f64>,
    offsets: Vec<i32>,
}

/// Where a leaf column of the output batch comes from.
enum Out {
    /// A flat field: `cols[i]`.
    Flat(usize),
    /// A leaf of a nested field: `leaves[i]` (numbered over the nested fields' leaves only).
    Leaf(usize),
}

thread_local! {
    /// Column buffers released by this thread's transposers ([`RowTransposer::release_buffers`]).
    static SCRATCH: std::cell::RefCell<Vec<ColumnBuf>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Released column buffers a thread keeps for its next batches (a column each), and the
/// largest one kept (a 4,096-row batch of longs takes 32 KiB; long strings take more, and are
/// freed). Memory they hold is at most 256 MiB a thread and in practice a batch's.
const MAX_POOLED: usize = 1024;

/// Rows whose nested values are shredded together: few enough that a node's values stay in
/// cache while each of its children is read from them.
const NESTED_ROWS: usize = 16;
const MAX_POOLED_BYTES: usize = 256 << 10;

/// Turns UnsafeRow batches of one schema into writer batches.
pub struct RowTransposer {
    /// Flat fields: name, type, buffers (from `transpose` until `release_buffers`) and the
    /// field's position in the row.
    names: Vec<String>,
    types: Vec<SparkType>,
    cols: Vec<ColumnBuf>,
    slots: Vec<usize>,
    /// Fields of the row (flat and nested).
    num_fields: usize,
    /// Nested fields: position in the row and shape; their leaves' buffers.
    nested: Vec<(usize, Shape)>,
    leaves: Vec<LeafBuf>,
    /// The nested shredder's entry lists.
    scratch: Scratch,
    out: Vec<Out>,
    /// Start of each row of the current batch, checked.
    starts: Vec<usize>,
    /// Per null-bitset word of a 64-row chunk: its null bits transposed, entry `c` holding
    /// field `64 * word + c`'s null bits of the chunk's rows.
    null_columns: Vec<[u64; 64]>,
    rebases: Rebases,
    shares_buffers: bool,
}

impl RowTransposer {
    /// A transposer of flat rows: one field per column.
    pub fn new(names: Vec<String>, types: Vec<SparkType>) -> Self {
        let n = types.len();
        RowTransposer {
            names,
            types,
            cols: Vec::new(),
            slots: (0..n).collect(),
            num_fields: n,
            nested: Vec::new(),
            leaves: Vec::new(),
            scratch: Scratch::default(),
            out: (0..n).map(Out::Flat).collect(),
            starts: Vec::new(),
            null_columns: Vec::new(),
            rebases: Rebases::default(),
            shares_buffers: false,
        }
    }

    /// The calendar rebase of the datetime columns (Spark's rebase modes in write).
    pub fn set_rebases(&mut self, rebases: Rebases) {
        self.rebases = rebases;
    }

    /// A transposer for rows of Spark's schema written as `schema`: each field of the rows is
    /// read as its Parquet node says (a flat leaf, or a struct, list or map shredded into its
    /// leaves). The error names a column no Spark type is written as.
    pub fn for_schema(schema: &Schema) -> std::result::Result<Self, String> {
        let mut t = RowTransposer::new(Vec::new(), Vec::new());
        t.out.clear();
        t.slots.clear();
        let columns = schema.columns();
        // Column index in the schema, and leaf index among the nested fields' leaves.
        let mut next = 0;
        let mut next_nested = 0;
        for (field, node) in schema.fields.iter().enumerate() {
            match node {
                Node::Leaf(_) => {
                    let c = &columns[next];
                    let ty = SparkType::of_column(c).ok_or_else(|| {
                        format!(
                            "column '{}': rows are not read into a {} {:?} column",
                            c.name,
                            c.physical.name(),
                            c.logical
                        )
                    })?;
                    next += 1;
                    t.out.push(Out::Flat(t.types.len()));
                    t.names.push(c.name.clone());
                    t.types.push(ty);
                    t.slots.push(field);
                }
                Node::Group(_) => {
                    let first = next_nested;
                    let shape = Shape::of(node, &mut next_nested).ok_or_else(|| {
                        format!(
                            "column '{}': not a layout of Spark's structs, arrays and maps",
                            node.name()
                        )
                    })?;
                    for leaf in first..next_nested {
                        let ty = shape_leaf_type(&shape, leaf).expect("leaf of the shape");
                        t.leaves.push(LeafBuf::new(columns[next].name.clone(), ty));
                        t.out.push(Out::Leaf(leaf));
                        next += 1;
                    }
                    t.nested.push((field, shape));
                }
            }
        }
        t.num_fields = schema.fields.len();
        Ok(t)
    }

    /// Reads the schema's fields out of wider rows: field `i` at `positions[i]` of rows of
    /// `row_fields` fields. A partitioned write hands over its whole input rows, whose partition
    /// columns are not written, instead of projecting each row to its data columns first.
    pub fn reading_positions(
        mut self,
        row_fields: usize,
        positions: &[usize],
    ) -> std::result::Result<Self, String> {
        if positions.len() != self.num_fields {
            return Err(format!(
                "{} field positions for a schema of {} fields",
                positions.len(),
                self.num_fields
            ));
        }
        if let Some(p) = positions.iter().find(|&&p| p >= row_fields) {
            return Err(format!(
                "field position {p} outside rows of {row_fields} fields"
            ));
        }
        let mut seen = vec![false; row_fields];
        if positions
            .iter()
            .any(|&p| std::mem::replace(&mut seen[p], true))
        {
            return Err("a row field is read for two columns".into());
        }
        for slot in &mut self.slots {
            *slot = positions[*slot];
        }
        for (field, _) in &mut self.nested {
            *field = positions[*field];
        }
        self.num_fields = row_fields;
        Ok(self)
    }

    pub fn num_fields(&self) -> usize {
        self.num_fields
    }

    /// Marks the transposer as one of many of its thread (the files of a partitioned write):
    /// its caller hands its buffers back after each batch ([`Self::release_buffers`]).
    pub fn sharing_buffers(mut self) -> Self {
        self.shares_buffers = true;
        self
    }

    pub fn shares_buffers(&self) -> bool {
        self.shares_buffers
    }

    /// Hands the flat columns' buffers to the next transposer of this thread, once the last
    /// batch is written: they are only needed from `transpose` until then, and a partitioned
    /// write keeps thousands of transposers (a file each) whose buffers would otherwise stay
    /// allocated, each the size of its file's largest batch. (A single file's transposer keeps
    /// its own: buffers larger than the pool keeps would be freed and grown again each batch.)
    pub fn release_buffers(&mut self) {
        SCRATCH.with(|pool| {
            let mut pool = pool.borrow_mut();
            // Last column first: the next transposer pops its first column's buffer first, so
            // each column gets back a buffer of its own type (a partitioned write's files share
            // a schema), already the size it needs.
            for col in self.cols.drain(..).rev() {
                if pool.len() < MAX_POOLED && col.capacity_bytes() <= MAX_POOLED_BYTES {
                    pool.push(col);
                }
            }
        });
    }

    /// Bytes held by the reusable column buffers.
    pub fn buffered_bytes(&self) -> usize {
        self.cols
            .iter()
            .map(ColumnBuf::capacity_bytes)
            .sum::<usize>()
            + self
                .leaves
                .iter()
                .map(LeafBuf::capacity_bytes)
                .sum::<usize>()
            + self.scratch.capacity_bytes()
    }

    /// Reads `offsets.len() - 1` rows from `rows` into the column buffers and returns the batch
    /// viewing them.
    pub fn transpose(&mut self, rows: &[u8], offsets: &[i32]) -> Result<Batch<'_>> {
        let n = offsets.len().saturating_sub(1);
        let nf = self.num_fields;
        let bitset = nf.div_ceil(64) * 8;
        // Every row is checked once here; the column loops below then read its fixed part freely.
        self.starts.clear();
        // A partitioned write's transposer is new for each file: one allocation, not a growth.
        self.starts.reserve(n);
        let first = self
            .names
            .first()
            .or(self.leaves.first().map(|l| &l.name))
            .map_or("", String::as_str);
        for r in 0..n {
            checked_row(rows, offsets, r, nf, first)?;
            self.starts.push(offsets[r] as usize);
        }
        if self.cols.len() != self.types.len() {
            SCRATCH.with(|pool| {
                let mut pool = pool.borrow_mut();
                while self.cols.len() < self.types.len() {
                    self.cols.push(pool.pop().unwrap_or_default());
                }
            });
        }
        for (col, &t) in self.cols.iter_mut().zip(&self.types) {
            col.reset(t, n);
        }
        // Chunks of 64 rows (about 13 KB of store_sales rows) stay in L1 while every column is
        // gathered from them; a column-at-a-time pass over the whole batch would stream it from
        // memory once per column. One validity word per chunk and column.
        self.null_columns.resize(bitset / 8, [0; 64]);
        for (chunk, starts) in self.starts.chunks(64).enumerate() {
            let base = chunk * 64;
            let full = u64::MAX >> (64 - starts.len());
            // Rows of one size (no variable-length values) lie at a fixed stride: their slots
            // are then read from `chunks_exact` rows, without a start to load or a bounds check
            // per value (every row was checked to hold the fixed part).
            let size = (offsets[base + 1] - offsets[base]) as usize;
            let uniform = offsets[base..=base + starts.len()]
                .windows(2)
                .all(|w| (w[1] - w[0]) as usize == size);
            let block = &rows[starts[0]..starts[0] + if uniform { size * starts.len() } else { 0 }];
            // The chunk's null bitsets, rows by fields, turned into fields by rows: one 64x64
            // bit transpose per word instead of a byte load and shift per row and field.
            for (w, matrix) in self.null_columns.iter_mut().enumerate() {
                matrix.fill(0);
                for (k, &at) in starts.iter().enumerate() {
                    matrix[k] =
                        u64::from_le_bytes(rows[at + 8 * w..at + 8 * w + 8].try_into().unwrap());
                }
                transpose64(matrix);
            }
            for (ci, &t) in self.types.iter().enumerate() {
                let col = &mut self.cols[ci];
                let field = self.slots[ci];
                let so = bitset + 8 * field;
                let valid = !self.null_columns[field >> 6][field & 63] & full;
                let slot =
                    |at: usize| u64::from_le_bytes(rows[at + so..at + so + 8].try_into().unwrap());
                // Fixed-width values are gathered whatever the validity (a null's slot is zero).
                // (Chunks come in row order, so each chunk's values are appended.)
                macro_rules! gather {
                    ($out:expr, $conv:expr) => {
                        if uniform && so + 8 <= size {
                            $out.extend(block.chunks_exact(size).map(|r| {
                                $conv(u64::from_le_bytes(r[so..so + 8].try_into().unwrap()))
                            }))
                        } else {
                            $out.extend(starts.iter().map(|&at| $conv(slot(at))))
                        }
                    };
                }
                match t {
                    SparkType::Boolean => {
                        let mut bits: u64 = 0;
                        for (k, &at) in starts.iter().enumerate() {
                            bits |= ((slot(at) & 0xff != 0) as u64) << k;
                        }
                        let bytes = (bits & valid).to_le_bytes();
                        let len = starts.len().div_ceil(8);
                        col.values[base / 8..base / 8 + len].copy_from_slice(&bytes[..len]);
                    }
                    SparkType::Byte => gather!(col.i32s, |v: u64| v as u8 as i8 as i32),
                    SparkType::Short => gather!(col.i32s, |v: u64| v as u16 as i16 as i32),
                    SparkType::Int | SparkType::Date => gather!(col.i32s, |v: u64| v as u32 as i32),
                    SparkType::Decimal { precision } if precision <= 9 => {
                        gather!(col.i32s, |v: u64| v as i64 as i32)
                    }
                    SparkType::Long | SparkType::TimestampMicros | SparkType::TimestampNtz => {
                        gather!(col.i64s, |v: u64| v as i64)
                    }
                    SparkType::Decimal { precision } if precision <= 18 => {
                        gather!(col.i64s, |v: u64| v as i64)
                    }
                    SparkType::TimestampMillis | SparkType::Time => {
                        gather!(col.i64s, |v: u64| (v as i64).div_euclid(1000))
                    }
                    SparkType::Float => gather!(col.f32s, |v: u64| f32::from_bits(v as u32)),
                    SparkType::Double => gather!(col.f64s, f64::from_bits),
                    SparkType::TimestampInt96 => {
                        for (k, &at) in starts.iter().enumerate() {
                            if valid >> k & 1 == 1 {
                                let r = base + k;
                                col.values[12 * r..12 * r + 12]
                                    .copy_from_slice(&int96_from_micros(slot(at) as i64));
                            }
                        }
                    }
                    SparkType::LegacyDecimal { precision } => {
                        let width = decimal_min_bytes(precision);
                        for (k, &at) in starts.iter().enumerate() {
                            if valid >> k & 1 == 1 {
                                let r = base + k;
                                let be = slot(at).to_be_bytes();
                                col.values[width * r..width * (r + 1)]
                                    .copy_from_slice(&be[8 - width..]);
                            }
                        }
                    }
                    SparkType::Decimal { precision } => {
                        let width = decimal_min_bytes(precision);
                        for (k, &at) in starts.iter().enumerate() {
                            if valid >> k & 1 == 0 {
                                continue;
                            }
                            let r = base + k;
                            let whole = &rows[at..offsets[r + 1] as usize];
                            let bytes = var_bytes(whole, slot(at), &self.names[ci], r)?;
                            if bytes.is_empty() || bytes.len() > width {
                                return Err(row_error(
                                    &self.names[ci],
                                    r,
                                    format!(
                                        "decimal of {} bytes does not fit DECIMAL({precision}) in {width}",
                                        bytes.len()
                                    ),
                                ));
                            }
                            let sign = if bytes[0] & 0x80 != 0 { 0xff } else { 0 };
                            let out = &mut col.values[width * r..width * (r + 1)];
                            out[..width - bytes.len()].fill(sign);
                            out[width - bytes.len()..].copy_from_slice(bytes);
                        }
                    }
                    SparkType::String | SparkType::Binary | SparkType::Geo { .. } => {
                        for (k, &at) in starts.iter().enumerate() {
                            let r = base + k;
                            if valid >> k & 1 == 1 {
                                let whole = &rows[at..offsets[r + 1] as usize];
                                let bytes = var_bytes(whole, slot(at), &self.names[ci], r)?;
                                match t {
                                    SparkType::Geo { geography } => {
                                        crate::wkb::append_spark_wkb(
                                            &mut col.values,
                                            bytes,
                                            geography,
                                        )
                                        .map_err(|m| row_error(&self.names[ci], r, m))?;
                                    }
                                    _ => col.values.extend_from_slice(bytes),
                                }
                            }
                            col.offsets[r + 1] =
                                i32::try_from(col.values.len()).map_err(|_| Error::TooLarge {
                                    column: self.names[ci].clone(),
                                    message: "more than 2 GiB of values in one batch".into(),
                                })?;
                        }
                    }
                }
                let bytes = valid.to_le_bytes();
                let len = starts.len().div_ceil(8);
                col.validity[base / 8..base / 8 + len].copy_from_slice(&bytes[..len]);
                col.has_null |= valid != full;
            }
        }
        // Nested fields, 16 rows and a field at a time: each value shredded into its leaves.
        for l in &mut self.leaves {
            l.clear();
        }
        for first in (0..n).step_by(NESTED_ROWS) {
            let last = n.min(first + NESTED_ROWS);
            for (field, shape) in &self.nested {
                shred_rows(
                    shape,
                    *field,
                    nf,
                    rows,
                    first,
                    &self.starts[first..last],
                    &offsets[first + 1..last + 1],
                    &mut self.leaves,
                    &mut self.scratch,
                )?;
            }
        }
        if self.rebases != Rebases::default() {
            for ((c, &t), name) in self.cols.iter_mut().zip(&self.types).zip(&self.names) {
                let valid = c.has_null.then_some(c.validity.as_slice());
                self.rebases
                    .column(t, name, &mut c.i32s, &mut c.i64s, &mut c.values, valid)?;
            }
            for l in &mut self.leaves {
                l.rebase(&self.rebases)?;
            }
        }
        let flat: Vec<ColumnView> =
            self.cols
                .iter()
                .zip(&self.types)
                .map(|(c, t)| {
                    let data = match t {
                        SparkType::Boolean => ColumnData::Boolean(&c.values),
                        SparkType::Byte | SparkType::Short | SparkType::Int | SparkType::Date => {
                            ColumnData::Int32(&c.i32s)
                        }
                        SparkType::Decimal { precision } if *precision <= 9 => {
                            ColumnData::Int32(&c.i32s)
                        }
                        SparkType::Long
                        | SparkType::TimestampMicros
                        | SparkType::TimestampMillis
                        | SparkType::TimestampNtz
                        | SparkType::Time => ColumnData::Int64(&c.i64s),
                        SparkType::Decimal { precision } if *precision <= 18 => {
                            ColumnData::Int64(&c.i64s)
                        }
                        SparkType::Decimal { precision }
                        | SparkType::LegacyDecimal { precision } => ColumnData::FixedBinary {
                            width: decimal_min_bytes(*precision),
                            data: &c.values,
                        },
                        SparkType::TimestampInt96 => ColumnData::FixedBinary {
                            width: 12,
                            data: &c.values,
                        },
                        SparkType::Float => ColumnData::Float(&c.f32s),
                        SparkType::Double => ColumnData::Double(&c.f64s),
                        SparkType::String | SparkType::Binary | SparkType::Geo { .. } => {
                            ColumnData::Binary {
                                offsets: &c.offsets,
                                data: &c.values,
                            }
                        }
                    };
                    ColumnView::new(data).with_validity(c.has_null.then_some(c.validity.as_slice()))
                })
                .collect();
        let columns = self
            .out
            .iter()
            .map(|o| match o {
                Out::Flat(i) => flat[*i],
                Out::Leaf(i) => self.leaves[*i].view(),
            })
            .collect();
        Ok(Batch {
            num_rows: n,
            columns,
        })
    }
}

impl ColumnBuf {
    fn capacity_bytes(&self) -> usize {
        self.validity.capacity()
            + self.values.capacity()
            + 4 * (self.i32s.capacity() + self.f32s.capacity() + self.offsets.capacity())
            + 8 * (self.i64s.capacity() + self.f64s.capacity())
    }

    /// Empties the buffers for `n` rows of type `t`: numbers are appended chunk by chunk; the
    /// bitmaps, byte-string widths and offsets are zeroed and written by index.
    fn reset(&mut self, t: SparkType, n: usize) {
        self.validity.clear();
        self.validity.resize(n.div_ceil(8), 0);
        self.has_null = false;
        self.values.clear();
        self.i32s.clear();
        self.i64s.clear();
        self.f32s.clear();
        self.f64s.clear();
        self.offsets.clear();
        match t {
            SparkType::Boolean => self.values.resize(n.div_ceil(8), 0),
            SparkType::Byte | SparkType::Short | SparkType::Int | SparkType::Date => {
                self.i32s.reserve(n)
            }
            SparkType::Decimal { precision } if precision <= 9 => self.i32s.reserve(n),
            SparkType::Long
            | SparkType::TimestampMicros
            | SparkType::TimestampMillis
            | SparkType::TimestampNtz
            | SparkType::Time => self.i64s.reserve(n),
            SparkType::Decimal { precision } if precision <= 18 => self.i64s.reserve(n),
            SparkType::Decimal { precision } | SparkType::LegacyDecimal { precision } => {
                self.values.resize(n * decimal_min_bytes(precision), 0)
            }
            SparkType::TimestampInt96 => self.values.resize(12 * n, 0),
            SparkType::Float => self.f32s.reserve(n),
            SparkType::Double => self.f64s.reserve(n),
            SparkType::String | SparkType::Binary | SparkType::Geo { .. } => {
                self.offsets.resize(n + 1, 0)
            }
        }
    }
}

/// Row `r` of a batch, checked to lie inside it and to hold the null bits and slots of
/// `num_fields` fields (`column` names the error).
pub(crate) fn checked_row<'a>(
    rows: &'a [u8],
    offsets: &[i32],
    r: usize,
    num_fields: usize,
    column: &str,
) -> Result<&'a [u8]> {
    let (start, end) = (offsets[r], offsets[r + 1]);
    if start < 0 || end < start || end as usize > rows.len() {
        return Err(row_error(
            column,
            r,
            format!(
                "row bytes {start}..{end} outside the batch of {} bytes",
                rows.len()
            ),
        ));
    }
    let fixed = num_fields.div_ceil(64) * 8 + 8 * num_fields;
    if ((end - start) as usize) < fixed {
        return Err(row_error(
            column,
            r,
            format!(
                "row of {} bytes, {num_fields} fields need at least {fixed}",
                end - start
            ),
        ));
    }
    Ok(&rows[start as usize..end as usize])
}

/// The variable-length bytes a slot points at, checked to lie inside the row.
pub(crate) fn var_bytes<'a>(row: &'a [u8], slot: u64, column: &str, r: usize) -> Result<&'a [u8]> {
    let offset = (slot >> 32) as usize;
    let size = (slot & 0xffff_ffff) as usize;
    match offset.checked_add(size) {
        Some(end) if end <= row.len() => Ok(&row[offset..end]),
        _ => Err(row_error(
            column,
            r,
            format!(
                "value of {size} bytes at offset {offset} runs past the row's {} bytes",
                row.len()
            ),
        )),
    }
}

pub(crate) fn row_error(column: &str, row: usize, message: String) -> Error {
    Error::InvalidInput {
        column: column.to_string(),
        message: format!("UnsafeRow {row} of the batch: {message}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Builds UnsafeRow bytes as Spark's UnsafeRowWriter lays them out.
    struct RowBuilder {
        bitset: usize,
        buf: Vec<u8>,
    }

    impl RowBuilder {
        fn new(n: usize) -> Self {
            let bitset = n.div_ceil(64) * 8;
            RowBuilder {
                bitset,
                buf: vec![0; bitset + 8 * n],
            }
        }
        fn null(mut self, i: usize) -> Self {
            self.buf[i / 8] |= 1 << (i % 8);
            self
        }
        fn fixed(mut self, i: usize, v: u64) -> Self {
            let at = self.bitset + 8 * i;
            self.buf[at..at + 8].copy_from_slice(&v.to_le_bytes());
            self
        }
        fn var(mut self, i: usize, bytes: &[u8]) -> Self {
            let offset = self.buf.len() as u64;
            self.buf.extend_from_slice(bytes);
            while !self.buf.len().is_multiple_of(8) {
                self.buf.push(0);
            }
            self.fixed(i, offset << 32 | bytes.len() as u64)
        }
    }

    fn batch(rows: &[Vec<u8>]) -> (Vec<u8>, Vec<i32>) {
        let mut data = Vec::new();
        let mut offsets = vec![0];
        for r in rows {
            data.extend_from_slice(r);
            offsets.push(data.len() as i32);
        }
        (data, offsets)
    }

    /// Spark's leaves as its converter writes them (the Parquet types of `ParquetSchemaSuite`),
    /// each with the row type it is read as; codes go to the JVM and back unchanged.
    #[test]
    fn row_types_follow_from_sparks_leaves() {
        use vecruntime_parquet::{Field, Group, Repetition, Schema};
        let ts = |unit, utc| LogicalType::Timestamp {
            unit,
            adjusted_to_utc: utc,
        };
        let cases = [
            (
                Field::new("a", PhysicalType::Boolean, true),
                Some(SparkType::Boolean),
            ),
            (
                Field::new("a", PhysicalType::Int32, true)
                    .with_logical(LogicalType::Int { bit_width: 8 }),
                Some(SparkType::Byte),
            ),
            (
                Field::new("a", PhysicalType::Int32, true)
                    .with_logical(LogicalType::Int { bit_width: 16 }),
                Some(SparkType::Short),
            ),
            (
                Field::new("a", PhysicalType::Int32, true),
                Some(SparkType::Int),
            ),
            (
                Field::new("a", PhysicalType::Int32, true).with_logical(LogicalType::Date),
                Some(SparkType::Date),
            ),
            (
                Field::new("a", PhysicalType::Int64, false),
                Some(SparkType::Long),
            ),
            (
                Field::new("a", PhysicalType::Float, true),
                Some(SparkType::Float),
            ),
            (
                Field::new("a", PhysicalType::Double, true),
                Some(SparkType::Double),
            ),
            (
                Field::new("a", PhysicalType::Int96, true),
                Some(SparkType::TimestampInt96),
            ),
            (
                Field::new("a", PhysicalType::Int64, true).with_logical(ts(TimeUnit::Micros, true)),
                Some(SparkType::TimestampMicros),
            ),
            (
                Field::new("a", PhysicalType::Int64, true).with_logical(ts(TimeUnit::Millis, true)),
                Some(SparkType::TimestampMillis),
            ),
            (
                Field::new("a", PhysicalType::Int64, true)
                    .with_logical(ts(TimeUnit::Micros, false)),
                Some(SparkType::TimestampNtz),
            ),
            (
                Field::decimal("a", 9, 2, true),
                Some(SparkType::Decimal { precision: 9 }),
            ),
            (
                Field::decimal("a", 18, 2, true),
                Some(SparkType::Decimal { precision: 18 }),
            ),
            (
                Field::decimal("a", 38, 2, true),
                Some(SparkType::Decimal { precision: 38 }),
            ),
            (
                // writeLegacyFormat's decimal(9): a FIXED_LEN_BYTE_ARRAY(4).
                Field::new("a", PhysicalType::FixedLenByteArray(4), true).with_logical(
                    LogicalType::Decimal {
                        precision: 9,
                        scale: 2,
                    },
                ),
                Some(SparkType::LegacyDecimal { precision: 9 }),
            ),
            (
                // Neither layout: decimal(9) in 5 bytes.
                Field::new("a", PhysicalType::FixedLenByteArray(5), true).with_logical(
                    LogicalType::Decimal {
                        precision: 9,
                        scale: 2,
                    },
                ),
                None,
            ),
            (
                Field::new("a", PhysicalType::ByteArray, true).with_logical(LogicalType::String),
                Some(SparkType::String),
            ),
            (
                Field::new("a", PhysicalType::ByteArray, true),
                Some(SparkType::Binary),
            ),
            (
                Field::new("a", PhysicalType::ByteArray, true)
                    .with_logical(LogicalType::Geometry { crs: None }),
                Some(SparkType::Geo { geography: false }),
            ),
            (
                Field::new("a", PhysicalType::ByteArray, true).with_logical(
                    LogicalType::Geography {
                        crs: Some("OGC:CRS84".into()),
                        algorithm: Some(vecruntime_parquet::EdgeAlgorithm::Spherical),
                    },
                ),
                Some(SparkType::Geo { geography: true }),
            ),
            (
                // Spark 4.1's TIME: micros of the day, not adjusted to UTC.
                Field::new("a", PhysicalType::Int64, true).with_logical(LogicalType::Time {
                    unit: TimeUnit::Micros,
                    adjusted_to_utc: false,
                }),
                Some(SparkType::Time),
            ),
            (
                Field::new("a", PhysicalType::Int64, true).with_logical(LogicalType::Time {
                    unit: TimeUnit::Micros,
                    adjusted_to_utc: true,
                }),
                None,
            ),
            (
                Field::new("a", PhysicalType::Int64, true)
                    .with_logical(ts(TimeUnit::Millis, false)),
                None,
            ),
        ];
        // A leaf inside a struct is no flat column, required or not.
        for repetition in [Repetition::Required, Repetition::Optional] {
            let leaf = Field::new("a", PhysicalType::Int32, false).with_repetition(repetition);
            let s = Group::new("s", Repetition::Required, vec![leaf.into()]);
            let schema = Schema::from_nodes("spark_schema", vec![s.into()]).unwrap();
            assert_eq!(SparkType::of_column(&schema.columns()[0]), None);
        }
        for (field, want) in cases {
            let schema = Schema::new(vec![field.clone()]).unwrap();
            let got = SparkType::of_column(&schema.columns()[0]);
            assert_eq!(got, want, "{field:?}");
            if let Some(t) = got {
                let [code, precision] = t.code();
                assert_eq!(SparkType::from_code(code, precision), Some(t));
            }
        }
    }

    #[test]
    fn int96_matches_spark() {
        // 1970-01-01T00:00:00Z: Julian day 2440588, 0 nanos.
        assert_eq!(int96_from_micros(0)[8..], 2_440_588i32.to_le_bytes());
        // 2020-01-01T12:00:00.000001Z
        let micros = 1_577_880_000_000_001i64;
        let b = int96_from_micros(micros);
        assert_eq!(i32::from_le_bytes(b[8..].try_into().unwrap()), 2_458_850);
        assert_eq!(
            i64::from_le_bytes(b[..8].try_into().unwrap()),
            12 * 3_600_000_000_000 + 1000
        );
        // Before the epoch: Spark's truncating division (the day rolls at Julian noon, not 0h).
        let b = int96_from_micros(-1);
        assert_eq!(i32::from_le_bytes(b[8..].try_into().unwrap()), 2_440_587);
        assert_eq!(
            i64::from_le_bytes(b[..8].try_into().unwrap()),
            (MICROS_PER_DAY - 1) * 1000
        );
    }

    #[test]
    fn decimal_widths_as_spark() {
        // Spark's Decimal.minBytesForPrecision.
        assert_eq!(decimal_min_bytes(9), 4);
        assert_eq!(decimal_min_bytes(18), 8);
        assert_eq!(decimal_min_bytes(19), 9);
        assert_eq!(decimal_min_bytes(38), 16);
    }

    #[test]
    fn every_type_transposed() {
        let types = vec![
            SparkType::Boolean,
            SparkType::Byte,
            SparkType::Short,
            SparkType::Int,
            SparkType::Long,
            SparkType::Float,
            SparkType::Double,
            SparkType::TimestampMillis,
            SparkType::Decimal { precision: 7 },
            SparkType::Decimal { precision: 15 },
            SparkType::Decimal { precision: 30 },
            SparkType::String,
            SparkType::TimestampInt96,
        ];
        let names = (0..types.len()).map(|i| format!("c{i}")).collect();
        let mut t = RowTransposer::new(names, types.clone());
        let r0 = RowBuilder::new(13)
            .fixed(0, 1)
            .fixed(1, (-5i8) as u8 as u64)
            .fixed(2, (-300i16) as u16 as u64)
            .fixed(3, (-7i32) as u32 as u64)
            .fixed(4, i64::MIN as u64)
            .fixed(5, (-0.0f32).to_bits() as u64)
            .fixed(6, f64::NAN.to_bits())
            .fixed(7, (-1501i64) as u64)
            .fixed(8, 12345)
            .fixed(9, (-99i64) as u64)
            .var(10, &[0xff, 0x01]) // -255
            .var(11, "héllo".as_bytes())
            .fixed(12, 0);
        let r1 = (0..13).fold(RowBuilder::new(13), |b, i| b.null(i));
        let r2 = RowBuilder::new(13).var(11, b"").var(10, &[0x7f]);
        let (data, offsets) = batch(&[r0.buf, r1.buf, r2.buf]);
        let b = t.transpose(&data, &offsets).unwrap();
        assert_eq!(b.num_rows, 3);
        match b.columns[0].data {
            ColumnData::Boolean(v) => assert_eq!(v[0] & 1, 1),
            _ => panic!(),
        }
        let ints = |c: usize| match b.columns[c].data {
            ColumnData::Int32(v) => v.to_vec(),
            _ => panic!(),
        };
        assert_eq!(ints(1)[0], -5);
        assert_eq!(ints(2)[0], -300);
        assert_eq!(ints(3)[0], -7);
        assert_eq!(ints(8)[0], 12345);
        match b.columns[7].data {
            ColumnData::Int64(v) => assert_eq!(v[0], -2), // floor(-1501 / 1000)
            _ => panic!(),
        }
        match b.columns[10].data {
            ColumnData::FixedBinary { width, data } => {
                assert_eq!(width, 13);
                let mut want = vec![0xff; 11];
                want.extend_from_slice(&[0xff, 0x01]);
                assert_eq!(&data[..13], &want[..]);
                assert_eq!(&data[26..39], &[&[0u8; 12][..], &[0x7f]].concat()[..]);
            }
            _ => panic!(),
        }
        match b.columns[11].data {
            ColumnData::Binary { offsets, data } => {
                assert_eq!(offsets, &[0, 6, 6, 6]);
                assert_eq!(data, "héllo".as_bytes());
            }
            _ => panic!(),
        }
        // Row 1 is null everywhere, row 0 nowhere.
        for c in &b.columns {
            let v = c.validity.expect("a null row");
            assert_eq!(v[0] & 0b111, 0b101);
        }
    }

    #[test]
    fn bit_matrix_transposed() {
        let mut m = [0u64; 64];
        let mut x = 0x1234_5678_9abc_def0u64;
        for row in m.iter_mut() {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            *row = x;
        }
        let orig = m;
        transpose64(&mut m);
        for (r, row) in orig.iter().enumerate() {
            for (c, column) in m.iter().enumerate() {
                assert_eq!(column >> r & 1, row >> c & 1, "row {r} column {c}");
            }
        }
    }

    #[test]
    fn nulls_of_many_fields_and_rows() {
        // 70 long fields (two null-bitset words) over 150 rows (three chunks, the last short):
        // field f of row r is null when (r * 7 + f * 3) % 5 == 0, else holds r * 1000 + f.
        let nf = 70;
        let null = |r: usize, f: usize| (r * 7 + f * 3).is_multiple_of(5);
        let rows: Vec<Vec<u8>> = (0..150)
            .map(|r| {
                (0..nf)
                    .fold(RowBuilder::new(nf), |b, f| {
                        if null(r, f) {
                            b.null(f)
                        } else {
                            b.fixed(f, (r * 1000 + f) as u64)
                        }
                    })
                    .buf
            })
            .collect();
        let (data, offsets) = batch(&rows);
        let names = (0..nf).map(|i| format!("c{i}")).collect();
        let mut t = RowTransposer::new(names, vec![SparkType::Long; nf]);
        let b = t.transpose(&data, &offsets).unwrap();
        for (f, c) in b.columns.iter().enumerate() {
            let v = c.validity.expect("nulls in every field");
            let ColumnData::Int64(vals) = c.data else {
                panic!()
            };
            for r in 0..150 {
                assert_eq!(
                    v[r / 8] >> (r % 8) & 1 == 0,
                    null(r, f),
                    "field {f} row {r}"
                );
                if !null(r, f) {
                    assert_eq!(vals[r], (r * 1000 + f) as i64);
                }
            }
        }
    }

    #[test]
    fn every_type_keeps_its_own_nulls() {
        // Each field its own null pattern (field f of row r null when (r + 3f) % (5 + f) == 0),
        // in rows of mixed widths: a type reading a neighbour's null bit or slot shows.
        let types = vec![
            SparkType::Boolean,
            SparkType::Byte,
            SparkType::Short,
            SparkType::Int,
            SparkType::Date,
            SparkType::Long,
            SparkType::TimestampMicros,
            SparkType::TimestampNtz,
            SparkType::TimestampMillis,
            SparkType::Float,
            SparkType::Double,
            SparkType::Decimal { precision: 7 },
            SparkType::Decimal { precision: 15 },
            SparkType::Decimal { precision: 30 },
            SparkType::TimestampInt96,
            SparkType::String,
            SparkType::Binary,
        ];
        let nf = types.len();
        let null = |r: usize, f: usize| (r + 3 * f).is_multiple_of(5 + f);
        let value = |r: usize, f: usize| (r * 100 + f + 1) as u64;
        let rows: Vec<Vec<u8>> = (0..150)
            .map(|r| {
                (0..nf)
                    .fold(RowBuilder::new(nf), |b, f| match types[f] {
                        _ if null(r, f) => b.null(f),
                        SparkType::Decimal { precision: 30 } => b.var(f, &[1, r as u8]),
                        SparkType::String | SparkType::Binary => b.var(f, &vec![b'x'; r % 20]),
                        _ => b.fixed(f, value(r, f)),
                    })
                    .buf
            })
            .collect();
        let (data, offsets) = batch(&rows);
        let names = (0..nf).map(|i| format!("c{i}")).collect();
        let mut t = RowTransposer::new(names, types.clone());
        let b = t.transpose(&data, &offsets).unwrap();
        for (f, c) in b.columns.iter().enumerate() {
            let v = c.validity.expect("nulls in every field");
            for r in 0..150 {
                let valid = v[r / 8] >> (r % 8) & 1 == 1;
                assert_eq!(valid, !null(r, f), "{:?} (field {f}) row {r}", types[f]);
            }
            if let ColumnData::Int64(vals) = c.data {
                for r in (0..150).filter(|&r| !null(r, f)) {
                    let want = match types[f] {
                        SparkType::TimestampMillis => value(r, f) as i64 / 1000,
                        _ => value(r, f) as i64,
                    };
                    assert_eq!(vals[r], want, "{:?} (field {f}) row {r}", types[f]);
                }
            }
        }
    }

    #[test]
    fn rows_of_one_size_and_of_many_sizes_agree() {
        // Chunk 1: strings of one length (rows of one size, read at a stride). Chunk 2: its
        // first and last strings take 16 bytes, the others 8 and 24 in turn: the chunk's bytes
        // are those of 64 rows of the first row's size, yet the rows are not at a stride.
        // Chunk 3 (short): every row different. Each value must come from its own row.
        let types = vec![
            SparkType::Int,
            SparkType::String,
            SparkType::Decimal { precision: 7 },
            SparkType::Long,
        ];
        let text = |r: usize| match r / 64 {
            0 => format!("{:05}", r),
            1 if r == 64 || r == 127 => format!("{:013}", r),
            1 if r % 2 == 1 => format!("{:03}", r % 1000),
            1 => format!("{:020}", r),
            _ => "x".repeat(r % 17),
        };
        let rows: Vec<Vec<u8>> = (0..150)
            .map(|r| {
                let b = RowBuilder::new(4)
                    .fixed(0, (r as i32 * -3) as u32 as u64)
                    .var(1, text(r).as_bytes());
                let b = if r % 9 == 4 {
                    b.null(2)
                } else {
                    b.fixed(2, (r as i64 * 101 - 7000) as u64)
                };
                b.fixed(3, (r as u64) << 40 | 5).buf
            })
            .collect();
        let (data, offsets) = batch(&rows);
        let names = ["i", "s", "d", "l"].map(String::from).to_vec();
        let mut t = RowTransposer::new(names, types);
        let b = t.transpose(&data, &offsets).unwrap();
        let (
            ColumnData::Int32(ints),
            ColumnData::Binary {
                offsets: so,
                data: sd,
            },
        ) = (&b.columns[0].data, &b.columns[1].data)
        else {
            panic!("int and string columns");
        };
        let (ColumnData::Int32(decs), ColumnData::Int64(longs)) =
            (&b.columns[2].data, &b.columns[3].data)
        else {
            panic!("decimal and long columns");
        };
        let dv = b.columns[2].validity.expect("decimal nulls");
        for r in 0..150 {
            assert_eq!(ints[r], r as i32 * -3, "row {r}");
            assert_eq!(
                &sd[so[r] as usize..so[r + 1] as usize],
                text(r).as_bytes(),
                "row {r}"
            );
            assert_eq!(dv[r / 8] >> (r % 8) & 1 == 0, r % 9 == 4, "row {r}");
            if r % 9 != 4 {
                assert_eq!(decs[r], r as i32 * 101 - 7000, "row {r}");
            }
            assert_eq!(longs[r], ((r as i64) << 40) | 5, "row {r}");
        }
    }

    /// `array<int>` (3-level, elements optional) and `map<string,int>`, as Spark's converter
    /// writes them.
    fn nested_schema() -> Schema {
        use vecruntime_parquet::{Field, Group, Repetition};
        let element = Field::new("element", PhysicalType::Int32, true);
        let a = Group::list("a", Repetition::Optional, element.into());
        let key =
            Field::new("key", PhysicalType::ByteArray, false).with_logical(LogicalType::String);
        let value = Field::new("value", PhysicalType::Int32, true);
        let m = Group::map("m", Repetition::Optional, key.into(), value.into());
        Schema::from_nodes("spark_schema", vec![a.into(), m.into()]).unwrap()
    }

    /// UnsafeArrayData of 4-byte ints, `None` a null element.
    fn int_array(vals: &[Option<i32>]) -> Vec<u8> {
        let n = vals.len();
        let mut a = (n as u64).to_le_bytes().to_vec();
        a.resize(8 + n.div_ceil(64) * 8 + (4 * n).next_multiple_of(8), 0);
        for (i, v) in vals.iter().enumerate() {
            match v {
                Some(v) => {
                    let at = 8 + n.div_ceil(64) * 8 + 4 * i;
                    a[at..at + 4].copy_from_slice(&v.to_le_bytes());
                }
                None => a[8 + i / 8] |= 1 << (i % 8),
            }
        }
        a
    }

    /// UnsafeMapData of string keys and int values.
    fn map(keys: &[&str], vals: &[Option<i32>]) -> Vec<u8> {
        let n = keys.len();
        let mut k = (n as u64).to_le_bytes().to_vec();
        k.resize(8 + n.div_ceil(64) * 8 + 8 * n, 0);
        for (i, key) in keys.iter().enumerate() {
            let at = k.len() as u64;
            k.extend_from_slice(key.as_bytes());
            k.resize(k.len().next_multiple_of(8), 0);
            let slot = 8 + n.div_ceil(64) * 8 + 8 * i;
            k[slot..slot + 8].copy_from_slice(&(at << 32 | key.len() as u64).to_le_bytes());
        }
        let mut out = (k.len() as u64).to_le_bytes().to_vec();
        out.extend_from_slice(&k);
        out.extend_from_slice(&int_array(vals));
        out
    }

    #[test]
    fn nested_values_become_levels_and_values() {
        let mut t = RowTransposer::for_schema(&nested_schema()).unwrap();
        let rows = [
            RowBuilder::new(2)
                .var(0, &int_array(&[Some(7), None, Some(-1)]))
                .var(1, &map(&["x", "y"], &[Some(1), None])),
            RowBuilder::new(2).null(0).var(1, &map(&[], &[])),
            RowBuilder::new(2).var(0, &int_array(&[])).null(1),
        ];
        let (data, offsets) = batch(&rows.map(|r| r.buf));
        let b = t.transpose(&data, &offsets).unwrap();
        let levels = |c: usize| {
            let n = b.columns[c].nested.unwrap();
            (n.def.to_vec(), n.rep.to_vec())
        };
        // a: [7, null, -1], null, []: definition 3 present, 2 null element, 0 null list, 1 empty.
        assert_eq!(levels(0), (vec![3, 2, 3, 0, 1], vec![0, 1, 1, 0, 0]));
        let ColumnData::Int32(v) = b.columns[0].data else {
            panic!("ints")
        };
        assert_eq!(v, &[7, -1]);
        // m.key: {x, y}, {}, null; m.value: {1, null}.
        assert_eq!(levels(1), (vec![2, 2, 1, 0], vec![0, 1, 0, 0]));
        assert_eq!(levels(2), (vec![3, 2, 1, 0], vec![0, 1, 0, 0]));
    }

    #[test]
    fn fields_read_at_their_positions_in_wider_rows() {
        use vecruntime_parquet::{Field, Group, Repetition};
        // Written: s (string), a (array<int>), n (long); the rows also hold two partition
        // fields (an int before s, a string between a and n) that are not written.
        let s = Field::new("s", PhysicalType::ByteArray, true).with_logical(LogicalType::String);
        let element = Field::new("element", PhysicalType::Int32, true);
        let a = Group::list("a", Repetition::Optional, element.into());
        let n = Field::new("n", PhysicalType::Int64, true);
        let schema =
            Schema::from_nodes("spark_schema", vec![s.into(), a.into(), n.into()]).unwrap();
        let rows = [
            RowBuilder::new(5)
                .fixed(0, 2024)
                .var(1, b"first")
                .var(2, &int_array(&[Some(4), None]))
                .var(3, b"day=1")
                .fixed(4, 10),
            RowBuilder::new(5)
                .null(0)
                .null(1)
                .null(2)
                .var(3, b"a partition value")
                .null(4),
        ];
        let (data, offsets) = batch(&rows.map(|r| r.buf));
        let mut t = RowTransposer::for_schema(&schema)
            .unwrap()
            .reading_positions(5, &[1, 2, 4])
            .unwrap();
        let b = t.transpose(&data, &offsets).unwrap();
        let ColumnData::Binary { offsets, data } = b.columns[0].data else {
            panic!("strings")
        };
        assert_eq!((offsets, data), (&[0, 5, 5][..], &b"first"[..]));
        assert_eq!(b.columns[0].validity.unwrap()[0] & 3, 1);
        let ColumnData::Int32(elements) = b.columns[1].data else {
            panic!("ints")
        };
        assert_eq!(elements, &[4]);
        let levels = b.columns[1].nested.unwrap();
        assert_eq!((levels.def, levels.rep), (&[3, 2, 0][..], &[0, 1, 0][..]));
        let ColumnData::Int64(longs) = b.columns[2].data else {
            panic!("longs")
        };
        assert_eq!(longs[0], 10);
        assert_eq!(b.columns[2].validity.unwrap()[0] & 3, 1);

        let refused = |row_fields, positions: &[usize]| {
            RowTransposer::for_schema(&schema)
                .unwrap()
                .reading_positions(row_fields, positions)
                .err()
                .unwrap()
        };
        assert!(refused(5, &[1, 2]).contains("2 field positions for a schema of 3"));
        assert!(refused(5, &[1, 2, 5]).contains("position 5 outside rows of 5 fields"));
        assert!(refused(5, &[1, 1, 4]).contains("read for two columns"));
    }

    #[test]
    fn released_buffers_serve_the_next_transposer_of_the_thread() {
        let rows: Vec<Vec<u8>> = (0..1000)
            .map(|r| RowBuilder::new(2).fixed(0, r).var(1, b"abc").buf)
            .collect();
        let (data, offsets) = batch(&rows);
        let types = vec![SparkType::Long, SparkType::String];
        let names = || vec!["n".to_string(), "s".to_string()];
        let mut first = RowTransposer::new(names(), types.clone());
        first.transpose(&data, &offsets).unwrap();
        let held = first.buffered_bytes();
        assert!(held >= 1000 * 8 + 3000, "{held}");
        first.release_buffers();
        assert_eq!(first.buffered_bytes(), 0);
        // Another file's transposer on this thread takes them: no new allocation for one row.
        let mut second = RowTransposer::new(names(), types);
        let (one, one_offsets) = batch(&rows[7..8]);
        let b = second.transpose(&one, &one_offsets).unwrap();
        let ColumnData::Int64(longs) = b.columns[0].data else {
            panic!("longs")
        };
        assert_eq!(longs, &[7]);
        assert!(second.buffered_bytes() >= held, "buffers reused");
        // The first transposes again after releasing, from fresh or pooled buffers alike.
        let b = first.transpose(&data, &offsets).unwrap();
        let ColumnData::Binary { offsets, .. } = b.columns[1].data else {
            panic!("strings")
        };
        assert_eq!(offsets[1000], 3000);
    }

    #[test]
    fn malformed_nested_values_are_errors_naming_the_column() {
        let mut t = RowTransposer::for_schema(&nested_schema()).unwrap();
        let good_map = map(&["x"], &[Some(1)]);
        let mut past = RowBuilder::new(2).var(1, &good_map);
        past = past.fixed(0, 4096 << 32 | 24);
        let mut count = int_array(&[Some(1)]);
        count[..8].copy_from_slice(&1000u64.to_le_bytes());
        let mut key_size = map(&["x"], &[Some(1)]);
        key_size[..8].copy_from_slice(&(1u64 << 40).to_le_bytes());
        let uneven = map(&["x", "y"], &[Some(1)]);
        let mut count40 = int_array(&[Some(1)]);
        count40[..8].copy_from_slice(&40u64.to_le_bytes());
        let cases = [
            (past, "a.list.element", "runs past"),
            (
                RowBuilder::new(2).var(0, &count).var(1, &good_map),
                "a.list.element",
                "array element count 1000 is not valid",
            ),
            (
                // A count the bytes could hold the null bits of (at most 8 a byte), yet not
                // the values of.
                RowBuilder::new(2).var(0, &count40).var(1, &good_map),
                "a.list.element",
                "array of 40 elements needs 176 bytes, has 24",
            ),
            (
                RowBuilder::new(2).null(0).var(1, &key_size),
                "m.key_value.key",
                "map key array size",
            ),
            (
                RowBuilder::new(2).null(0).var(1, &uneven),
                "m.key_value.key",
                "map of 2 keys and 1 values",
            ),
        ];
        for (row, column, want) in cases {
            let (data, offsets) = batch(&[row.buf]);
            let e = t.transpose(&data, &offsets).unwrap_err().to_string();
            assert!(
                e.contains(&format!("column '{column}'")) && e.contains(want),
                "{e}"
            );
        }
        // A key array one byte longer than its map leaves room for.
        let mut over = map(&["x"], &[Some(1)]);
        let size = over.len() as u64 - 8 + 1;
        over[..8].copy_from_slice(&size.to_le_bytes());
        let row = RowBuilder::new(2).null(0).var(1, &over);
        let (data, offsets) = batch(&[row.buf]);
        let e = t.transpose(&data, &offsets).unwrap_err().to_string();
        assert!(e.contains(&format!("map key array size {size}")), "{e}");
        // A value array counting more values than the rest of its map holds (the row's other
        // field follows the map, so the bytes after it are in the row).
        let mut short_values = map(&["x"], &[Some(1)]);
        let keys_end = 8 + u64::from_le_bytes(short_values[..8].try_into().unwrap()) as usize;
        short_values[keys_end..keys_end + 8].copy_from_slice(&3u64.to_le_bytes());
        let row = RowBuilder::new(2)
            .var(1, &short_values)
            .var(0, &int_array(&[Some(1); 8]));
        let (data, offsets) = batch(&[row.buf]);
        let e = t.transpose(&data, &offsets).unwrap_err().to_string();
        assert!(
            e.contains("array of 3 elements needs 28 bytes, has 24"),
            "{e}"
        );
        // The second row's array starts right after that row: inside the batch, past its row.
        let good = RowBuilder::new(2)
            .var(0, &int_array(&[Some(1)]))
            .var(1, &good_map);
        let len = good.buf.len() as u64;
        let past = RowBuilder::new(2).var(1, &good_map);
        let past_len = past.buf.len() as u64;
        let past = past.fixed(0, past_len << 32 | 8);
        let (data, offsets) = batch(&[good.buf, past.buf]);
        let e = t.transpose(&data, &offsets).unwrap_err().to_string();
        assert!(
            e.contains("UnsafeRow 1 of the batch") && e.contains("runs past"),
            "{e} (rows of {len} and {past_len} bytes)"
        );
    }

    /// UnsafeArrayData of variable-length elements (offsets from the array's start).
    fn var_array(vals: &[&[u8]]) -> Vec<u8> {
        let n = vals.len();
        let mut a = (n as u64).to_le_bytes().to_vec();
        a.resize(8 + n.div_ceil(64) * 8 + 8 * n, 0);
        for (i, v) in vals.iter().enumerate() {
            let at = a.len() as u64;
            a.extend_from_slice(v);
            a.resize(a.len().next_multiple_of(8), 0);
            let slot = 8 + n.div_ceil(64) * 8 + 8 * i;
            a[slot..slot + 8].copy_from_slice(&(at << 32 | v.len() as u64).to_le_bytes());
        }
        a
    }

    #[test]
    fn malformed_structs_arrays_maps_and_decimals_are_errors() {
        use vecruntime_parquet::{Field, Group, Repetition};
        // struct<a:int, d:decimal(30,6)>, array<decimal(30,6)>, map<string,int>.
        let s = Group::new(
            "s",
            Repetition::Optional,
            vec![
                Field::new("a", PhysicalType::Int32, true).into(),
                Field::decimal("d", 30, 6, true).into(),
            ],
        );
        let a = Group::list(
            "a",
            Repetition::Optional,
            Field::decimal("element", 30, 6, true).into(),
        );
        let m = nested_schema().fields[1].clone();
        let schema = Schema::from_nodes("spark_schema", vec![s.into(), a.into(), m]).unwrap();
        let mut t = RowTransposer::for_schema(&schema).unwrap();
        let good = var_array(&[&[1], &[0xff; 13]]);
        let ok = RowBuilder::new(3).null(0).var(1, &good).null(2);
        let (data, offsets) = batch(&[ok.buf]);
        t.transpose(&data, &offsets).unwrap();
        // 2 slots of 8 bytes: 32 bytes (a sum instead of the product would allow 26).
        let mut short = good.clone();
        short.truncate(28);
        let cases = [
            (
                RowBuilder::new(3).var(0, &[0; 16]).null(1).null(2),
                "struct of 16 bytes, its 2 fields need at least 24",
            ),
            (
                RowBuilder::new(3).null(0).var(1, &short).null(2),
                "array of 2 elements needs 32 bytes, has 28",
            ),
            (
                RowBuilder::new(3)
                    .null(0)
                    .var(1, &var_array(&[&[]]))
                    .null(2),
                "decimal of 0 bytes does not fit DECIMAL(30) in 13",
            ),
            (
                RowBuilder::new(3)
                    .null(0)
                    .var(1, &var_array(&[&[1; 14]]))
                    .null(2),
                "decimal of 14 bytes does not fit DECIMAL(30) in 13",
            ),
            (
                RowBuilder::new(3).null(0).null(1).var(2, &[0; 4]),
                "map lacks its key array size",
            ),
            (
                RowBuilder::new(3).null(0).null(1).var(2, &[0; 8]),
                "array of 0 bytes lacks its element count",
            ),
        ];
        for (row, want) in cases {
            let (data, offsets) = batch(&[row.buf]);
            let e = t.transpose(&data, &offsets).unwrap_err().to_string();
            assert!(e.contains(want), "{e}");
        }
        // A flat decimal column.
        let mut t =
            RowTransposer::new(vec!["d".into()], vec![SparkType::Decimal { precision: 30 }]);
        for (bytes, want) in [
            (&[][..], "decimal of 0 bytes"),
            (&[1; 14], "decimal of 14 bytes"),
        ] {
            let (data, offsets) = batch(&[RowBuilder::new(1).var(0, bytes).buf]);
            let e = t.transpose(&data, &offsets).unwrap_err().to_string();
            assert!(e.contains(want) && e.contains("column 'd'"), "{e}");
        }
    }

    /// A big-endian POINT(1 2) after Spark's 4-byte SRID header, and its little-endian WKB.
    fn geo_value() -> (Vec<u8>, Vec<u8>) {
        let mut v = 4326i32.to_le_bytes().to_vec();
        v.push(0);
        v.extend_from_slice(&1u32.to_be_bytes());
        v.extend_from_slice(&1f64.to_be_bytes());
        v.extend_from_slice(&2f64.to_be_bytes());
        let mut le = vec![1];
        le.extend_from_slice(&1u32.to_le_bytes());
        le.extend_from_slice(&1f64.to_le_bytes());
        le.extend_from_slice(&2f64.to_le_bytes());
        (v, le)
    }

    #[test]
    fn geospatial_values_lose_their_srid_and_become_little_endian_wkb() {
        use vecruntime_parquet::{Field, Group, Repetition};
        let (value, wkb) = geo_value();
        let geo = LogicalType::Geometry { crs: None };
        let flat = Field::new("g", PhysicalType::ByteArray, true).with_logical(geo.clone());
        let element = Field::new("element", PhysicalType::ByteArray, true).with_logical(geo);
        let list = Group::list("a", Repetition::Optional, element.into());
        let schema = Schema::from_nodes("spark_schema", vec![flat.into(), list.into()]).unwrap();
        let mut t = RowTransposer::for_schema(&schema).unwrap();
        let row = RowBuilder::new(2)
            .var(0, &value)
            .var(1, &var_array(&[&value, &value]));
        let (data, offsets) = batch(&[row.buf]);
        let b = t.transpose(&data, &offsets).unwrap();
        let two: Vec<u8> = [wkb.clone(), wkb.clone()].concat();
        for (c, want) in b.columns.iter().zip([&wkb, &two]) {
            let ColumnData::Binary { data, .. } = c.data else {
                panic!("not binary")
            };
            assert_eq!(data, &want[..]);
        }
        // A value Spark's WKB reader refuses: an error naming the column, flat or nested.
        let mut bad = value.clone();
        bad[4] = 3;
        for (row, column) in [
            (RowBuilder::new(2).var(0, &bad).null(1), "column 'g'"),
            (
                RowBuilder::new(2)
                    .null(0)
                    .var(1, &var_array(&[&value, &bad])),
                "column 'a.list.element'",
            ),
            (RowBuilder::new(2).var(0, &[1, 0]).null(1), "column 'g'"),
        ] {
            let (data, offsets) = batch(&[row.buf]);
            let e = t.transpose(&data, &offsets).unwrap_err().to_string();
            assert!(
                e.contains(column) && (e.contains("WKB") || e.contains("SRID")),
                "{e}"
            );
        }
    }

    #[test]
    fn type_codes_outside_sparks_are_refused() {
        assert_eq!(SparkType::from_code(16, 0), Some(SparkType::Time));
        for (code, precision) in [(12, 0), (12, 39), (15, 0), (15, 19), (19, 0), (-1, 0)] {
            assert_eq!(
                SparkType::from_code(code, precision),
                None,
                "{code} {precision}"
            );
        }
        assert_eq!(
            SparkType::from_code(15, 18),
            Some(SparkType::LegacyDecimal { precision: 18 })
        );
    }

    /// EXCEPTION mode refuses ancient values, and only values: a null INT96 slot (zero bytes,
    /// Julian day 0) is not looked at.
    #[test]
    fn exception_mode_skips_null_slots() {
        let mut t = RowTransposer::new(
            vec!["t".into(), "d".into()],
            vec![SparkType::TimestampInt96, SparkType::Date],
        );
        t.set_rebases(Rebases {
            datetime: Some(Rebase::Exception {
                micros_threshold: -2_208_988_800_000_000,
            }),
            int96: Some(Rebase::Exception {
                micros_threshold: -2_208_988_800_000_000,
            }),
        });
        assert_eq!(t.num_fields(), 2);
        let modern = RowBuilder::new(2)
            .fixed(0, 1_700_000_000_000_000)
            .fixed(1, 19_000);
        let rows = [modern.buf.clone(), RowBuilder::new(2).null(0).null(1).buf];
        let (data, offsets) = batch(&rows);
        t.transpose(&data, &offsets).unwrap();
        let ancient = RowBuilder::new(2).fixed(0, (-3_000_000_000_000_000i64) as u64);
        let (data, offsets) = batch(&[modern.buf, ancient.fixed(1, 0).buf]);
        let e = t.transpose(&data, &offsets).unwrap_err().to_string();
        assert!(e.contains("column 't'") && e.contains("before 1900"), "{e}");
        let ancient_day = RowBuilder::new(2)
            .null(0)
            .fixed(1, (-141_428i32) as u32 as u64);
        let (data, offsets) = batch(&[ancient_day.buf]);
        let e = t.transpose(&data, &offsets).unwrap_err().to_string();
        assert!(e.contains("column 'd': a date before 1582-10-15"), "{e}");
    }

    #[test]
    fn buffered_bytes_count_every_buffer_at_its_element_size() {
        use std::mem::size_of;
        let mut t = RowTransposer::for_schema(&nested_schema()).unwrap();
        t.cols.push(ColumnBuf {
            validity: Vec::with_capacity(3),
            has_null: false,
            values: Vec::with_capacity(5),
            i32s: Vec::with_capacity(7),
            i64s: Vec::with_capacity(11),
            f32s: Vec::with_capacity(13),
            f64s: Vec::with_capacity(17),
            offsets: Vec::with_capacity(19),
        });
        let leaves: usize = t.leaves.iter().map(LeafBuf::capacity_bytes).sum();
        let c = &t.cols[0];
        let held = c.validity.capacity()
            + c.values.capacity()
            + c.i32s.capacity() * size_of::<i32>()
            + c.i64s.capacity() * size_of::<i64>()
            + c.f32s.capacity() * size_of::<f32>()
            + c.f64s.capacity() * size_of::<f64>()
            + c.offsets.capacity() * size_of::<i32>();
        assert_eq!(held, 3 + 5 + 28 + 88 + 52 + 136 + 76);
        assert_eq!(t.buffered_bytes(), held + leaves);
        // The leaves' buffers count too, once they hold values.
        let row = RowBuilder::new(2)
            .var(0, &int_array(&[Some(1); 100]))
            .null(1);
        let (data, offsets) = batch(&[row.buf]);
        t.transpose(&data, &offsets).unwrap();
        assert!(t.buffered_bytes() >= held + 100 * (4 + 2 + 2));
        // And the shredder's entry lists.
        let leaves: usize = t.leaves.iter().map(LeafBuf::capacity_bytes).sum();
        assert!(t.scratch.capacity_bytes() >= 100 * 16);
        assert_eq!(
            t.buffered_bytes(),
            held + leaves + t.scratch.capacity_bytes()
        );
    }

    #[test]
    fn row_bounds_are_checked_for_every_row() {
        let mut t = RowTransposer::new(
            vec!["a".into(), "b".into(), "c".into()],
            vec![SparkType::Int; 3],
        );
        let row = RowBuilder::new(3).fixed(0, 1).fixed(1, 2).fixed(2, 3).buf;
        let (data, offsets) = batch(&[row.clone(), row.clone()]);
        t.transpose(&data, &offsets).unwrap();
        for (offsets, want) in [
            (vec![-8, 32], "row bytes -8..32 outside the batch"),
            (vec![32, 0], "row bytes 32..0 outside the batch"),
            (
                vec![0, 32, 64, 65],
                "row bytes 64..65 outside the batch of 64",
            ),
            (
                vec![0, 32, 56],
                "row of 24 bytes, 3 fields need at least 32",
            ),
            (vec![0, 32, 32], "row of 0 bytes, 3 fields need at least 32"),
        ] {
            let e = t.transpose(&data, &offsets).unwrap_err().to_string();
            assert!(e.contains(want) && e.contains("column 'a'"), "{e}");
        }
    }

    #[test]
    fn malformed_rows_are_errors_naming_the_column() {
        let mut t = RowTransposer::new(vec!["s".into()], vec![SparkType::String]);
        let mut bad = RowBuilder::new(1).var(0, b"abc");
        bad = bad.fixed(0, 64 << 32 | 3);
        let (data, offsets) = batch(&[bad.buf]);
        let e = t.transpose(&data, &offsets).unwrap_err().to_string();
        assert!(e.contains("column 's'") && e.contains("runs past"), "{e}");
        let e = t.transpose(&data, &[0, 4]).unwrap_err().to_string();
        assert!(e.contains("at least 16"), "{e}");
        let e = t.transpose(&data, &[0, 1000]).unwrap_err().to_string();
        assert!(e.contains("outside the batch"), "{e}");
    }
}
