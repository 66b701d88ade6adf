package org.apache.spark.sql.execution.columnar.vecruntime

import java.nio.{ByteBuffer, ByteOrder}

import org.apache.spark.SparkException
import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Attribute, SortOrder}
import org.apache.spark.sql.catalyst.plans.QueryPlan
import org.apache.spark.sql.catalyst.plans.physical.Partitioning
import org.apache.spark.sql.execution.LeafExecNode
import org.apache.spark.sql.execution.columnar.{DefaultCachedBatch, DefaultCachedBatchSerializer, InMemoryTableScanExec}
import org.apache.spark.sql.execution.metric.{SQLMetric, SQLMetrics}
import org.apache.spark.sql.types._
import org.apache.spark.sql.vectorized.{ColumnarArray, ColumnarBatch, ColumnarMap, ColumnVector}
import org.apache.spark.unsafe.types.UTF8String

/**
 * Spark's cache read in batches for the native writer where Spark's own cache scan gives rows
 * only: its batches cover tables of boolean and numeric columns, not dates, timestamps or
 * decimals (`DefaultCachedBatchSerializer.supportsColumnarOutput`). Each cached column is
 * decoded here into a [[CachedColumnVector]], whose arrays the native writer copies from
 * directly; the vectors are reused batch after batch, as a Parquet scan reuses its own. Only a
 * scan without predicates is read so: a scan with some prunes batches by their statistics, and
 * is under a filter anyway.
 */
case class CachedColumnsExec(scan: InMemoryTableScanExec) extends LeafExecNode {
  override def output: Seq[Attribute] = scan.output

  override def outputPartitioning: Partitioning = scan.outputPartitioning

  override def outputOrdering: Seq[SortOrder] = scan.outputOrdering

  override def innerChildren: Seq[QueryPlan[_]] = Seq(scan)

  override lazy val metrics: Map[String, SQLMetric] =
    Map("numOutputRows" -> SQLMetrics.createMetric(sparkContext, "number of output rows"))

  override def supportsColumnar: Boolean = true

  override protected def doExecute(): RDD[InternalRow] =
    throw SparkException.internalError(s"$nodeName reads batches only")

  override protected def doExecuteColumnar(): RDD[ColumnarBatch] = {
    val numOutputRows = longMetric("numOutputRows")
    val relation = scan.relation
    val ids = relation.output.map(_.exprId)
    val indices = scan.attributes.map(a => ids.indexOf(a.exprId)).toArray
    val types = scan.attributes.map(_.dataType).toArray
    relation.cacheBuilder.cachedColumnBuffers.mapPartitions { cached =>
      val vectors = types.map(new CachedColumnVector(_))
      val batch = new ColumnarBatch(vectors.toArray[ColumnVector])
      cached.map { c =>
        val b = c.asInstanceOf[DefaultCachedBatch]
        var i = 0
        while (i < indices.length) {
          vectors(i).decode(b.buffers(indices(i)), b.numRows)
          i += 1
        }
        batch.setNumRows(b.numRows)
        numOutputRows += b.numRows
        batch
      }
    }
  }
}

object CachedColumnsExec {
  /**
   * Whether `scan` is Spark's default cache read as rows only, every column of a type decoded
   * here.
   */
  def decodable(scan: InMemoryTableScanExec): Boolean =
    !scan.supportsColumnar && scan.predicates.isEmpty &&
      // (A subclass may store its own bytes.)
      scan.relation.cacheBuilder.serializer.getClass == classOf[DefaultCachedBatchSerializer] &&
      scan.output.forall(a => CachedColumnVector.decodes(a.dataType))
}

/**
 * One column of a batch of Spark's default cache, decoded from its bytes (Spark's
 * `NullableColumnBuilder` and `CompressibleColumnBuilder`, native byte order): the null count,
 * the nulls' row numbers, the compression scheme's id, then the values of the rows that are
 * not null in that scheme (`compressionSchemes.scala`). Integers up to 32 bits, dates, booleans
 * and decimals of precision up to 9 are held as ints; longs, timestamps and decimals up to 18
 * digits as longs (Spark's cache stores any such decimal's unscaled long).
 */
final class CachedColumnVector(t: DataType) extends ColumnVector(t) {
  import CachedColumnVector._

