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

use crate::int96::int96_from_micros;
use crate::rebase::Rebases;
use crate::row_layout::{bitset_bytes, fixed_bytes, row_error, var_span};
use crate::spark_type::{legacy_decimal, match_number, put_fixed, widen_decimal, SparkType};
use crate::values::Values;
use vecruntime_parquet::error::Result;
use vecruntime_parquet::schema::decimal_min_bytes;
use vecruntime_parquet::{ColumnView, Field, GroupType, Node, Repetition};

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
            Shape::Leaf { ty, .. } => ty.is_var(),
            _ => true,
        }
    }

    /// Bytes an element of this shape takes in an array's fixed region.
    fn element_size(&self) -> usize {
        match self {
            Shape::Leaf { ty, .. } => ty.value_width(),
            _ => 8,
        }
    }

    /// The row type of leaf `leaf` of the shape.
    pub(crate) fn leaf_type(&self, leaf: usize) -> Option<SparkType> {
        match self {
            Shape::Leaf { leaf: l, ty, .. } => (*l == leaf).then_some(*ty),
            Shape::Struct { fields, .. } => fields.iter().find_map(|f| f.leaf_type(leaf)),
            Shape::List { element, .. } => element.leaf_type(leaf),
            Shape::Map { key, value, .. } => key.leaf_type(leaf).or_else(|| value.leaf_type(leaf)),
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
    /// Booleans so far (their bitmap is `values.bytes`).
    num_bits: usize,
    values: Values,
}

impl LeafBuf {
    pub(crate) fn new(name: String, ty: SparkType) -> Self {
        LeafBuf {
            name,
            ty,
            def: Vec::new(),
            rep: Vec::new(),
            num_bits: 0,
            values: Values::default(),
        }
    }

    /// Rebases the leaf's datetime values (its values are the defined entries only).
    pub(crate) fn rebase(&mut self, rebases: &Rebases) -> Result<()> {
        rebases.column(self.ty, &self.name, &mut self.values, None)
    }

    pub(crate) fn clear(&mut self) {
        self.def.clear();
        self.rep.clear();
        self.num_bits = 0;
        self.values.clear();
        self.values.offsets.push(0);
    }

    pub(crate) fn capacity_bytes(&self) -> usize {
        2 * (self.def.capacity() + self.rep.capacity()) + self.values.capacity_bytes()
    }

    pub(crate) fn view(&self) -> ColumnView<'_> {
        ColumnView::new(self.values.data(self.ty)).with_levels(&self.def, &self.rep)
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
            ($values:ident, $width:expr, $value:expr) => {{
                self.rep.extend(entries.iter().map(|e| e.rep));
                let (d0, v0) = (self.def.len(), self.values.$values.len());
                self.def.resize(d0 + entries.len(), 0);
                self.values
                    .$values
                    .resize(v0 + entries.len(), Default::default());
                let vals = &mut self.values.$values[v0..];
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
                self.values.$values.truncate(v0 + k);
                true
            }};
        }
        match_number!(self.ty, each, false)
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
        let v = &mut self.values;
        macro_rules! each {
            ($values:ident, $width:expr, $value:expr) => {
                v.$values
                    .extend(present.map(|e| $value(le::<$width>(batch, e))))
            };
        }
        match_number!(self.ty, each, {
            match self.ty {
                SparkType::Boolean => {
                    for e in present {
                        if self.num_bits.is_multiple_of(8) {
                            v.bytes.push(0);
                        }
                        let last = v.bytes.len() - 1;
                        v.bytes[last] |= ((batch[at(e)] != 0) as u8) << (self.num_bits % 8);
                        self.num_bits += 1;
                    }
                }
                SparkType::LegacyDecimal { precision } => {
                    let width = decimal_min_bytes(precision);
                    for e in present {
                        let end = v.bytes.len() + width;
                        v.bytes.resize(end, 0);
                        legacy_decimal(&mut v.bytes[end - width..], le::<8>(batch, e) as i64);
                    }
                }
                SparkType::TimestampInt96 => {
                    for e in present {
                        let micros = le::<8>(batch, e) as i64;
                        v.bytes.extend_from_slice(&int96_from_micros(micros));
                    }
                }
                SparkType::Decimal { precision } => {
                    let width = decimal_min_bytes(precision);
                    for e in present {
                        let b = &batch[at(e)..at(e) + e.len as usize];
                        let end = v.bytes.len() + width;
                        v.bytes.resize(end, 0);
                        widen_decimal(&mut v.bytes[end - width..], b, precision)
                            .map_err(|m| row_error(&self.name, e.row as usize, m))?;
                    }
                }
                SparkType::FixedBinary { width } => {
                    let width = width as usize;
                    for e in present {
                        let b = &batch[at(e)..at(e) + e.len as usize];
                        let end = v.bytes.len() + width;
                        v.bytes.resize(end, 0);
                        put_fixed(&mut v.bytes[end - width..], b)
                            .map_err(|m| row_error(&self.name, e.row as usize, m))?;
                    }
                }
                SparkType::String | SparkType::Binary | SparkType::Geo { .. } => {
                    for e in present {
                        let value = &batch[at(e)..at(e) + e.len as usize];
                        v.append_var(self.ty, value)
                            .map_err(|m| row_error(&self.name, e.row as usize, m))?;
                        let end = v.end_offset(&self.name)?;
                        v.offsets.push(end);
                    }
                }
                // Numbers: filled above.
                _ => {}
            }
        });
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

/// The first `N` bytes of an entry's slot as a little-endian word, zero-extended (every slot
/// holds at least its leaf type's width, as [`Shape::element_size`] sizes array slots).
#[inline(always)]
fn le<const N: usize>(batch: &[u8], e: &Entry) -> u64 {
    let at = e.at as usize;
    let mut w = [0u8; 8];
    w[..N].copy_from_slice(&batch[at..at + N]);
    u64::from_le_bytes(w)
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
        let slots_at = bitset_bytes(n);
        if fixed_bytes(n) > len {
            return Err(row_error(
                column,
                r,
                format!(
                    "struct of {len} bytes, its {n} fields need at least {}",
                    fixed_bytes(n)
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
        let slots_at = 8 + bitset_bytes(n);
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
        match var_span(word, c.len as usize, "its container's") {
            Ok((offset, size)) => (c.at as usize + offset, size),
            Err(m) => return Err(row_error(column, c.row as usize, m)),
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
    let mut s = Shredder {
        batch,
        leaves,
        scratch,
    };
    s.shred(shape, &entries)?;
    s.scratch.give(entries);
    Ok(())
}

/// Shreds a node's occurrences into its leaves (see [`Shredder::shred`]).
struct Shredder<'a> {
    batch: &'a [u8],
    leaves: &'a mut [LeafBuf],
    scratch: &'a mut Scratch,
}

impl Shredder<'_> {
    /// Shreds `entries`, every occurrence of a node of `shape` in the batch in record order,
    /// into the levels and values of its leaves: a node at a time, so that each leaf's values
    /// are read in one loop of their type.
    fn shred(&mut self, shape: &Shape, entries: &[Entry]) -> Result<()> {
        match shape {
            Shape::Leaf { leaf, def, .. } => self.leaves[*leaf].fill(*def, entries, self.batch),
            Shape::Struct { def, fields, .. } => self.shred_struct(shape, *def, fields, entries),
            Shape::List {
                def,
                rep,
                element_parent_def,
                element,
                ..
            } => self.shred_list(shape, [*def, *rep, *element_parent_def], element, entries),
            Shape::Map {
                def,
                rep,
                key,
                value,
                ..
            } => self.shred_map(shape, [*def, *rep], key, value, entries),
        }
    }

    /// A struct's fields: a numeric leaf read straight from the structs' slots, any other
    /// field through the entries of its values.
    fn shred_struct(
        &mut self,
        shape: &Shape,
        def: i16,
        fields: &[Shape],
        entries: &[Entry],
    ) -> Result<()> {
        let def = &def;
        // Each struct's fixed part is checked once; its fields are then read freely.
        let n = fields.len();
        let slots_at = bitset_bytes(n);
        {
            let column = &self.leaves[shape.first_leaf()].name;
            for e in entries.iter().filter(|e| e.at != ABSENT) {
                Container::row(
                    self.batch,
                    e.at as usize,
                    e.len as usize,
                    n,
                    column,
                    e.row as usize,
                )?;
            }
        }
        let mut children = self.scratch.take();
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
                if self.leaves[*leaf].fill_struct_field(entries, self.batch, slots) {
                    continue;
                }
            }
            children.clear();
            let column = &self.leaves[field.first_leaf()].name;
            let var = field.is_var();
            for e in entries {
                children.push(if e.at == ABSENT {
                    *e
                } else if self.batch[e.at as usize + f / 8] >> (f % 8) & 1 == 1 {
                    Entry::absent(e.rep, *def, e.row)
                } else {
                    let slot = e.at as usize + slots_at + 8 * f;
                    slot_entry(self.batch, slot, 8, var, e, column)?
                });
            }
            self.shred(field, &children)?;
        }
        self.scratch.give(children);
        Ok(())
    }

    /// A list's elements: `levels` are the list's definition level, its elements' repetition
    /// level and the level its elements are shredded under.
    fn shred_list(
        &mut self,
        shape: &Shape,
        levels: [i16; 3],
        element: &Shape,
        entries: &[Entry],
    ) -> Result<()> {
        let [def, element_rep, element_parent_def] = levels;
        let (def, element_rep, element_parent_def) = (&def, &element_rep, &element_parent_def);
        let mut children = self.scratch.take();
        {
            let column = &self.leaves[shape.first_leaf()].name;
            let size = element.element_size();
            let var = element.is_var();
            for e in entries {
                if e.at == ABSENT {
                    children.push(*e);
                    continue;
                }
                let (at, len, r) = (e.at as usize, e.len as usize, e.row);
                let a = Container::array(self.batch, at, len, size, column, r as usize)?;
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
        let done = self.shred(element, &children);
        self.scratch.give(children);
        done
    }

    /// A map's keys and values: `levels` are the map's definition level and its entries'
    /// repetition level.
    fn shred_map(
        &mut self,
        shape: &Shape,
        levels: [i16; 2],
        key: &Shape,
        value: &Shape,
        entries: &[Entry],
    ) -> Result<()> {
        let [def, entry_rep] = levels;
        let (def, entry_rep) = (&def, &entry_rep);
        let (mut keys, mut values) = (self.scratch.take(), self.scratch.take());
        {
            let column = &self.leaves[shape.first_leaf()].name;
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
                let key_size = i64::from_le_bytes(self.batch[at..at + 8].try_into().unwrap());
                let key_len = usize::try_from(key_size)
                    .ok()
                    .filter(|&k| k <= len - 8)
                    .ok_or_else(|| bad(format!("map key array size {key_size} is not valid")))?;
                let ks = Container::array(
                    self.batch,
                    at + 8,
                    key_len,
                    key.element_size(),
                    column,
                    r as usize,
                )?;
                let vs = Container::array(
                    self.batch,
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
        let done = self
            .shred(key, &keys)
            .and_then(|()| self.shred(value, &values));
        self.scratch.give(keys);
        self.scratch.give(values);
        done
    }
}

#[cfg(test)]
mod tests;
