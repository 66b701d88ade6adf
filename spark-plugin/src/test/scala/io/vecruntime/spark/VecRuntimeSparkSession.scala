package io.vecruntime.spark

import java.io.File
import java.nio.file.Files
import java.nio.file.attribute.PosixFilePermissions

import scala.collection.mutable
import scala.jdk.CollectionConverters._

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path
import org.apache.parquet.HadoopReadOptions
import org.apache.parquet.column.page.{DataPage, DataPageV2}
import org.apache.parquet.example.data.Group
import org.apache.parquet.hadoop.{ParquetFileReader, ParquetReader}
import org.apache.parquet.hadoop.api.ReadSupport
import org.apache.parquet.hadoop.example.GroupReadSupport
import org.apache.parquet.hadoop.metadata.ParquetMetadata
import org.apache.parquet.hadoop.util.HadoopInputFile
import org.scalatest.BeforeAndAfterAll
import org.scalatest.funsuite.AnyFunSuite

import org.apache.spark.sql.{DataFrame, Row, SparkSession}
import org.apache.spark.sql.execution.{QueryExecution, SparkPlan}
import org.apache.spark.sql.execution.command.DataWritingCommandExec
import org.apache.spark.sql.execution.datasources.InsertIntoHadoopFsRelationCommand
import org.apache.spark.sql.util.QueryExecutionListener

/** A local Spark session with vecruntime on, and helpers to look at what a write produced. */
trait VecRuntimeSparkSession extends AnyFunSuite with BeforeAndAfterAll {
  @transient var spark: SparkSession = _
  val plans = mutable.Buffer[SparkPlan]()
  lazy val tmp: File = Files.createTempDirectory("vecruntime-suite").toFile

  /** Settings of this suite's session beyond the common ones. */
  def extraConf: Map[String, String] = Map.empty

  /** A Hive catalog (a Derby metastore in the suite's directory) instead of Spark's own. */
  def hiveSupport: Boolean = false

  /** Whether the Spark the tests run on is `version` ("4.1") or newer. */
  def sparkAtLeast(version: String): Boolean = {
    def parts(v: String) = v.split('.').take(2).map(_.takeWhile(_.isDigit).toInt)
    val (have, want) = (parts(org.apache.spark.SPARK_VERSION_SHORT), parts(version))
    have(0) > want(0) || (have(0) == want(0) && have(1) >= want(1))
  }

  /**
   * A test of the native writer's own bytes against parquet-java's, the same whichever Spark line
   * runs it: run on the default line (4.2) only, which keeps the other lines' runs in test.sh short.
   */
  def testOnDefaultLine(name: String)(body: => Any): Unit =
    if (sparkAtLeast("4.2") && !sparkAtLeast("4.3")) test(name)(body)
    else ignore(s"$name (run on Spark 4.2)")(body)

  /** A test of what Spark has only since `version`: ignored on an older Spark. */
  def testSince(version: String)(name: String)(body: => Any): Unit =
    if (sparkAtLeast(version)) test(name)(body) else ignore(s"$name (Spark $version+)")(body)

  override def beforeAll(): Unit = {
    super.beforeAll()
    WriteCensus.scope = getClass.getSimpleName
    val builder = if (!hiveSupport) SparkSession.builder() else SparkSession.builder()
      .enableHiveSupport()
      .config("spark.hadoop.javax.jdo.option.ConnectionURL",
        s"jdbc:derby:;databaseName=${new File(tmp, "metastore").getAbsolutePath};create=true")
    spark = builder
      .master("local[2]")
      .appName(getClass.getSimpleName)
      .config("spark.sql.extensions", classOf[VecRuntimeExtensions].getName)
      .config("spark.ui.enabled", "false")
      .config("spark.sql.shuffle.partitions", "2")
      .config("spark.sql.warehouse.dir", new File(tmp, "warehouse").getAbsolutePath)
      .config("spark.sql.session.timeZone", "UTC")
      .config("spark.sql.queryExecutionListeners", classOf[WriteCensus].getName)
      // Spark 4's rebase defaults on every line: the suites write values before 1582 and 1900
      // with both writers, which Spark 3.5's EXCEPTION default refuses (RebaseWriteSuite covers it).
      .config("spark.sql.parquet.datetimeRebaseModeInWrite", "CORRECTED")
      .config("spark.sql.parquet.int96RebaseModeInWrite", "CORRECTED")
      .config(extraConf)
      .getOrCreate()
    spark.listenerManager.register(new QueryExecutionListener {
      override def onSuccess(funcName: String, qe: QueryExecution, durationNs: Long): Unit =
        plans.synchronized { plans += qe.executedPlan }
      override def onFailure(funcName: String, qe: QueryExecution, exception: Exception): Unit = ()
    })
  }

