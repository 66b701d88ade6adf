package org.apache.iceberg.spark.source

import java.util.Locale

import scala.jdk.CollectionConverters._

import io.vecruntime.parquet.WriterOptions
import io.vecruntime.spark.{SparkParquetLayout, SparkRebase}
import org.apache.iceberg.{Schema, SchemaParser}
import org.apache.iceberg.parquet.ParquetSchemaUtil
import org.apache.iceberg.spark.SparkSchemaUtil
import org.apache.iceberg.types.{Type, Types}
import org.apache.parquet.schema.MessageTypeParser

import org.apache.spark.sql.internal.LegacyBehaviorPolicy
import org.apache.spark.sql.types.StructType

/**
 * What Iceberg's own Parquet writer puts in a data file, worked out as its `Parquet.WriteBuilder`
 * does: Iceberg's Parquet schema (`ParquetSchemaUtil`: field ids on every node, its names and
 * type mapping), the `iceberg.schema` footer key, and the writer settings from the table's and
 * the write's `write.parquet.*` properties, as parquet-java's keys.
 */
object IcebergLayout {
  val SchemaKey = "iceberg.schema"

  /** Iceberg's defaults (`TableProperties`) where they are not parquet-java's. */
  private val Defaults = Map(
    "write.parquet.compression-codec" -> "gzip",
    "write.parquet.row-group-size-bytes" -> (128L << 20).toString,
    "write.parquet.page-size-bytes" -> (1 << 20).toString,
    "write.parquet.page-row-limit" -> "20000",
    "write.parquet.dict-size-bytes" -> (2 << 20).toString,
    "write.parquet.page-version" -> "v1")

  /** Iceberg's property, parquet-java's key: one value each. */
  private val Sizes = Seq(
    "write.parquet.row-group-size-bytes" -> "parquet.block.size",
    "write.parquet.page-size-bytes" -> "parquet.page.size",
    "write.parquet.page-row-limit" -> "parquet.page.row.count.limit",
    "write.parquet.dict-size-bytes" -> "parquet.dictionary.page.size",
    "write.parquet.bloom-filter-max-bytes" -> "parquet.bloom.filter.max.bytes")

  /** Per-column properties (`<prefix><column>`), and parquet-java's key for the column. */
  private val Columns = IcebergRelease.ColumnProperties

  /** Properties that change nothing the native writer writes differently. */
  private val Ignored = Set(
    "write.parquet.compression-codec", "write.parquet.compression-level",
    "write.parquet.page-version", "write.parquet.shred-variants",
    // Row group checks: when parquet-java measures its buffered row group (sizes, not bytes).
    "write.parquet.row-group-check-min-record-count",
    "write.parquet.row-group-check-max-record-count")

  /** Codec names as Iceberg takes them (parquet-java's), those the native writer writes. */
  private val Codecs = Set("UNCOMPRESSED", "SNAPPY", "GZIP", "ZSTD", "LZ4", "LZ4_RAW")

  /**
   * Why the native writer cannot write this table's files as Iceberg's writer would, or None:
   * a column type, an input column whose Spark type is not the table's, or a property.
   */
  def unsupported(schema: Schema, dsSchema: StructType, props: Map[String, String]): Option[String] =
    schema.columns().asScala.iterator.flatMap { f =>
      // A top-level uuid's strings become their 16 bytes in the JVM (UuidBytes).
      if (f.`type`.typeId == Type.TypeID.UUID) None else unsupportedType(f.name, f.`type`)
    }.find(_ => true)
      .orElse(inputTypes(schema, dsSchema))
      .orElse(properties(props, schema).left.toOption)

  /**
   * The widest fixed column written natively: a batch's rows keep a fixed column's values at
   * its width, nulls included (16 MiB at this width for the default 4,096 rows a batch).
   */
  private val MaxFixedWidth = 4096

  private def unsupportedType(path: String, t: Type): Option[String] = t.typeId match {
    case Type.TypeID.FIXED if t.asInstanceOf[Types.FixedType].length > MaxFixedWidth =>
      Some(s"Iceberg type $t of column '$path', wider than $MaxFixedWidth bytes")
    case Type.TypeID.BOOLEAN | Type.TypeID.INTEGER | Type.TypeID.LONG | Type.TypeID.FLOAT |
         Type.TypeID.DOUBLE | Type.TypeID.DATE | Type.TypeID.TIMESTAMP | Type.TypeID.STRING |
         Type.TypeID.BINARY | Type.TypeID.DECIMAL | Type.TypeID.FIXED => None
    case Type.TypeID.STRUCT => t.asStructType.fields.asScala.iterator
      .flatMap(f => unsupportedType(s"$path.${f.name}", f.`type`)).find(_ => true)
    case Type.TypeID.LIST => unsupportedType(s"$path.element", t.asListType.elementType)
    case Type.TypeID.MAP => unsupportedType(s"$path.key", t.asMapType.keyType)
      .orElse(unsupportedType(s"$path.value", t.asMapType.valueType))
    // uuid in a struct, list or map (a string in Spark's rows, 16 bytes in the file), variant,
    // geometry, geography, unknown. (Iceberg's Spark integration writes no time or timestamp_ns.)
    case _ => Some(s"Iceberg type $t of column '$path'")
  }

