//! The schema as the Java side sends it (`ParquetSchema.spec`): the tree in depth-first order,
//! names in one array (the node names, then the strings nodes refer to) and, per node,
//! [`INTS_PER_NODE`] ints after a two-int header:
//!
//! `[VERSION, node count]`, then per node
//! `[kind, repetition, children, physical, type length, logical, a, b, has field id, field id]`
//!
//! * kind: [`KIND_LEAF`] or [`KIND_GROUP`]; `children` counts a group's direct children.
//! * repetition: parquet.thrift `FieldRepetitionType` ids.
//! * physical (leaves): parquet.thrift `Type` ids; `type length` is the FIXED_LEN_BYTE_ARRAY width.
//! * logical: for leaves [`LOGICAL_NONE`], STRING, INT (bit width `a`), DATE, DECIMAL
//!   (precision `a`, scale `b`), TIMESTAMP and TIME (unit `a`: millis or micros, adjusted to
//!   UTC `b != 0`), UNKNOWN (always null), GEOMETRY (CRS: the string at `a` of the names
//!   array, -1 for none), GEOGRAPHY (CRS as GEOMETRY's, edge algorithm `b`: parquet.thrift's
//!   `EdgeInterpolationAlgorithm` id, -1 for none); for groups none, LIST, MAP, MAP_KEY_VALUE,
//!   VARIANT (specification version `a`).
//!
//! Every code is named in [`CODES`], which the Java side checks against its own constants.

use crate::errors::{argument, JniResult};
use crate::split_spec;
use vecruntime_kernels::spark_type::SparkType;
use vecruntime_parquet::{
    EdgeAlgorithm, Field, Group, GroupType, LogicalType, Node, PhysicalType, Repetition, Schema,
    TimeUnit,
};

/// Bumped whenever the layout below changes; the Java side sends the version it was built for.
pub const VERSION: i32 = 2;
pub const INTS_PER_NODE: usize = 10;

pub const KIND_LEAF: i32 = 1;
pub const KIND_GROUP: i32 = 2;

pub const REPETITION_REQUIRED: i32 = 0;
pub const REPETITION_OPTIONAL: i32 = 1;
pub const REPETITION_REPEATED: i32 = 2;

pub const PHYSICAL_BOOLEAN: i32 = 0;
pub const PHYSICAL_INT32: i32 = 1;
pub const PHYSICAL_INT64: i32 = 2;
pub const PHYSICAL_INT96: i32 = 3;
pub const PHYSICAL_FLOAT: i32 = 4;
pub const PHYSICAL_DOUBLE: i32 = 5;
pub const PHYSICAL_BYTE_ARRAY: i32 = 6;
pub const PHYSICAL_FIXED_LEN_BYTE_ARRAY: i32 = 7;

pub const LOGICAL_NONE: i32 = 0;
pub const LOGICAL_STRING: i32 = 1;
pub const LOGICAL_INT: i32 = 2;
pub const LOGICAL_DATE: i32 = 3;
pub const LOGICAL_DECIMAL: i32 = 4;
pub const LOGICAL_TIMESTAMP: i32 = 5;
pub const LOGICAL_TIME: i32 = 6;
pub const LOGICAL_UNKNOWN: i32 = 7;
pub const LOGICAL_GEOMETRY: i32 = 8;
pub const LOGICAL_GEOGRAPHY: i32 = 9;
pub const LOGICAL_LIST: i32 = 10;
pub const LOGICAL_MAP: i32 = 11;
pub const LOGICAL_MAP_KEY_VALUE: i32 = 12;
pub const LOGICAL_VARIANT: i32 = 13;
pub const LOGICAL_UUID: i32 = 14;

pub const UNIT_MILLIS: i32 = 0;
pub const UNIT_MICROS: i32 = 1;

/// Rebase modes of `configureRebase` (Spark's `LegacyBehaviorPolicy`).
pub const REBASE_CORRECTED: i32 = 0;
pub const REBASE_LEGACY: i32 = 1;
pub const REBASE_EXCEPTION: i32 = 2;

