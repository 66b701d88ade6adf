//! Spark's nested values (structs, arrays, maps inside an UnsafeRow) shredded into the
//! definition levels, repetition levels and values of their Parquet leaves, as Spark's
//! `ParquetWriteSupport` writes them through parquet-java's `MessageColumnIO`.
//!
//! Layouts read (Spark's `UnsafeRow`, `UnsafeArrayData`, `UnsafeMapData`):
//!
//! * a struct, array or map in a row or array slot is `offset << 32 | size`, the offset from the
//!   start of the containing row or array;
//! * a row of `n` fields: `ceil(n / 64)` null words, then one 8-byte slot per field;
//! * an array: its element count (8 bytes), `ceil(count / 64)` null words, then the elements at
//!   their own width (1 byte for booleans and bytes, 2 for shorts, 4 for ints, dates and floats,
//!   8 for the rest, variable-length ones as `offset << 32 | size`);
//! * a map: the key array's size in bytes (8 bytes), the key array, then the value array.
//!
//! Every offset, size and count is checked against the bytes of its container: a malformed value
//! is an error naming the leaf column and the row, never a read out of bounds.

use crate::unsafe_row::{int96_from_micros, Rebases, SparkType};
use vecruntime_parquet::error::Result;
use vecruntime_parquet::schema::decimal_min_bytes;
use vecruntime_parquet::{ColumnData, ColumnView, Error, Field, GroupType, Node, Repetition};

/// How one Spark value maps onto Parquet: the tree of a top-level field.
#[derive(Debug)]
pub(crate) enum Shape {
    Leaf {
        /// Index of the leaf among the schema's columns.
        leaf: usize,
        ty: SparkType,
        /// Definition level when the value is present.
        def: i16,
    },
    Struct {
        def: i16,
        fields: Vec<Shape>,
        leaves: std::ops::Range<usize>,
    },
    List {
        def: i16,
        /// Repetition level of the elements after the first.
        rep: i16,
        /// The definition level the element is shredded under: the repeated group's (3-level
        /// lists) or the list's own (2-level legacy lists, whose repeated node is the element).
        element_parent_def: i16,
        element: Box<Shape>,
        leaves: std::ops::Range<usize>,
    },
    Map {
        def: i16,
        rep: i16,
        key: Box<Shape>,
        value: Box<Shape>,
        leaves: std::ops::Range<usize>,
    },
}

impl Shape {
    /// The shape of a top-level field from its Parquet node, numbering its leaves from `*next`.
    /// `None` when the node is not a layout Spark writes.
    pub(crate) fn of(node: &Node, next: &mut usize) -> Option<Shape> {
        Self::build(node, 0, 0, next)
    }

    fn build(node: &Node, parent_def: i16, parent_rep: i16, next: &mut usize) -> Option<Shape> {
        Self::build_as(node, node.repetition(), parent_def, parent_rep, next)
    }

    /// The shape of `node` as if its repetition were `repetition` (a 2-level list's repeated
    /// element is built as a required value below the list's repeated level).
    fn build_as(
        node: &Node,
        repetition: Repetition,
        parent_def: i16,
        parent_rep: i16,
        next: &mut usize,
    ) -> Option<Shape> {
        // Repeated nodes are the levels of lists and maps, built with them.
        let (def, rep) = match repetition {
            Repetition::Required => (parent_def, parent_rep),
            Repetition::Optional => (parent_def + 1, parent_rep),
            Repetition::Repeated => return None,
        };
        let first = *next;
        match node {
            Node::Leaf(f) => {
                let ty = leaf_type(f)?;
                *next += 1;
                Some(Shape::Leaf {
                    leaf: first,
                    ty,
                    def,
                })
            }
            Node::Group(g) => match g.annotation {
                // A Variant's group holds its value and metadata (and any shredded values) as
                // fields of a struct, which is how its rows hold it too.
                None | Some(GroupType::Variant { .. }) => {
                    let fields = g
                        .children
                        .iter()
                        .map(|c| Self::build(c, def, rep, next))
                        .collect::<Option<Vec<_>>>()?;
                    Some(Shape::Struct {
                        def,
                        fields,
                        leaves: first..*next,
                    })
                }
                Some(GroupType::List) => {
                    let [repeated] = &g.children[..] else {
                        return None;
                    };
                    if repeated.repetition() != Repetition::Repeated {
                        return None;
                    }
                    let (rdef, rrep) = (def + 1, rep + 1);
                    let (element, element_parent_def) = match repeated {
                        // 3-level: `repeated group list { <element> }`, Spark's standard
                        // `list`/`element` and its legacy `bag`/`array`.
                        Node::Group(r)
                            if r.annotation.is_none()
                                && r.children.len() == 1
                                && (r.name == "list" || r.name == "bag") =>
                        {
                            (Self::build(&r.children[0], rdef, rrep, next)?, rdef)
                        }
                        // 2-level legacy: `repeated <type> array`, the repeated node being the
                        // element itself (never null).
                        _ if repeated.name() == "array" => (
                            Self::build_as(repeated, Repetition::Required, rdef, rrep, next)?,
                            def,
                        ),
                        _ => return None,
                    };
                    Some(Shape::List {
                        def,
                        rep: rrep,
                        element_parent_def,
                        element: Box::new(element),
                        leaves: first..*next,
                    })
                }
                Some(GroupType::Map) => {
                    let [Node::Group(kv)] = &g.children[..] else {
                        return None;
                    };
                    if kv.repetition != Repetition::Repeated || kv.children.len() != 2 {
                        return None;
                    }
                    let (rdef, rrep) = (def + 1, rep + 1);
                    let key = Self::build(&kv.children[0], rdef, rrep, next)?;
                    let value = Self::build(&kv.children[1], rdef, rrep, next)?;
                    Some(Shape::Map {
                        def,
                        rep: rrep,
                        key: Box::new(key),
                        value: Box::new(value),
                        leaves: first..*next,
                    })
                }
                Some(GroupType::MapKeyValue) => None,
            },
        }
    }

