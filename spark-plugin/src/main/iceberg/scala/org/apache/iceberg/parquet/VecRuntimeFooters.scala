package org.apache.iceberg.parquet

import java.io.{ByteArrayInputStream, FilterOutputStream, OutputStream}
import java.nio.charset.StandardCharsets

import org.apache.iceberg.{FieldMetrics, Metrics, MetricsConfig, Schema}
import org.apache.iceberg.io.InputFile
import org.apache.iceberg.shaded.org.apache.parquet.ParquetReadOptions
import org.apache.iceberg.shaded.org.apache.parquet.conf.PlainParquetConfiguration
import org.apache.iceberg.shaded.org.apache.parquet.format.converter.ParquetMetadataConverter
import org.apache.iceberg.shaded.org.apache.parquet.hadoop.ParquetFileReader
import org.apache.iceberg.shaded.org.apache.parquet.hadoop.metadata.ParquetMetadata

/**
 * A data file's footer as Iceberg's Parquet (its shaded parquet-java) reads it: what Iceberg's
 * own metrics and split offsets are computed from. Taken from the file's last bytes as they are
 * written ([[Tail]]), else read back from the file. Here because Iceberg's `ParquetIO` is
 * package-private.
 */
object VecRuntimeFooters {
  /** Footers up to this size are kept as they are written (a store_sales file's: 12 KiB). */
  val TailBytes: Int = 64 << 10

  // Read options without a Hadoop configuration: a new one parses Hadoop's XML resources,
  // most of the time of reading a small file's footer.
  private lazy val options = ParquetReadOptions.builder(new PlainParquetConfiguration()).build()

  private val Magic = "PAR1".getBytes(StandardCharsets.US_ASCII)

  /**
   * A data file's metrics as Iceberg's `ParquetWriter.metrics()` computes them: by the write
   * schema's field names (`write.metadata.metrics.column.<name>`), not the file's, which Iceberg
   * makes valid Avro names.
   */
  def metrics(schema: Schema, footer: ParquetMetadata, config: MetricsConfig,
      fieldMetrics: java.util.stream.Stream[FieldMetrics[_]]): Metrics =
    ParquetMetrics.metrics(schema, footer.getFileMetaData.getSchema, config, footer, fieldMetrics)

  /** The footer from the file's last bytes, or read back from `file`. */
  def read(tail: Tail, file: => InputFile): ParquetMetadata =
    tail.footer.map(b => new ParquetMetadataConverter(options)
      .readParquetMetadata(new ByteArrayInputStream(b), ParquetMetadataConverter.NO_FILTER))
      .getOrElse {
        val reader = ParquetFileReader.open(ParquetIO.file(file), options)
        try reader.getFooter finally reader.close()
      }

  /**
   * A file's stream that keeps its last [[TailBytes]] once `capture` says its footer is due (the
   * file is being finished); a ring, allocated then.
   */
  final class Tail(out: OutputStream, capture: () => Boolean) extends FilterOutputStream(out) {
    private var ring: Array[Byte] = _
    private var total = 0L

    override def write(b: Int): Unit = write(Array(b.toByte), 0, 1)

    override def write(b: Array[Byte], off: Int, len: Int): Unit = {
      out.write(b, off, len)
      if (ring != null || capture()) keep(b, off, len)
    }

    private def keep(b: Array[Byte], off: Int, len: Int): Unit = {
      if (ring == null) ring = new Array[Byte](TailBytes)
      val n = math.min(len, TailBytes)
      var from = off + len - n
      var at = ((total + len - n) % TailBytes).toInt
      var left = n
      while (left > 0) {
        val k = math.min(left, TailBytes - at)
        System.arraycopy(b, from, ring, at, k)
        from += k
        left -= k
        at = (at + k) % TailBytes
      }
      total += len
    }

    /** The last `n` bytes written, if kept. */
    private def last(n: Int): Option[Array[Byte]] =
      if (ring == null || n > math.min(total, TailBytes.toLong)) None
      else {
        val out = new Array[Byte](n)
        val start = ((total - n) % TailBytes).toInt
        val k = math.min(n, TailBytes - start)
        System.arraycopy(ring, start, out, 0, k)
        System.arraycopy(ring, 0, out, k, n - k)
        Some(out)
      }

    /** The footer's bytes (after the length and magic that end the file), if all were kept. */
    def footer: Option[Array[Byte]] = last(8).filter(t => java.util.Arrays.equals(t, 4, 8, Magic, 0, 4))
      .flatMap { t =>
        val length = java.nio.ByteBuffer.wrap(t, 0, 4).order(java.nio.ByteOrder.LITTLE_ENDIAN).getInt
        if (length < 0 || length > TailBytes - 8) None else last(length + 8).map(_.take(length))
      }
  }
}
