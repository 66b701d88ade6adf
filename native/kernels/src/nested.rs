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
                None => {
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

    fn leaves(&self) -> std::ops::Range<usize> {
        match self {
            Shape::Leaf { leaf, .. } => *leaf..*leaf + 1,
            Shape::Struct { leaves, .. }
            | Shape::List { leaves, .. }
            | Shape::Map { leaves, .. } => leaves.clone(),
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
    SparkType::of_leaf(f.physical, f.logical)
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
            SparkType::String | SparkType::Binary => ColumnData::Binary {
                offsets: &self.offsets,
                data: &self.bytes,
            },
        };
        ColumnView::new(data).with_levels(&self.def, &self.rep)
    }

    #[inline]
    fn level(&mut self, rep: i16, def: i16) {
        self.rep.push(rep);
        self.def.push(def);
    }

    /// Appends the value at index `i` of `c`.
    #[inline]
    fn value(&mut self, c: &Container, i: usize, row: usize) -> Result<()> {
        match self.ty {
            SparkType::Boolean => {
                let v = c.fixed(i, 1, &self.name, row)? != 0;
                if self.num_bits.is_multiple_of(8) {
                    self.bits.push(0);
                }
                let last = self.bits.len() - 1;
                self.bits[last] |= (v as u8) << (self.num_bits % 8);
                self.num_bits += 1;
            }
            SparkType::Byte => self
                .i32s
                .push(c.fixed(i, 1, &self.name, row)? as u8 as i8 as i32),
            SparkType::Short => self
                .i32s
                .push(c.fixed(i, 2, &self.name, row)? as u16 as i16 as i32),
            SparkType::Int | SparkType::Date => self
                .i32s
                .push(c.fixed(i, 4, &self.name, row)? as u32 as i32),
            SparkType::Decimal { precision } if precision <= 9 => self
                .i32s
                .push(c.fixed(i, 8, &self.name, row)? as i64 as i32),
            SparkType::Long | SparkType::TimestampMicros | SparkType::TimestampNtz => {
                self.i64s.push(c.fixed(i, 8, &self.name, row)? as i64)
            }
            SparkType::Decimal { precision } if precision <= 18 => {
                self.i64s.push(c.fixed(i, 8, &self.name, row)? as i64)
            }
            SparkType::TimestampMillis | SparkType::Time => self
                .i64s
                .push((c.fixed(i, 8, &self.name, row)? as i64).div_euclid(1000)),
            SparkType::Float => self
                .f32s
                .push(f32::from_bits(c.fixed(i, 4, &self.name, row)? as u32)),
            SparkType::Double => self
                .f64s
                .push(f64::from_bits(c.fixed(i, 8, &self.name, row)?)),
            SparkType::LegacyDecimal { precision } => {
                let be = c.fixed(i, 8, &self.name, row)?.to_be_bytes();
                self.bytes
                    .extend_from_slice(&be[8 - decimal_min_bytes(precision)..]);
            }
            SparkType::TimestampInt96 => {
                let micros = c.fixed(i, 8, &self.name, row)? as i64;
                self.bytes.extend_from_slice(&int96_from_micros(micros));
            }
            SparkType::Decimal { precision } => {
                let width = decimal_min_bytes(precision);
                let b = c.var(i, &self.name, row)?;
                if b.is_empty() || b.len() > width {
                    return Err(row_error(
                        &self.name,
                        row,
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
            SparkType::String | SparkType::Binary => {
                let b = c.var(i, &self.name, row)?;
                self.bytes.extend_from_slice(b);
                let end = i32::try_from(self.bytes.len()).map_err(|_| Error::TooLarge {
                    column: self.name.clone(),
                    message: "more than 2 GiB of values in one batch".into(),
                })?;
                self.offsets.push(end);
            }
        }
        Ok(())
    }
}

/// A row or an array: null bits and fixed-width slots over the bytes of the container.
pub(crate) struct Container<'a> {
    bytes: &'a [u8],
    nulls_at: usize,
    slots_at: usize,
    stride: usize,
    n: usize,
}

impl<'a> Container<'a> {
    /// A row of `n` fields (its fixed part already checked by the caller or here).
    pub(crate) fn row(bytes: &'a [u8], n: usize, column: &str, r: usize) -> Result<Self> {
        let slots_at = n.div_ceil(64) * 8;
        if slots_at + 8 * n > bytes.len() {
            return Err(row_error(
                column,
                r,
                format!(
                    "struct of {} bytes, its {n} fields need at least {}",
                    bytes.len(),
                    slots_at + 8 * n
                ),
            ));
        }
        Ok(Container {
            bytes,
            nulls_at: 0,
            slots_at,
            stride: 8,
            n,
        })
    }

    fn array(bytes: &'a [u8], element_size: usize, column: &str, r: usize) -> Result<Self> {
        let bad = |m: String| Err(row_error(column, r, m));
        if bytes.len() < 8 {
            return bad(format!(
                "array of {} bytes lacks its element count",
                bytes.len()
            ));
        }
        let count = i64::from_le_bytes(bytes[..8].try_into().unwrap());
        let n = match usize::try_from(count) {
            Ok(n) if n <= bytes.len() * 8 => n,
            _ => return bad(format!("array element count {count} is not valid")),
        };
        let slots_at = 8 + n.div_ceil(64) * 8;
        if slots_at + n * element_size > bytes.len() {
            return bad(format!(
                "array of {n} elements needs {} bytes, has {}",
                slots_at + n * element_size,
                bytes.len()
            ));
        }
        Ok(Container {
            bytes,
            nulls_at: 8,
            slots_at,
            stride: element_size,
            n,
        })
    }

    #[inline]
    pub(crate) fn is_null(&self, i: usize) -> bool {
        self.bytes[self.nulls_at + i / 8] >> (i % 8) & 1 == 1
    }

    /// `width` bytes (little-endian) at the start of slot `i`.
    #[inline]
    fn fixed(&self, i: usize, width: usize, column: &str, r: usize) -> Result<u64> {
        let at = self.slots_at + i * self.stride;
        if i >= self.n || width > self.stride || at + width > self.bytes.len() {
            return Err(row_error(column, r, format!("slot {i} out of bounds")));
        }
        let mut b = [0u8; 8];
        b[..width].copy_from_slice(&self.bytes[at..at + width]);
        Ok(u64::from_le_bytes(b))
    }

    /// The variable-length bytes slot `i` points at, from the container's start.
    fn var(&self, i: usize, column: &str, r: usize) -> Result<&'a [u8]> {
        let slot = self.fixed(i, 8, column, r)?;
        let offset = (slot >> 32) as usize;
        let size = (slot & 0xffff_ffff) as usize;
        match offset.checked_add(size) {
            Some(end) if end <= self.bytes.len() => Ok(&self.bytes[offset..end]),
            _ => Err(row_error(
                column,
                r,
                format!(
                    "value of {size} bytes at offset {offset} runs past its container's {} bytes",
                    self.bytes.len()
                ),
            )),
        }
    }
}

/// [`shred`] of value `i` of `c`, with a leaf (most values) handled here without a call.
#[inline(always)]
fn shred_child(
    shape: &Shape,
    c: &Container,
    i: usize,
    rep: i16,
    parent_def: i16,
    leaves: &mut [LeafBuf],
    row: usize,
) -> Result<()> {
    match shape {
        Shape::Leaf { leaf, def, .. } => {
            let l = &mut leaves[*leaf];
            if c.is_null(i) {
                l.level(rep, parent_def);
            } else {
                l.value(c, i, row)?;
                l.level(rep, *def);
            }
            Ok(())
        }
        _ => shred(shape, Some((c, i)), rep, parent_def, leaves, row),
    }
}

/// Shreds the value at index `i` of `c` (or a null, `None`) of `shape` into its leaves, at
/// repetition level `rep` under a parent defined at `parent_def`.
pub(crate) fn shred(
    shape: &Shape,
    value: Option<(&Container, usize)>,
    rep: i16,
    parent_def: i16,
    leaves: &mut [LeafBuf],
    row: usize,
) -> Result<()> {
    let Some((c, i)) = value.filter(|(c, i)| !c.is_null(*i)) else {
        for l in &mut leaves[shape.leaves()] {
            l.level(rep, parent_def);
        }
        return Ok(());
    };
    match shape {
        Shape::Leaf { leaf, def, .. } => {
            let l = &mut leaves[*leaf];
            l.value(c, i, row)?;
            l.level(rep, *def);
        }
        Shape::Struct { def, fields, .. } => {
            let name = &leaves[shape.leaves().start].name;
            let bytes = c.var(i, name, row)?;
            let s = Container::row(bytes, fields.len(), name, row)?;
            for (f, field) in fields.iter().enumerate() {
                shred_child(field, &s, f, rep, *def, leaves, row)?;
            }
        }
        Shape::List {
            def,
            rep: element_rep,
            element_parent_def,
            element,
            ..
        } => {
            let name = &leaves[shape.leaves().start].name;
            let a = Container::array(c.var(i, name, row)?, element.element_size(), name, row)?;
            if a.n == 0 {
                for l in &mut leaves[shape.leaves()] {
                    l.level(rep, *def);
                }
            }
            for e in 0..a.n {
                let r = if e == 0 { rep } else { *element_rep };
                if *element_parent_def == *def && a.is_null(e) {
                    return Err(row_error(
                        &leaves[shape.leaves().start].name,
                        row,
                        "a null element in a list whose elements are required".into(),
                    ));
                }
                shred_child(element, &a, e, r, *element_parent_def, leaves, row)?;
            }
        }
        Shape::Map {
            def,
            rep: entry_rep,
            key,
            value,
            ..
        } => {
            let (keys, values) = {
                let name = &leaves[shape.leaves().start].name;
                let bytes = c.var(i, name, row)?;
                if bytes.len() < 8 {
                    return Err(row_error(name, row, "map lacks its key array size".into()));
                }
                let key_size = i64::from_le_bytes(bytes[..8].try_into().unwrap());
                let keys_end = usize::try_from(key_size)
                    .ok()
                    .and_then(|k| k.checked_add(8))
                    .filter(|&e| e <= bytes.len())
                    .ok_or_else(|| {
                        row_error(
                            name,
                            row,
                            format!("map key array size {key_size} is not valid"),
                        )
                    })?;
                let keys = Container::array(&bytes[8..keys_end], key.element_size(), name, row)?;
                let values = Container::array(&bytes[keys_end..], value.element_size(), name, row)?;
                if keys.n != values.n {
                    return Err(row_error(
                        name,
                        row,
                        format!("map of {} keys and {} values", keys.n, values.n),
                    ));
                }
                (keys, values)
            };
            if keys.n == 0 {
                for l in &mut leaves[shape.leaves()] {
                    l.level(rep, *def);
                }
            }
            // Entries are defined one level below the map (the repeated key_value group).
            let entry_def = def + 1;
            for e in 0..keys.n {
                let r = if e == 0 { rep } else { *entry_rep };
                if keys.is_null(e) {
                    let name = &leaves[shape.leaves().start].name;
                    return Err(row_error(name, row, "a null map key".into()));
                }
                shred_child(key, &keys, e, r, entry_def, leaves, row)?;
                shred_child(value, &values, e, r, entry_def, leaves, row)?;
            }
        }
    }
    Ok(())
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
