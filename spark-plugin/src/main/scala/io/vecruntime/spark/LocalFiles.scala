package io.vecruntime.spark

import java.net.URI
import java.nio.file.Files
import java.nio.file.attribute.PosixFilePermission

import scala.jdk.CollectionConverters._

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.{FileSystem, FSDataOutputStream, LocalFileSystem, Path, RawLocalFileSystem}
import org.apache.hadoop.fs.permission.FsPermission
import org.apache.hadoop.io.nativeio.NativeIO

import org.apache.spark.sql.execution.datasources.vecruntime.SparkWriteShim

/**
 * Creates data files on Hadoop's local file system without starting a process per file.
 *
 * Without Hadoop's native library, `RawLocalFileSystem` sets the permission of every file it
 * creates by running `chmod` (twice a file with its `.crc`): 10-15 ms a file on the 2-core
 * machine, most of a partitioned write of thousands of small files for Spark's writer and ours
 * alike. Here the same `LocalFileSystem` and `RawLocalFileSystem` classes write the file and its
 * checksum file, but set the same permission through chmod(2) from Java: same bytes, same `.crc`,
 * same mode, same statistics. That is also what Hive's `ProxyLocalFileSystem` does for `file:`
 * paths (its `hive-exec` jar, in every Spark built with Hive, registers it for the `file`
 * scheme, so it is the local file system pyspark users get). Any other file system, and the
 * local one where Hadoop's native library is loaded, is used as it is.
 */
object LocalFiles {
  private val cached = new ThreadLocal[(Configuration, URI, FileSystem)]

  /** Hadoop's local file system, and Hive's proxy of it, which write files the same way. */
  private val LocalClasses =
    Set(classOf[LocalFileSystem].getName, "org.apache.hadoop.hive.ql.io.ProxyLocalFileSystem")

  /** Whether files of `fs` are created here instead, without a `chmod` process. */
  def chmodFreeFor(fs: FileSystem): Boolean =
    LocalClasses.contains(fs.getClass.getName) && fs.getUri.getScheme == "file" && !NativeIO.isAvailable

  /**
   * `fs.create(file, false, bufferSize)`, without a `chmod` process on the local file system.
   * A killed task creates no more files (it stops with Spark's kill reason): one created after
   * the job's abort removed `_temporary` would bring the tree back.
   */
  def create(fs: FileSystem, file: Path, bufferSize: Int): FSDataOutputStream = {
    SparkWriteShim.stopIfKilled()
    val target = if (chmodFreeFor(fs)) {
      chmodFree(fs.getConf, fs.getUri)
    } else {
      fs
    }
    target.create(file, false, bufferSize)
  }

  private def chmodFree(conf: Configuration, uri: URI): FileSystem = {
    val c = cached.get()
    if (c != null && (c._1 eq conf) && c._2 == uri) c._3
    else {
      val local = new LocalFileSystem(new ChmodFreeRawLocalFileSystem)
      local.initialize(uri, conf)
      cached.set((conf, uri, local))
      local
    }
  }

  /** The POSIX permissions of a Hadoop permission's user/group/other bits. */
  def posix(p: FsPermission): java.util.Set[PosixFilePermission] = {
    val bits = p.toShort & 0x1ff
    // PosixFilePermission's order: OWNER_READ (0400) ... OTHERS_EXECUTE (0001).
    PosixFilePermission.values().zipWithIndex.collect {
      case (perm, i) if (bits & (0x100 >> i)) != 0 => perm
    }.toSet.asJava
  }
}

/** Hadoop's local file system with permissions set through chmod(2) instead of a process. */
private[spark] class ChmodFreeRawLocalFileSystem extends RawLocalFileSystem {
  override def initialize(uri: URI, conf: Configuration): Unit = {
    super.initialize(uri, conf)
    // Counted where Hadoop's own local file system counts (Spark's task output metrics).
    statistics = FileSystem.getStatistics(uri.getScheme, classOf[RawLocalFileSystem])
  }

  override def setPermission(p: Path, permission: FsPermission): Unit =
    Files.setPosixFilePermissions(pathToFile(p).toPath, LocalFiles.posix(permission))
}
