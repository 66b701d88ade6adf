package io.vecruntime.spark.shims

import scala.collection.mutable.ArrayBuffer

import io.vecruntime.spark.{RowAppender, SparkParquetLayout, WideRows}
import org.apache.hadoop.conf.Configuration

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{BoundReference, GenericInternalRow, UnsafeProjection, UnsafeRow}
import org.apache.spark.sql.catalyst.util.{ArrayBasedMapData, ArrayData, GenericArrayData, MapData}
import org.apache.spark.sql.execution.datasources.OutputWriter
import org.apache.spark.sql.execution.datasources.parquet.{InferVariantShreddingSchema, ParquetWriteSupport, SparkShreddingUtils}
import org.apache.spark.sql.types._
import org.apache.spark.types.variant.Variant
import org.apache.spark.unsafe.types.VariantVal

/**
 * A file with Variant columns, as Spark 4.1+ writes it. Spark's `ParquetOutputWriterWithVariantShredding`
 * buffers a file's first 4,096 rows (fewer past 64 MiB of them), infers the file's shredding
 * schema from them with Spark's `InferVariantShreddingSchema`, then writes; this does the same
 * with Spark's own inference, and hands the native file (`open`, given the file's schema with
 * each inferred Variant replaced by its shredding struct) rows in which every Variant value is
 * a struct: the shredded struct of Spark's `castShredded`, or for a Variant left unshredded (in
 * an array or a map, or with shredding off) its `value` and `metadata` bytes, the two fields of
 * its Parquet group.
 *
 * `infer`: Spark's writer would infer the shredding (`ParquetOptions.inferShreddingForVariant`).
 * Otherwise the file takes the shredding schema a test forces through the job's configuration
 * (`spark.sql.variant.forceShreddingSchemaForTest`, set there by Spark's `prepareWrite`), if any.
 * `wide`: the rows are whole input rows (a partitioned or bucketed write), the file's data
 * columns among them.
 */
private[spark] class VariantFile(
    filePath: String,
    dataSchema: StructType,
    conf: Configuration,
    infer: Boolean,
    wide: Option[WideRows],
    open: StructType => OutputWriter) extends OutputWriter {
  import VariantFile._

  private val toData: InternalRow => UnsafeRow = wide match {
    case Some(w) =>
      val p = UnsafeProjection.create(w.positions.toSeq.map(i =>
        BoundReference(i, w.schema(i).dataType, w.schema(i).nullable)))
      p(_)
    case None =>
      new RowAppender(dataSchema.fields.map(_.dataType)).unsafe
  }

  private var file: OutputWriter = _
  private var convert: InternalRow => InternalRow = _
  private val rows = ArrayBuffer[UnsafeRow]()
  private var bufferedSize = 0L

  private val forced = Option(conf.get(ParquetWriteSupport.SPARK_VARIANT_SHREDDING_SCHEMA))
    .map(s => DataType.fromJson(s).asInstanceOf[StructType])

  // A forced schema is not inferred (Spark's isShreddingSchemaForced).
  if (!infer || forced.isDefined) start(None)

  private def start(inferred: Option[StructType]): Unit = {
    val schema = inferred.orElse(forced).getOrElse(dataSchema)
    val values = converter(dataSchema, schema)
    val toUnsafe = UnsafeProjection.create(rowSchema(schema))
    convert = r => toUnsafe(values(r).asInstanceOf[InternalRow])
    file = open(schema)
  }

  // As Spark's: the row that reaches the limit is the last one buffered.
  private def bufferFull(row: UnsafeRow): Boolean =
    if (rows.size + 1 >= MaxBufferRows) true
    else {
      bufferedSize += row.getSizeInBytes
      bufferedSize > MaxBufferBytes
    }

  private def inferAndWrite(): Unit = {
    start(Some(new InferVariantShreddingSchema(dataSchema).inferSchema(rows.toSeq)))
    rows.foreach(r => file.write(convert(r)))
    rows.clear()
  }

  override def write(row: InternalRow): Unit = {
    val data = toData(row)
    if (file != null) file.write(convert(data))
    else if (bufferFull(data)) {
      rows += data
      inferAndWrite()
    } else rows += data.copy()
  }

  override def close(): Unit = {
    try {
      if (file == null) inferAndWrite()
    } finally {
      if (file != null) file.close()
    }
  }

  override def path(): String = filePath
}