  /**
   * The rows are read by the Spark type of the table's column (an INT64 column from a long):
   * an input column of another type (Iceberg's writer converts a byte or short) keeps its writer.
   */
  private def inputTypes(schema: Schema, dsSchema: StructType): Option[String] = {
    val table = SparkSchemaUtil.convert(schema)
    if (table.length != dsSchema.length) {
      Some(s"the input's ${dsSchema.length} columns against the table's ${table.length}")
    } else table.fields.zip(dsSchema.fields).collectFirst {
      // (The catalog string leaves nullability out.)
      case (t, d) if d.dataType.catalogString != t.dataType.catalogString =>
        s"input column '${d.name}' is ${d.dataType.catalogString}, the table's " +
          s"${t.dataType.catalogString}"
    }
  }

  /** parquet-java's keys for the table's and the write's properties, or why not. */
  private def properties(
      given: Map[String, String],
      schema: Schema): Either[String, Seq[(String, String)]] = {
    val props = Defaults ++ given
    val codec = props("write.parquet.compression-codec").toUpperCase(Locale.ROOT)
    if (!Codecs.contains(codec)) return Left(s"write.parquet.compression-codec $codec")
    val level = props.get("write.parquet.compression-level").map { l =>
      codec match {
        case "ZSTD" => Right("parquet.compression.codec.zstd.level" -> l)
        case "GZIP" => Right("zlib.compress.level" -> l)
        case _ => Left(s"write.parquet.compression-level for $codec")
      }
    }
    if (level.exists(_.isLeft)) return Left(level.get.left.toOption.get)
    val version = props("write.parquet.page-version").toLowerCase(Locale.ROOT) match {
      case _ if !IcebergRelease.PageVersions => "v1"
      case "v1" => "v1"
      case "v2" => "v2"
      case v => return Left(s"write.parquet.page-version $v")
    }
    val other = props.keys.filter(k => k.startsWith("write.parquet.") && !Ignored.contains(k) &&
      !Sizes.exists(_._1 == k) && !Columns.exists(c => k.startsWith(c._1)) &&
      !IcebergRelease.IgnoredColumnProperties.exists(k.startsWith))
    if (other.nonEmpty) return Left(s"table property ${other.toSeq.sorted.head}")
    val sizes = Sizes.flatMap { case (k, key) => props.get(k).map(key -> _) }
    // A column's property names it as Iceberg does; parquet-java's key takes its path in the
    // file (`arr.list.element`), a name that is no column's is dropped, as Iceberg drops it.
    lazy val paths = parquetPaths(schema)
    val columns = for {
      (k, v) <- props.toSeq
      (prefix, key) <- Columns.find(c => k.startsWith(c._1)).toSeq
      path <- paths.get(k.substring(prefix.length)).toSeq
    } yield s"$key#$path" -> v
    Right(Seq("parquet.compression" -> codec, "parquet.writer.version" -> version,
      // Iceberg's writer sets no truncation of footer statistics, parquet-java's default too;
      // page checksums on, parquet-java's default; the column index's truncation is a Hadoop
      // setting, which a table property sets too (Iceberg passes them all on).
      "parquet.columnindex.truncate.length" -> props.getOrElse("parquet.columnindex.truncate.length", "64")) ++
      level.map(_.toOption.get) ++ sizes ++
      columns.sortBy(_._1))
  }

  /**
   * The layout of the table's data files, for rows whose top-level uuid columns are their bytes
   * ([[UuidBytes.rowSchema]]); `unsupported` said None for the same arguments.
   */
  def apply(schema: Schema, dsSchema: StructType, props: Map[String, String]): SparkParquetLayout = {
    // Iceberg's Parquet schema in its shaded parquet-java, as text (field ids included) into ours.
    val message = MessageTypeParser.parseMessageType(ParquetSchemaUtil.convert(schema, "table").toString)
    val parquetSchema = SparkParquetLayout.toParquetSchema(message)
    val b = WriterOptions.builder()
    properties(props, schema).fold(e => throw new IllegalArgumentException(e), identity)
      .foreach { case (k, v) => b.property(k, v) }
    b.keyValueMetadata(SchemaKey, SchemaParser.toJson(schema))
    SparkParquetLayout(UuidBytes.rowSchema(schema, dsSchema), parquetSchema, parquetSchema.rowTypes(),
      parquetSchema.columns().asScala.map(_.rowArgument()).toArray, b.build(),
      // Iceberg writes dates and timestamps as they are (proleptic Gregorian).
      SparkRebase(LegacyBehaviorPolicy.CORRECTED, LegacyBehaviorPolicy.CORRECTED, "UTC"))
  }

  /** Each primitive column's Parquet path (dotted) by its Iceberg name, by field id. */
  private def parquetPaths(schema: Schema): Map[String, String] =
    ParquetSchemaUtil.convert(schema, "table").getColumns.asScala.flatMap { c =>
      Option(c.getPrimitiveType.getId).flatMap(id => Option(schema.findColumnName(id.intValue)))
        .map(_ -> c.getPath.mkString("."))
    }.toMap
}
