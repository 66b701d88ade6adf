package io.vecruntime.spark

import java.math.BigDecimal
import java.sql.{Date, Timestamp}
import java.time.LocalDateTime

import org.apache.spark.sql.{DataFrame, Row}
import org.apache.spark.sql.types._

/** A table of every flat type Spark writes to Parquet, with nulls and edge values. */
trait AllTypesData { this: VecRuntimeSparkSession =>

  val allTypes: StructType = StructType(Seq(
    StructField("id", IntegerType, nullable = false),
    StructField("b", BooleanType),
    StructField("i8", ByteType),
    StructField("i16", ShortType),
    StructField("i32", IntegerType),
    StructField("i64", LongType),
    StructField("f", FloatType),
    StructField("d", DoubleType),
    StructField("dec7", DecimalType(7, 2)),
    StructField("dec18", DecimalType(18, 6)),
    StructField("dec38", DecimalType(38, 10)),
    StructField("date", DateType),
    StructField("ts", TimestampType),
    StructField("ts_ntz", TimestampNTZType),
    StructField("s", StringType),
    StructField("bin", BinaryType)))

  def allTypesRows(n: Int): Seq[Row] = (0 until n).map { i =>
    // Each column its own null pattern (column k: every (5 + k)th row), so that a value or null
    // read from a neighbouring column's slot shows.
    var k = 0
    def nul[T](v: => T): Any = {
      k += 1
      if ((i + 3 * k) % (5 + k) == 0) null else v
    }
    val edge = i % 7
    Row(
      i,
      nul(i % 3 == 0),
      nul(Seq(Byte.MinValue, Byte.MaxValue, 0.toByte, (i % 100).toByte)(i % 4)),
      nul(Seq(Short.MinValue, Short.MaxValue, (i * 7).toShort)(i % 3)),
      nul(if (edge == 0) Int.MinValue else if (edge == 1) Int.MaxValue else i * 31),
      nul(if (edge == 0) Long.MinValue else if (edge == 1) Long.MaxValue else i.toLong * 1000003),
      nul(Seq(Float.NaN, -0.0f, 0.0f, Float.MaxValue, Float.MinPositiveValue, i / 3.0f)(i % 6)),
      nul(Seq(Double.NaN, -0.0, Double.NegativeInfinity, Double.MaxValue, i * 1.5)(i % 5)),
      nul(new BigDecimal(s"${(i * 37) % 99999}.${i % 100}").setScale(2)),
      nul(new BigDecimal(s"-${i * 1234567L % 999999999999L}.123456")),
      nul(if (edge == 0) new BigDecimal("9999999999999999999999999999.9999999999")
        else new BigDecimal(s"-${i}12345678901234567.5").setScale(10)),
      nul(if (edge == 2) Date.valueOf("1001-03-04") else Date.valueOf(s"20${10 + i % 20}-0${1 + i % 9}-1${i % 9}")),
      nul(if (edge == 3) Timestamp.valueOf("1500-06-07 08:09:10.123456")
        else new Timestamp(1700000000000L + i * 1000003L)),
      nul(LocalDateTime.of(1969 + i % 60, 1 + i % 12, 1 + i % 28, i % 24, i % 60, i % 60, (i % 1000) * 1000)),
      nul(edge match {
        case 0 => ""
        case 1 => "ünïcødé 日本語 🎉"
        case 2 => "x" * 100000
        case _ => s"value ${i % 50}"
      }),
      nul(if (edge == 4) Array.emptyByteArray else Array.tabulate[Byte](i % 20)(j => (i * j).toByte)))
  }

  def allTypesDf(n: Int = 2000): DataFrame =
    spark.createDataFrame(spark.sparkContext.parallelize(allTypesRows(n), 3), allTypes)

  /**
   * A table Spark's cache stores in each of its compression schemes (runs, dictionaries, deltas,
   * bit sets, values as they are) and reads back as rows only (dates, timestamps, decimals):
   * `n` rows in 2 partitions, some columns with nulls, one null in its first 3,000 rows.
   */
  def cacheSchemesDf(n: Int): DataFrame = spark.range(0, n, 1, 2).selectExpr(
    "cast(id / 100 as int) as i_runs",
    "if(id % 13 = 0, null, pmod(hash(id), 50) * 1000003) as i_dict",
    "cast(id * 7 as int) as i_delta",
    "if(id % 5 = 0, null, hash(id)) as i_plain",
    "if(id % 31 = 0, null, cast(id / 100 as bigint)) as l_runs",
    "cast(pmod(hash(id), 50) as bigint) * 10000000000 as l_dict",
    "if(id % 17 = 0, null, id * 7 - 5000000000) as l_delta",
    "hash(id) * 3000000000 as l_plain",
    "if(id % 29 = 0, null, id % 3 = 0) as bits",
    "if(id % 11 = 0, null, id < 7000) as bool_runs",
    "cast(id / 500 % 100 as tinyint) as i8_runs",
    "cast(hash(id) % 100 as tinyint) as i8",
    "if(id % 7 = 0, null, cast(hash(id) % 30000 as smallint)) as i16",
    "cast(id / 300 as smallint) as i16_runs",
    "if(id % 9 = 0, null, cast(hash(id) as float) / 7) as f",
    "case when id % 41 = 0 then double('NaN') when id % 43 = 0 then -0.0d " +
      "when id % 47 = 0 then double('-Infinity') when id % 53 = 0 then null else id / 3.0d end as d",
    "if(id % 37 = 1, null, date_add(date'1970-01-01', cast(id / 37 as int) - 20000)) as day",
    "if(id < 3000, null, timestamp_micros(id * 1000003 - 5000000000000)) as ts",
    "cast(timestamp_seconds(id / 10) as timestamp_ntz) as ntz",
    "if(id % 19 = 0, null, cast(hash(id) % 10000000 / 100.0 as decimal(9, 2))) as dec9",
    "cast(id / 100.0 - 40 as decimal(7, 2)) as dec7",
    "cast(cast(hash(id) as bigint) * 1003 as decimal(18, 4)) as dec18",
    "if(id % 23 = 0, null, cast(id as decimal(10, 0))) as dec10")

  /** The compression scheme ids (`CompressionScheme.typeId`) of every column cached for `df`. */
  def cachedSchemes(df: DataFrame): Set[Int] = {
    val relation = df.queryExecution.optimizedPlan.collectFirst {
      case r: org.apache.spark.sql.execution.columnar.InMemoryRelation => r
    }.get
    relation.cacheBuilder.cachedColumnBuffers.collect().toSeq.flatMap { b =>
      b.asInstanceOf[org.apache.spark.sql.execution.columnar.DefaultCachedBatch].buffers.toSeq.map { bytes =>
        val buf = java.nio.ByteBuffer.wrap(bytes).order(java.nio.ByteOrder.nativeOrder())
        buf.getInt(4 + 4 * buf.getInt(0))
      }
    }.toSet
  }
}