  private val kind = kindOf(t)
  /** The bytes of one value in the cache (`ColumnType.defaultSize`). */
  private val width = t match {
    case BooleanType | ByteType => 1
    case ShortType => 2
    case IntegerType | DateType | FloatType => 4
    case _ => 8
  }
  var ints: Array[Int] = Array.emptyIntArray
  /** A long column's values; an int column's scratch space (narrow decimals' bulk copy). */
  var longs: Array[Long] = Array.emptyLongArray
  var floats: Array[Float] = Array.emptyFloatArray
  var doubles: Array[Double] = Array.emptyDoubleArray
  private var nulls: Array[Boolean] = Array.emptyBooleanArray
  /** The null rows, ascending; the first `nullCount` are this batch's. */
  private var nullRows: Array[Int] = Array.emptyIntArray
  private var nullCount = 0

  /** Decodes a cached column of `n` rows, in place of the last one. */
  def decode(bytes: Array[Byte], n: Int): Unit = {
    val buf = ByteBuffer.wrap(bytes).order(ByteOrder.nativeOrder())
    reserve(n)
    nullCount = buf.getInt(0)
    if (nullRows.length < nullCount) nullRows = new Array[Int](nullCount)
    buf.position(4)
    buf.asIntBuffer().get(nullRows, 0, nullCount)
    var at = 4 + 4 * nullCount
    val scheme = buf.getInt(at)
    at += 4
    val values = n - nullCount
    buf.position(at)
    // Values stored as they are, in the width held, copied in bulk (ints, longs and wide
    // decimals, floats, doubles); compact decimals of up to 9 digits are longs held as ints,
    // copied in bulk, then narrowed array to array.
    (kind, scheme) match {
      case (Ints, PassThrough) if width == 4 => buf.asIntBuffer().get(ints, 0, values)
      case (Ints, PassThrough) if width == 8 =>
        if (longs.length < values) longs = new Array[Long](values)
        buf.asLongBuffer().get(longs, 0, values)
        var i = 0
        while (i < values) { ints(i) = longs(i).toInt; i += 1 }
      case (Longs, PassThrough) => buf.asLongBuffer().get(longs, 0, values)
      case (Floats, PassThrough) => buf.asFloatBuffer().get(floats, 0, values)
      case (Doubles, PassThrough) => buf.asDoubleBuffer().get(doubles, 0, values)
      case (Ints, _) => integers(buf, at, scheme, values, ints, null)
      case (Longs, _) => integers(buf, at, scheme, values, null, longs)
      case _ => throw unknownScheme(scheme)
    }
    if (nullCount > 0) spreadOverNulls(n)
  }

  /**
   * The `values` integers of the column, dense from row 0, into `is` (an int column) or `ls`.
   * Each scheme has a loop per array, so that no value asks which.
   */
  private def integers(
      buf: ByteBuffer, start: Int, scheme: Int, values: Int, is: Array[Int], ls: Array[Long]): Unit = {
    var at = start
    var i = 0
    scheme match {
      case PassThrough =>
        while (i < values) { put(i, read(buf, at)); at += width; i += 1 }
      case RunLength =>
        while (i < values) {
          val value = read(buf, at)
          val run = buf.getInt(at + width)
          at += width + 4
          val end = math.min(values, i + run)
          if (is != null) java.util.Arrays.fill(is, i, end, value.toInt)
          else java.util.Arrays.fill(ls, i, end, value)
          i = end
        }
      case Dictionary =>
        val size = buf.getInt(at)
        at += 4
        if (is != null) {
          val dictionary = Array.tabulate(size)(k => read(buf, at + k * width).toInt)
          at += size * width
          while (i < values) { is(i) = dictionary(buf.getShort(at + 2 * i)); i += 1 }
        } else {
          val dictionary = Array.tabulate(size)(k => read(buf, at + k * width))
          at += size * width
          while (i < values) { ls(i) = dictionary(buf.getShort(at + 2 * i)); i += 1 }
        }
      case BooleanBitSet =>
        at += 4
        var word = 0L
        while (i < values) {
          if (i % 64 == 0) { word = buf.getLong(at); at += 8 }
          put(i, (word >>> (i % 64)) & 1)
          i += 1
        }
      case IntDelta if is != null =>
        // (Sums wrap at 32 bits, as in Spark's decoder.)
        var prev = 0
        while (i < values) {
          val delta = buf.get(at)
          at += 1
          if (delta > Byte.MinValue) prev += delta
          else { prev = buf.getInt(at); at += 4 }
          is(i) = prev
          i += 1
        }
      case LongDelta if ls != null =>
        var prev = 0L
        while (i < values) {
          val delta = buf.get(at)
          at += 1
          if (delta > Byte.MinValue) prev += delta
          else { prev = buf.getLong(at); at += 8 }
          ls(i) = prev
          i += 1
        }
      case other => throw unknownScheme(other)
    }
  }