    /// The first of its leaves (whose column name its errors give).
    fn first_leaf(&self) -> usize {
        match self {
            Shape::Leaf { leaf, .. } => *leaf,
            Shape::Struct { leaves, .. }
            | Shape::List { leaves, .. }
            | Shape::Map { leaves, .. } => leaves.start,
        }
    }

    /// Whether a slot holding this shape points at its bytes (`offset << 32 | size`) rather
    /// than holding the value.
    fn is_var(&self) -> bool {
        match self {
            Shape::Leaf { ty, .. } => matches!(
                ty,
                SparkType::String
                    | SparkType::Binary
                    | SparkType::Geo { .. }
                    | SparkType::Decimal { precision: 19.. }
            ),
            _ => true,
        }
    }

    /// Bytes an element of this shape takes in an array's fixed region.
    fn element_size(&self) -> usize {
        match self {
            Shape::Leaf { ty, .. } => match ty {
                SparkType::Boolean | SparkType::Byte => 1,
                SparkType::Short => 2,
                SparkType::Int | SparkType::Date | SparkType::Float => 4,
                _ => 8,
            },
            _ => 8,
        }
    }
}

/// A leaf's row type regardless of where it sits (`SparkType::of_column` for top-level ones).
fn leaf_type(f: &Field) -> Option<SparkType> {
    SparkType::of_leaf(f.physical, f.logical.as_ref())
}

/// One leaf column's levels and values for a batch.
pub(crate) struct LeafBuf {
    pub name: String,
    pub ty: SparkType,
    pub def: Vec<i16>,
    pub rep: Vec<i16>,
    bits: Vec<u8>,
    num_bits: usize,
    bytes: Vec<u8>,
    i32s: Vec<i32>,
    i64s: Vec<i64>,
    f32s: Vec<f32>,
    f64s: Vec<f64>,
    offsets: Vec<i32>,
}

impl LeafBuf {
    pub(crate) fn new(name: String, ty: SparkType) -> Self {
        LeafBuf {
            name,
            ty,
            def: Vec::new(),
            rep: Vec::new(),
            bits: Vec::new(),
            num_bits: 0,
            bytes: Vec::new(),
            i32s: Vec::new(),
            i64s: Vec::new(),
            f32s: Vec::new(),
            f64s: Vec::new(),
            offsets: Vec::new(),
        }
    }

    /// Rebases the leaf's datetime values (its values are the defined entries only).
    pub(crate) fn rebase(&mut self, rebases: &Rebases) -> Result<()> {
        let (ty, name) = (self.ty, &self.name);
        rebases.column(
            ty,
            name,
            &mut self.i32s,
            &mut self.i64s,
            &mut self.bytes,
            None,
        )
    }

