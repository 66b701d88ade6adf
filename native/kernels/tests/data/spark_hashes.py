"""Writes spark_hashes.tsv: Spark's Murmur3Hash(v, 42) and HiveHash(v) of one bucket column value
of every type Spark buckets by, the reference of `hashes_of_every_bucketable_type_are_sparks` in
src/split/tests.rs.

Run with the project's pyspark (scripts/venv.sh): .venv/bin/python native/kernels/tests/data/spark_hashes.py
Each case (CASES: type, decimal scale, Python value) is a one-column DataFrame (session zone UTC;
pyspark turns dates and timestamps into days and micros, the JVM rounds a float's double to a
float), and Spark is asked for everything the table holds:
- the value: the one-field UnsafeRow the executed plan's UnsafeProjection writes for it; its
  8-byte slot as a little-endian word (slot:), or, for a type `UnsafeRow.isFixedLength` says is
  not fixed (strings, binaries, decimals of more than 18 digits), the bytes the slot's offset and
  size point at (bytes:);
- Murmur3: `hash(v)` in a query over the DataFrame (whole-stage generated code), checked against
  an interpreted `Murmur3Hash(v, 42)` over a `BoundReference` to the row's field;
- Hive: catalyst's `HiveHash` over the DataFrame's column in the same query (a Column made of the
  expression), checked against an interpreted `HiveHash` on the row; `-` for the types Spark's
  Hive hash is not taken natively for (TIMESTAMP_NTZ, whose generated and interpreted HiveHash
  differ: the first hashes it as a timestamp, the second as a long).
Lines after the comment: type, scale, value, Murmur3, Hive, tab-separated.
"""
import datetime
import os
import struct
from decimal import Decimal

from pyspark.sql import SparkSession
from pyspark.sql.types import (BinaryType, BooleanType, ByteType, DateType, DecimalType,
                               DoubleType, FloatType, IntegerType, LongType, ShortType,
                               StringType, StructField, StructType, TimestampNTZType,
                               TimestampType)

UTC = datetime.timezone.utc
TYPES = {"Boolean": BooleanType, "Byte": ByteType, "Short": ShortType, "Int": IntegerType,
         "Long": LongType, "Float": FloatType, "Double": DoubleType, "Date": DateType,
         "TimestampMicros": TimestampType, "TimestampNtz": TimestampNTZType,
         "String": StringType, "Binary": BinaryType}
# Types whose Hive hash the native side leaves to Spark: the table holds `-` for them.
HIVE_NOT_NATIVE = {"TimestampNtz"}
NAN, INF = float("nan"), float("inf")


def d38(s):
    return ("Decimal(38)", 10, Decimal(s))


CASES = (
    [("Boolean", 0, v) for v in [True, False, None]]
    + [("Byte", 0, v) for v in [-128, 127, -1, 0]]
    + [("Short", 0, v) for v in [-32768, 12345, -2]]
    + [("Int", 0, v) for v in [-2 ** 31, 2 ** 31 - 1, -7, 0, None]]
    + [("Long", 0, v) for v in [-2 ** 63, 2 ** 63 - 1, -7, 2 ** 32]]
    # -3.25e-20 rounds to the float 0x9f197a17.
    + [("Float", 0, v) for v in [-0.0, 0.0, NAN, -INF, 1.5, -3.25e-20]]
    + [("Double", 0, v) for v in [-0.0, 0.0, NAN, INF, -1.5e300, 0.1]]
    + [("Decimal(9)", 2, Decimal(v)) for v in ["-1234567.89", "100.00", "0.00", "0.01"]]
    + [("Decimal(18)", 4, Decimal(v)) for v in
       ["-99999999999999.9999", "12345678901234.5000", "-0.0001"]]
    + [d38(v) for v in ["-1234567890123456789012345.6789012340",
                        "9999999999999999999999999999.9999999999",
                        "0E-10",
                        "1000000000000000000000.0000000000",
                        "-0.0000000001",
                        "-9999999999999999999999999999.9999999999",
                        "0.0000000001",
                        "-1000.5000000000",
                        "12345678.9000000000"]]
    + [("String", 0, v) for v in ["", "a", "ab", "abc", "abcd", "abcde",
                                  "\u00fcn\u00efc\u00f8d\u00e9", "\u00ff\u0080x", "xyz" * 23]]
    + [("Binary", 0, v) for v in [b"", b"\xff", b"\x80\xff\x01", b"\x01\x02\x03\x04\x05",
                                  b"\xff" * 7]]
    + [("Date", 0, v) for v in [datetime.date(1970, 1, 1), datetime.date(1582, 10, 15),
                                datetime.date(9999, 12, 31), datetime.date(1, 1, 1)]]
    + [("TimestampMicros", 0, v) for v in [
        datetime.datetime(1970, 1, 1, tzinfo=UTC),
        datetime.datetime(1969, 12, 31, 23, 59, 59, 999999, tzinfo=UTC),
        datetime.datetime(1969, 12, 31, 23, 59, 58, 999999, tzinfo=UTC),
        datetime.datetime(2023, 11, 14, 22, 13, 20, 123456, tzinfo=UTC),
        datetime.datetime(1, 1, 1, tzinfo=UTC),
        datetime.datetime(9999, 12, 31, 23, 59, 59, 999999, tzinfo=UTC)]]
    + [("TimestampNtz", 0, v) for v in [
        datetime.datetime(1969, 12, 31, 23, 59, 59, 999999),
        datetime.datetime(2023, 11, 14, 22, 13, 20, 123456)]]
)

