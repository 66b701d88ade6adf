package io.vecruntime.spark

import scala.jdk.CollectionConverters._

import io.vecruntime.parquet.{Codec, ParquetSchema, RowType, WriterOptions}
import io.vecruntime.spark.shims.SparkShims
import org.apache.hadoop.conf.Configuration
import org.apache.parquet.schema.{LogicalTypeAnnotation, MessageType, PrimitiveType, Type}
import org.apache.parquet.schema.LogicalTypeAnnotation._
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName

import org.apache.spark.sql.execution.datasources.parquet.SparkToParquetSchemaConverter
import org.apache.spark.sql.execution.datasources.vecruntime.SparkWriteShim
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.types._

/**
 * What Spark's Parquet writer would put in a file, worked out from the task's Hadoop
 * configuration as `ParquetWriteSupport` does: the Parquet schema from Spark's own
 * `SparkToParquetSchemaConverter`, the footer key/value metadata, the row decoding of each
 * column, and the writer settings from parquet-java's configuration keys.
 */
case class SparkParquetLayout(
    sparkSchema: StructType,
    parquetSchema: ParquetSchema,
    rowTypes: Array[RowType],
    rowArguments: Array[Int],
    options: WriterOptions,
    rebase: SparkRebase)

object SparkParquetLayout {
  val ROW_SCHEMA_KEY = "org.apache.spark.sql.parquet.row.attributes"
  val SPARK_VERSION_KEY = "org.apache.spark.version"
  val SPARK_METADATA_KEY = "org.apache.spark.sql.parquet.row.metadata"

  /**
   * The values of `parquet.writer.version` parquet-java's `WriterVersion.fromString` takes, and
   * the codecs (Spark's names, as `ParquetOptions` gives them) the native writer writes: a write
   * is planned with these, on the driver, without the native library; they are the native
   * reader's answers (FallbackSuite asks it).
   */
  val WriterVersions = Set("v1", "v2", "PARQUET_1_0", "PARQUET_2_0")
  val Codecs = Set("UNCOMPRESSED", "SNAPPY", "GZIP", "ZSTD", "LZ4", "LZ4_RAW")

  /**
   * The data page version when the write does not name one. Spark's writer writes v1 then;
   * ours writes v2 (smaller files), except uncompressed byte-string columns (BYTE_ARRAY,
   * FIXED_LEN_BYTE_ARRAY, INT96): Spark 4.2's vectorized reader returns wrong values from
   * uncompressed v2 pages of those (parquet-java's own v2 files too; VectorWriteSuite keeps a
   * check of it), so such writes get v1 pages, as Spark's writer's.
   */
  def defaultWriterVersion(codec: Codec, schema: ParquetSchema): String = {
    val byteStrings = schema.columns().asScala.exists(c => c.physicalType() match {
      case ParquetSchema.PhysicalType.BYTE_ARRAY | ParquetSchema.PhysicalType.FIXED_LEN_BYTE_ARRAY |
           ParquetSchema.PhysicalType.INT96 => true
      case _ => false
    })
    if (codec == Codec.UNCOMPRESSED && byteStrings) "v1" else "v2"
  }

  /**
   * INT32/INT64 values without a dictionary are PLAIN in our default v2 pages unless a write
   * sets this to true, names parquet.writer.version (then parquet-java's v2 choice,
   * DELTA_BINARY_PACKED, as Spark's writer makes it) or names Spark 4.3 or newer as its oldest
   * reader ([[VecRuntimeConf.OLDEST_SPARK_READER]]): the vectorized readers of Spark 3.5 to 4.2
   * return wrong values from DELTA_BINARY_PACKED pages when the column index lets them skip
   * pages (the decoder replays a page's first value after a skip of zero values), and Spark's
   * own writer, v1 by default, never writes them. ChunkParitySuite checks each line's reader.
   */
  val DeltaBinaryPacked = "vecruntime.delta-binary-packed"

  private val last =
    new ThreadLocal[(Configuration, StructType, Option[String], Option[StructType], SparkParquetLayout)]

  /**
   * The layout of the task's files: the files of one task share its configuration object and
   * an equal data schema, and a partitioned write opens thousands of them (working the layout
   * out reads and sorts the whole configuration).
   */
  def ofTaskFile(
      conf: Configuration,
      dataSchema: StructType,
      writerVersion: Option[String],
      fileSchema: Option[StructType] = None): SparkParquetLayout = {
    val l = last.get()
    if (l != null && (l._1 eq conf) && l._2 == dataSchema && l._3 == writerVersion &&
        l._4 == fileSchema) l._5
    else {
      val layout = apply(conf, dataSchema, writerVersion, fileSchema)
      last.set((conf, dataSchema, writerVersion, fileSchema, layout))
      layout
    }
  }

