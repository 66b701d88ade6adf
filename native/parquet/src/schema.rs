//! Parquet schemas: a tree of groups whose leaves are primitive fields. Each leaf is one
//! column chunk per row group, described by a [`ColumnDescriptor`]: its path, its maximum
//! definition and repetition levels, its physical and logical type.

use crate::error::{Error, Result};

/// Parquet physical types (the `Type` enum of parquet.thrift).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PhysicalType {
    Boolean,
    Int32,
    Int64,
    Int96,
    Float,
    Double,
    ByteArray,
    /// Fixed-length byte array of the given width in bytes.
    FixedLenByteArray(usize),
}

impl PhysicalType {
    pub(crate) fn thrift_id(self) -> i32 {
        match self {
            PhysicalType::Boolean => 0,
            PhysicalType::Int32 => 1,
            PhysicalType::Int64 => 2,
            PhysicalType::Int96 => 3,
            PhysicalType::Float => 4,
            PhysicalType::Double => 5,
            PhysicalType::ByteArray => 6,
            PhysicalType::FixedLenByteArray(_) => 7,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            PhysicalType::Boolean => "BOOLEAN",
            PhysicalType::Int32 => "INT32",
            PhysicalType::Int64 => "INT64",
            PhysicalType::Int96 => "INT96",
            PhysicalType::Float => "FLOAT",
            PhysicalType::Double => "DOUBLE",
            PhysicalType::ByteArray => "BYTE_ARRAY",
            PhysicalType::FixedLenByteArray(_) => "FIXED_LEN_BYTE_ARRAY",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeUnit {
    Millis,
    Micros,
}

/// How a GEOGRAPHY's edges run between its points (parquet.thrift
/// `EdgeInterpolationAlgorithm`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EdgeAlgorithm {
    Spherical,
    Vincenty,
    Thomas,
    Andoyer,
    Karney,
}

impl EdgeAlgorithm {
    pub fn thrift_id(self) -> i32 {
        self as i32
    }

    pub fn from_thrift_id(id: i32) -> Option<Self> {
        use EdgeAlgorithm::*;
        [Spherical, Vincenty, Thomas, Andoyer, Karney]
            .into_iter()
            .find(|a| a.thrift_id() == id)
    }
}

/// Logical type annotations of leaves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LogicalType {
    String,
    /// Signed integer narrower than the physical type (Spark's ByteType, ShortType).
    Int {
        bit_width: u8,
    },
    Date,
    Decimal {
        precision: u32,
        scale: u32,
    },
    Timestamp {
        unit: TimeUnit,
        adjusted_to_utc: bool,
    },
    /// Time of day: millis in INT32 or micros in INT64.
    Time {
        unit: TimeUnit,
        adjusted_to_utc: bool,
    },
    /// Always null (parquet.thrift's `NullType`, parquet-java's UNKNOWN): Spark's void columns.
    Unknown,
    /// A UUID's 16 bytes, big-endian (Iceberg's uuid).
    Uuid,
    /// WKB geometries on a plane, in the coordinate reference system `crs` (none: OGC:CRS84).
    Geometry {
        crs: Option<String>,
    },
    /// WKB geometries on the sphere or an ellipsoid, whose edges follow `algorithm`.
    Geography {
        crs: Option<String>,
        algorithm: Option<EdgeAlgorithm>,
    },
}

/// How often a field occurs in its parent (parquet.thrift `FieldRepetitionType`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Repetition {
    Required,
    Optional,
    Repeated,
}

impl Repetition {
    pub(crate) fn thrift_id(self) -> i32 {
        match self {
            Repetition::Required => 0,
            Repetition::Optional => 1,
            Repetition::Repeated => 2,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Repetition::Required => "required",
            Repetition::Optional => "optional",
            Repetition::Repeated => "repeated",
        }
    }
}

/// A primitive field: a leaf of the schema tree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Field {
    pub name: String,
    pub physical: PhysicalType,
    pub logical: Option<LogicalType>,
    pub repetition: Repetition,
    pub field_id: Option<i32>,
}

impl Field {
    pub fn new(name: impl Into<String>, physical: PhysicalType, nullable: bool) -> Self {
        Field {
            name: name.into(),
            physical,
            logical: None,
            repetition: if nullable {
                Repetition::Optional
            } else {
                Repetition::Required
            },
            field_id: None,
        }
    }