  override def afterAll(): Unit = {
    try spark.stop() finally {
      VecRuntimeSparkSession.writeCensus()
      super.afterAll()
    }
  }

  private var dirs = 0
  def newDir(name: String): String = synchronized {
    dirs += 1
    new File(tmp, s"$name-$dirs").getAbsolutePath
  }

  def withConf[T](pairs: (String, String)*)(f: => T): T = {
    val old = pairs.map { case (k, _) => k -> spark.conf.getOption(k) }
    pairs.foreach { case (k, v) => spark.conf.set(k, v) }
    try f finally old.foreach {
      case (k, Some(v)) => spark.conf.set(k, v)
      case (k, None) => spark.conf.unset(k)
    }
  }

  /** Runs a write and returns the plan Spark executed for it. */
  def planOf(write: => Unit): SparkPlan = plansOf(write).last

  /** Spark's write statistics (numFiles, numParts, numOutputRows...) of the write among `plans`. */
  def writeMetrics(plans: Seq[SparkPlan]): Map[String, Long] =
    plans.flatMap(nodesOf).collectFirst {
      case c: DataWritingCommandExec if c.cmd.metrics.contains("numFiles") =>
        c.cmd.metrics.map { case (k, m) => k -> m.value }
    }.getOrElse(fail(s"no write command among the plans:\n${plans.mkString("\n")}"))

  /** Rows the plans' native writes split by file natively ([[RowSplitting]]). */
  def splitRows(plans: Seq[SparkPlan]): Long = plans.flatMap(nodesOf).collect {
    case v: VectorWriteFilesExec => v.metrics(TaskWriteStats.SplitRows)
  }.groupBy(_.id).values.map(_.head.value).sum

  /** Runs a write and returns every plan Spark executed for it (a CTAS runs an inner write). */
  def plansOf(write: => Unit): Seq[SparkPlan] = {
    org.apache.spark.vecruntime.ListenerShim.waitUntilEmpty(spark.sparkContext)
    plans.synchronized(plans.clear())
    write
    org.apache.spark.vecruntime.ListenerShim.waitUntilEmpty(spark.sparkContext)
    plans.synchronized(plans.toList)
  }

  /** Writes `df` with both writers and checks everything readers see is the same. */
  def compareWriters(
      name: String,
      write: (DataFrame, String) => Unit = (df, dir) => df.write.parquet(dir),
      pages: Int = 2)(df: DataFrame): (String, String) = {
    val ours = newDir(s"$name-ours")
    val theirs = newDir(s"$name-spark")
    val ourPlan = planOf(write(df, ours))
    assert(usesVecRuntime(ourPlan), s"vecruntime did not take the write:\n$ourPlan")
    withConf(VecRuntimeConf.ENABLED -> "false") {
      val plan = planOf(write(df, theirs))
      assert(!usesVecRuntime(plan), s"vecruntime took a write while switched off:\n$plan")
    }
    assertSameOutput(ours, theirs, pages)
    (ours, theirs)
  }

