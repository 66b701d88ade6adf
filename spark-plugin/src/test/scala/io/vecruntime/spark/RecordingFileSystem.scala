package io.vecruntime.spark

import java.net.URI
import java.util.concurrent.ConcurrentHashMap

import org.apache.hadoop.fs.{FSDataOutputStream, Path, RawLocalFileSystem}
import org.apache.hadoop.util.Progressable

/** The local file system under the scheme `recording:`, noting the buffer size each data file
 * (`part-*`) is created with. */
class RecordingFileSystem extends RawLocalFileSystem {
  override def getUri: URI = URI.create("recording:///")
  override def getScheme: String = "recording"

  override def create(
      f: Path,
      overwrite: Boolean,
      bufferSize: Int,
      replication: Short,
      blockSize: Long,
      progress: Progressable): FSDataOutputStream = {
    if (f.getName.startsWith("part-")) RecordingFileSystem.bufferSizes.put(f.toUri.getPath, bufferSize)
    super.create(f, overwrite, bufferSize, replication, blockSize, progress)
  }
}

object RecordingFileSystem {
  val bufferSizes = new ConcurrentHashMap[String, Int]()
}