    pub fn with_repetition(mut self, repetition: Repetition) -> Self {
        self.repetition = repetition;
        self
    }

    pub fn nullable(&self) -> bool {
        self.repetition == Repetition::Optional
    }

    pub fn with_logical(mut self, logical: LogicalType) -> Self {
        self.logical = Some(logical);
        self
    }

    pub fn with_field_id(mut self, id: i32) -> Self {
        self.field_id = Some(id);
        self
    }

    /// A decimal in the physical type Spark picks for its precision: INT32 up to 9 digits,
    /// INT64 up to 18, otherwise FIXED_LEN_BYTE_ARRAY of the minimal width.
    pub fn decimal(name: impl Into<String>, precision: u32, scale: u32, nullable: bool) -> Self {
        let physical = if precision <= 9 {
            PhysicalType::Int32
        } else if precision <= 18 {
            PhysicalType::Int64
        } else {
            PhysicalType::FixedLenByteArray(decimal_min_bytes(precision))
        };
        Field::new(name, physical, nullable).with_logical(LogicalType::Decimal { precision, scale })
    }

    pub(crate) fn converted_type(&self) -> Option<i32> {
        Some(match self.logical.as_ref()? {
            LogicalType::Unknown
            | LogicalType::Uuid
            | LogicalType::Geometry { .. }
            | LogicalType::Geography { .. } => return None,
            LogicalType::String => 0,
            LogicalType::Decimal { .. } => 5,
            LogicalType::Date => 6,
            LogicalType::Timestamp {
                unit: TimeUnit::Millis,
                ..
            } => 9,
            LogicalType::Timestamp {
                unit: TimeUnit::Micros,
                ..
            } => 10,
            LogicalType::Time {
                unit: TimeUnit::Millis,
                ..
            } => 7,
            LogicalType::Time {
                unit: TimeUnit::Micros,
                ..
            } => 8,
            LogicalType::Int { bit_width: 8 } => 15,
            LogicalType::Int { bit_width: 16 } => 16,
            LogicalType::Int { bit_width: 32 } => 17,
            LogicalType::Int { .. } => 18,
        })
    }

    fn validate(&self) -> Result<()> {
        let bad = |msg: String| Err(Error::Schema(format!("column '{}': {msg}", self.name)));
        if let PhysicalType::FixedLenByteArray(w) = self.physical {
            if w == 0 || w > i32::MAX as usize {
                return bad(format!("FIXED_LEN_BYTE_ARRAY width {w} is not valid"));
            }
        }
        match (&self.logical, self.physical) {
            (None, _) => Ok(()),
            (
                Some(
                    LogicalType::String
                    | LogicalType::Geometry { .. }
                    | LogicalType::Geography { .. },
                ),
                PhysicalType::ByteArray,
            ) => Ok(()),
            (
                Some(LogicalType::Int {
                    bit_width: 8 | 16 | 32,
                }),
                PhysicalType::Int32,
            ) => Ok(()),
            (Some(LogicalType::Int { bit_width: 64 }), PhysicalType::Int64) => Ok(()),
            (Some(LogicalType::Date), PhysicalType::Int32) => Ok(()),
            (Some(LogicalType::Timestamp { .. }), PhysicalType::Int64) => Ok(()),
            (Some(LogicalType::Unknown), _) => Ok(()),
            (Some(LogicalType::Uuid), PhysicalType::FixedLenByteArray(16)) => Ok(()),
            (
                Some(LogicalType::Time {
                    unit: TimeUnit::Millis,
                    ..
                }),
                PhysicalType::Int32,
            )
            | (
                Some(LogicalType::Time {
                    unit: TimeUnit::Micros,
                    ..
                }),
                PhysicalType::Int64,
            ) => Ok(()),
            (&Some(LogicalType::Decimal { precision, scale }), p) => {
                if precision == 0 || scale > precision {
                    return bad(format!("DECIMAL({precision},{scale}) is not valid"));
                }
                let max = match p {
                    PhysicalType::Int32 => 9,
                    PhysicalType::Int64 => 18,
                    PhysicalType::FixedLenByteArray(w) => max_decimal_precision(w),
                    PhysicalType::ByteArray => u32::MAX,
                    _ => 0,
                };
                if precision > max {
                    return bad(format!(
                        "DECIMAL({precision},{scale}) does not fit in {}",
                        p.name()
                    ));
                }
                Ok(())
            }
            (Some(l), p) => bad(format!("logical type {l:?} cannot annotate {}", p.name())),
        }
    }
}

