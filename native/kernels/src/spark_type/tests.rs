use super::*;
use vecruntime_parquet::schema::decimal_min_bytes;

/// Spark's leaves as its converter writes them (the Parquet types of `ParquetSchemaSuite`),
/// each with the row type it is read as.
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
            Field::new("a", PhysicalType::Int64, true).with_logical(ts(TimeUnit::Micros, false)),
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
            // A table format's fixed(5), and a UUID: binaries of one width.
            Field::new("a", PhysicalType::FixedLenByteArray(5), true),
            Some(SparkType::FixedBinary { width: 5 }),
        ),
        (
            Field::new("a", PhysicalType::FixedLenByteArray(16), true)
                .with_logical(LogicalType::Uuid),
            Some(SparkType::FixedBinary { width: 16 }),
        ),
        (
            Field::new("a", PhysicalType::ByteArray, true)
                .with_logical(LogicalType::Geometry { crs: None }),
            Some(SparkType::Geo { geography: false }),
        ),
        (
            Field::new("a", PhysicalType::ByteArray, true).with_logical(LogicalType::Geography {
                crs: Some("OGC:CRS84".into()),
                algorithm: Some(vecruntime_parquet::EdgeAlgorithm::Spherical),
            }),
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
            Field::new("a", PhysicalType::Int64, true).with_logical(ts(TimeUnit::Millis, false)),
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
    }
    // A UUID is 16 bytes.
    let uuid8 = Field::new("a", PhysicalType::FixedLenByteArray(8), true);
    assert!(Schema::new(vec![uuid8.with_logical(LogicalType::Uuid)]).is_err());
}

#[test]
fn decimal_widths_as_spark() {
    // Spark's Decimal.minBytesForPrecision.
    assert_eq!(decimal_min_bytes(9), 4);
    assert_eq!(decimal_min_bytes(18), 8);
    assert_eq!(decimal_min_bytes(19), 9);
    assert_eq!(decimal_min_bytes(38), 16);
}