    pub(crate) fn clear(&mut self) {
        self.def.clear();
        self.rep.clear();
        self.bits.clear();
        self.num_bits = 0;
        self.bytes.clear();
        self.i32s.clear();
        self.i64s.clear();
        self.f32s.clear();
        self.f64s.clear();
        self.offsets.clear();
        self.offsets.push(0);
    }

    pub(crate) fn capacity_bytes(&self) -> usize {
        2 * (self.def.capacity() + self.rep.capacity())
            + self.bits.capacity()
            + self.bytes.capacity()
            + 4 * (self.i32s.capacity() + self.f32s.capacity() + self.offsets.capacity())
            + 8 * (self.i64s.capacity() + self.f64s.capacity())
    }

    pub(crate) fn view(&self) -> ColumnView<'_> {
        let data = match self.ty {
            SparkType::Boolean => ColumnData::Boolean(&self.bits),
            SparkType::Byte | SparkType::Short | SparkType::Int | SparkType::Date => {
                ColumnData::Int32(&self.i32s)
            }
            SparkType::Decimal { precision } if precision <= 9 => ColumnData::Int32(&self.i32s),
            SparkType::Long
            | SparkType::TimestampMicros
            | SparkType::TimestampMillis
            | SparkType::TimestampNtz
            | SparkType::Time => ColumnData::Int64(&self.i64s),
            SparkType::Decimal { precision } if precision <= 18 => ColumnData::Int64(&self.i64s),
            SparkType::Decimal { precision } | SparkType::LegacyDecimal { precision } => {
                ColumnData::FixedBinary {
                    width: decimal_min_bytes(precision),
                    data: &self.bytes,
                }
            }
            SparkType::TimestampInt96 => ColumnData::FixedBinary {
                width: 12,
                data: &self.bytes,
            },
            SparkType::Float => ColumnData::Float(&self.f32s),
            SparkType::Double => ColumnData::Double(&self.f64s),
            SparkType::String | SparkType::Binary | SparkType::Geo { .. } => ColumnData::Binary {
                offsets: &self.offsets,
                data: &self.bytes,
            },
        };
        ColumnView::new(data).with_levels(&self.def, &self.rep)
    }

    /// [`Self::fill`] for a numeric leaf read straight from the slots of its structs (`entries`
    /// being the structs, their fixed parts checked), without an entry per value. False, with
    /// nothing appended, for the other types.
    fn fill_struct_field(&mut self, entries: &[Entry], batch: &[u8], s: StructSlots) -> bool {
        let (byte, bit, slot) = (s.field / 8, s.field % 8, s.slots_at + 8 * s.field);
        // Levels and values are written into slices sized for every entry (the values then cut
        // to those defined), not pushed: a push reloads the vector's length after each store.
        // A null field's slot is read and written over by the next value, without a branch.
        macro_rules! each {
            ($values:ident, $value:expr) => {{
                self.rep.extend(entries.iter().map(|e| e.rep));
                let (d0, v0) = (self.def.len(), self.$values.len());
                self.def.resize(d0 + entries.len(), 0);
                self.$values.resize(v0 + entries.len(), Default::default());
                let vals = &mut self.$values[v0..];
                let mut k = 0;
                for (e, d) in entries.iter().zip(&mut self.def[d0..]) {
                    if e.at == ABSENT {
                        *d = e.def;
                        continue;
                    }
                    let at = e.at as usize;
                    let null = batch[at + byte] >> bit & 1 == 1;
                    let w = &batch[at + slot..at + slot + 8];
                    // k never passes the entry's own index: within the slice.
                    vals[k] = $value(u64::from_le_bytes(w.try_into().expect("8 bytes")));
                    k += !null as usize;
                    *d = if null { s.null_def } else { s.def };
                }
                self.$values.truncate(v0 + k);
            }};
        }
        match self.ty {
            SparkType::Byte => each!(i32s, |w: u64| w as u8 as i8 as i32),
            SparkType::Short => each!(i32s, |w: u64| w as u16 as i16 as i32),
            SparkType::Int | SparkType::Date => each!(i32s, |w: u64| w as u32 as i32),
            SparkType::Decimal { precision } if precision <= 9 => {
                each!(i32s, |w: u64| w as i64 as i32)
            }
            SparkType::Long | SparkType::TimestampMicros | SparkType::TimestampNtz => {
                each!(i64s, |w: u64| w as i64)
            }
            SparkType::Decimal { precision } if precision <= 18 => each!(i64s, |w: u64| w as i64),
            SparkType::Float => each!(f32s, |w: u64| f32::from_bits(w as u32)),
            SparkType::Double => each!(f64s, f64::from_bits),
            _ => return false,
        }
        true
    }

    /// Appends the levels and values of `entries`, the leaf's occurrences in the batch; a
    /// present one is defined at `def` and its bytes are at `at` in `batch` (a fixed-width slot,
    /// or the bytes of a variable-length value).
    fn fill(&mut self, def: i16, entries: &[Entry], batch: &[u8]) -> Result<()> {
        self.rep.extend(entries.iter().map(|e| e.rep));
        self.def.extend(
            entries
                .iter()
                .map(|e| if e.at == ABSENT { e.def } else { def }),
        );
        // One loop per type: the type is matched once a call, not once a value.
        let present = entries.iter().filter(|e| e.at != ABSENT);
        let at = |e: &Entry| e.at as usize;
        match self.ty {
            SparkType::Boolean => {
                for e in present {
                    if self.num_bits.is_multiple_of(8) {
                        self.bits.push(0);
                    }
                    let last = self.bits.len() - 1;
                    self.bits[last] |= ((batch[at(e)] != 0) as u8) << (self.num_bits % 8);
                    self.num_bits += 1;
                }
            }
            SparkType::Byte => self.i32s.extend(present.map(|e| batch[at(e)] as i8 as i32)),
            SparkType::Short => self
                .i32s
                .extend(present.map(|e| i16::from_le_bytes(le(batch, e)) as i32)),
            SparkType::Int | SparkType::Date => self
                .i32s
                .extend(present.map(|e| i32::from_le_bytes(le(batch, e)))),
            SparkType::Decimal { precision } if precision <= 9 => self
                .i32s
                .extend(present.map(|e| i64::from_le_bytes(le(batch, e)) as i32)),
            SparkType::Long | SparkType::TimestampMicros | SparkType::TimestampNtz => self
                .i64s
                .extend(present.map(|e| i64::from_le_bytes(le(batch, e)))),
            SparkType::Decimal { precision } if precision <= 18 => self
                .i64s
                .extend(present.map(|e| i64::from_le_bytes(le(batch, e)))),
            SparkType::TimestampMillis | SparkType::Time => self
                .i64s
                .extend(present.map(|e| i64::from_le_bytes(le(batch, e)).div_euclid(1000))),
            SparkType::Float => self
                .f32s
                .extend(present.map(|e| f32::from_le_bytes(le(batch, e)))),
            SparkType::Double => self
                .f64s
                .extend(present.map(|e| f64::from_le_bytes(le(batch, e)))),
            SparkType::LegacyDecimal { precision } => {
                let width = decimal_min_bytes(precision);
                for e in present {
                    let be = i64::from_le_bytes(le(batch, e)).to_be_bytes();
                    self.bytes.extend_from_slice(&be[8 - width..]);
                }
            }
            SparkType::TimestampInt96 => {
                for e in present {
                    let micros = i64::from_le_bytes(le(batch, e));
                    self.bytes.extend_from_slice(&int96_from_micros(micros));
                }
            }
            SparkType::Decimal { precision } => {
                let width = decimal_min_bytes(precision);
                for e in present {
                    let b = &batch[at(e)..at(e) + e.len as usize];
                    if b.is_empty() || b.len() > width {
                        return Err(row_error(
                            &self.name,
                            e.row as usize,
                            format!(
                                "decimal of {} bytes does not fit DECIMAL({precision}) in {width}",
                                b.len()
                            ),
                        ));
                    }
                    let sign = if b[0] & 0x80 != 0 { 0xff } else { 0 };
                    self.bytes
                        .extend(std::iter::repeat_n(sign, width - b.len()));
                    self.bytes.extend_from_slice(b);
                }
            }
            SparkType::String | SparkType::Binary | SparkType::Geo { .. } => {
                for e in present {
                    let value = &batch[at(e)..at(e) + e.len as usize];
                    match self.ty {
                        SparkType::Geo { geography } => {
                            crate::wkb::append_spark_wkb(&mut self.bytes, value, geography)
                                .map_err(|m| row_error(&self.name, e.row as usize, m))?
                        }
                        _ => self.bytes.extend_from_slice(value),
                    }
                    let end = i32::try_from(self.bytes.len()).map_err(|_| Error::TooLarge {
                        column: self.name.clone(),
                        message: "more than 2 GiB of values in one batch".into(),
                    })?;
                    self.offsets.push(end);
                }
            }
        }
        Ok(())
    }
}