/// How rows are read into each column (`RowType` on the Java side): `[code, precision]` per
/// column, the precision for the decimals.
pub const ROW_BOOLEAN: i32 = 0;
pub const ROW_BYTE: i32 = 1;
pub const ROW_SHORT: i32 = 2;
pub const ROW_INT: i32 = 3;
pub const ROW_LONG: i32 = 4;
pub const ROW_FLOAT: i32 = 5;
pub const ROW_DOUBLE: i32 = 6;
pub const ROW_DATE: i32 = 7;
pub const ROW_TIMESTAMP_INT96: i32 = 8;
pub const ROW_TIMESTAMP_MICROS: i32 = 9;
pub const ROW_TIMESTAMP_MILLIS: i32 = 10;
pub const ROW_TIMESTAMP_NTZ: i32 = 11;
pub const ROW_DECIMAL: i32 = 12;
pub const ROW_STRING: i32 = 13;
pub const ROW_BINARY: i32 = 14;
pub const ROW_LEGACY_DECIMAL: i32 = 15;
pub const ROW_TIME: i32 = 16;
pub const ROW_GEOMETRY: i32 = 17;
pub const ROW_GEOGRAPHY: i32 = 18;
/// BinaryType as FIXED_LEN_BYTE_ARRAY: `[code, width]`.
pub const ROW_FIXED_BINARY: i32 = 19;

/// A row type's code: `[code, precision]`.
pub const fn row_type_code(t: SparkType) -> [i32; 2] {
    let code = match t {
        SparkType::Boolean => ROW_BOOLEAN,
        SparkType::Byte => ROW_BYTE,
        SparkType::Short => ROW_SHORT,
        SparkType::Int => ROW_INT,
        SparkType::Long => ROW_LONG,
        SparkType::Float => ROW_FLOAT,
        SparkType::Double => ROW_DOUBLE,
        SparkType::Date => ROW_DATE,
        SparkType::TimestampInt96 => ROW_TIMESTAMP_INT96,
        SparkType::TimestampMicros => ROW_TIMESTAMP_MICROS,
        SparkType::TimestampMillis => ROW_TIMESTAMP_MILLIS,
        SparkType::TimestampNtz => ROW_TIMESTAMP_NTZ,
        SparkType::Time => ROW_TIME,
        SparkType::Decimal { precision } => return [ROW_DECIMAL, precision as i32],
        SparkType::LegacyDecimal { precision } => return [ROW_LEGACY_DECIMAL, precision as i32],
        SparkType::FixedBinary { width } => return [ROW_FIXED_BINARY, width as i32],
        SparkType::String => ROW_STRING,
        SparkType::Binary => ROW_BINARY,
        SparkType::Geo { geography: false } => ROW_GEOMETRY,
        SparkType::Geo { geography: true } => ROW_GEOGRAPHY,
    };
    [code, 0]
}

/// The row type of a code and precision ([`row_type_code`] undone); `None` for a code or a
/// decimal precision Spark does not write.
pub fn row_type(code: i32, precision: i32) -> Option<SparkType> {
    Some(match code {
        ROW_BOOLEAN => SparkType::Boolean,
        ROW_BYTE => SparkType::Byte,
        ROW_SHORT => SparkType::Short,
        ROW_INT => SparkType::Int,
        ROW_LONG => SparkType::Long,
        ROW_FLOAT => SparkType::Float,
        ROW_DOUBLE => SparkType::Double,
        ROW_DATE => SparkType::Date,
        ROW_TIMESTAMP_INT96 => SparkType::TimestampInt96,
        ROW_TIMESTAMP_MICROS => SparkType::TimestampMicros,
        ROW_TIMESTAMP_MILLIS => SparkType::TimestampMillis,
        ROW_TIMESTAMP_NTZ => SparkType::TimestampNtz,
        ROW_TIME => SparkType::Time,
        ROW_DECIMAL if (1..=38).contains(&precision) => SparkType::Decimal {
            precision: precision as u32,
        },
        ROW_LEGACY_DECIMAL if (1..=18).contains(&precision) => SparkType::LegacyDecimal {
            precision: precision as u32,
        },
        ROW_FIXED_BINARY if precision > 0 => SparkType::FixedBinary {
            width: precision as u32,
        },
        ROW_STRING => SparkType::String,
        ROW_BINARY => SparkType::Binary,
        ROW_GEOMETRY => SparkType::Geo { geography: false },
        ROW_GEOGRAPHY => SparkType::Geo { geography: true },
        _ => return None,
    })
}