  private def read(buf: ByteBuffer, at: Int): Long = width match {
    case 1 => buf.get(at)
    case 2 => buf.getShort(at)
    case 4 => buf.getInt(at)
    case _ => buf.getLong(at)
  }

  private def put(i: Int, v: Long): Unit = if (kind == Ints) ints(i) = v.toInt else longs(i) = v

  /**
   * Moves the dense values to their rows, the run between two nulls at a time from the last
   * down (a row is never before its value's place), and marks the nulls.
   */
  private def spreadOverNulls(n: Int): Unit = {
    java.util.Arrays.fill(nulls, 0, n, false)
    val array: AnyRef = kind match {
      case Ints => ints
      case Longs => longs
      case Floats => floats
      case _ => doubles
    }
    var end = n // rows [end, n) hold their values
    var k = nullCount - 1
    while (k >= 0) {
      val r = nullRows(k)
      val run = end - r - 1
      // Rows (r, end) take the values k + 1 nulls below them leave.
      System.arraycopy(array, r + 1 - (k + 1), array, r + 1, run)
      nulls(r) = true
      end = r
      k -= 1
    }
  }

  /** Calls `f` with each null row in [start, start + n), ascending. */
  def foreachNull(start: Int, n: Int)(f: Int => Unit): Unit = {
    val from = java.util.Arrays.binarySearch(nullRows, 0, nullCount, start)
    var k = if (from >= 0) from else -from - 1
    while (k < nullCount && nullRows(k) < start + n) { f(nullRows(k)); k += 1 }
  }

  private def reserve(n: Int): Unit = {
    if (nulls.length < n) nulls = new Array[Boolean](n)
    kind match {
      case Ints => if (ints.length < n) ints = new Array[Int](n)
      case Longs => if (longs.length < n) longs = new Array[Long](n)
      case Floats => if (floats.length < n) floats = new Array[Float](n)
      case _ => if (doubles.length < n) doubles = new Array[Double](n)
    }
  }

  private def unknownScheme(id: Int) = SparkException.internalError(
    s"a cached $t column in compression scheme $id, which the native writer does not decode")

  override def close(): Unit = ()
  override def hasNull: Boolean = nullCount > 0
  override def numNulls: Int = nullCount
  override def isNullAt(r: Int): Boolean = nullCount > 0 && nulls(r)
  override def getBoolean(r: Int): Boolean = ints(r) != 0
  override def getByte(r: Int): Byte = ints(r).toByte
  override def getShort(r: Int): Short = ints(r).toShort
  override def getInt(r: Int): Int = ints(r)
  override def getLong(r: Int): Long = longs(r)
  override def getFloat(r: Int): Float = floats(r)
  override def getDouble(r: Int): Double = doubles(r)
  override def getDecimal(r: Int, precision: Int, scale: Int): Decimal =
    if (isNullAt(r)) null
    else Decimal.createUnsafe(if (kind == Ints) ints(r) else longs(r), precision, scale)
  override def getUTF8String(r: Int): UTF8String = throw unsupported
  override def getBinary(r: Int): Array[Byte] = throw unsupported
  override def getArray(r: Int): ColumnarArray = throw unsupported
  override def getMap(r: Int): ColumnarMap = throw unsupported
  override def getChild(ordinal: Int): ColumnVector = throw unsupported
  private def unsupported = new UnsupportedOperationException(s"a cached $t column")
}

object CachedColumnVector {
  // Compression schemes' ids (`CompressionScheme.typeId`).
  private val PassThrough = 0
  private val RunLength = 1
  private val Dictionary = 2
  private val BooleanBitSet = 3
  private val IntDelta = 4
  private val LongDelta = 5

  private val Ints = 0
  private val Longs = 1
  private val Floats = 2
  private val Doubles = 3

  private def kindOf(t: DataType): Int = t match {
    case BooleanType | ByteType | ShortType | IntegerType | DateType => Ints
    case d: DecimalType if d.precision <= Decimal.MAX_INT_DIGITS => Ints
    case FloatType => Floats
    case DoubleType => Doubles
    case _ => Longs
  }

  /** The types decoded: those the cache stores in fixed width. */
  def decodes(t: DataType): Boolean = t match {
    case BooleanType | ByteType | ShortType | IntegerType | LongType | FloatType | DoubleType |
        DateType | TimestampType | TimestampNTZType => true
    case d: DecimalType => d.precision <= Decimal.MAX_LONG_DIGITS
    case _ => false
  }
}
