"""Writes the reference of tests/rows_as_spark.rs: rows as Spark's UnsafeRows, and the same rows
written by Spark's own Parquet writer.

Run with the project's pyspark (scripts/venv.sh): .venv/bin/python native/kernels/tests/data/spark_rows.py
Files (rows: each row's UnsafeRow bytes after its u32 little-endian length):
- nested_rows.bin: structs, arrays and maps; nested_spark.parquet, nested_spark_legacy.parquet
  (writeLegacyFormat=true) and nested_spark_rebase.parquet (datetime and INT96 rebase modes
  LEGACY), all in session zone UTC;
- flat_rows.bin: a column of each flat type Spark writes (TIME it refuses), with nulls, dates from year 1 and timestamps
  from year 1000; flat_rebase_int96.parquet, flat_rebase_micros.parquet and
  flat_rebase_millis.parquet (rebase modes LEGACY, each with its output timestamp type), and
  flat_rebase_legacy.parquet (also writeLegacyFormat=true).
"""
import datetime
import decimal
import glob
import os
import random
import shutil
import struct
import tempfile

from pyspark.sql import SparkSession
from pyspark.sql.types import (ArrayType, BinaryType, BooleanType, ByteType, DateType,
                               DecimalType, DoubleType, FloatType, IntegerType, LongType,
                               MapType, ShortType, StringType, StructField, StructType,
                               TimestampNTZType, TimestampType)

ROWS = 160


