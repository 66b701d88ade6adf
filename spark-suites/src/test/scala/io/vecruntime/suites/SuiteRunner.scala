package io.vecruntime.suites

import java.io.{File, FileWriter, PrintWriter}
import java.nio.file.Files

import scala.collection.mutable
import scala.io.Source
import scala.jdk.CollectionConverters._

import io.vecruntime.spark.WriteCensus

import org.scalatest.{Args, ConfigMap, DynaTags, Filter, Reporter, Stopper, Suite, Tracker}
import org.scalatest.events._

/**
 * Runs Spark's own suites, unmodified, once with the plugin off (the baseline) and once with it
 * on, each in a JVM of its own, and prints per suite the tests passed, failed and excluded in
 * both runs and how the Parquet writes went (native, or Spark's writer and why).
 *
 * A test that passes with the plugin off and fails with it on is a defect: the run fails. A test
 * in the exclusions file is not run with the plugin on; each line gives its reason, an intended
 * difference docs/testing.md documents. With `on,off:failed` the plugin-off baseline runs only for
 * the suites with a test failing with the plugin on (the others show "-" for it).
 *
 * {{{
 *   SuiteRunner <ci|full|Suite,Suite...> <exclusions.tsv> <out dir> [off,on|on,off:failed|off|on|report]
 * }}}
 */
object SuiteRunner {
  private val Parquet = "org.apache.spark.sql.execution.datasources.parquet."
  private val Sources = "org.apache.spark.sql.sources."
  private val Datasources = "org.apache.spark.sql.execution.datasources."

  /** A suite, and if `only` is given, the only tests of it to run (names containing one). */
  case class Entry(className: String, only: Seq[String] = Nil) {
    def name: String = className.substring(className.lastIndexOf('.') + 1)
  }

  /** What `./test.sh` runs: the suites that write the most ways, within its time budget. */
  val Ci: Seq[Entry] = Seq(
    Entry(Parquet + "ParquetIOSuite"),
    Entry(Parquet + "ParquetEncodingSuite"),
    Entry(Parquet + "ParquetCompressionCodecPrecedenceSuite"),
    Entry(Parquet + "ParquetV1QuerySuite"),
    Entry(Sources + "PartitionedWriteSuite"),
    Entry(Sources + "BucketedWriteWithoutHiveSupportSuite"),
    Entry(Datasources + "FileFormatWriterSuite"),
    Entry(Datasources + "V1WriteCommandSuite"),
    Entry("org.apache.spark.sql.execution.metric.SQLMetricsSuite",
      Seq("writing data out", "SPARK-34399: Add job commit duration metrics")))

  val Full: Seq[Entry] = Ci ++ Seq(
    Entry(Parquet + "ParquetV2QuerySuite"),
    Entry(Parquet + "ParquetFieldIdIOSuite"),
    Entry(Parquet + "ParquetSchemaSuite"),
    Entry(Parquet + "ParquetFileFormatV1Suite"),
    Entry(Parquet + "ParquetFileFormatV2Suite"),
    Entry(Parquet + "ParquetV1PartitionDiscoverySuite"),
    Entry(Parquet + "ParquetV2PartitionDiscoverySuite"),
    Entry(Parquet + "ParquetRebaseDatetimeV1Suite"),
    Entry(Parquet + "ParquetRebaseDatetimeV2Suite"),
    Entry(Parquet + "ParquetCommitterSuite"),
    Entry(Sources + "InsertSuite"),
    Entry("org.apache.spark.sql.test.DataFrameReaderWriterSuite"),
    // Readers of what the writer wrote: page indexes, row indexes, codecs, type widening.
    // (ParquetV1FilterSuite and ParquetV2FilterSuite run by name: 30 minutes each here.)
    Entry(Parquet + "ParquetColumnIndexSuite"),
    Entry(Parquet + "ParquetRowIndexSuite"),
    Entry(Datasources + "ParquetCodecSuite"),
    Entry(Parquet + "ParquetTypeWideningSuite"),
    // Variant: shredding inferred per file, forced, read back shredded.
    Entry(Parquet + "ParquetVariantShreddingSuite"),
    Entry(Parquet + "VariantInferShreddingSuite"),
    Entry("org.apache.spark.sql.VariantShreddingSuite"),
    Entry("org.apache.spark.sql.VariantEndToEndSuite"),
    // Geospatial types written and read back (their WKB, CRS and statistics).
    Entry(Parquet + "ParquetGeoSuite"),
    Entry("org.apache.spark.sql.STExpressionsSuite"),
    // Hive suites last: they share one TestHive context, which stays up to the end of the JVM.
    Entry(Sources + "BucketedWriteWithHiveSupportSuite"),
    Entry(Sources + "ParquetHadoopFsRelationSuite"),
    Entry("org.apache.spark.sql.hive.HiveParquetSuite"))