/// Where a struct field's null bit and slot are in each struct, and its definition levels.
#[derive(Clone, Copy)]
struct StructSlots {
    field: usize,
    slots_at: usize,
    /// The struct's level (the field null) and the field's (present).
    null_def: i16,
    def: i16,
}

/// The first `N` bytes of an entry's slot (little-endian values; every slot holds at least
/// its leaf type's width, as [`Shape::element_size`] sizes array slots).
#[inline(always)]
fn le<const N: usize>(batch: &[u8], e: &Entry) -> [u8; N] {
    let at = e.at as usize;
    batch[at..at + N].try_into().expect("N bytes")
}

/// `Entry::at` of an absent value. Batches hold less than 2 GiB (their offsets are i32), so no
/// value starts there.
const ABSENT: u32 = u32::MAX;

/// One occurrence of a node's value in the batch, in record order: its repetition level, and
/// either where its bytes are (`at` and `len`: the slot of a fixed-width leaf, or the bytes a
/// variable-length slot points at) or, when absent (`at == ABSENT`), the definition level
/// every leaf under it gets.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Entry {
    rep: i16,
    def: i16,
    /// The batch row it belongs to, for errors.
    row: u32,
    at: u32,
    len: u32,
}

impl Entry {
    fn absent(rep: i16, def: i16, row: u32) -> Self {
        Entry {
            rep,
            def,
            row,
            at: ABSENT,
            len: 0,
        }
    }
}

