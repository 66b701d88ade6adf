//! The row kernel against Spark's own writer. Rows that Spark produced as UnsafeRows are
//! transposed here, and every leaf's definition levels, repetition levels and values must be
//! the ones parquet-java wrote for the same rows in Spark 4.2 (read back by arrow-rs):
//! - 160 rows of structs, arrays and maps at up to six levels, every leaf type inside them,
//!   nulls and empties at every level: the standard layout, the legacy layout, and rebase
//!   modes LEGACY;
//! - 200 rows of each flat type Spark 4.2 writes to Parquet (TIME it refuses), with nulls,
//!   rebase modes LEGACY, in each output timestamp type and in the legacy layout.
//!
//! `tests/data/spark_rows.py` writes the rows and the files.

mod common;

use bytes::Bytes;
use parquet::basic::{ConvertedType, LogicalType as PqLogical, Repetition as PqRepetition, Type};
use parquet::column::reader::ColumnReaderImpl;
use parquet::data_type::DataType;
use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::schema::types::Type as PqType;
use vecruntime_kernels::rebase::{Rebase, Rebases};
use vecruntime_kernels::transpose::RowTransposer;
use vecruntime_parquet::{
    ColumnData, Field, Group, GroupType, LogicalType, Node, PhysicalType, Repetition, Schema,
    TimeUnit,
};

const NESTED_ROWS: &[u8] = include_bytes!("data/nested_rows.bin");
const FLAT_ROWS: &[u8] = include_bytes!("data/flat_rows.bin");

/// The rows as the JVM hands them over: back to back, with their offsets.
fn rows(file: &[u8]) -> (Vec<u8>, Vec<i32>) {
    let (mut data, mut offsets, mut at) = (Vec::new(), vec![0], 0);
    while at < file.len() {
        let len = u32::from_le_bytes(file[at..at + 4].try_into().unwrap()) as usize;
        data.extend_from_slice(&file[at + 4..at + 4 + len]);
        offsets.push(data.len() as i32);
        at += 4 + len;
    }
    (data, offsets)
}

fn repetition(t: &PqType) -> Repetition {
    match t.get_basic_info().repetition() {
        PqRepetition::REQUIRED => Repetition::Required,
        PqRepetition::OPTIONAL => Repetition::Optional,
        PqRepetition::REPEATED => Repetition::Repeated,
    }
}

/// Spark's file schema as this crate's schema tree (what the JVM side sends for it).
fn node(t: &PqType) -> Node {
    let info = t.get_basic_info();
    if t.is_group() {
        let children = t.get_fields().iter().map(|c| node(c)).collect();
        let g = Group::new(info.name(), repetition(t), children);
        return match info.converted_type() {
            ConvertedType::LIST => g.with_annotation(GroupType::List),
            ConvertedType::MAP => g.with_annotation(GroupType::Map),
            ConvertedType::MAP_KEY_VALUE => g.with_annotation(GroupType::MapKeyValue),
            _ => g,
        }
        .into();
    }
    let PqType::PrimitiveType { type_length, .. } = t else {
        unreachable!()
    };
    let physical = match t.get_physical_type() {
        Type::BOOLEAN => PhysicalType::Boolean,
        Type::INT32 => PhysicalType::Int32,
        Type::INT64 => PhysicalType::Int64,
        Type::INT96 => PhysicalType::Int96,
        Type::FLOAT => PhysicalType::Float,
        Type::DOUBLE => PhysicalType::Double,
        Type::BYTE_ARRAY => PhysicalType::ByteArray,
        Type::FIXED_LEN_BYTE_ARRAY => PhysicalType::FixedLenByteArray(*type_length as usize),
    };
    let field = Field::new(info.name(), physical, false).with_repetition(repetition(t));
    match info.logical_type_ref() {
        None => field,
        Some(PqLogical::String) => field.with_logical(LogicalType::String),
        Some(PqLogical::Date) => field.with_logical(LogicalType::Date),
        Some(PqLogical::Timestamp(t)) => field.with_logical(LogicalType::Timestamp {
            unit: match t.unit {
                parquet::basic::TimeUnit::MILLIS => TimeUnit::Millis,
                parquet::basic::TimeUnit::MICROS => TimeUnit::Micros,
                ref other => panic!("Spark writes no {other:?} timestamps"),
            },
            adjusted_to_utc: t.is_adjusted_to_u_t_c,
        }),
        Some(PqLogical::Integer(i)) => field.with_logical(LogicalType::Int {
            bit_width: i.bit_width as u8,
        }),
        Some(PqLogical::Decimal(d)) => field.with_logical(LogicalType::Decimal {
            precision: d.precision as u32,
            scale: d.scale as u32,
        }),
        Some(other) => panic!("no Spark leaf of {other:?} in this file"),
    }
    .into()
}