/// Row type codes (`[code, precision]` per column) as Spark types, the error naming the column.
pub fn row_types(codes: &[i32], names: &[String]) -> JniResult<Vec<SparkType>> {
    if codes.len() != 2 * names.len() {
        return Err(argument(format!(
            "row layout has {} ints for {} columns (expected 2 each)",
            codes.len(),
            names.len()
        )));
    }
    codes
        .chunks_exact(2)
        .zip(names)
        .map(|(c, name)| {
            row_type(c[0], c[1]).ok_or_else(|| {
                argument(format!(
                    "column '{name}': unknown row type code {} / {}",
                    c[0], c[1]
                ))
            })
        })
        .collect()
}

/// Every code by name, for the test that ties the Java constants to these.
pub const CODES: &[(&str, i32)] = &[
    ("VERSION", VERSION),
    ("INTS_PER_NODE", INTS_PER_NODE as i32),
    ("KIND_LEAF", KIND_LEAF),
    ("KIND_GROUP", KIND_GROUP),
    ("REPETITION_REQUIRED", REPETITION_REQUIRED),
    ("REPETITION_OPTIONAL", REPETITION_OPTIONAL),
    ("REPETITION_REPEATED", REPETITION_REPEATED),
    ("PHYSICAL_BOOLEAN", PHYSICAL_BOOLEAN),
    ("PHYSICAL_INT32", PHYSICAL_INT32),
    ("PHYSICAL_INT64", PHYSICAL_INT64),
    ("PHYSICAL_INT96", PHYSICAL_INT96),
    ("PHYSICAL_FLOAT", PHYSICAL_FLOAT),
    ("PHYSICAL_DOUBLE", PHYSICAL_DOUBLE),
    ("PHYSICAL_BYTE_ARRAY", PHYSICAL_BYTE_ARRAY),
    (
        "PHYSICAL_FIXED_LEN_BYTE_ARRAY",
        PHYSICAL_FIXED_LEN_BYTE_ARRAY,
    ),
    ("LOGICAL_NONE", LOGICAL_NONE),
    ("LOGICAL_STRING", LOGICAL_STRING),
    ("LOGICAL_INT", LOGICAL_INT),
    ("LOGICAL_DATE", LOGICAL_DATE),
    ("LOGICAL_DECIMAL", LOGICAL_DECIMAL),
    ("LOGICAL_TIMESTAMP", LOGICAL_TIMESTAMP),
    ("LOGICAL_TIME", LOGICAL_TIME),
    ("LOGICAL_UNKNOWN", LOGICAL_UNKNOWN),
    ("LOGICAL_GEOMETRY", LOGICAL_GEOMETRY),
    ("LOGICAL_GEOGRAPHY", LOGICAL_GEOGRAPHY),
    ("EDGE_SPHERICAL", EdgeAlgorithm::Spherical as i32),
    ("EDGE_VINCENTY", EdgeAlgorithm::Vincenty as i32),
    ("EDGE_THOMAS", EdgeAlgorithm::Thomas as i32),
    ("EDGE_ANDOYER", EdgeAlgorithm::Andoyer as i32),
    ("EDGE_KARNEY", EdgeAlgorithm::Karney as i32),
    ("LOGICAL_LIST", LOGICAL_LIST),
    ("LOGICAL_MAP", LOGICAL_MAP),
    ("LOGICAL_MAP_KEY_VALUE", LOGICAL_MAP_KEY_VALUE),
    ("LOGICAL_VARIANT", LOGICAL_VARIANT),
    ("LOGICAL_UUID", LOGICAL_UUID),
    ("UNIT_MILLIS", UNIT_MILLIS),
    ("UNIT_MICROS", UNIT_MICROS),
    ("REBASE_CORRECTED", REBASE_CORRECTED),
    ("REBASE_LEGACY", REBASE_LEGACY),
    ("REBASE_EXCEPTION", REBASE_EXCEPTION),
    ("INTS_PER_KEY", split_spec::INTS_PER_KEY as i32),
    ("KEY_PARTITION", split_spec::KEY_PARTITION),
    ("KEY_BUCKET", split_spec::KEY_BUCKET),
    ("HASH_MURMUR3", split_spec::HASH_MURMUR3),
    ("HASH_HIVE", split_spec::HASH_HIVE),
    // How rows are read into each column (`RowType` on the Java side).
    ("ROW_BOOLEAN", ROW_BOOLEAN),
    ("ROW_BYTE", ROW_BYTE),
    ("ROW_SHORT", ROW_SHORT),
    ("ROW_INT", ROW_INT),
    ("ROW_LONG", ROW_LONG),
    ("ROW_FLOAT", ROW_FLOAT),
    ("ROW_DOUBLE", ROW_DOUBLE),
    ("ROW_DATE", ROW_DATE),
    ("ROW_TIMESTAMP_INT96", ROW_TIMESTAMP_INT96),
    ("ROW_TIMESTAMP_MICROS", ROW_TIMESTAMP_MICROS),
    ("ROW_TIMESTAMP_MILLIS", ROW_TIMESTAMP_MILLIS),
    ("ROW_TIMESTAMP_NTZ", ROW_TIMESTAMP_NTZ),
    ("ROW_TIME", ROW_TIME),
    ("ROW_DECIMAL", ROW_DECIMAL),
    ("ROW_STRING", ROW_STRING),
    ("ROW_BINARY", ROW_BINARY),
    ("ROW_GEOMETRY", ROW_GEOMETRY),
    ("ROW_GEOGRAPHY", ROW_GEOGRAPHY),
    ("ROW_LEGACY_DECIMAL", ROW_LEGACY_DECIMAL),
    ("ROW_FIXED_BINARY", ROW_FIXED_BINARY),
];

