package io.vecruntime.spark

import scala.jdk.CollectionConverters._

import io.vecruntime.parquet.{Codec, ParquetSchema, RowType, WriterOptions}
import io.vecruntime.spark.shims.SparkShims
import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.io.compress.zlib.ZlibFactory
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
    decimalPrecisions: Array[Int],
    options: WriterOptions,
    rebase: SparkRebase)

object SparkParquetLayout {
  val ROW_SCHEMA_KEY = "org.apache.spark.sql.parquet.row.attributes"
  val SPARK_VERSION_KEY = "org.apache.spark.version"
  val SPARK_METADATA_KEY = "org.apache.spark.sql.parquet.row.metadata"

  /** The values of `parquet.writer.version` parquet-java's `WriterVersion.fromString` takes. */
  val WriterVersions = Set("v1", "v2", "PARQUET_1_0", "PARQUET_2_0")

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
   * sets this to true or names parquet.writer.version (then parquet-java's v2 choice,
   * DELTA_BINARY_PACKED, as Spark's writer makes it): Spark 4.2's vectorized reader
   * returns wrong values from DELTA_BINARY_PACKED pages when the column index lets it skip
   * pages (its decoder replays a page's first value after a skip of zero values), and Spark's
   * own writer, v1 by default, never writes them. ChunkParitySuite checks the reader still does.
   */
  val DeltaBinaryPacked = "vecruntime.delta-binary-packed"

  /** Keys the native writer takes as they are (parquet-java's names). */
  private val PlainKeys = Set(
    "parquet.page.size", "parquet.dictionary.page.size", "parquet.block.size",
    "parquet.page.row.count.limit", "parquet.block.row.count.limit", "parquet.enable.dictionary",
    "parquet.column.statistics.enabled", "parquet.bloom.filter.max.bytes",
    "parquet.columnindex.truncate.length", "parquet.statistics.truncate.length",
    "parquet.page.write-checksum.enabled",
    "parquet.page.size.row.check.min", "parquet.page.size.row.check.max",
    "parquet.page.size.check.estimate", "vecruntime.rle.parquet-java-runs", DeltaBinaryPacked)

  /**
   * Bloom filter keys as `ParquetOutputFormat` reads them: enabled and adaptive per column or
   * for all; the expected NDV, fpp and candidates per column only (parquet-java never reads
   * their global keys, so a global `parquet.bloom.filter.fpp=2.0` changes nothing).
   */
  private val BloomKeysPerColumnOrAll = Seq("parquet.bloom.filter.adaptive.enabled")
  private val BloomKeysPerColumn = Seq("parquet.bloom.filter.expected.ndv",
    "parquet.bloom.filter.fpp", "parquet.bloom.filter.candidates.number")

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
    val precisions = parquetSchema.columns().asScala.map(_.decimalPrecision()).toArray
    // The task's SQL configuration, as ParquetWriteSupport reads its rebase modes.
    val rebase = SparkRebase.ofSession(SQLConf.get)
    val metadata = Seq(
      SPARK_VERSION_KEY -> org.apache.spark.SPARK_VERSION_SHORT,
      SPARK_METADATA_KEY -> Option(schemaString).getOrElse(sparkSchema.json)) ++ rebase.footer
    SparkParquetLayout(sparkSchema, parquetSchema, rowTypes, precisions,
      writerOptions(conf, parquetSchema, metadata, writerVersion), rebase)
  }

  /** The reason vecruntime cannot write this column, if any (a type at any depth). */
  def unsupported(f: StructField): Option[String] = unsupported(f.name, f.dataType)

  private def unsupported(path: String, t: DataType): Option[String] = t match {
    case BooleanType | ByteType | ShortType | IntegerType | LongType | FloatType | DoubleType |
        DateType | TimestampType | TimestampNTZType | _: DecimalType | _: StringType |
        BinaryType | _: YearMonthIntervalType | _: DayTimeIntervalType | NullType => None
    case t if SparkShims.isTime(t) || SparkShims.isVariant(t) || SparkShims.isGeospatial(t) => None
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
      case (physical, a) =>
        throw new IllegalArgumentException(s"column '$name': $physical annotated $a is not supported")
    }
  }

  /**
   * The gzip level parquet-java's codec takes: Hadoop's `zlib.compress.level`, read by Hadoop
   * (a name its enum lacks is its IllegalArgumentException, as for Spark's writer). The enum
   * declares NO_COMPRESSION (0) to BEST_COMPRESSION (9) in order, then DEFAULT_COMPRESSION,
   * zlib's default level 6.
   */
  def gzipLevel(conf: Configuration): Int = {
    val l = ZlibFactory.getCompressionLevel(conf).ordinal()
    if (l <= 9) l else 6
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
    val b = WriterOptions.builder()
    val codec = Codec.fromName(Option(conf.get("parquet.compression")).getOrElse("SNAPPY"))
    val level = codec match {
      // As ZstandardCodec reads it (the native writer clamps it to zstd's range as libzstd does).
      case Codec.ZSTD => Option(conf.get("parquet.compression.codec.zstd.level"))
        .map(_ => conf.getInt("parquet.compression.codec.zstd.level", 3))
      case Codec.GZIP => Some(gzipLevel(conf))
      case _ => None
    }
    level.fold(b.codec(codec))(l => b.codec(codec, l))
    b.property("parquet.writer.version", writerVersion.getOrElse(defaultWriterVersion(codec, schema)))
    val columns = schema.columns().asScala.map(_.name()).toSeq
    conf.iterator().asScala.map(e => e.getKey -> e.getValue).toSeq.sortBy(_._1).foreach {
      case (k, v) if PlainKeys.contains(k) => b.property(k, v)
      case (k, v) if k.startsWith("parquet.enable.dictionary#") => b.property(k, v)
      case _ =>
    }
    // A write that names its page version gets parquet-java's encodings for it, as Spark's.
    if (conf.get(DeltaBinaryPacked) == null && writerVersion.isEmpty) b.property(DeltaBinaryPacked, "false")
    // Byte stream split: parquet-java's global switch covers the floating-point columns.
    val splitAll = conf.getBoolean("parquet.enable.bytestreamsplit", false)
    schema.columns().asScala.foreach { c =>
      val floating = c.physicalType() == ParquetSchema.PhysicalType.FLOAT ||
        c.physicalType() == ParquetSchema.PhysicalType.DOUBLE
      val key = s"parquet.enable.bytestreamsplit#${c.name()}"
      val on = Option(conf.get(key)).map(_ => conf.getBoolean(key, false))
        .getOrElse(splitAll && floating)
      if (on) b.byteStreamSplit(c.name(), true)
    }
    // Bloom filters: a column's key, else the global one, as parquet-java's ColumnConfigParser.
    columns.foreach { c =>
      def setting(key: String): Option[String] =
        Option(conf.get(s"$key#$c")).orElse(Option(conf.get(key)))
      val enabled = Option(conf.get(s"parquet.bloom.filter.enabled#$c"))
        .map(_ => conf.getBoolean(s"parquet.bloom.filter.enabled#$c", false))
        .getOrElse(conf.getBoolean("parquet.bloom.filter.enabled", false))
      if (enabled) {
        b.property(s"parquet.bloom.filter.enabled#$c", "true")
        BloomKeysPerColumnOrAll.foreach(k => setting(k).foreach(v => b.property(s"$k#$c", v)))
        BloomKeysPerColumn.foreach(k => Option(conf.get(s"$k#$c")).foreach(v => b.property(s"$k#$c", v)))
      }
    }
    metadata.foreach { case (k, v) => b.keyValueMetadata(k, v) }
    b.build()
  }
}