  /**
   * `writerVersion`: the `parquet.writer.version` the write asked for (see [[writerOptions]]).
   * `fileSchema`: the schema the file is written with, where it is not the data schema: Variant
   * columns replaced by their shredding structs (as Spark's writer takes it, the footer keeps
   * the data schema).
   */
  def apply(
      conf: Configuration,
      dataSchema: StructType,
      writerVersion: Option[String] = None,
      fileSchema: Option[StructType] = None): SparkParquetLayout = {
    val schemaString = conf.get(ROW_SCHEMA_KEY)
    val sparkSchema = if (schemaString != null) SparkWriteShim.parseSchema(schemaString) else dataSchema
    val messageType = new SparkToParquetSchemaConverter(conf).convert(fileSchema.getOrElse(sparkSchema))
    val parquetSchema = toParquetSchema(messageType)
    // How rows fill each column follows from the Parquet type Spark chose for it; the native
    // side decides it (timestamps as INT96, micros or millis, decimal widths) once.
    val rowTypes = parquetSchema.rowTypes()
    val arguments = parquetSchema.columns().asScala.map(_.rowArgument()).toArray
    // The task's SQL configuration, as ParquetWriteSupport reads its rebase modes.
    val rebase = SparkRebase.ofSession(SQLConf.get)
    val metadata = Seq(
      SPARK_VERSION_KEY -> org.apache.spark.SPARK_VERSION_SHORT,
      SPARK_METADATA_KEY -> Option(schemaString).getOrElse(sparkSchema.json)) ++ rebase.footer
    SparkParquetLayout(sparkSchema, parquetSchema, rowTypes, arguments,
      writerOptions(conf, parquetSchema, metadata, writerVersion), rebase)
  }

  /** The reason vecruntime cannot write this column, if any (a type at any depth). */
  def unsupported(f: StructField): Option[String] = unsupported(f.name, f.dataType)

  private def unsupported(path: String, t: DataType): Option[String] = t match {
    case BooleanType | ByteType | ShortType | IntegerType | LongType | FloatType | DoubleType |
        DateType | TimestampType | TimestampNTZType | _: DecimalType | _: StringType |
        BinaryType | _: YearMonthIntervalType | _: DayTimeIntervalType | NullType => None
    case t if SparkShims.isMicrosTime(t) || SparkShims.isVariant(t) || SparkShims.isGeospatial(t) => None
    case s: StructType if s.isEmpty => Some(s"empty struct in column '$path'")
    case s: StructType => s.fields.iterator.flatMap(c => unsupported(s"$path.${c.name}", c.dataType))
      .find(_ => true)
    case a: ArrayType => unsupported(s"$path.element", a.elementType)
    case m: MapType =>
      unsupported(s"$path.key", m.keyType).orElse(unsupported(s"$path.value", m.valueType))
    // Spark writes a user-defined type as its SQL type (ParquetWriteSupport.makeWriter).
    case u: UserDefinedType[_] => unsupported(path, u.sqlType)
    case other => Some(s"type ${other.catalogString} of column '$path'")
  }

  /** Whether `t` is or holds a value of a type `p` picks. */
  def holds(t: DataType)(p: DataType => Boolean): Boolean = p(t) || (t match {
    case s: StructType => s.fields.exists(f => holds(f.dataType)(p))
    case a: ArrayType => holds(a.elementType)(p)
    case m: MapType => holds(m.keyType)(p) || holds(m.valueType)(p)
    case u: UserDefinedType[_] => holds(u.sqlType)(p)
    case _ => false
  })

  /** A struct, array or map, or a Variant (a group in Parquet). */
  def nested(t: DataType): Boolean = t match {
    case _: StructType | _: ArrayType | _: MapType => true
    case t if SparkShims.isVariant(t) => true
    case u: UserDefinedType[_] => nested(u.sqlType)
    case _ => false
  }

  /**
   * Spark's Parquet message type as the native writer's schema, node for node: every choice
   * (physical type, width, annotation, repetition) is Spark's converter's, copied, not made
   * again here.
   */
  def toParquetSchema(m: MessageType): ParquetSchema = {
    val b = ParquetSchema.builder(m.getName)
    m.getFields.asScala.foreach(addNode(b, _))
    b.build()
  }

  private def repetition(t: Type): ParquetSchema.Repetition = t.getRepetition match {
    case Type.Repetition.REQUIRED => ParquetSchema.Repetition.REQUIRED
    case Type.Repetition.OPTIONAL => ParquetSchema.Repetition.OPTIONAL
    case Type.Repetition.REPEATED => ParquetSchema.Repetition.REPEATED
  }

