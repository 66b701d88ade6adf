//! Spark `UnsafeRow` batches to column buffers: [`RowTransposer`] reads each field of the rows
//! (layout in [`crate::row_layout`]) into the buffers of its column, converting each value as
//! Spark's `ParquetWriteSupport` does ([`crate::spark_type`]); structs, arrays and maps become
//! the levels and values of their leaves ([`crate::nested`]).

use crate::int96::int96_from_micros;
use crate::nested::{shred_rows, LeafBuf, Scratch, Shape};
use crate::rebase::Rebases;
use crate::row_layout::{bitset_bytes, checked_row, row_error, var_bytes};
use crate::spark_type::{
    legacy_decimal, match_number, put_fixed, widen_decimal, SparkType, Storage,
};
use crate::values::Values;
use vecruntime_parquet::error::Result;
use vecruntime_parquet::schema::decimal_min_bytes;
use vecruntime_parquet::{Batch, ColumnView, Node, Schema};

/// Column buffers of one batch, reused from batch to batch.
#[derive(Default)]
struct ColumnBuf {
    validity: Vec<u8>,
    has_null: bool,
    values: Values,
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
const MAX_POOLED_BYTES: usize = 256 << 10;

/// Rows whose nested values are shredded together: few enough that a node's values stay in
/// cache while each of its children is read from them.
const NESTED_ROWS: usize = 16;

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

/// A chunk of up to 64 rows of a batch, as every flat column reads it.
struct Chunk<'a> {
    rows: &'a [u8],
    offsets: &'a [i32],
    /// Index of the chunk's first row in the batch, and the rows' starts.
    base: usize,
    starts: &'a [usize],
    /// The chunk's rows back to back when they are all `size` bytes long ([`uniform_size`]):
    /// their slots are then read from `chunks_exact` rows, without a start to load or a bounds
    /// check per value. Empty otherwise.
    block: &'a [u8],
    size: usize,
    /// The bits of the chunk's rows.
    full: u64,
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
                        let ty = shape.leaf_type(leaf).expect("leaf of the shape");
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
        self.check_rows(rows, offsets)?;
        self.take_buffers(n);
        // Chunks of 64 rows (about 13 KB of store_sales rows) stay in L1 while every column is
        // gathered from them; a column-at-a-time pass over the whole batch would stream it from
        // memory once per column. One validity word per chunk and column.
        self.null_columns
            .resize(self.num_fields.div_ceil(64), [0; 64]);
        for chunk in 0..n.div_ceil(64) {
            self.gather_chunk(rows, offsets, chunk)?;
        }
        self.shred_nested(rows, offsets)?;
        if self.rebases != Rebases::default() {
            self.rebase()?;
        }
        Ok(self.batch(n))
    }

    /// Checks every row once; the column loops then read its fixed part freely.
    fn check_rows(&mut self, rows: &[u8], offsets: &[i32]) -> Result<()> {
        let n = offsets.len().saturating_sub(1);
        self.starts.clear();
        // A partitioned write's transposer is new for each file: one allocation, not a growth.
        self.starts.reserve(n);
        let first = self
            .names
            .first()
            .or(self.leaves.first().map(|l| &l.name))
            .map_or("", String::as_str);
        for r in 0..n {
            checked_row(rows, offsets, r, self.num_fields, first)?;
            self.starts.push(offsets[r] as usize);
        }
        Ok(())
    }

    /// The flat columns' buffers, from the thread's pool when released, emptied for `n` rows.
    fn take_buffers(&mut self, n: usize) {
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
    }

    /// Gathers chunk `chunk` (rows `64 * chunk..`) of every flat column.
    fn gather_chunk(&mut self, rows: &[u8], offsets: &[i32], chunk: usize) -> Result<()> {
        let base = chunk * 64;
        let starts = &self.starts[base..self.starts.len().min(base + 64)];
        let size = uniform_size(&offsets[base..=base + starts.len()]).unwrap_or(0);
        let c = Chunk {
            rows,
            offsets,
            base,
            starts,
            block: &rows[starts[0]..starts[0] + size * starts.len()],
            size,
            full: u64::MAX >> (64 - starts.len()),
        };
        // The chunk's null bitsets, rows by fields, turned into fields by rows: one 64x64 bit
        // transpose per word instead of a byte load and shift per row and field.
        for (w, matrix) in self.null_columns.iter_mut().enumerate() {
            matrix.fill(0);
            for (k, &at) in starts.iter().enumerate() {
                matrix[k] =
                    u64::from_le_bytes(rows[at + 8 * w..at + 8 * w + 8].try_into().unwrap());
            }
            transpose64(matrix);
        }
        let bitset = bitset_bytes(self.num_fields);
        for (ci, &t) in self.types.iter().enumerate() {
            let field = self.slots[ci];
            let valid = !self.null_columns[field >> 6][field & 63] & c.full;
            let col = &mut self.cols[ci];
            col.gather(t, &self.names[ci], &c, bitset + 8 * field, valid)?;
            let bytes = valid.to_le_bytes();
            let len = starts.len().div_ceil(8);
            col.validity[base / 8..base / 8 + len].copy_from_slice(&bytes[..len]);
            col.has_null |= valid != c.full;
        }
        Ok(())
    }

    /// Nested fields, 16 rows and a field at a time: each value shredded into its leaves.
    fn shred_nested(&mut self, rows: &[u8], offsets: &[i32]) -> Result<()> {
        for l in &mut self.leaves {
            l.clear();
        }
        let n = self.starts.len();
        for first in (0..n).step_by(NESTED_ROWS) {
            let last = n.min(first + NESTED_ROWS);
            for (field, shape) in &self.nested {
                shred_rows(
                    shape,
                    *field,
                    self.num_fields,
                    rows,
                    first,
                    &self.starts[first..last],
                    &offsets[first + 1..last + 1],
                    &mut self.leaves,
                    &mut self.scratch,
                )?;
            }
        }
        Ok(())
    }

    /// The calendar rebase of every datetime column and leaf.
    fn rebase(&mut self) -> Result<()> {
        for ((c, &t), name) in self.cols.iter_mut().zip(&self.types).zip(&self.names) {
            let valid = c.has_null.then_some(c.validity.as_slice());
            self.rebases.column(t, name, &mut c.values, valid)?;
        }
        for l in &mut self.leaves {
            l.rebase(&self.rebases)?;
        }
        Ok(())
    }

    /// The batch of `n` rows viewing the buffers, columns in schema order.
    fn batch(&self, n: usize) -> Batch<'_> {
        let columns = self
            .out
            .iter()
            .map(|o| match o {
                Out::Flat(i) => {
                    let c = &self.cols[*i];
                    ColumnView::new(c.values.data(self.types[*i]))
                        .with_validity(c.has_null.then_some(c.validity.as_slice()))
                }
                Out::Leaf(i) => self.leaves[*i].view(),
            })
            .collect();
        Batch {
            num_rows: n,
            columns,
        }
    }
}

