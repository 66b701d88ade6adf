package org.apache.iceberg.parquet

import org.apache.iceberg.io.InputFile
import org.apache.iceberg.shaded.org.apache.parquet.hadoop.ParquetFileReader
import org.apache.iceberg.shaded.org.apache.parquet.hadoop.metadata.ParquetMetadata

/**
 * A data file's footer as Iceberg's Parquet (shaded parquet-java) reads it: what Iceberg's own
 * metrics and split offsets are computed from. Here because Iceberg's `ParquetIO` is
 * package-private.
 */
object VecRuntimeFooters {
  def read(file: InputFile): ParquetMetadata = {
    val reader = ParquetFileReader.open(ParquetIO.file(file))
    try reader.getFooter finally reader.close()
  }
}