/// Bytes needed to hold any unscaled value of a decimal of `precision` digits.
pub fn decimal_min_bytes(precision: u32) -> usize {
    let mut bytes = 1;
    while max_decimal_precision(bytes) < precision {
        bytes += 1;
    }
    bytes
}

fn max_decimal_precision(bytes: usize) -> u32 {
    // floor(log10(2^(8*bytes-1) - 1))
    let bits = 8.0 * bytes as f64 - 1.0;
    (bits * std::f64::consts::LOG10_2).floor() as u32
}

/// The annotation of a group (parquet.thrift `ConvertedType` and `LogicalType`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GroupType {
    List,
    Map,
    /// The legacy annotation of a map's repeated key/value group.
    MapKeyValue,
    /// A Variant's group (its `value` and `metadata`, shredded or not), with the version of the
    /// Variant specification it follows.
    Variant {
        spec_version: i8,
    },
}

impl GroupType {
    /// parquet.thrift's `ConvertedType`; a Variant has none.
    pub(crate) fn converted_type(self) -> Option<i32> {
        match self {
            GroupType::Map => Some(1),
            GroupType::MapKeyValue => Some(2),
            GroupType::List => Some(3),
            GroupType::Variant { .. } => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            GroupType::List => "LIST",
            GroupType::Map => "MAP",
            GroupType::MapKeyValue => "MAP_KEY_VALUE",
            GroupType::Variant { .. } => "VARIANT",
        }
    }
}

/// A group field: an inner node of the schema tree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Group {
    pub name: String,
    pub repetition: Repetition,
    pub annotation: Option<GroupType>,
    pub field_id: Option<i32>,
    pub children: Vec<Node>,
}

impl Group {
    pub fn new(name: impl Into<String>, repetition: Repetition, children: Vec<Node>) -> Self {
        Group {
            name: name.into(),
            repetition,
            annotation: None,
            field_id: None,
            children,
        }
    }

    /// A list in the standard 3-level layout:
    /// `<repetition> group <name> (LIST) { repeated group list { <element> } }`.
    pub fn list(name: impl Into<String>, repetition: Repetition, element: Node) -> Self {
        let list = Group::new("list", Repetition::Repeated, vec![element]);
        Group::new(name, repetition, vec![list.into()]).with_annotation(GroupType::List)
    }

    /// A map in the standard layout:
    /// `<repetition> group <name> (MAP) { repeated group key_value { <key>; <value> } }`.
    pub fn map(name: impl Into<String>, repetition: Repetition, key: Node, value: Node) -> Self {
        let kv = Group::new("key_value", Repetition::Repeated, vec![key, value]);
        Group::new(name, repetition, vec![kv.into()]).with_annotation(GroupType::Map)
    }

    pub fn with_annotation(mut self, annotation: GroupType) -> Self {
        self.annotation = Some(annotation);
        self
    }

    pub fn with_field_id(mut self, id: i32) -> Self {
        self.field_id = Some(id);
        self
    }
}

/// A node of the schema tree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Node {
    Leaf(Field),
    Group(Group),
}

impl Node {
    pub fn name(&self) -> &str {
        match self {
            Node::Leaf(f) => &f.name,
            Node::Group(g) => &g.name,
        }
    }

    pub fn repetition(&self) -> Repetition {
        match self {
            Node::Leaf(f) => f.repetition,
            Node::Group(g) => g.repetition,
        }
    }
}

impl From<Field> for Node {
    fn from(f: Field) -> Self {
        Node::Leaf(f)
    }
}

impl From<Group> for Node {
    fn from(g: Group) -> Self {
        Node::Group(g)
    }
}

/// One leaf column as the column writers see it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ColumnDescriptor {
    /// Names from the root's child down to the leaf.
    pub path: Vec<String>,
    /// The path joined by dots, as parquet-java's `ColumnPath.toDotString` (per-column options
    /// and error messages name a column by it).
    pub name: String,
    pub physical: PhysicalType,
    pub logical: Option<LogicalType>,
    /// Optional and repeated fields on the path, leaf included.
    pub max_def: i16,
    /// Repeated fields on the path, leaf included.
    pub max_rep: i16,
}