/// A row or an array in the batch: null bits and fixed-width slots over its bytes.
pub(crate) struct Container<'a> {
    batch: &'a [u8],
    /// Where the container starts in `batch`, and its length.
    base: usize,
    len: usize,
    nulls_at: usize,
    slots_at: usize,
    stride: usize,
    n: usize,
}

impl<'a> Container<'a> {
    /// A row of `n` fields at `base..base + len` of `batch` (a range of `batch`).
    pub(crate) fn row(
        batch: &'a [u8],
        base: usize,
        len: usize,
        n: usize,
        column: &str,
        r: usize,
    ) -> Result<Self> {
        let slots_at = n.div_ceil(64) * 8;
        if slots_at + 8 * n > len {
            return Err(row_error(
                column,
                r,
                format!(
                    "struct of {len} bytes, its {n} fields need at least {}",
                    slots_at + 8 * n
                ),
            ));
        }
        Ok(Container {
            batch,
            base,
            len,
            nulls_at: 0,
            slots_at,
            stride: 8,
            n,
        })
    }

    /// An array at `base..base + len` of `batch` (a range of `batch`).
    fn array(
        batch: &'a [u8],
        base: usize,
        len: usize,
        element_size: usize,
        column: &str,
        r: usize,
    ) -> Result<Self> {
        let bad = |m: String| Err(row_error(column, r, m));
        if len < 8 {
            return bad(format!("array of {len} bytes lacks its element count"));
        }
        let count = i64::from_le_bytes(batch[base..base + 8].try_into().unwrap());
        let n = match usize::try_from(count) {
            Ok(n) if n <= len * 8 => n,
            _ => return bad(format!("array element count {count} is not valid")),
        };
        let slots_at = 8 + n.div_ceil(64) * 8;
        if slots_at + n * element_size > len {
            return bad(format!(
                "array of {n} elements needs {} bytes, has {len}",
                slots_at + n * element_size,
            ));
        }
        Ok(Container {
            batch,
            base,
            len,
            nulls_at: 8,
            slots_at,
            stride: element_size,
            n,
        })
    }

    #[inline]
    pub(crate) fn is_null(&self, i: usize) -> bool {
        self.batch[self.base + self.nulls_at + i / 8] >> (i % 8) & 1 == 1
    }

    /// The entry of slot `i` (`i < n`) holding a present value of `shape`, at repetition level
    /// `rep` in row `r`.
    #[inline(always)]
    fn present(&self, i: usize, shape: &Shape, rep: i16, column: &str, r: u32) -> Result<Entry> {
        let slot = self.base + self.slots_at + i * self.stride;
        let container = Entry {
            rep,
            def: 0,
            row: r,
            at: self.base as u32,
            len: self.len as u32,
        };
        slot_entry(
            self.batch,
            slot,
            self.stride,
            shape.is_var(),
            &container,
            column,
        )
    }