  /** Run by name only (too slow for the full set on 2 cores). */
  val ByName: Seq[Entry] = Seq(
    Entry(Parquet + "ParquetV1FilterSuite"),
    Entry(Parquet + "ParquetV2FilterSuite"),
    Entry(Parquet + "ParquetV1SchemaPruningSuite"))

  private def suites(set: String): Seq[Entry] = set match {
    case "ci" => Ci
    case "full" => Full
    case names =>
      val all = (Full ++ ByName).groupBy(_.name)
      names.split(",").toSeq.flatMap(n => all.getOrElse(n.trim,
        throw new IllegalArgumentException(s"unknown suite $n; known: ${all.keys.mkString(", ")}")))
  }

  private val Excluded = "vecruntime.excluded"
  private val NotSelected = "vecruntime.notSelected"

  def main(args: Array[String]): Unit = args.toList match {
    case "--child" :: mode :: set :: exclusions :: out :: Nil =>
      child(mode, suites(set), readExclusions(exclusions), new File(out))
    case set :: exclusions :: out :: rest =>
      // "report" prints the table of the last runs without running anything.
      val modes = rest.headOption.getOrElse("off,on").split(",").toSeq.filter(_ != "report")
      val partial = modes.indexOf("off:failed")
      require(partial < 0 || modes.take(partial).contains("on"),
        "off:failed reads the run with the plugin on: give on first")
      val dir = new File(out)
      dir.mkdirs()
      for (mode <- modes) {
        val code = mode match {
          // The baseline only where it decides something: the suites with a test failing with
          // the plugin on (about 8 of CI's 45 minutes when run for every suite).
          case "off:failed" =>
            Seq("off.tsv", "off-writes.tsv").foreach(f => new File(dir, f).delete())
            val failing = read(new File(dir, "on.tsv")).filter(_(2) == "FAIL").map(_(0)).distinct
            if (failing.isEmpty) 0 else fork("off", failing.mkString(","), exclusions, dir)
          case m => fork(m, set, exclusions, dir)
        }
        if (code != 0) sys.error(s"the $mode run exited with $code")
      }
      sys.exit(report(suites(set), readExclusions(exclusions), dir))
    case _ =>
      System.err.println(
        "SuiteRunner <ci|full|Suite,...> <exclusions.tsv> <out dir> [off,on|on,off:failed]")
      sys.exit(2)
  }

  /** suite name -> test name -> reason. */
  private def readExclusions(path: String): Map[String, Map[String, String]] = {
    val src = Source.fromFile(path, "UTF-8")
    try {
      src.getLines().map(_.trim).filter(l => l.nonEmpty && !l.startsWith("#")).map { l =>
        l.split("\t") match {
          case Array(suite, test, reason) => (suite, test, reason)
          case _ => sys.error(s"$path: want suite<TAB>test<TAB>reason: $l")
        }
      }.toSeq.groupBy(_._1).map { case (s, rows) => s -> rows.map(r => r._2 -> r._3).toMap }
    } finally src.close()
  }