  private def addNode(b: ParquetSchema.Builder, field: Type): Unit = {
    val name = field.getName
    if (field.getId != null) b.fieldId(field.getId.intValue())
    if (!field.isPrimitive) {
      val annotation = field.getLogicalTypeAnnotation match {
        case null => null
        case _: ListLogicalTypeAnnotation => ParquetSchema.GroupType.LIST
        case _: MapLogicalTypeAnnotation => ParquetSchema.GroupType.MAP
        case _: MapKeyValueTypeAnnotation => ParquetSchema.GroupType.MAP_KEY_VALUE
        case a if SparkShims.variantSpecVersion(a).contains(1) => ParquetSchema.GroupType.VARIANT
        case a => throw new IllegalArgumentException(s"group '$name' annotated $a is not supported")
      }
      b.group(name, repetition(field), annotation)
      field.asGroupType().getFields.asScala.foreach(addNode(b, _))
      b.endGroup()
      return
    }
    val p = field.asPrimitiveType()
    b.repetition(repetition(p))
    val nullable = p.isRepetition(Type.Repetition.OPTIONAL)
    (p.getPrimitiveTypeName, p.getLogicalTypeAnnotation) match {
      case (PrimitiveTypeName.BOOLEAN, null) => b.booleanColumn(name, nullable)
      case (PrimitiveTypeName.BOOLEAN, a) if SparkShims.isUnknown(a) => b.nullColumn(name)
      case (PrimitiveTypeName.INT32, null) => b.int32Column(name, nullable)
      case (PrimitiveTypeName.INT32, i: IntLogicalTypeAnnotation) if i.isSigned && i.getBitWidth == 8 =>
        b.int8Column(name, nullable)
      case (PrimitiveTypeName.INT32, i: IntLogicalTypeAnnotation) if i.isSigned && i.getBitWidth == 16 =>
        b.int16Column(name, nullable)
      case (PrimitiveTypeName.INT32, _: DateLogicalTypeAnnotation) => b.dateColumn(name, nullable)
      case (PrimitiveTypeName.INT64, null) => b.int64Column(name, nullable)
      case (PrimitiveTypeName.INT64, t: TimestampLogicalTypeAnnotation)
          if t.getUnit != TimeUnit.NANOS =>
        b.timestampColumn(name,
          if (t.getUnit == TimeUnit.MILLIS) ParquetSchema.TimeUnit.MILLIS else ParquetSchema.TimeUnit.MICROS,
          t.isAdjustedToUTC, nullable)
      case (PrimitiveTypeName.INT64, t: TimeLogicalTypeAnnotation) if t.getUnit == TimeUnit.MICROS =>
        b.timeColumn(name, ParquetSchema.TimeUnit.MICROS, t.isAdjustedToUTC, nullable)
      case (physical @ (PrimitiveTypeName.INT32 | PrimitiveTypeName.INT64 |
          PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY), d: DecimalLogicalTypeAnnotation) =>
        b.decimalColumn(name, d.getPrecision, d.getScale,
          ParquetSchema.PhysicalType.valueOf(physical.name()), p.getTypeLength, nullable)
      case (PrimitiveTypeName.FLOAT, null) => b.floatColumn(name, nullable)
      case (PrimitiveTypeName.DOUBLE, null) => b.doubleColumn(name, nullable)
      case (PrimitiveTypeName.BINARY, _: StringLogicalTypeAnnotation) => b.stringColumn(name, nullable)
      case (PrimitiveTypeName.BINARY, null) => b.binaryColumn(name, nullable)
      case (PrimitiveTypeName.BINARY, a) if SparkShims.isGeospatialAnnotation(a) =>
        SparkShims.addGeospatialColumn(b, name, a, nullable)
      case (PrimitiveTypeName.INT96, null) => b.int96Column(name, nullable)
      case (PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY, null) =>
        b.fixedBinaryColumn(name, p.getTypeLength, nullable)
      case (PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY, _: UUIDLogicalTypeAnnotation) if p.getTypeLength == 16 =>
        b.uuidColumn(name, nullable)
      case (physical, a) =>
        throw new IllegalArgumentException(s"column '$name': $physical annotated $a is not supported")
    }
  }

  /**
   * Writer settings from the task's Hadoop configuration (write options included), and the
   * data page version the write asked for, read when it was planned: the task's configuration
   * always names one, as Spark's `prepareWrite` sets v1 there when the write names none.
   */
  def writerOptions(
      conf: Configuration,
      schema: ParquetSchema,
      metadata: Seq[(String, String)],
      writerVersion: Option[String]): WriterOptions = {
    // The writer's keys as the configuration holds them, read natively; a column's only for
    // this file's columns (parquet-java ignores the others).
    val columns = schema.columns().asScala.map(_.name()).toSet
    val pairs = conf.iterator().asScala.map(e => e.getKey -> e.getValue).filter { case (k, _) =>
      val hash = k.indexOf('#')
      k != "parquet.writer.version" && WriterOptions.takes(k) &&
        (hash < 0 || columns.contains(k.substring(hash + 1)))
    }.toSeq.sortBy(_._1)
    def options(more: (String, String)*): WriterOptions = {
      val b = WriterOptions.builder()
      (pairs ++ more).foreach { case (k, v) => b.property(k, v) }
      metadata.foreach { case (k, v) => b.keyValueMetadata(k, v) }
      b.build()
    }
    val version = writerVersion.getOrElse(defaultWriterVersion(options().codec(), schema))
    // A write that names its page version gets parquet-java's encodings for it, as Spark's,
    // and so does one whose readers all read them.
    val integers = if (conf.get(DeltaBinaryPacked) == null && writerVersion.isEmpty &&
        !VecRuntimeConf.readersTakeDeltaBinaryPacked(Option(conf.get(VecRuntimeConf.OLDEST_SPARK_READER)))) {
      Seq(DeltaBinaryPacked -> "false")
    } else Nil
    options(Seq("parquet.writer.version" -> version) ++ integers: _*)
  }
}