private[spark] object VariantFile {
  /** `ParquetOutputWriterWithVariantShredding`'s limits. */
  val MaxBufferRows = 4096
  val MaxBufferBytes: Long = 64L * 1024 * 1024

  /** The struct of an unshredded Variant's Parquet group, fields in the group's order. */
  val Unshredded: StructType = StructType(Seq(
    StructField("value", BinaryType, nullable = false),
    StructField("metadata", BinaryType, nullable = false)))

  /** The rows the native file is handed: every Variant a struct. */
  def rowSchema(t: DataType): DataType = t match {
    case VariantType => Unshredded
    case s: StructType if SparkShreddingUtils.isVariantShreddingStruct(s) => s
    case s: StructType => StructType(s.fields.map(f => f.copy(dataType = rowSchema(f.dataType))))
    case a: ArrayType => a.copy(elementType = rowSchema(a.elementType))
    case m: MapType => m.copy(keyType = rowSchema(m.keyType), valueType = rowSchema(m.valueType))
    case other => other
  }

  def rowSchema(s: StructType): StructType = rowSchema(s: DataType).asInstanceOf[StructType]

  /** Whether a value of `t` changes on its way to the native file. */
  private def holdsVariant(t: DataType): Boolean = SparkParquetLayout.holds(t)(_ == VariantType)

  /**
   * A value of type `from` (the data schema's) as the native file takes it, `to` being its type
   * in the file's schema: a Variant the shredding struct Spark's writer would write for it, as
   * `ParquetWriteSupport` splits it, or its unshredded group; other values as they are.
   */
  def converter(from: DataType, to: DataType): Any => Any = (from, to) match {
    case (VariantType, s: StructType) =>
      val schema = SparkShreddingUtils.buildVariantSchema(s)
      v => {
        val x = v.asInstanceOf[VariantVal]
        SparkShreddingUtils.castShredded(new Variant(x.getValue, x.getMetadata), schema)
      }
    case (VariantType, _) =>
      v => {
        val x = v.asInstanceOf[VariantVal]
        new GenericInternalRow(Array[Any](x.getValue, x.getMetadata))
      }
    case _ if !holdsVariant(from) => identity
    case (f: StructType, t: StructType) =>
      val fields = f.fields.map(_.dataType)
      // The file's struct may be narrower: a forced test schema is zipped into the data schema
      // (Spark's replaceVariantTypes), and Spark's writer reads only the fields it keeps.
      val cs = fields.zip(t.fields.map(_.dataType)).map { case (a, b) => converter(a, b) }
      v => {
        val r = v.asInstanceOf[InternalRow]
        new GenericInternalRow(Array.tabulate[Any](cs.length)(i =>
          if (r.isNullAt(i)) null else cs(i)(r.get(i, fields(i)))))
      }
    case (f: ArrayType, t: ArrayType) =>
      val elements = elementConverter(f.elementType, t.elementType)
      v => elements(v.asInstanceOf[ArrayData])
    case (f: MapType, t: MapType) =>
      val keys = elementConverter(f.keyType, t.keyType)
      val values = elementConverter(f.valueType, t.valueType)
      v => {
        val m = v.asInstanceOf[MapData]
        new ArrayBasedMapData(keys(m.keyArray()), values(m.valueArray()))
      }
    case _ => identity
  }

  private def elementConverter(from: DataType, to: DataType): ArrayData => ArrayData =
    if (!holdsVariant(from)) identity
    else {
      val c = converter(from, to)
      a => new GenericArrayData(Array.tabulate[Any](a.numElements())(i =>
        if (a.isNullAt(i)) null else c(a.get(i, from))))
    }
}