  /** Our files hold data pages of version `pages` only. */
  def assertSameOutput(ours: String, theirs: String, pages: Int = 2): Unit = {
    val of = dataFiles(ours)
    val tf = dataFiles(theirs)
    assert(of.nonEmpty)
    assert(new File(ours, "_SUCCESS").exists())
    assert(spark.read.parquet(ours).schema == spark.read.parquet(theirs).schema, "Spark schema")
    val diffs = for (vectorized <- Seq(false, true)) yield {
      firstDifference(readBack(ours, vectorized), readBack(theirs, vectorized))
        .map(d => s"vectorized=$vectorized: $d")
    }
    if (diffs.exists(_.isDefined)) fail("rows differ, ours against Spark's: " + diffs.flatten.mkString("; "))
    def normalized(f: File) = f.getName.replaceAll("part-(\\d+)-.*-(c\\d+)", "part-$1-$2")
    def rows(f: File) = footer(f).getBlocks.asScala.map(_.getRowCount).sum
    assert(of.map(f => normalized(f) -> rows(f)).sorted == tf.map(f => normalized(f) -> rows(f)).sorted,
      "files and their row counts")
    // File for file: a file's schema can be its own (Variant shredding is inferred per file).
    val theirsByName = tf.map(f => normalized(f) -> f).toMap
    of.foreach { o =>
      val fo = footer(o)
      val ft = footer(theirsByName(normalized(o)))
      assert(fo.getFileMetaData.getSchema == ft.getFileMetaData.getSchema, s"Parquet schema of $o")
      assert(fo.getFileMetaData.getKeyValueMetaData == ft.getFileMetaData.getKeyValueMetaData,
        "footer key/value metadata")
      assert(fo.getFileMetaData.getCreatedBy.startsWith("vecruntime version"), fo.getFileMetaData.getCreatedBy)
      assert(pageVersions(o).forall(_ == pages), s"$o holds pages other than v$pages: ${pageVersions(o)}")
    }
    val createdBy = footer(tf.head).getFileMetaData.getCreatedBy
    assert(createdBy.startsWith("parquet-mr"), createdBy)
  }

  /** Data files under `dir`, by path relative to it, with the job uuid taken out of the name. */
  def dataTree(dir: String): Map[String, File] = {
    val root = new File(dir)
    def walk(f: File): Seq[File] =
      if (f.isDirectory) Option(f.listFiles()).toSeq.flatten.filterNot(_.getName.startsWith("."))
        .filterNot(_.getName.startsWith("_")).flatMap(walk)
      else Seq(f)
    walk(root).filter(_.getName.endsWith(".parquet")).map { f =>
      val rel = root.toPath.relativize(f.toPath).toString
      rel.replaceAll("part-(\\d+)-[0-9a-f-]{36}", "part-$1") -> f
    }.toMap
  }

  /** The rows of one file in the order they are stored, as strings (parquet-java's reader). */
  def fileRows(f: File): Seq[String] = {
    val reader = groupReader(f)
    try Iterator.continually(reader.read()).takeWhile(_ != null).map(groupString).toSeq
    finally reader.close()
  }

  private def groupString(g: Group): String = {
    val t = g.getType
    (0 until t.getFieldCount).map { i =>
      if (g.getFieldRepetitionCount(i) == 0) "null" else g.getValueToString(i, 0)
    }.mkString("|")
  }

  /** Every file under `dir` (checksum files too) with its POSIX permissions, uuids taken out. */
  def allFiles(dir: String): Map[String, String] = {
    val root = new File(dir).toPath
    Files.walk(root).iterator().asScala.filter(Files.isRegularFile(_)).map { p =>
      root.relativize(p).toString.replaceAll("part-(\\d+)-[0-9a-f-]{36}", "part-$1") ->
        PosixFilePermissions.toString(Files.getPosixFilePermissions(p))
    }.toMap
  }