HEADER = """\
# Spark {version}'s Murmur3Hash(v, 42) and HiveHash(v) of one bucket column value, as native/kernels/tests/data/spark_hashes.py
# writes them: type, decimal scale, the value as the row holds it (slot: the 8-byte slot as a
# little-endian word, in hex; bytes: the variable-length bytes, in hex; null), Murmur3, Hive (- where
# Spark's Hive hash is not taken natively).
"""


def spark_type(name, scale):
    if name.startswith("Decimal("):
        return DecimalType(int(name[len("Decimal("):-1]), scale)
    return TYPES[name]()


def main():
    spark = (SparkSession.builder.master("local[1]")
             .config("spark.sql.session.timeZone", "UTC").getOrCreate())
    jvm = spark._jvm
    ex = jvm.org.apache.spark.sql.catalyst.expressions
    classic = jvm.org.apache.spark.sql.classic
    functions = jvm.org.apache.spark.sql.functions
    to_seq = jvm.org.apache.spark.api.python.PythonUtils.toSeq
    lines = []
    # Consecutive cases of a type make one DataFrame, its rows in the cases' order.
    groups = []
    for name, scale, value in CASES:
        if groups and groups[-1][:2] == (name, scale):
            groups[-1][2].append(value)
        else:
            groups.append((name, scale, [value]))
    for name, scale, values in groups:
        schema = StructType([StructField("v", spark_type(name, scale), True)])
        df = spark.createDataFrame([(v,) for v in values], schema)
        rows = df._jdf.queryExecution().executedPlan().executeCollect()
        # hash(v) and HiveHash(v) as a query computes them (whole-stage generated code).
        v = classic.ExpressionUtils.expression(df._jdf.col("v"))
        hashed = df._jdf.select(to_seq([functions.expr("hash(v)"),
                                        classic.ExpressionUtils.column(ex.HiveHash(to_seq([v])))]))
        generated = [(r.getInt(0), r.getInt(1))
                     for r in hashed.queryExecution().executedPlan().executeCollect()]
        assert len(rows) == len(generated) == len(values), (name, len(rows))
        # And interpreted, on the value's row.
        dt = df._jdf.schema().apply(0).dataType()
        column = to_seq([ex.BoundReference(0, dt, True)])
        murmur3_interpreted = ex.Murmur3Hash(column, 42)
        hive_interpreted = ex.HiveHash(column)
        fixed = ex.UnsafeRow.isFixedLength(dt)
        for value, row, (m3, h) in zip(values, rows, generated):
            assert row.getClass().getSimpleName() == "UnsafeRow" and row.numFields() == 1
            raw = bytes(row.getBytes())
            (slot,) = struct.unpack_from("<Q", raw, 8)
            if row.isNullAt(0):
                held = "null"
            elif fixed:
                held = f"slot:{slot:016x}"
            else:
                offset, size = slot >> 32, slot & 0xFFFF_FFFF
                held = "bytes:" + raw[offset:offset + size].hex()
            assert m3 == murmur3_interpreted.eval(row), (name, value)
            if name in HIVE_NOT_NATIVE:
                h = "-"
            else:
                assert h == hive_interpreted.eval(row), (name, value)
            lines.append(f"{name}\t{scale}\t{held}\t{m3}\t{h}\n")
    version = ".".join(spark.version.split(".")[:2])
    spark.stop()
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "spark_hashes.tsv"), "w", newline="\n") as f:
        f.write(HEADER.format(version=version))
        f.writelines(lines)


if __name__ == "__main__":
    main()