    /// The entry of slot `i`: absent at `parent_def` when null.
    #[inline(always)]
    pub(crate) fn entry(
        &self,
        i: usize,
        shape: &Shape,
        rep: i16,
        parent_def: i16,
        column: &str,
        r: u32,
    ) -> Result<Entry> {
        if self.is_null(i) {
            Ok(Entry::absent(rep, parent_def, r))
        } else {
            self.present(i, shape, rep, column, r)
        }
    }
}

/// The entry of a present value in the slot at `slot` (of `stride` bytes) of the container
/// `c` (whose entry gives its bytes, repetition level and row): the slot itself for a
/// fixed-width leaf, else (`var`) the bytes its `offset << 32 | size` points at, checked to lie
/// in the container.
#[inline(always)]
fn slot_entry(
    batch: &[u8],
    slot: usize,
    stride: usize,
    var: bool,
    c: &Entry,
    column: &str,
) -> Result<Entry> {
    let (at, len) = if var {
        let word = u64::from_le_bytes(batch[slot..slot + 8].try_into().unwrap());
        let (offset, size) = ((word >> 32) as usize, (word & 0xffff_ffff) as usize);
        match offset.checked_add(size) {
            Some(end) if end <= c.len as usize => (c.at as usize + offset, size),
            _ => {
                return Err(row_error(
                    column,
                    c.row as usize,
                    format!(
                    "value of {size} bytes at offset {offset} runs past its container's {} bytes",
                    c.len
                ),
                ))
            }
        }
    } else {
        (slot, stride)
    };
    Ok(Entry {
        rep: c.rep,
        def: 0,
        row: c.row,
        at: at as u32,
        len: len as u32,
    })
}

/// Entry lists kept for the next nodes and batches.
#[derive(Default)]
pub(crate) struct Scratch(Vec<Vec<Entry>>);

impl Scratch {
    fn take(&mut self) -> Vec<Entry> {
        self.0.pop().unwrap_or_default()
    }

    fn give(&mut self, mut v: Vec<Entry>) {
        v.clear();
        self.0.push(v);
    }

    pub(crate) fn capacity_bytes(&self) -> usize {
        self.0
            .iter()
            .map(|v| v.capacity() * std::mem::size_of::<Entry>())
            .sum()
    }
}

/// Shreds field `field` of rows `first..` of the batch (rows `starts[i]..ends[i]` of `batch`,
/// each checked to hold the fixed part of `num_fields` fields) into the leaves of `shape`.
/// Callers pass a few rows at a time: each node reads them once per child, from cache.
#[allow(clippy::too_many_arguments)]
pub(crate) fn shred_rows(
    shape: &Shape,
    field: usize,
    num_fields: usize,
    batch: &[u8],
    first: usize,
    starts: &[usize],
    ends: &[i32],
    leaves: &mut [LeafBuf],
    scratch: &mut Scratch,
) -> Result<()> {
    let mut entries = scratch.take();
    {
        let name = &leaves[shape.first_leaf()].name;
        for (i, (&at, &end)) in starts.iter().zip(ends).enumerate() {
            let r = first + i;
            let row = Container::row(batch, at, end as usize - at, num_fields, name, r)?;
            entries.push(row.entry(field, shape, 0, 0, name, r as u32)?);
        }
    }
    shred(shape, &entries, batch, leaves, scratch)?;
    scratch.give(entries);
    Ok(())
}