  /** One JVM per mode, in a working directory of its own (Spark's tests write relative paths). */
  private def fork(mode: String, set: String, exclusions: String, out: File): Int = {
    val work = new File(out, mode)
    work.mkdirs()
    new File(work, "tmp").mkdirs()
    Seq(s"$mode.tsv", s"$mode-writes.tsv").foreach(f => new File(out, f).delete())
    new File(work, "unit-tests.log").delete()
    val jvm = sys.env.getOrElse("SUITES_JVM", "-Xmx4g").split("\\s+").filter(_.nonEmpty).toSeq
    val log4j = Option(getClass.getResource("/log4j2.properties")).map(_.toString)
    // local-cluster suites start executors from a Spark home (the pyspark package's
    // distribution, which scripts/venv.sh installs) with this class path added to theirs.
    val sparkHome = sys.env.get("SPARK_TEST_HOME").orElse {
      val venv = new File(new File(exclusions).getAbsoluteFile.getParentFile.getParentFile, ".venv/lib")
      Option(venv.listFiles()).getOrElse(Array.empty[File])
        .map(d => new File(d, "site-packages/pyspark")).find(_.isDirectory).map(_.getPath)
    }
    val props = Seq(
      "-ea", "-Xss4m",
      s"-Djava.io.tmpdir=${new File(work, "tmp").getAbsolutePath}",
      "-Dspark.testing=1",
      "-Dspark.ui.enabled=false",
      "-Dspark.ui.showConsoleProgress=false",
      "-Dspark.unsafe.exceptionOnMemoryLeak=true",
      "-Dderby.system.durability=test",
      "-Djava.awt.headless=true",
      s"-Dspark.sql.queryExecutionListeners=${classOf[WriteCensus].getName}") ++
      log4j.map(l => s"-Dlog4j.configurationFile=$l") ++
      sparkHome.map(h => s"-Dspark.test.home=$h") ++
      (if (mode == "on") Seq("-Dspark.sql.extensions=io.vecruntime.spark.VecRuntimeExtensions")
       else Nil)
    val java = new File(System.getProperty("java.home"), "bin/java").getPath
    val cmd = Seq(java) ++ jvm ++ props ++ Seq("-cp", System.getProperty("java.class.path"),
      getClass.getName.stripSuffix("$"), "--child", mode, set,
      new File(exclusions).getAbsolutePath, out.getAbsolutePath)
    val pb = new ProcessBuilder(cmd.asJava).directory(work).inheritIO()
    pb.environment().put("SPARK_TESTING", "1")
    pb.environment().put("SPARK_DIST_CLASSPATH", System.getProperty("java.class.path"))
    // Spark's launcher (local-cluster executors under test) asks for it rather than a build tree.
    pb.environment().put("SPARK_SCALA_VERSION", scala.util.Properties.versionNumberString
      .split("\\.").take(2).mkString("."))
    pb.start().waitFor()
  }

  /** Collects one suite's test outcomes. */
  private class Outcomes extends Reporter {
    val rows = mutable.ArrayBuffer[(String, String, String)]()
    private def oneLine(s: String) = {
      val l = Option(s).getOrElse("").replaceAll("[\t\r\n]+", " ")
      if (l.length > 400) l.take(400) + "..." else l
    }
    /** The exception's class and its root cause, which the message often leaves out. */
    private def causes(t: Option[Throwable]) = t.fold("") { x =>
      var root = x
      while (root.getCause != null && (root.getCause ne root)) root = root.getCause
      if (root eq x) s" [${x.getClass.getName}]"
      else s" [${x.getClass.getName}; root: ${root.getClass.getName}: ${root.getMessage}]"
    }
    override def apply(e: Event): Unit = synchronized {
      e match {
        case t: TestSucceeded => rows += ((t.testName, "PASS", ""))
        case t: TestFailed => rows += ((t.testName, "FAIL", oneLine(t.message + causes(t.throwable))))
        case t: TestCanceled => rows += ((t.testName, "CANCELED", oneLine(t.message)))
        case t: TestIgnored => rows += ((t.testName, "IGNORED", ""))
        case s: SuiteAborted =>
          rows += (("(suite aborted)", "FAIL", oneLine(s.message + causes(s.throwable))))
        case _ =>
      }
    }
  }

  private def child(mode: String, entries: Seq[Entry],
      exclusions: Map[String, Map[String, String]], out: File): Unit = {
    for (entry <- entries) {
      val start = System.nanoTime()
      WriteCensus.scope = entry.name
      val outcomes = new Outcomes
      try {
        val suite = Class.forName(entry.className).getDeclaredConstructor()
          .newInstance().asInstanceOf[Suite]
        val names = suite.testNames
        val unselected = if (entry.only.isEmpty) Set.empty[String]
          else names.filterNot(n => entry.only.exists(n.contains))
        val excluded = if (mode == "on") exclusions.getOrElse(entry.name, Map.empty).keySet
          else Set.empty[String]
        val tags = (unselected.map(_ -> Set(NotSelected)) ++
          excluded.intersect(names).map(_ -> Set(Excluded))).toMap
        val filter = Filter(tagsToExclude = Set("org.scalatest.Ignore", Excluded, NotSelected),
          dynaTags = DynaTags(Map.empty, Map(suite.suiteId -> tags)))
        suite.run(None, Args(outcomes, Stopper.default, filter, ConfigMap.empty, None,
          new Tracker, Set.empty)).waitUntilCompleted()
      } catch {
        case t: Throwable =>
          outcomes(SuiteAborted(new Ordinal(0), s"${t.getClass.getName}: ${t.getMessage}",
            entry.name, entry.className, Some(entry.className), Some(t)))
      }
      val seconds = (System.nanoTime() - start) / 1e9
      append(new File(out, s"$mode.tsv"),
        outcomes.rows.toSeq.map { case (t, s, m) => Seq(entry.name, t, s, m) })
      val writes = WriteCensus.snapshot().collect { case ((s, k), n) if s == entry.name => (k, n) }
      append(new File(out, s"$mode-writes.tsv"),
        writes.toSeq.sorted.map { case (k, n) => Seq(entry.name, k, n.toString) })
      val by = outcomes.rows.groupBy(_._2).map { case (s, r) => s -> r.size }
      println(f"[$mode] ${entry.name}%-42s ${by.getOrElse("PASS", 0)}%4d passed " +
        f"${by.getOrElse("FAIL", 0)}%3d failed  ${writes.values.sum}%4d Parquet writes  " +
        f"$seconds%6.0f s")
    }
  }