def main():
    rnd = random.Random(20261201)

    def maybe(gen, p=0.15):
        return None if rnd.random() < p else gen()

    def arr(gen, n=4, nulls=True):
        return lambda: [maybe(gen) if nulls else gen() for _ in range(rnd.randrange(n + 1))]

    def text():
        return "".join(rnd.choice("ab\u00e9\u4e2d") for _ in range(rnd.randrange(9)))

    def dec(p, s):
        return lambda: decimal.Decimal(rnd.randrange(-10 ** p + 1, 10 ** p)).scaleb(-s)

    day = lambda: datetime.date(1, 1, 1) + datetime.timedelta(days=rnd.randrange(3_600_000))
    ts = lambda: datetime.datetime(1000, 1, 1) + datetime.timedelta(
        microseconds=rnd.randrange(32_000_000_000_000_000))
    inner = StructType([StructField("d", DoubleType()),
                        StructField("e", ArrayType(LongType(), False))])
    schema = StructType([
        StructField("id", IntegerType(), False),
        StructField("s", StructType([StructField("a", IntegerType()),
                                     StructField("b", StringType()),
                                     StructField("c", inner)])),
        StructField("ai", ArrayType(IntegerType(), True)),
        StructField("ain", ArrayType(IntegerType(), False), False),
        StructField("aa", ArrayType(ArrayType(StringType(), True), True)),
        StructField("m", MapType(StringType(), StructType([
            StructField("x", ShortType()), StructField("y", ArrayType(FloatType(), True))]),
            True)),
        StructField("mn", MapType(IntegerType(), LongType(), False)),
        StructField("deep", ArrayType(StructType([StructField("p", MapType(
            StringType(), ArrayType(ArrayType(ByteType(), True), True), True))]), True)),
        StructField("types", StructType([
            StructField("bo", ArrayType(BooleanType(), True)),
            StructField("d9", ArrayType(DecimalType(9, 2), True)),
            StructField("d18", ArrayType(DecimalType(18, 4), True)),
            StructField("d30", ArrayType(DecimalType(30, 6), True)),
            StructField("dt", ArrayType(DateType(), True)),
            StructField("t", ArrayType(TimestampType(), True)),
            StructField("bin", ArrayType(BinaryType(), True)),
            StructField("sh", MapType(ShortType(), DecimalType(38, 0), True))])),
        # Lines of numeric fields after a boolean, then an array and a wide decimal as fields 10
        # and 11 (null bits past the first byte): each struct field at its own slot and null bit.
        StructField("lines", ArrayType(StructType([
            StructField("bo", BooleanType()), StructField("by", ByteType()),
            StructField("sh", ShortType()), StructField("i", IntegerType()),
            StructField("dt", DateType()), StructField("d7", DecimalType(7, 2)),
            StructField("l", LongType()), StructField("d15", DecimalType(15, 2)),
            StructField("f", FloatType()), StructField("db", DoubleType()),
            StructField("tags", ArrayType(IntegerType(), True)),
            StructField("d30", DecimalType(30, 6))]), True)),
    ])

    def row(i):
        return (
            i,
            maybe(lambda: (maybe(lambda: rnd.randrange(-2 ** 31, 2 ** 31)), maybe(text),
                           maybe(lambda: (maybe(rnd.random), arr(lambda: rnd.randrange(
                               -2 ** 63, 2 ** 63), nulls=False)())))),
            maybe(arr(lambda: rnd.randrange(-100, 100))),
            arr(lambda: rnd.randrange(-2 ** 31, 2 ** 31), nulls=False)(),
            maybe(arr(lambda: maybe(arr(text)), 3)),
            maybe(lambda: {text() + str(k): maybe(lambda: (
                maybe(lambda: rnd.randrange(-2 ** 15, 2 ** 15)),
                maybe(arr(lambda: rnd.uniform(-1e6, 1e6))))) for k in range(rnd.randrange(4))}),
            maybe(lambda: {k: rnd.randrange(-2 ** 63, 2 ** 63) for k in
                           rnd.sample(range(-50, 50), rnd.randrange(4))}),
            maybe(arr(lambda: (maybe(lambda: {text() + str(k): maybe(arr(lambda: maybe(arr(
                lambda: rnd.randrange(-128, 128), 3)), 3)) for k in range(rnd.randrange(3))}),),
                3)),
            maybe(lambda: (maybe(arr(lambda: rnd.random() < 0.5, 12)), maybe(arr(dec(9, 2))),
                           maybe(arr(dec(18, 4))), maybe(arr(dec(30, 6))), maybe(arr(day)),
                           maybe(arr(ts)), maybe(arr(lambda: rnd.randbytes(rnd.randrange(6)))),
                           maybe(lambda: {k: maybe(dec(38, 0)) for k in rnd.sample(
                               range(-300, 300), rnd.randrange(4))}))),
            maybe(arr(lambda: (
                maybe(lambda: rnd.random() < 0.5), maybe(lambda: rnd.randrange(-128, 128)),
                maybe(lambda: rnd.randrange(-2 ** 15, 2 ** 15)),
                maybe(lambda: rnd.randrange(-2 ** 31, 2 ** 31)), maybe(day), maybe(dec(7, 2)),
                maybe(lambda: rnd.randrange(-2 ** 63, 2 ** 63)), maybe(dec(15, 2)),
                maybe(lambda: rnd.uniform(-1e6, 1e6)), maybe(lambda: rnd.uniform(-1e300, 1e300)),
                maybe(arr(lambda: rnd.randrange(-100, 100))), maybe(dec(30, 6)),
            ), 12)),
        )

    spark = (SparkSession.builder.master("local[1]")
             .config("spark.sql.session.timeZone", "UTC").getOrCreate())
    df = spark.createDataFrame([row(i) for i in range(ROWS)], schema).coalesce(1)
    here = os.path.dirname(os.path.abspath(__file__))
    save_rows(df, os.path.join(here, "nested_rows.bin"))
    for legacy, rebase, name in [(False, "CORRECTED", "nested_spark.parquet"),
                                 (True, "CORRECTED", "nested_spark_legacy.parquet"),
                                 (False, "LEGACY", "nested_spark_rebase.parquet")]:
        spark.conf.set("spark.sql.parquet.writeLegacyFormat", str(legacy).lower())
        spark.conf.set("spark.sql.parquet.datetimeRebaseModeInWrite", rebase)
        spark.conf.set("spark.sql.parquet.int96RebaseModeInWrite", rebase)
        save_file(df, os.path.join(here, name))
    flat_schema = StructType([
        StructField("id", IntegerType(), False), StructField("bo", BooleanType()),
        StructField("by", ByteType()), StructField("sh", ShortType()),
        StructField("i", IntegerType()), StructField("l", LongType()),
        StructField("f", FloatType()), StructField("db", DoubleType()),
        StructField("d9", DecimalType(9, 2)), StructField("d18", DecimalType(18, 4)),
        StructField("d30", DecimalType(30, 6)), StructField("s", StringType()),
        StructField("bin", BinaryType()), StructField("d", DateType()),
        StructField("t", TimestampType()), StructField("t2", TimestampType()),
        StructField("ntz", TimestampNTZType())])

    def flat_row(i):
        return (i, maybe(lambda: rnd.random() < 0.5), maybe(lambda: rnd.randrange(-128, 128)),
                maybe(lambda: rnd.randrange(-2 ** 15, 2 ** 15)),
                maybe(lambda: rnd.randrange(-2 ** 31, 2 ** 31)),
                maybe(lambda: rnd.randrange(-2 ** 63, 2 ** 63)),
                maybe(lambda: rnd.uniform(-1e6, 1e6)), maybe(lambda: rnd.uniform(-1e300, 1e300)),
                maybe(dec(9, 2)), maybe(dec(18, 4)), maybe(dec(30, 6)), maybe(text),
                maybe(lambda: rnd.randbytes(rnd.randrange(9))), maybe(day), maybe(ts), maybe(ts),
                maybe(ts))

    flat = spark.createDataFrame([flat_row(i) for i in range(200)], flat_schema).coalesce(1)
    save_rows(flat, os.path.join(here, "flat_rows.bin"))
    spark.conf.set("spark.sql.parquet.datetimeRebaseModeInWrite", "LEGACY")
    spark.conf.set("spark.sql.parquet.int96RebaseModeInWrite", "LEGACY")
    for legacy, ts_type, name in [(False, "INT96", "flat_rebase_int96.parquet"),
                                  (False, "TIMESTAMP_MICROS", "flat_rebase_micros.parquet"),
                                  (False, "TIMESTAMP_MILLIS", "flat_rebase_millis.parquet"),
                                  (True, "INT96", "flat_rebase_legacy.parquet")]:
        spark.conf.set("spark.sql.parquet.writeLegacyFormat", str(legacy).lower())
        spark.conf.set("spark.sql.parquet.outputTimestampType", ts_type)
        save_file(flat, os.path.join(here, name))
    spark.stop()


def save_file(df, path):
    """Spark's writer's one file of `df` (one partition) at `path`."""
    out = tempfile.mkdtemp()
    df.write.mode("overwrite").parquet(out)
    part = glob.glob(os.path.join(out, "part-*.parquet"))
    assert len(part) == 1, part
    shutil.copy(part[0], path)
    shutil.rmtree(out)


def save_rows(df, path):
    with open(path, "wb") as f:
        for r in df._jdf.queryExecution().executedPlan().executeCollect():
            b = bytes(r.getBytes())
            f.write(struct.pack("<I", len(b)) + b)


if __name__ == "__main__":
    main()