  /** Both writers' outputs are the same, file by file; returns the data files of ours. */
  def assertSameTree(ours: String, theirs: String): Map[String, File] = {
    val o = dataTree(ours)
    val t = dataTree(theirs)
    assert(o.nonEmpty)
    // Checksum files and permissions as Hadoop's local file system makes them for Spark.
    val (oa, ta) = (allFiles(ours), allFiles(theirs))
    assert(oa.keySet.filter(_.endsWith(".crc")) == ta.keySet.filter(_.endsWith(".crc")),
      "checksum files")
    assert(oa.filter(_._1.contains("part-")) == ta.filter(_._1.contains("part-")),
      "file permissions")
    assert(o.keySet == t.keySet, s"files: only ours ${(o.keySet -- t.keySet).toSeq.sorted.take(5)}, " +
      s"only Spark's ${(t.keySet -- o.keySet).toSeq.sorted.take(5)}")
    assert(new File(ours, "_SUCCESS").exists() == new File(theirs, "_SUCCESS").exists())
    for ((name, of) <- o) {
      val tf = t(name)
      assert(fileRows(of).sorted == fileRows(tf).sorted, s"rows of $name")
      val fo = footer(of).getFileMetaData
      val ft = footer(tf).getFileMetaData
      assert(fo.getSchema == ft.getSchema, s"Parquet schema of $name")
      assert(fo.getKeyValueMetaData == ft.getKeyValueMetaData, s"footer metadata of $name")
      assert(fo.getCreatedBy.startsWith("vecruntime version"), fo.getCreatedBy)
      assert(ft.getCreatedBy.startsWith("parquet-mr"), ft.getCreatedBy)
    }
    assert(spark.read.parquet(ours).schema == spark.read.parquet(theirs).schema, "Spark schema")
    for (vectorized <- Seq(false, true)) {
      firstDifference(readBack(ours, vectorized), readBack(theirs, vectorized)).foreach { d =>
        fail(s"rows read back (vectorized=$vectorized) differ: $d")
      }
    }
    o
  }

  def nodesOf(plan: SparkPlan): Seq[SparkPlan] = {
    def all(p: SparkPlan): Seq[SparkPlan] = {
      val inner = p match {
        case a: org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanExec => all(a.executedPlan)
        case c: org.apache.spark.sql.execution.command.DataWritingCommandExec => all(c.child)
        case q: org.apache.spark.sql.execution.adaptive.QueryStageExec => all(q.plan)
        case _ => Nil
      }
      p +: (inner ++ p.children.flatMap(all) ++ p.subqueries.flatMap(all))
    }
    all(plan)
  }

  /** A native write: `VectorWriteFiles`, or a command given the native format (no `WriteFiles`). */
  def usesVecRuntime(plan: SparkPlan): Boolean = nodesOf(plan).exists {
    case _: VectorWriteFilesExec => true
    case d: DataWritingCommandExec => d.cmd match {
      case i: InsertIntoHadoopFsRelationCommand => i.fileFormat match {
        case v: VectorParquetFileFormat => v.planned.isEmpty
        case _ => false
      }
      case _ => false
    }
    case _ => false
  }

  /**
   * The Hadoop configuration of the test's file readers, made once: a new one parses Hadoop's
   * XML resources again on first use, and a check over 5,000 files spent minutes there.
   */
  lazy val readerConf: Configuration = new Configuration()

  /** A file reader with `readerConf` (parquet-java's defaults make a new Configuration). */
  def openParquet(f: File): ParquetFileReader =
    ParquetFileReader.open(HadoopInputFile.fromPath(new Path(f.getAbsolutePath), readerConf),
      HadoopReadOptions.builder(readerConf).build())

  /** A reader of `f`'s rows as parquet-java's example Groups, with `readerConf`. */
  def groupReader(f: File): ParquetReader[Group] =
    new ParquetReader.Builder[Group](HadoopInputFile.fromPath(new Path(f.getAbsolutePath), readerConf)) {
      override protected def getReadSupport(): ReadSupport[Group] = new GroupReadSupport()
    }.build()

  def dataFiles(dir: String): Seq[File] =
    Option(new File(dir).listFiles()).map(_.toSeq).getOrElse(Nil)
      .filter(f => f.getName.startsWith("part-") && f.getName.endsWith(".parquet")).sortBy(_.getName)

  def footer(f: File): ParquetMetadata = {
    val r = openParquet(f)
    try r.getFooter finally r.close()
  }