impl ColumnDescriptor {
    pub fn is_decimal(&self) -> bool {
        matches!(self.logical, Some(LogicalType::Decimal { .. }))
    }

    /// A top-level column that may hold nulls (one definition level, no repetition).
    pub fn is_flat(&self) -> bool {
        self.max_rep == 0 && self.max_def <= 1
    }
}

/// A schema: the root group (Spark names it `spark_schema`), its fields, and its leaf columns
/// in depth-first order (the order of the column chunks).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Schema {
    pub root_name: String,
    pub fields: Vec<Node>,
    columns: Vec<ColumnDescriptor>,
}

impl Schema {
    /// A flat schema of primitive fields.
    pub fn new(fields: Vec<Field>) -> Result<Self> {
        Self::with_root_name("spark_schema", fields)
    }

    pub fn with_root_name(root: impl Into<String>, fields: Vec<Field>) -> Result<Self> {
        Self::from_nodes(root, fields.into_iter().map(Node::Leaf).collect())
    }

    /// A schema of any depth.
    pub fn from_nodes(root: impl Into<String>, fields: Vec<Node>) -> Result<Self> {
        let mut columns = Vec::new();
        let mut path = Vec::new();
        check_children(&fields, &mut path, 0, 0, &mut columns)?;
        Ok(Schema {
            root_name: root.into(),
            fields,
            columns,
        })
    }

    /// The leaf columns, in the order of their chunks.
    pub fn columns(&self) -> &[ColumnDescriptor] {
        &self.columns
    }

    /// Nodes in depth-first order, each with its number of children (0 for leaves): the order
    /// of the footer's schema elements.
    pub(crate) fn walk(&self, mut f: impl FnMut(&Node)) {
        fn go(nodes: &[Node], f: &mut impl FnMut(&Node)) {
            for n in nodes {
                f(n);
                if let Node::Group(g) = n {
                    go(&g.children, f);
                }
            }
        }
        go(&self.fields, &mut f);
    }

    /// Number of schema elements below the root.
    pub(crate) fn num_nodes(&self) -> usize {
        let mut n = 0;
        self.walk(|_| n += 1);
        n
    }
}

fn check_children(
    nodes: &[Node],
    path: &mut Vec<String>,
    def: i16,
    rep: i16,
    columns: &mut Vec<ColumnDescriptor>,
) -> Result<()> {
    let mut names: Vec<&str> = nodes.iter().map(Node::name).collect();
    names.sort_unstable();
    if let Some(w) = names.windows(2).find(|w| w[0] == w[1]) {
        let mut full = path.clone();
        full.push(w[0].to_string());
        return Err(Error::Schema(format!(
            "column '{}' appears twice",
            full.join(".")
        )));
    }
    for node in nodes {
        // Levels are i16, as readers (arrow-rs among them) hold them.
        let levels = match node.repetition() {
            Repetition::Required => Some((def, rep)),
            Repetition::Optional => def.checked_add(1).map(|d| (d, rep)),
            Repetition::Repeated => def.checked_add(1).zip(rep.checked_add(1)),
        };
        path.push(node.name().to_string());
        let Some((d, r)) = levels else {
            return Err(Error::Schema(format!(
                "column '{}' is nested too deeply",
                path.join(".")
            )));
        };
        match node {
            Node::Leaf(f) => {
                let name = path.join(".");
                f.validate().map_err(|e| rename(e, &f.name, &name))?;
                columns.push(ColumnDescriptor {
                    path: path.clone(),
                    name,
                    physical: f.physical,
                    logical: f.logical.clone(),
                    max_def: d,
                    max_rep: r,
                });
            }
            Node::Group(g) => {
                if g.children.is_empty() {
                    return Err(Error::Schema(format!(
                        "group '{}' has no fields",
                        path.join(".")
                    )));
                }
                check_children(&g.children, path, d, r, columns)?;
            }
        }
        path.pop();
    }
    Ok(())
}

/// A leaf's own error, naming it by its full path.
fn rename(e: Error, leaf: &str, path: &str) -> Error {
    match e {
        Error::Schema(m) if leaf != path => {
            Error::Schema(m.replacen(&format!("'{leaf}'"), &format!("'{path}'"), 1))
        }
        e => e,
    }
}
