package io.vecruntime.spark

import java.io.{IOException, OutputStream}
import java.net.URI
import java.util.concurrent.ConcurrentHashMap

import org.apache.hadoop.fs.{FSDataOutputStream, Path, RawLocalFileSystem}
import org.apache.hadoop.fs.permission.FsPermission
import org.apache.hadoop.util.Progressable

/** The local file system under another scheme, with a hook on every file it creates. */
abstract class SchemeLocalFileSystem(scheme: String) extends RawLocalFileSystem {
  override def getUri: URI = URI.create(s"$scheme:///")
  override def getScheme: String = scheme

  /** The stream of a newly created file `f`, asked for with `bufferSize`. */
  protected def created(f: Path, bufferSize: Int, out: FSDataOutputStream): FSDataOutputStream

  override def create(
      f: Path,
      permission: FsPermission,
      overwrite: Boolean,
      bufferSize: Int,
      replication: Short,
      blockSize: Long,
      progress: Progressable): FSDataOutputStream =
    created(f, bufferSize,
      super.create(f, permission, overwrite, bufferSize, replication, blockSize, progress))

  override def create(
      f: Path,
      overwrite: Boolean,
      bufferSize: Int,
      replication: Short,
      blockSize: Long,
      progress: Progressable): FSDataOutputStream =
    created(f, bufferSize, super.create(f, overwrite, bufferSize, replication, blockSize, progress))
}

/**
 * The local file system under the scheme `failing:`, whose data files (`part-*`) fail with
 * "disk full" once they have taken 4 bytes: a real Hadoop stream failing in the middle of a write.
 */
class FailingFileSystem extends SchemeLocalFileSystem("failing") {
  override protected def created(f: Path, bufferSize: Int, out: FSDataOutputStream): FSDataOutputStream = {
    if (!f.getName.startsWith("part-")) out
    else new FSDataOutputStream(new OutputStream {
      private var written = 0L
      override def write(b: Int): Unit = write(Array(b.toByte), 0, 1)
      override def write(b: Array[Byte], off: Int, len: Int): Unit = {
        if (written + len > 4) throw new IOException("disk full (FailingFileSystem)")
        written += len
        out.write(b, off, len)
      }
      override def close(): Unit = out.close()
    }, null)
  }
}

/** The local file system under the scheme `recording:`, noting the buffer size each data file
 * (`part-*`) is created with. */
class RecordingFileSystem extends SchemeLocalFileSystem("recording") {
  override protected def created(f: Path, bufferSize: Int, out: FSDataOutputStream): FSDataOutputStream = {
    if (f.getName.startsWith("part-")) RecordingFileSystem.bufferSizes.put(f.toUri.getPath, bufferSize)
    out
  }
}

object RecordingFileSystem {
  val bufferSizes = new ConcurrentHashMap[String, Int]()
}
