package org.apache.iceberg.spark.source

import java.nio.ByteBuffer
import java.util.UUID

import scala.jdk.CollectionConverters._

import org.apache.iceberg.Schema
import org.apache.iceberg.types.Type

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{BoundReference, Expression, UnaryExpression, UnsafeProjection}
import org.apache.spark.sql.catalyst.expressions.codegen.CodegenFallback
import org.apache.spark.sql.types.{BinaryType, DataType, StructType}

/**
 * Iceberg's top-level uuid columns as Iceberg's writer writes them: Spark's rows hold a uuid as
 * its string, the file its 16 bytes, big-endian (`SparkParquetWriters.UUIDWriter`, through
 * `UUID.fromString`: a malformed string fails the write with that method's error, as it fails
 * Iceberg's). The native writer takes the rows with the bytes in place of the strings.
 */
object UuidBytes {
  private def columns(schema: Schema): Set[Int] = schema.columns.asScala.zipWithIndex.collect {
    case (f, i) if f.`type`.typeId == Type.TypeID.UUID => i
  }.toSet

  /** The rows' schema once converted: binary in place of each uuid's string. */
  def rowSchema(schema: Schema, dsSchema: StructType): StructType = {
    val uuids = columns(schema)
    StructType(dsSchema.fields.zipWithIndex.map { case (f, i) =>
      if (uuids(i)) f.copy(dataType = BinaryType) else f
    })
  }

  /** The conversion of a task's rows, None for a table without a uuid column. */
  def projection(schema: Schema, dsSchema: StructType): Option[InternalRow => InternalRow] = {
    val uuids = columns(schema)
    if (uuids.isEmpty) None
    else {
      val exprs = dsSchema.fields.toSeq.zipWithIndex.map { case (f, i) =>
        val ref = BoundReference(i, f.dataType, f.nullable)
        if (uuids(i)) ToBytes(ref) else ref
      }
      // (Its row is reused: the native writer copies each row as it takes it.)
      val p = UnsafeProjection.create(exprs)
      Some(row => p(row))
    }
  }

  private case class ToBytes(child: Expression) extends UnaryExpression with CodegenFallback {
    override def dataType: DataType = BinaryType

    // One buffer for every value, as Iceberg's UUIDWriter: the projection copies it into its row.
    // (A task's projection, and so this expression, is used by that task's thread only.)
    private val bytes = ByteBuffer.allocate(16)

    override protected def nullSafeEval(input: Any): Any = {
      val uuid = UUID.fromString(input.toString)
      bytes.putLong(0, uuid.getMostSignificantBits).putLong(8, uuid.getLeastSignificantBits).array()
    }

    override protected def withNewChildInternal(newChild: Expression): Expression =
      copy(child = newChild)
  }
}