pub fn decode(root: String, mut names: Vec<String>, spec: &[i32]) -> JniResult<Schema> {
    let (version, count) = match spec {
        [v, c, ..] => (*v, *c),
        _ => return Err(argument("schema spec lacks its header")),
    };
    if version != VERSION {
        return Err(argument(format!(
            "schema spec version {version}, this library reads version {VERSION}: the jar and the native library differ"
        )));
    }
    let body = &spec[2..];
    if count < 0 || count as usize > names.len() || body.len() != count as usize * INTS_PER_NODE {
        return Err(argument(format!(
            "schema spec declares {count} nodes and holds {} ints and {} names (expected {INTS_PER_NODE} ints each)",
            body.len(),
            names.len()
        )));
    }
    let strings = names.split_off(count as usize);
    let strings = Strings {
        all: &strings,
        first: count as usize,
    };
    let mut nodes = names.into_iter().zip(body.chunks_exact(INTS_PER_NODE));
    let mut fields = Vec::new();
    while nodes.len() > 0 {
        fields.push(node(&mut nodes, "", &strings)?);
    }
    Ok(Schema::from_nodes(root, fields)?)
}

/// The strings after the node names, numbered on from them.
struct Strings<'a> {
    all: &'a [String],
    first: usize,
}

impl Strings<'_> {
    /// String `i` of the names array, or none for -1.
    fn get(&self, i: i32) -> Result<Option<String>, String> {
        if i == -1 {
            return Ok(None);
        }
        usize::try_from(i)
            .ok()
            .and_then(|i| i.checked_sub(self.first))
            .and_then(|k| self.all.get(k))
            .map(|s| Some(s.clone()))
            .ok_or_else(|| format!("string {i} is not in the names array"))
    }
}