/// Every row group's levels and values of one column.
fn read<T: DataType>(file: &SerializedFileReader<Bytes>, c: usize) -> Levels<T::T> {
    let mut all = Levels {
        def: Vec::new(),
        rep: Vec::new(),
        values: Vec::new(),
    };
    for g in 0..file.num_row_groups() {
        let reader = file.get_row_group(g).unwrap().get_column_reader(c).unwrap();
        let mut typed: ColumnReaderImpl<T> =
            parquet::column::reader::get_typed_column_reader(reader);
        loop {
            let (records, _, _) = typed
                .read_records(
                    1 << 20,
                    Some(&mut all.def),
                    Some(&mut all.rep),
                    &mut all.values,
                )
                .unwrap();
            if records == 0 {
                break;
            }
        }
    }
    all
}

struct Levels<V> {
    def: Vec<i16>,
    rep: Vec<i16>,
    values: Vec<V>,
}

/// Rebase modes LEGACY in session zone UTC, with Spark's table for it (the rebase test's
/// reference holds it).
fn legacy_utc() -> Rebases {
    let line = common::SPARK_REBASE
        .lines()
        .find(|l| l.starts_with("zone UTC "));
    let legacy = Rebase::Legacy(Some(common::zone(line.unwrap()).1));
    Rebases {
        datetime: Some(legacy.clone()),
        int96: Some(legacy),
    }
}

/// The values of the rows `valid` keeps (a flat column holds a slot for every row).
fn keep<T>(values: Vec<T>, valid: &Option<Vec<bool>>) -> Vec<T> {
    match valid {
        Some(v) => values
            .into_iter()
            .zip(v)
            .filter(|p| *p.1)
            .map(|p| p.0)
            .collect(),
        None => values,
    }
}