  /** The data page versions (1, 2) of the first row group. */
  def pageVersions(f: File): Set[Int] = {
    val r = openParquet(f)
    try {
      val group = r.readNextRowGroup()
      if (group == null) Set.empty
      else r.getFooter.getFileMetaData.getSchema.getColumns.asScala.flatMap { c =>
        val pages = group.getPageReader(c)
        Iterator.continually(pages.readPage()).takeWhile(_ != null)
          .map(p => if (p.isInstanceOf[DataPageV2]) 2 else 1)
      }.toSet
    } finally r.close()
  }

  /** Definition level bytes of every data page (v2 pages keep them apart), by column path. */
  def levelBytes(f: File): Map[String, Seq[Long]] =
    pagesOf(f)(_.asInstanceOf[DataPageV2].getDefinitionLevels.size)

  /** Every data page of `f` as `what` gives it, by column path. */
  def pagesOf[T](f: File)(what: DataPage => T): Map[String, Seq[T]] = {
    val r = openParquet(f)
    try {
      val out = mutable.Map[String, Seq[T]]()
      val columns = r.getFooter.getFileMetaData.getSchema.getColumns.asScala
      Iterator.continually(r.readNextRowGroup()).takeWhile(_ != null).foreach { group =>
        columns.foreach { c =>
          val pages = group.getPageReader(c)
          val seen = Iterator.continually(pages.readPage()).takeWhile(_ != null).map(what).toSeq
          val key = c.getPath.mkString(".")
          out(key) = out.getOrElse(key, Nil) ++ seen
        }
      }
      out.toMap
    } finally r.close()
  }

  /** The text of `EXPLAIN sql`. */
  def explained(sql: String): String =
    spark.sql(s"EXPLAIN $sql").collect().map(_.getString(0)).mkString("\n")

  /** The directory of a catalog table of the default database. */
  def tableDir(t: String): String = new File(spark.sessionState.catalog.defaultTablePath(
    org.apache.spark.sql.catalyst.TableIdentifier(t))).getAbsolutePath

  /** `written` has as many rows where `condition` holds as its `source` has, and some. */
  def assertSameCount(written: DataFrame, source: DataFrame, condition: String): Unit = {
    val expected = source.where(condition).count()
    assert(expected > 0, s"the source has no rows where $condition")
    assert(written.where(condition).count() == expected, s"rows where $condition")
  }

  /** Per leaf of each data file: value count and statistics, ours against Spark's. */
  def assertSameLeafStatistics(ours: String, theirs: String): Unit = {
    dataFiles(ours).zip(dataFiles(theirs)).foreach { case (o, t) =>
      def leaves(f: File) = footer(f).getBlocks.asScala.flatMap(_.getColumns.asScala)
        .groupBy(_.getPath.toDotString).map { case (path, chunks) =>
          path -> (chunks.map(_.getValueCount).sum, chunks.map(_.getStatistics.getNumNulls).sum,
            chunks.map(c => Option(c.getStatistics).filter(_.hasNonNullValue)
              .map(s => (s.minAsString, s.maxAsString))))
        }
      val (lo, lt) = (leaves(o), leaves(t))
      assert(lo.keySet == lt.keySet)
      lt.foreach { case (path, (values, nulls, minMax)) =>
        assert(lo(path)._1 == values, s"$path: value count")
        assert(lo(path)._2 == nulls, s"$path: null count")
        if (footer(o).getBlocks.size == 1 && footer(t).getBlocks.size == 1) {
          assert(lo(path)._3 == minMax, s"$path: min and max")
        }
      }
    }
  }

  /** Rows read back, ordered by their string form (NaN, binary and nulls included). */
  def readBack(dir: String, vectorized: Boolean): Seq[Row] =
    withConf("spark.sql.parquet.enableVectorizedReader" -> vectorized.toString) {
      canonical(spark.read.parquet(dir))
    }

