package io.vecruntime.spark

import scala.util.{Failure, Success, Try}

import io.vecruntime.parquet.{NativeLibrary, RowSplitter, RowType}

import org.apache.spark.sql.catalyst.expressions.{Attribute, BitwiseAnd, Expression, HashExpression, HiveHash, Literal, Murmur3Hash, Pmod}
import org.apache.spark.sql.execution.metric.SQLMetric
import org.apache.spark.sql.types._

/**
 * How a partitioned or bucketed write's rows are split by file natively ([[RowSplitter]]): the
 * whole input row's partition columns (compared as the bytes Spark's projected partition row
 * holds) and bucket columns, hashed as Spark's bucket id expression does. Made on the driver
 * from the write's columns and Spark's own bucket id expression, which it recognises only in
 * the two forms Spark builds: `pmod(murmur3(columns, 42), n)` for Spark's bucketing and
 * `pmod(hivehash(columns) & Int.MaxValue, n)` for Hive-compatible bucketing.
 */
case class RowSplitting(
    numFields: Int,
    partition: Seq[RowSplitting.Key],
    bucket: Seq[RowSplitting.Key],
    hash: RowSplitter.Hash,
    buckets: Int,
    batchRows: Int = RowSplitting.DefaultBatchRows,
    batchBytes: Long = RowSplitting.DefaultBatchBytes,
    metrics: Map[String, SQLMetric] = Map.empty) {

  /** The running task's stats ([[TaskWriteStats]]), shared with its files. */
  def stats: Option[TaskWriteStats] = TaskWriteStats.ofTask(metrics)

  def splitter(): RowSplitter = {
    val s = new RowSplitter(numFields, hash, buckets)
    partition.foreach(k => s.partitionBy(k.name, k.position, k.rowType, k.precision))
    bucket.foreach(k => s.bucketBy(k.name, k.position, k.rowType, k.precision, k.scale))
    s
  }
}

object RowSplitting {
  /**
   * Rows split at once: each file takes its share of a batch in one call, so a batch holds many
   * rows per file (store_sales by date: 1,824 files a task).
   */
  val DefaultBatchRows: Int = 1 << 16
  val DefaultBatchBytes: Long = 16L << 20

  /** A key column: name, field position in the whole row, and how its value is read. */
  case class Key(name: String, position: Int, rowType: RowType, precision: Int, scale: Int)

  /**
   * The split of rows of `allColumns` by `partitionColumns` and the bucket id expression, or
   * why the rows are split by Spark's per-row projections instead.
   */
  def of(
      allColumns: Seq[Attribute],
      partitionColumns: Seq[Attribute],
      bucketIdExpression: Option[Expression]): Either[String, RowSplitting] = {
    def key(a: Attribute, bucket: Boolean): Either[String, Key] = {
      val position = allColumns.indexWhere(_.exprId == a.exprId)
      val read = rowType(a.dataType, bucket)
      if (position < 0) Left(s"column ${a.name} is not among the written columns")
      else read.map { case (t, p, s) => Key(a.name, position, t, p, s) }
        .toRight(s"${if (bucket) "bucket" else "partition"} column ${a.name} of type " +
          s"${a.dataType.sql} is not read natively")
    }
    def all(attrs: Seq[Attribute], bucket: Boolean): Either[String, Seq[Key]] =
      attrs.foldLeft[Either[String, Seq[Key]]](Right(Nil)) { (acc, a) =>
        acc.flatMap(keys => key(a, bucket).map(keys :+ _))
      }
    for {
      partition <- all(partitionColumns, bucket = false)
      spec <- bucketIdExpression match {
        case None => Right((Seq.empty[Attribute], RowSplitter.Hash.MURMUR3, 0))
        case Some(e) => bucketing(e).toRight(s"bucket id expression ${e.sql} is not Spark's")
      }
      bucket <- all(spec._1, bucket = true).flatMap { keys =>
        // The native splitter's rule (e.g. Hive's hash of TIMESTAMP_NTZ is left to Spark,
        // whose generated and interpreted HiveHash differ on it).
        Try {
          // (Its failure is an exception Try holds; a class that failed to load would not be.)
          NativeLibrary.load()
          keys.find(k => !RowSplitter.hashes(k.rowType, k.precision, spec._2))
        } match {
          case Success(Some(k)) => Left(s"bucket column ${k.name} (${k.rowType}) is not hashed " +
            s"natively by ${if (spec._2 == RowSplitter.Hash.HIVE) "Hive's hash" else "Murmur3"}")
          case Success(None) => Right(keys)
          // (The driver asks the native library, which a driver of another platform lacks.)
          case Failure(e) => Left(s"the native library is not loaded on the driver: $e")
        }
      }
    } yield RowSplitting(allColumns.length, partition, bucket, spec._2, spec._3)
  }

  private val Murmur3Names = Set(classOf[Murmur3Hash].getSimpleName, "CollationAwareMurmur3Hash")

  /** The bucket columns, hash and count of Spark's bucket id expressions. */
  private def bucketing(e: Expression): Option[(Seq[Attribute], RowSplitter.Hash, Int)] = {
    def attributes(children: Seq[Expression]): Option[Seq[Attribute]] =
      if (children.nonEmpty && children.forall(_.isInstanceOf[Attribute])) {
        Some(children.map(_.asInstanceOf[Attribute]))
      } else None
    e match {
      case p: Pmod => (p.left, p.right) match {
        // (Spark 4.2 buckets by its collation-aware Murmur3, the same on bytes-compared columns.)
        case (m: HashExpression[_], Literal(n: Int, IntegerType))
            if Murmur3Names(m.getClass.getSimpleName) && m.seed == 42 && n > 0 =>
          attributes(m.children).map((_, RowSplitter.Hash.MURMUR3, n))
        case (BitwiseAnd(h: HiveHash, Literal(Int.MaxValue, IntegerType)),
            Literal(n: Int, IntegerType)) if n > 0 =>
          attributes(h.children).map((_, RowSplitter.Hash.HIVE, n))
        case _ => None
      }
      case _ => None
    }
  }

  /**
   * How a key column's value is read from the row: its row type, decimal precision and scale.
   * A bucket column's string must compare by its bytes (no collation of its own), as the
   * native hash reads them.
   */
  private def rowType(dt: DataType, bucket: Boolean): Option[(RowType, Int, Int)] = dt match {
    case BooleanType => Some((RowType.BOOLEAN, 0, 0))
    case ByteType => Some((RowType.BYTE, 0, 0))
    case ShortType => Some((RowType.SHORT, 0, 0))
    case IntegerType => Some((RowType.INT, 0, 0))
    case LongType => Some((RowType.LONG, 0, 0))
    case FloatType => Some((RowType.FLOAT, 0, 0))
    case DoubleType => Some((RowType.DOUBLE, 0, 0))
    case DateType => Some((RowType.DATE, 0, 0))
    // (The row holds micros whatever Parquet type the timestamp is written as.)
    case TimestampType => Some((RowType.TIMESTAMP_MICROS, 0, 0))
    case TimestampNTZType => Some((RowType.TIMESTAMP_NTZ, 0, 0))
    case d: DecimalType => Some((RowType.DECIMAL, d.precision, d.scale))
    case s: StringType if !bucket || s.sql == "STRING" => Some((RowType.STRING, 0, 0))
    case BinaryType => Some((RowType.BINARY, 0, 0))
    case _ => None
  }
}