fn node<'a>(
    nodes: &mut impl Iterator<Item = (String, &'a [i32])>,
    parent: &str,
    strings: &Strings,
) -> JniResult<Node> {
    let Some((name, s)) = nodes.next() else {
        return Err(argument(format!(
            "schema spec ends inside group '{parent}'"
        )));
    };
    let path = if parent.is_empty() {
        name.clone()
    } else {
        format!("{parent}.{name}")
    };
    let bad = |what: String| argument(format!("column '{path}': {what}"));
    let repetition = match s[1] {
        REPETITION_REQUIRED => Repetition::Required,
        REPETITION_OPTIONAL => Repetition::Optional,
        REPETITION_REPEATED => Repetition::Repeated,
        r => return Err(bad(format!("unknown repetition code {r}"))),
    };
    let field_id = (s[8] != 0).then_some(s[9]);
    match s[0] {
        KIND_GROUP => {
            let annotation = match s[5] {
                LOGICAL_NONE => None,
                LOGICAL_LIST => Some(GroupType::List),
                LOGICAL_MAP => Some(GroupType::Map),
                LOGICAL_MAP_KEY_VALUE => Some(GroupType::MapKeyValue),
                LOGICAL_VARIANT => Some(GroupType::Variant {
                    spec_version: i8::try_from(s[6])
                        .map_err(|_| bad(format!("Variant specification version {}", s[6])))?,
                }),
                l => return Err(bad(format!("unknown group annotation code {l}"))),
            };
            let n = usize::try_from(s[2])
                .map_err(|_| bad(format!("{} children is not valid", s[2])))?;
            let children = (0..n)
                .map(|_| node(nodes, &path, strings))
                .collect::<JniResult<Vec<_>>>()?;
            let mut g = Group::new(name, repetition, children);
            g.annotation = annotation;
            g.field_id = field_id;
            Ok(Node::Group(g))
        }
        KIND_LEAF => {
            let mut f = leaf(name, s, strings, &bad)?;
            f.repetition = repetition;
            f.field_id = field_id;
            Ok(Node::Leaf(f))
        }
        k => Err(bad(format!("unknown node kind {k}"))),
    }
}