  def canonical(df: DataFrame): Seq[Row] =
    df.collect().toSeq.sortBy(r => r.toSeq.map(show).mkString("|"))

  /** A value's text, bytes included (at any depth). */
  def show(v: Any): String = v match {
    case b: Array[Byte] => b.mkString("[", ",", "]")
    case r: Row => r.toSeq.map(show).mkString("{", ",", "}")
    case s: scala.collection.Seq[_] => s.map(show).mkString("[", ",", "]")
    case m: scala.collection.Map[_, _] => m.toSeq.map { case (k, x) => show(k) + "->" + show(x) }
      .mkString("{", ",", "}")
    case other => String.valueOf(other)
  }

  def sameValue(p: Any, q: Any): Boolean = (p, q) match {
    case (p: Array[Byte], q: Array[Byte]) => java.util.Arrays.equals(p, q)
    case (p: Double, q: Double) => java.lang.Double.compare(p, q) == 0
    case (p: Float, q: Float) => java.lang.Float.compare(p, q) == 0
    case (p: Row, q: Row) =>
      p.length == q.length && (0 until p.length).forall(i => sameValue(p.get(i), q.get(i)))
    case (p: scala.collection.Seq[_], q: scala.collection.Seq[_]) =>
      p.length == q.length && p.zip(q).forall { case (a, b) => sameValue(a, b) }
    case (p: scala.collection.Map[_, _], q: scala.collection.Map[_, _]) =>
      def entries(m: scala.collection.Map[_, _]) = m.toSeq.map { case (k, v) => Seq(k, v) }
      sameValue(entries(p), entries(q))
    case (p, q) => p == q
  }

  /** The first difference between two row lists, if any. */
  def firstDifference(a: Seq[Row], b: Seq[Row]): Option[String] = {
    if (a.length != b.length) return Some(s"${a.length} rows against ${b.length}")
    a.indices.iterator.flatMap { r =>
      (0 until a(r).length).find(i => !sameValue(a(r).get(i), b(r).get(i))).map { i =>
        def show(v: Any) = v match {
          case b: Array[Byte] => b.mkString("bytes[", ",", "]")
          case other => String.valueOf(other).take(200)
        }
        s"row $r field $i: ${show(a(r).get(i))} against ${show(b(r).get(i))}"
      }
    }.find(_ => true)
  }
}

object VecRuntimeSparkSession {
  /**
   * The census of the suites run so far in this JVM ([[WriteCensus]]): every Parquet write by
   * suite and kind in `census.tsv`, and the totals by kind in `census.md`, in the build's
   * directory (written again after each suite, so the last one holds the whole run).
   */
  def writeCensus(): Unit = {
    val counts = WriteCensus.snapshot().toSeq.sortBy(_._1)
    val dir = new File(System.getProperty("vecruntime.build.dir", "target"))
    dir.mkdirs()
    val tsv = counts.map { case ((suite, kind), n) => s"$suite\t$kind\t$n" }
    Files.write(new File(dir, "census.tsv").toPath, (tsv.mkString("\n") + "\n").getBytes("UTF-8"))
    val byKind = counts.groupBy(_._1._2).map { case (k, v) => k -> v.map(_._2).sum }.toSeq
      .sortBy { case (k, n) => (k != "native", k == "plugin off", -n) }
    val written = byKind.filter(_._1 != "plugin off").map(_._2).sum
    val md = Seq(s"Parquet writes of the plugin's suites with the plugin on: $written", "",
      "| writes | by |", "|---:|---|") ++ byKind.map { case (k, n) => s"| $n | $k |" }
    Files.write(new File(dir, "census.md").toPath, (md.mkString("\n") + "\n").getBytes("UTF-8"))
  }
}

/**
 * A test of many seconds whose subject the Spark line does not change (a write's size, how
 * the reader skips in our files, rows' buckets by the hashes RowSplittingSuite checks on each
 * line): run on the main Spark line only (`-DtagsToExclude=io.vecruntime.spark.Slow`).
 */
object Slow extends org.scalatest.Tag("io.vecruntime.spark.Slow")