impl ColumnBuf {
    fn capacity_bytes(&self) -> usize {
        self.validity.capacity() + self.values.capacity_bytes()
    }

    /// Empties the buffers for `n` rows of type `t`: numbers are appended chunk by chunk; the
    /// bitmaps, byte-string widths and offsets are zeroed and written by index.
    fn reset(&mut self, t: SparkType, n: usize) {
        self.validity.clear();
        self.validity.resize(n.div_ceil(8), 0);
        self.has_null = false;
        let v = &mut self.values;
        v.clear();
        match t.storage() {
            Storage::Bits => v.bytes.resize(n.div_ceil(8), 0),
            Storage::I32 => v.i32s.reserve(n),
            Storage::I64 => v.i64s.reserve(n),
            Storage::F32 => v.f32s.reserve(n),
            Storage::F64 => v.f64s.reserve(n),
            Storage::Fixed(width) => v.bytes.resize(n * width, 0),
            Storage::Var => v.offsets.resize(n + 1, 0),
        }
    }

    /// Appends the values of a chunk's rows of type `t` in the slot at `so` of each row
    /// (`valid`: the rows whose value is not null). Numbers are gathered whatever the validity
    /// (a null's slot is zero); chunks come in row order, so each chunk's values are appended.
    fn gather(&mut self, t: SparkType, name: &str, c: &Chunk, so: usize, valid: u64) -> Result<()> {
        let (rows, starts, base) = (c.rows, c.starts, c.base);
        let slot = |at: usize| u64::from_le_bytes(rows[at + so..at + so + 8].try_into().unwrap());
        let v = &mut self.values;
        macro_rules! gather {
            ($out:ident, $width:expr, $conv:expr) => {
                if !c.block.is_empty() && so + 8 <= c.size {
                    v.$out.extend(
                        c.block
                            .chunks_exact(c.size)
                            .map(|r| $conv(u64::from_le_bytes(r[so..so + 8].try_into().unwrap()))),
                    )
                } else {
                    v.$out.extend(starts.iter().map(|&at| $conv(slot(at))))
                }
            };
        }
        // The row bytes of the present values of the chunk, with their index in the batch.
        let present = || {
            starts
                .iter()
                .enumerate()
                .filter(move |(k, _)| valid >> k & 1 == 1)
                .map(move |(k, &at)| (base + k, at))
        };
        match_number!(t, gather, {
            match t {
                SparkType::Boolean => {
                    let mut bits: u64 = 0;
                    for (k, &at) in starts.iter().enumerate() {
                        bits |= ((slot(at) & 0xff != 0) as u64) << k;
                    }
                    let bytes = (bits & valid).to_le_bytes();
                    let len = starts.len().div_ceil(8);
                    v.bytes[base / 8..base / 8 + len].copy_from_slice(&bytes[..len]);
                }
                SparkType::TimestampInt96 => {
                    for (r, at) in present() {
                        v.bytes[12 * r..12 * r + 12]
                            .copy_from_slice(&int96_from_micros(slot(at) as i64));
                    }
                }
                SparkType::LegacyDecimal { precision } => {
                    let width = decimal_min_bytes(precision);
                    for (r, at) in present() {
                        legacy_decimal(&mut v.bytes[width * r..width * (r + 1)], slot(at) as i64);
                    }
                }
                SparkType::Decimal { precision } => {
                    let width = decimal_min_bytes(precision);
                    for (r, at) in present() {
                        let whole = &rows[at..c.offsets[r + 1] as usize];
                        let bytes = var_bytes(whole, slot(at), name, r)?;
                        widen_decimal(&mut v.bytes[width * r..width * (r + 1)], bytes, precision)
                            .map_err(|m| row_error(name, r, m))?;
                    }
                }
                SparkType::FixedBinary { width } => {
                    let width = width as usize;
                    for (r, at) in present() {
                        let whole = &rows[at..c.offsets[r + 1] as usize];
                        let bytes = var_bytes(whole, slot(at), name, r)?;
                        let out = &mut v.bytes[width * r..width * (r + 1)];
                        put_fixed(out, bytes).map_err(|m| row_error(name, r, m))?;
                    }
                }
                SparkType::String | SparkType::Binary | SparkType::Geo { .. } => {
                    for (k, &at) in starts.iter().enumerate() {
                        let r = base + k;
                        if valid >> k & 1 == 1 {
                            let whole = &rows[at..c.offsets[r + 1] as usize];
                            let bytes = var_bytes(whole, slot(at), name, r)?;
                            v.append_var(t, bytes).map_err(|m| row_error(name, r, m))?;
                        }
                        v.offsets[r + 1] = v.end_offset(name)?;
                    }
                }
                // Numbers: gathered above.
                _ => {}
            }
        });
        Ok(())
    }
}

/// The size of rows that all have one (no variable-length values), by their `len + 1` offsets:
/// their slots are then read at a fixed stride. `None` reads each row from its own start, with
/// the same values.
fn uniform_size(offsets: &[i32]) -> Option<usize> {
    let size = offsets[1] - offsets[0];
    offsets
        .windows(2)
        .all(|w| w[1] - w[0] == size)
        .then_some(size as usize)
}

/// Transposes a 64x64 bit matrix in place (bit `c` of row `r` becomes bit `r` of row `c`),
/// swapping ever smaller blocks: 6 rounds of 32 masked swaps.
fn transpose64(m: &mut [u64; 64]) {
    let mut width = 32;
    let mut mask: u64 = 0x0000_0000_FFFF_FFFF;
    while width != 0 {
        // Block by block rather than testing `k & width` per row: the condition makes LLVM
        // vectorise with masked loads and stores, which are slow on AMD (benchmarks/README.md,
        // "Measurements behind design choices").
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

#[cfg(test)]
mod tests;