/// Shreds `entries`, every occurrence of a node of `shape` in the batch in record order, into
/// the levels and values of its leaves: a node at a time, so that each leaf's values are read
/// in one loop of their type.
fn shred(
    shape: &Shape,
    entries: &[Entry],
    batch: &[u8],
    leaves: &mut [LeafBuf],
    scratch: &mut Scratch,
) -> Result<()> {
    match shape {
        Shape::Leaf { leaf, def, .. } => leaves[*leaf].fill(*def, entries, batch),
        Shape::Struct { def, fields, .. } => {
            // Each struct's fixed part is checked once; its fields are then read freely.
            let n = fields.len();
            let slots_at = n.div_ceil(64) * 8;
            {
                let column = &leaves[shape.first_leaf()].name;
                for e in entries.iter().filter(|e| e.at != ABSENT) {
                    Container::row(
                        batch,
                        e.at as usize,
                        e.len as usize,
                        n,
                        column,
                        e.row as usize,
                    )?;
                }
            }
            let mut children = scratch.take();
            for (f, field) in fields.iter().enumerate() {
                if let Shape::Leaf {
                    leaf,
                    def: leaf_def,
                    ..
                } = field
                {
                    let slots = StructSlots {
                        field: f,
                        slots_at,
                        null_def: *def,
                        def: *leaf_def,
                    };
                    if leaves[*leaf].fill_struct_field(entries, batch, slots) {
                        continue;
                    }
                }
                children.clear();
                let column = &leaves[field.first_leaf()].name;
                let var = field.is_var();
                for e in entries {
                    children.push(if e.at == ABSENT {
                        *e
                    } else if batch[e.at as usize + f / 8] >> (f % 8) & 1 == 1 {
                        Entry::absent(e.rep, *def, e.row)
                    } else {
                        let slot = e.at as usize + slots_at + 8 * f;
                        slot_entry(batch, slot, 8, var, e, column)?
                    });
                }
                shred(field, &children, batch, leaves, scratch)?;
            }
            scratch.give(children);
            Ok(())
        }
        Shape::List {
            def,
            rep: element_rep,
            element_parent_def,
            element,
            ..
        } => {
            let mut children = scratch.take();
            {
                let column = &leaves[shape.first_leaf()].name;
                let size = element.element_size();
                let var = element.is_var();
                for e in entries {
                    if e.at == ABSENT {
                        children.push(*e);
                        continue;
                    }
                    let (at, len, r) = (e.at as usize, e.len as usize, e.row);
                    let a = Container::array(batch, at, len, size, column, r as usize)?;
                    if a.n == 0 {
                        children.push(Entry::absent(e.rep, *def, r));
                    }
                    for i in 0..a.n {
                        let rep = if i == 0 { e.rep } else { *element_rep };
                        if a.is_null(i) {
                            if *element_parent_def == *def {
                                return Err(row_error(
                                    column,
                                    r as usize,
                                    "a null element in a list whose elements are required".into(),
                                ));
                            }
                            children.push(Entry::absent(rep, *element_parent_def, r));
                        } else if var {
                            children.push(a.present(i, element, rep, column, r)?);
                        } else {
                            // A fixed-width element: its slot, in the array checked above.
                            children.push(Entry {
                                rep,
                                def: 0,
                                row: r,
                                at: (at + a.slots_at + i * size) as u32,
                                len: size as u32,
                            });
                        }
                    }
                }
            }
            let done = shred(element, &children, batch, leaves, scratch);
            scratch.give(children);
            done
        }
        Shape::Map {
            def,
            rep: entry_rep,
            key,
            value,
            ..
        } => {
            let (mut keys, mut values) = (scratch.take(), scratch.take());
            {
                let column = &leaves[shape.first_leaf()].name;
                // Entries are defined one level below the map (the repeated key_value group).
                let entry_def = def + 1;
                for e in entries {
                    if e.at == ABSENT {
                        keys.push(*e);
                        values.push(*e);
                        continue;
                    }
                    let (at, len, r) = (e.at as usize, e.len as usize, e.row);
                    let bad = |m: String| row_error(column, r as usize, m);
                    if len < 8 {
                        return Err(bad("map lacks its key array size".into()));
                    }
                    let key_size = i64::from_le_bytes(batch[at..at + 8].try_into().unwrap());
                    let key_len = usize::try_from(key_size)
                        .ok()
                        .filter(|&k| k <= len - 8)
                        .ok_or_else(|| {
                            bad(format!("map key array size {key_size} is not valid"))
                        })?;
                    let ks = Container::array(
                        batch,
                        at + 8,
                        key_len,
                        key.element_size(),
                        column,
                        r as usize,
                    )?;
                    let vs = Container::array(
                        batch,
                        at + 8 + key_len,
                        len - 8 - key_len,
                        value.element_size(),
                        column,
                        r as usize,
                    )?;
                    if ks.n != vs.n {
                        return Err(bad(format!("map of {} keys and {} values", ks.n, vs.n)));
                    }
                    if ks.n == 0 {
                        keys.push(Entry::absent(e.rep, *def, r));
                        values.push(Entry::absent(e.rep, *def, r));
                    }
                    for i in 0..ks.n {
                        let rep = if i == 0 { e.rep } else { *entry_rep };
                        if ks.is_null(i) {
                            return Err(bad("a null map key".into()));
                        }
                        keys.push(ks.present(i, key, rep, column, r)?);
                        values.push(vs.entry(i, value, rep, entry_def, column, r)?);
                    }
                }
            }
            let done = shred(key, &keys, batch, leaves, scratch)
                .and_then(|()| shred(value, &values, batch, leaves, scratch));
            scratch.give(keys);
            scratch.give(values);
            done
        }
    }
}