fn check_file(name: &str, rows_file: &[u8], bytes: &'static [u8], rebases: Rebases) {
    let file = SerializedFileReader::new(Bytes::from_static(bytes)).unwrap();
    let descr = file.metadata().file_metadata().schema_descr_ptr();
    let root = descr.root_schema();
    let fields = root.get_fields().iter().map(|f| node(f)).collect();
    let schema = Schema::from_nodes(root.name(), fields).unwrap();
    let (data, offsets) = rows(rows_file);
    assert_eq!(
        offsets.len() - 1,
        file.metadata().file_metadata().num_rows() as usize
    );
    let mut t = RowTransposer::for_schema(&schema).unwrap();
    t.set_rebases(rebases);
    let batch = t.transpose(&data, &offsets).unwrap();
    assert_eq!(batch.columns.len(), descr.num_columns());
    for (c, ours) in batch.columns.iter().enumerate() {
        let path = descr.column(c).path().string();
        let at = format!("{name}: column {path}");
        // Flat columns: a validity bitmap (optional ones) or nothing (required ones).
        let flat = ours.nested.is_none() && descr.column(c).max_def_level() == 1;
        let valid = flat.then(|| {
            (0..batch.num_rows)
                .map(|i| ours.validity.is_none_or(|v| v[i / 8] >> (i % 8) & 1 == 1))
                .collect::<Vec<bool>>()
        });
        let (def, rep) = match (ours.nested, &valid) {
            (Some(n), _) => (n.def.to_vec(), n.rep.to_vec()),
            (None, Some(v)) => (v.iter().map(|&b| b as i16).collect(), Vec::new()),
            (None, None) => (Vec::new(), Vec::new()),
        };
        macro_rules! same {
            ($t:ty, $ours:expr, $theirs:expr) => {{
                let l = read::<$t>(&file, c);
                assert_eq!(def, l.def, "{at}: definition levels");
                if descr.column(c).max_rep_level() == 0 {
                    // arrow-rs reads no repetition levels where there can be none.
                    assert!(rep.iter().all(|&r| r == 0) && l.rep.is_empty(), "{at}");
                } else {
                    assert_eq!(rep, l.rep, "{at}: repetition levels");
                }
                let theirs: Vec<_> = l.values.iter().map($theirs).collect();
                assert_eq!(keep($ours, &valid), theirs, "{at}: values");
                assert!(!theirs.is_empty(), "{at}: some values");
            }};
        }
        use parquet::data_type as pt;
        match (ours.data, descr.column(c).physical_type()) {
            (ColumnData::Boolean(bits), Type::BOOLEAN) => {
                let n = match ours.nested {
                    Some(_) => read::<pt::BoolType>(&file, c).values.len(),
                    None => batch.num_rows,
                };
                let ours: Vec<bool> = (0..n).map(|i| bits[i / 8] >> (i % 8) & 1 == 1).collect();
                same!(pt::BoolType, ours, |v: &bool| *v)
            }
            (ColumnData::Int32(v), Type::INT32) => same!(pt::Int32Type, v.to_vec(), |v: &i32| *v),
            (ColumnData::Int64(v), Type::INT64) => same!(pt::Int64Type, v.to_vec(), |v: &i64| *v),
            (ColumnData::Float(v), Type::FLOAT) => same!(
                pt::FloatType,
                v.iter().map(|f| f.to_bits()).collect::<Vec<_>>(),
                |v: &f32| v.to_bits()
            ),
            (ColumnData::Double(v), Type::DOUBLE) => same!(
                pt::DoubleType,
                v.iter().map(|f| f.to_bits()).collect::<Vec<_>>(),
                |v: &f64| v.to_bits()
            ),
            (ColumnData::Binary { offsets, data }, Type::BYTE_ARRAY) => same!(
                pt::ByteArrayType,
                offsets
                    .windows(2)
                    .map(|w| data[w[0] as usize..w[1] as usize].to_vec())
                    .collect::<Vec<_>>(),
                |v: &pt::ByteArray| v.data().to_vec()
            ),
            (ColumnData::FixedBinary { width: 12, data }, Type::INT96) => same!(
                pt::Int96Type,
                data.chunks(12).map(<[u8]>::to_vec).collect::<Vec<_>>(),
                |v: &pt::Int96| v
                    .data()
                    .iter()
                    .flat_map(|w| w.to_le_bytes())
                    .collect::<Vec<u8>>()
            ),
            (ColumnData::FixedBinary { width, data }, Type::FIXED_LEN_BYTE_ARRAY) => same!(
                pt::FixedLenByteArrayType,
                data.chunks(width).map(<[u8]>::to_vec).collect::<Vec<_>>(),
                |v: &pt::FixedLenByteArray| v.data().to_vec()
            ),
            (ours, theirs) => panic!("{at}: ours {ours:?}, Spark's {theirs:?}"),
        }
    }
}

#[test]
fn standard_layout_as_sparks_writer() {
    check_file(
        "standard",
        NESTED_ROWS,
        include_bytes!("data/nested_spark.parquet"),
        Rebases::default(),
    );
}

#[test]
fn legacy_layout_as_sparks_writer() {
    check_file(
        "legacy",
        NESTED_ROWS,
        include_bytes!("data/nested_spark_legacy.parquet"),
        Rebases::default(),
    );
}

#[test]
fn legacy_rebase_as_sparks_writer() {
    // Dates from year 1 and INT96 timestamps from year 1000, rebased in the session zone, UTC.
    let rebases = legacy_utc();
    check_file(
        "rebase",
        NESTED_ROWS,
        include_bytes!("data/nested_spark_rebase.parquet"),
        rebases,
    );
}

#[test]
fn flat_columns_with_legacy_rebase_as_sparks_writer() {
    let rebases = legacy_utc();
    // Flat columns of every type, with nulls, in each output timestamp type and in the legacy
    // layout (decimals of every precision in FIXED_LEN_BYTE_ARRAY).
    for (name, file) in [
        (
            "int96",
            &include_bytes!("data/flat_rebase_int96.parquet")[..],
        ),
        ("micros", include_bytes!("data/flat_rebase_micros.parquet")),
        ("millis", include_bytes!("data/flat_rebase_millis.parquet")),
        ("legacy", include_bytes!("data/flat_rebase_legacy.parquet")),
    ] {
        check_file(name, FLAT_ROWS, file, rebases.clone());
    }
}