fn leaf(
    name: String,
    s: &[i32],
    strings: &Strings,
    bad: &dyn Fn(String) -> crate::errors::JniError,
) -> JniResult<Field> {
    let physical = match s[3] {
        PHYSICAL_BOOLEAN => PhysicalType::Boolean,
        PHYSICAL_INT32 => PhysicalType::Int32,
        PHYSICAL_INT64 => PhysicalType::Int64,
        PHYSICAL_INT96 => PhysicalType::Int96,
        PHYSICAL_FLOAT => PhysicalType::Float,
        PHYSICAL_DOUBLE => PhysicalType::Double,
        PHYSICAL_BYTE_ARRAY => PhysicalType::ByteArray,
        PHYSICAL_FIXED_LEN_BYTE_ARRAY if s[4] > 0 => PhysicalType::FixedLenByteArray(s[4] as usize),
        PHYSICAL_FIXED_LEN_BYTE_ARRAY => {
            return Err(bad(format!(
                "FIXED_LEN_BYTE_ARRAY width {} is not valid",
                s[4]
            )))
        }
        t => return Err(bad(format!("unknown physical type code {t}"))),
    };
    let unit = |u: i32| match u {
        UNIT_MILLIS => Ok(TimeUnit::Millis),
        UNIT_MICROS => Ok(TimeUnit::Micros),
        u => Err(bad(format!("unknown time unit {u}"))),
    };
    let non_negative =
        |v: i32, what: &str| u32::try_from(v).map_err(|_| bad(format!("{what} {v} is negative")));
    let logical = match s[5] {
        LOGICAL_NONE => None,
        LOGICAL_STRING => Some(LogicalType::String),
        LOGICAL_INT => Some(LogicalType::Int {
            bit_width: u8::try_from(s[6]).map_err(|_| bad(format!("INT bit width {}", s[6])))?,
        }),
        LOGICAL_DATE => Some(LogicalType::Date),
        LOGICAL_DECIMAL => Some(LogicalType::Decimal {
            precision: non_negative(s[6], "decimal precision")?,
            scale: non_negative(s[7], "decimal scale")?,
        }),
        LOGICAL_TIMESTAMP => Some(LogicalType::Timestamp {
            unit: unit(s[6])?,
            adjusted_to_utc: s[7] != 0,
        }),
        LOGICAL_UNKNOWN => Some(LogicalType::Unknown),
        LOGICAL_UUID => Some(LogicalType::Uuid),
        LOGICAL_TIME => Some(LogicalType::Time {
            unit: unit(s[6])?,
            adjusted_to_utc: s[7] != 0,
        }),
        LOGICAL_GEOMETRY => Some(LogicalType::Geometry {
            crs: strings.get(s[6]).map_err(|m| bad(format!("CRS: {m}")))?,
        }),
        LOGICAL_GEOGRAPHY => Some(LogicalType::Geography {
            crs: strings.get(s[6]).map_err(|m| bad(format!("CRS: {m}")))?,
            algorithm: match s[7] {
                -1 => None,
                a => Some(
                    EdgeAlgorithm::from_thrift_id(a)
                        .ok_or_else(|| bad(format!("unknown edge algorithm code {a}")))?,
                ),
            },
        }),
        l => return Err(bad(format!("unknown logical type code {l}"))),
    };
    let mut f = Field::new(name, physical, true);
    f.logical = logical;
    Ok(f)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(kind: i32, rep: i32, children: i32, physical: i32, logical: i32) -> [i32; 10] {
        [kind, rep, children, physical, 0, logical, 0, 0, 0, 0]
    }

    #[test]
    fn decodes_a_list_of_structs_with_its_levels() {
        let mut spec = vec![VERSION, 5];
        spec.extend(node(KIND_GROUP, REPETITION_OPTIONAL, 1, 0, LOGICAL_LIST));
        spec.extend(node(KIND_GROUP, REPETITION_REPEATED, 1, 0, LOGICAL_NONE));
        spec.extend(node(KIND_GROUP, REPETITION_OPTIONAL, 1, 0, LOGICAL_NONE));
        spec.extend(node(KIND_LEAF, REPETITION_REQUIRED, 0, PHYSICAL_INT64, 0));
        spec.extend(node(
            KIND_LEAF,
            REPETITION_OPTIONAL,
            0,
            PHYSICAL_BYTE_ARRAY,
            1,
        ));
        let names = ["a", "list", "element", "x", "s"]
            .map(String::from)
            .to_vec();
        let schema = decode("spark_schema".into(), names, &spec).unwrap();
        let cols = schema.columns();
        assert_eq!(cols.len(), 2);
        assert_eq!(cols[0].name, "a.list.element.x");
        assert_eq!((cols[0].max_def, cols[0].max_rep), (3, 1));
        assert_eq!(cols[1].name, "s");
        assert_eq!((cols[1].max_def, cols[1].max_rep), (1, 0));
    }

    #[test]
    fn decodes_a_variant_group_with_its_specification_version() {
        let mut spec = vec![VERSION, 3];
        let mut group = node(KIND_GROUP, REPETITION_OPTIONAL, 2, 0, LOGICAL_VARIANT);
        group[6] = 1;
        spec.extend(group);
        for _ in 0..2 {
            spec.extend(node(
                KIND_LEAF,
                REPETITION_REQUIRED,
                0,
                PHYSICAL_BYTE_ARRAY,
                0,
            ));
        }
        let names = ["v", "value", "metadata"].map(String::from).to_vec();
        let schema = decode("spark_schema".into(), names.clone(), &spec).unwrap();
        let Node::Group(v) = &schema.fields[0] else {
            panic!("not a group")
        };
        assert_eq!(v.annotation, Some(GroupType::Variant { spec_version: 1 }));
        spec[2 + 6] = 300;
        let e = decode("spark_schema".into(), names, &spec).unwrap_err();
        assert!(
            format!("{e:?}").contains("Variant specification version 300"),
            "{e:?}"
        );
    }

    #[test]
    fn decodes_geospatial_leaves_with_their_crs_from_the_names_array() {
        let mut spec = vec![VERSION, 2];
        let mut geom = node(
            KIND_LEAF,
            REPETITION_OPTIONAL,
            0,
            PHYSICAL_BYTE_ARRAY,
            LOGICAL_GEOMETRY,
        );
        geom[6] = 2;
        let mut geog = node(
            KIND_LEAF,
            REPETITION_OPTIONAL,
            0,
            PHYSICAL_BYTE_ARRAY,
            LOGICAL_GEOGRAPHY,
        );
        geog[6] = -1;
        geog[7] = EdgeAlgorithm::Karney as i32;
        spec.extend(geom);
        spec.extend(geog);
        let names = ["g", "h", "EPSG:3857"].map(String::from).to_vec();
        let schema = decode("spark_schema".into(), names.clone(), &spec).unwrap();
        let cols = schema.columns();
        assert_eq!(
            cols[0].logical,
            Some(LogicalType::Geometry {
                crs: Some("EPSG:3857".into())
            })
        );
        assert_eq!(
            cols[1].logical,
            Some(LogicalType::Geography {
                crs: None,
                algorithm: Some(EdgeAlgorithm::Karney)
            })
        );
        spec[2 + 6] = 3;
        let e = decode("spark_schema".into(), names.clone(), &spec).unwrap_err();
        assert!(
            format!("{e:?}").contains("column 'g': CRS: string 3"),
            "{e:?}"
        );
        spec[2 + 6] = 1;
        let e = decode("spark_schema".into(), names, &spec).unwrap_err();
        assert!(format!("{e:?}").contains("string 1 is not"), "{e:?}");
    }

    #[test]
    fn rejects_another_version_and_a_truncated_tree() {
        let names = vec!["a".to_string()];
        let mut spec = vec![VERSION + 1, 1];
        spec.extend(node(KIND_GROUP, REPETITION_OPTIONAL, 1, 0, 0));
        let e = decode("r".into(), names.clone(), &spec).unwrap_err();
        assert!(format!("{e:?}").contains("version"), "{e:?}");
        spec[0] = VERSION;
        let e = decode("r".into(), names, &spec).unwrap_err();
        assert!(format!("{e:?}").contains("ends inside group 'a'"), "{e:?}");
    }

    /// Every row type's code decodes to it again; the Java side's `RowType` constants are tied
    /// to these by `CODES`.
    #[test]
    fn row_type_codes_go_to_the_jvm_and_back_unchanged() {
        let mut types = vec![
            SparkType::Boolean,
            SparkType::Byte,
            SparkType::Short,
            SparkType::Int,
            SparkType::Long,
            SparkType::Float,
            SparkType::Double,
            SparkType::Date,
            SparkType::TimestampInt96,
            SparkType::TimestampMicros,
            SparkType::TimestampMillis,
            SparkType::TimestampNtz,
            SparkType::Time,
            SparkType::String,
            SparkType::Binary,
            SparkType::Geo { geography: false },
            SparkType::Geo { geography: true },
        ];
        types.extend((1..=38).map(|precision| SparkType::Decimal { precision }));
        types.extend((1..=18).map(|precision| SparkType::LegacyDecimal { precision }));
        types.extend([1, 16, 1000].map(|width| SparkType::FixedBinary { width }));
        let mut codes = std::collections::HashSet::new();
        for t in types {
            let [code, precision] = row_type_code(t);
            assert_eq!(row_type(code, precision), Some(t), "{t:?}");
            codes.insert(code);
        }
        assert_eq!(codes.len(), 20);
    }

    #[test]
    fn type_codes_outside_sparks_are_refused() {
        assert_eq!(row_type(16, 0), Some(SparkType::Time));
        for (code, precision) in [
            (12, 0),
            (12, 39),
            (15, 0),
            (15, 19),
            (19, 0),
            (20, 0),
            (-1, 0),
        ] {
            assert_eq!(row_type(code, precision), None, "{code} {precision}");
        }
        assert_eq!(
            row_type(15, 18),
            Some(SparkType::LegacyDecimal { precision: 18 })
        );
    }
}