#[cold]
#[inline(never)]
fn row_error(column: &str, row: usize, message: String) -> Error {
    Error::InvalidInput {
        column: column.to_string(),
        message: format!("UnsafeRow {row} of the batch: {message}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vecruntime_parquet::{Group, PhysicalType};

    fn int(name: &str, repetition: Repetition) -> Node {
        Field::new(name, PhysicalType::Int32, false)
            .with_repetition(repetition)
            .into()
    }

    fn list(repeated: Node) -> Node {
        Group::new("a", Repetition::Optional, vec![repeated])
            .with_annotation(GroupType::List)
            .into()
    }

    fn group(name: &str, repetition: Repetition, children: Vec<Node>) -> Node {
        Group::new(name, repetition, children).into()
    }

    /// Spark's layouts are shredded; other writers' list and map layouts are not (the JVM
    /// sends only Spark's, so anything else is a bug to refuse, not to guess at).
    #[test]
    fn only_sparks_layouts_have_a_shape() {
        use Repetition::*;
        let shape = |n: &Node| Shape::of(n, &mut 0);
        let elem = || int("element", Optional);
        assert!(shape(&list(group("list", Repeated, vec![elem()]))).is_some());
        assert!(shape(&list(group("bag", Repeated, vec![int("array", Optional)]))).is_some());
        assert!(shape(&list(int("array", Repeated))).is_some());
        // parquet-java's and Arrow's other names and forms.
        assert!(shape(&list(group("item", Repeated, vec![elem()]))).is_none());
        assert!(shape(&list(int("item", Repeated))).is_none());
        assert!(shape(&list(group("list", Repeated, vec![elem(), elem()]))).is_none());
        assert!(shape(&list(group("list", Optional, vec![elem()]))).is_none());
        let annotated = Group::new("list", Repeated, vec![elem()]).with_annotation(GroupType::List);
        assert!(shape(&list(annotated.into())).is_none());
        assert!(shape(&group("a", Optional, vec![])).is_some());
        let map = |kv: Node| -> Node {
            Group::new("m", Optional, vec![kv])
                .with_annotation(GroupType::Map)
                .into()
        };
        let (key, value) = (|| int("key", Required), || int("value", Optional));
        assert!(shape(&map(group("key_value", Repeated, vec![key(), value()]))).is_some());
        assert!(shape(&map(group("key_value", Optional, vec![key(), value()]))).is_none());
        assert!(shape(&map(group("key_value", Repeated, vec![key()]))).is_none());
        assert!(shape(&map(group("kv", Repeated, vec![key(), value(), value()]))).is_none());
        assert!(shape(&map(key())).is_none());
        // A repeated field outside a list or map.
        assert!(shape(&group("s", Optional, vec![int("r", Repeated)])).is_none());
    }

    #[test]
    fn scratch_counts_its_entry_lists_at_their_capacity() {
        let mut s = Scratch::default();
        let mut v = s.take();
        v.reserve_exact(10);
        let cap = v.capacity();
        s.give(v);
        assert_eq!(std::mem::size_of::<Entry>(), 16);
        assert_eq!(s.capacity_bytes(), cap * 16);
    }

    #[test]
    fn capacity_counts_every_buffer_at_its_element_size() {
        use std::mem::size_of;
        let mut l = LeafBuf::new("c".into(), SparkType::Int);
        // Distinct capacities: each buffer's bytes show in the sum on their own.
        l.def = Vec::with_capacity(3);
        l.rep = Vec::with_capacity(5);
        l.bits = Vec::with_capacity(7);
        l.bytes = Vec::with_capacity(11);
        l.i32s = Vec::with_capacity(13);
        l.f32s = Vec::with_capacity(17);
        l.offsets = Vec::with_capacity(19);
        l.i64s = Vec::with_capacity(23);
        l.f64s = Vec::with_capacity(29);
        let held = l.def.capacity() * size_of::<i16>()
            + l.rep.capacity() * size_of::<i16>()
            + l.bits.capacity()
            + l.bytes.capacity()
            + l.i32s.capacity() * size_of::<i32>()
            + l.f32s.capacity() * size_of::<f32>()
            + l.offsets.capacity() * size_of::<i32>()
            + l.i64s.capacity() * size_of::<i64>()
            + l.f64s.capacity() * size_of::<f64>();
        assert_eq!(held, 6 + 10 + 7 + 11 + 52 + 68 + 76 + 184 + 232);
        assert_eq!(l.capacity_bytes(), held);
    }
}