  private def append(f: File, rows: Seq[Seq[String]]): Unit = {
    val w = new PrintWriter(new FileWriter(f, true))
    try rows.foreach(r => w.println(r.mkString("\t"))) finally w.close()
  }

  private def read(f: File): Seq[Array[String]] =
    if (!f.exists()) Nil
    else Files.readAllLines(f.toPath).asScala.toSeq.map(_.split("\t", -1))

  /** A fallback reason without its column and type details (on-writes.tsv keeps them). */
  private def category(reason: String): String = {
    val NestedType = "fallback: nested type .*".r
    val OfColumn = "fallback: type (\\w+).* of column .*".r
    reason match {
      case NestedType() => "fallback: nested types (struct, array, map)"
      case OfColumn(t) => s"fallback: $t types"
      case other => other
    }
  }

  /** Prints the table; returns 1 when a test passes with the plugin off but not with it on. */
  private def report(entries: Seq[Entry], exclusions: Map[String, Map[String, String]],
      out: File): Int = {
    def outcomes(mode: String) =
      read(new File(out, s"$mode.tsv")).map(r => (r(0), r(1)) -> (r(2), r(3))).toMap
    val off = outcomes("off")
    val on = outcomes("on")
    val writes = read(new File(out, "on-writes.tsv")).map(r => (r(0), r(1), r(2).toLong))
    def count(m: Map[(String, String), (String, String)], suite: String, status: String) =
      m.count { case ((s, _), (st, _)) => s == suite && st == status }
    val lines = mutable.ArrayBuffer[String]()
    lines += "| Suite | off: passed | off: failed | on: passed | on: failed | on: excluded | " +
      "writes native | writes by Spark |"
    lines += "|---|--:|--:|--:|--:|--:|--:|--:|"
    val baseline = off.keySet.map(_._1)
    for (e <- entries.map(_.name).distinct) {
      val w = writes.filter(_._1 == e)
      val native = w.filter(_._2 == "native").map(_._3).sum
      val offCells = if (baseline(e)) s"${count(off, e, "PASS")} | ${count(off, e, "FAIL")}"
        else "- | -"
      lines += s"| $e | $offCells | " +
        s"${count(on, e, "PASS")} | ${count(on, e, "FAIL")} | " +
        s"${exclusions.getOrElse(e, Map.empty).size} | $native | ${w.map(_._3).sum - native} |"
    }
    val native = writes.filter(_._2 == "native").map(_._3).sum
    val total = writes.map(_._3).sum
    lines += ""
    lines += f"Parquet writes with the plugin on: $native of $total native " +
      f"(${if (total == 0) 0.0 else 100.0 * native / total}%.1f%%); Spark's writer, by reason:"
    writes.filter(_._2 != "native").groupBy(r => category(r._2)).toSeq
      .map { case (k, r) => (r.map(_._3).sum, k) }.sortBy { case (n, k) => (-n, k) }.foreach { case (n, k) => lines += f"- $n%5d  $k" }
    val regressions = on.collect {
      case ((s, t), ("FAIL", msg)) if off.get((s, t)).exists(_._1 == "PASS") => s"$s: $t: $msg"
    }.toSeq.sorted
    val bothFail = on.collect {
      case ((s, t), ("FAIL", _)) if off.get((s, t)).exists(_._1 == "FAIL") => s"$s: $t"
    }.toSeq.sorted
    if (bothFail.nonEmpty) {
      lines += ""
      lines += s"Failing with the plugin off too (${bothFail.size}):"
      bothFail.foreach(l => lines += s"- $l")
    }
    lines += ""
    if (regressions.isEmpty) lines += "No test fails with the plugin on that passes without it."
    else {
      lines += s"FAILING ONLY WITH THE PLUGIN ON (${regressions.size}):"
      regressions.foreach(l => lines += s"- $l")
    }
    val text = lines.mkString("\n")
    println(text)
    Files.writeString(new File(out, "report.md").toPath, text + "\n")
    if (regressions.isEmpty) 0 else 1
  }
}
