package io.vecruntime.spark

import java.io.File

import scala.jdk.CollectionConverters._

import org.apache.parquet.example.data.Group

import org.apache.spark.{SparkException, SparkThrowable}
import org.apache.spark.sql.DataFrame

/**
 * Spark's calendar rebase in write, natively: LEGACY and EXCEPTION for dates, timestamps
 * (micros, millis) and INT96, checked against Spark's writer on the values stored in the files
 * (before any read-side rebase), the rows both readers read back and the footer keys.
 */
class RebaseWriteSuite extends VecRuntimeSparkSession {

  /**
   * Dates and timestamps from 1000 BC to 2000 AD, denser around the thresholds
   * (0001-01-01, the 1582 switch, 1900-01-01), at several times of day; a null now and then.
   */
  def datetimes(): DataFrame = {
    val days = (-1100000 to 11000 by 997) ++ (-719170 to -719155) ++ (-141440 to -141420) ++
      (-25570 to -25565) ++ Seq(0)
    val rows = days.zipWithIndex.map { case (d, i) =>
      val micros = d.toLong * 86400000000L + (i * 3917L % 86400L) * 1000000L + i * 123L
      (i, if (i % 13 == 5) None else Some(d), if (i % 17 == 3) None else Some(micros))
    }
    spark.createDataFrame(rows).toDF("id", "d", "us").selectExpr("id",
      "date_from_unix_date(d) as d", "timestamp_micros(us) as ts",
      "named_struct('ts', timestamp_micros(us), 'days', array(date_from_unix_date(d))) as nested")
      .repartition(2)
  }

  /** Every value of every leaf, as stored: raw INT32, INT64 and INT96 bytes by column path. */
  def stored(dir: String): Map[String, Seq[String]] = {
    val out = scala.collection.mutable.Map[String, Seq[String]]()
    dataFiles(dir).foreach { f =>
      val reader = groupReader(f)
      try {
        Iterator.continually(reader.read()).takeWhile(_ != null).foreach(g => flatten("", g, out))
      } finally reader.close()
    }
    out.toMap.map { case (k, v) => k -> v.sorted }
  }

  private def flatten(prefix: String, g: Group, out: scala.collection.mutable.Map[String, Seq[String]]): Unit = {
    val t = g.getType
    for (i <- 0 until t.getFieldCount; r <- 0 until g.getFieldRepetitionCount(i)) {
      val name = prefix + t.getFieldName(i)
      if (t.getType(i).isPrimitive) {
        out(name) = out.getOrElse(name, Nil) :+ g.getValueToString(i, r)
      } else {
        flatten(name + ".", g.getGroup(i, r), out)
      }
    }
  }

  // Zones with Spark's table, and zones without one: fixed offsets (Spark's calendar path for
  // every value; `+05:00` is GMT to java.util.TimeZone, and so to Spark's rebase), and a zone
  // newer than the table whose clocks first changed in 1922 (the calendar path up to 1900, with
  // local mean time by java.time and -07:00 by java.util.TimeZone).
  for (tz <- Seq("America/Los_Angeles", "Europe/Amsterdam", "Asia/Kolkata", "UTC", "GMT-08:30", "+05:00",
      "America/Ciudad_Juarez");
       tsType <- Seq("TIMESTAMP_MICROS", "TIMESTAMP_MILLIS", "INT96")) {
    test(s"LEGACY in $tz, timestamps as $tsType: Spark's stored values and footer keys") {
      withConf("spark.sql.session.timeZone" -> tz,
        "spark.sql.parquet.datetimeRebaseModeInWrite" -> "LEGACY",
        "spark.sql.parquet.int96RebaseModeInWrite" -> "LEGACY",
        "spark.sql.parquet.outputTimestampType" -> tsType) {
        val (ours, theirs) = compareWriters(s"legacy-$tz-$tsType")(datetimes())
        val (so, st) = (stored(ours), stored(theirs))
        assert(so.keySet == st.keySet)
        st.foreach { case (k, v) => assert(so(k) == v, s"$k: stored values differ") }
        val keys = footer(dataFiles(ours).head).getFileMetaData.getKeyValueMetaData.asScala
        assert(keys.get("org.apache.spark.legacyDateTime").contains(""))
        assert(keys.get("org.apache.spark.legacyINT96").contains(""))
        assert(keys.get("org.apache.spark.timeZone").contains(tz))
      }
    }
  }

  test("LEGACY from a Parquet scan: rows, not columnar batches, carry the rebase") {
    val src = newDir("legacy-src")
    datetimes().write.parquet(src)
    withConf("spark.sql.session.timeZone" -> "Europe/Amsterdam",
      "spark.sql.parquet.datetimeRebaseModeInWrite" -> "LEGACY") {
      val (ours, theirs) = compareWriters("legacy-scan")(spark.read.parquet(src))
      assert(stored(ours) == stored(theirs))
    }
  }

  /**
   * The write's task failure and its cause: the exception the write throws (Spark 4), or on
   * Spark 3.5 the cause of its "Job aborted due to stage failure".
   */
  def failure(df: DataFrame, on: Boolean): (SparkException, Throwable) =
    withConf(VecRuntimeConf.ENABLED -> on.toString) {
      val thrown = intercept[SparkException](df.write.parquet(newDir("exception")))
      val e = Iterator.iterate[Throwable](thrown)(_.getCause).takeWhile(_ != null).collectFirst {
        case s: SparkException if TestShims.condition(s) == "TASK_WRITE_FAILED" => s
      }.getOrElse(thrown)
      (e, e.getCause)
    }

  for ((what, expr, int96) <- Seq(
    ("a date before 1582-10-15", "date'1582-10-14'", false),
    ("a timestamp before 1900-01-01", "timestamp'1899-12-31 23:59:59.999999Z'", false),
    ("an INT96 timestamp before 1900-01-01", "timestamp'1800-06-01 00:00:00Z'", true))) {
    test(s"EXCEPTION: $what fails the task as Spark's writer does, cause unwrapped") {
      withConf("spark.sql.parquet.datetimeRebaseModeInWrite" -> (if (int96) "CORRECTED" else "EXCEPTION"),
        "spark.sql.parquet.int96RebaseModeInWrite" -> (if (int96) "EXCEPTION" else "CORRECTED"),
        "spark.sql.parquet.outputTimestampType" -> (if (int96) "INT96" else "TIMESTAMP_MICROS")) {
        val df = spark.range(0, 1000, 1, 2).selectExpr("id",
          s"case when id = 777 then $expr else ${expr.replaceAll("1[58][0-9][0-9]", "2001")} end as v")
        val (eo, co) = failure(df, on = true)
        val (et, ct) = failure(df, on = false)
        // Raised by the native writer's output writer, not Spark's.
        assert(co.getStackTrace.exists(_.getClassName.endsWith("VectorParquetOutputWriter")), co)
        assert(!ct.getStackTrace.exists(_.getClassName.endsWith("VectorParquetOutputWriter")), ct)
        assert(TestShims.condition(eo) == TestShims.condition(et), eo)
        assert(TestShims.condition(eo) == "TASK_WRITE_FAILED", eo)
        // Spark's SparkUpgradeException (private to Spark's package), as its suites check it.
        assert(co.getClass.getName == "org.apache.spark.SparkUpgradeException", co)
        assert(co.getClass == ct.getClass)
        val (uo, ut) = (co.asInstanceOf[SparkThrowable], ct.asInstanceOf[SparkThrowable])
        assert(TestShims.condition(uo) == "INCONSISTENT_BEHAVIOR_CROSS_VERSION.WRITE_ANCIENT_DATETIME", uo)
        assert(TestShims.condition(uo) == TestShims.condition(ut))
        assert(uo.getMessageParameters == ut.getMessageParameters)
      }
    }
  }

  test("EXCEPTION from a Parquet scan: batches copied and checked as Spark's writer checks rows") {
    val src = newDir("exception-scan-src")
    spark.range(0, 3000, 1, 2).selectExpr("id",
      "date'1582-10-15' + cast(id % 50 as int) as d",
      "timestamp'1900-01-01 00:00:00Z' + make_interval(0, 0, 0, 0, 0, 0, id) as ts",
      "case when id % 11 = 0 then null else timestamp_ntz'1500-01-01 00:00:00' end as ntz",
      "case when id = 1777 then date'1582-10-14' end as old_d",
      "case when id = 2333 then timestamp'1899-12-31 23:59:59.999999Z' end as old_ts")
      .write.parquet(src)
    def columnar(plan: org.apache.spark.sql.execution.SparkPlan) =
      nodesOf(plan).collect { case v: VectorWriteFilesExec => v.columnarInput }.contains(true)
    for (int96 <- Seq(false, true)) {
      withConf("spark.sql.parquet.datetimeRebaseModeInWrite" -> "EXCEPTION",
        "spark.sql.parquet.int96RebaseModeInWrite" -> "EXCEPTION",
        "spark.sql.parquet.outputTimestampType" -> (if (int96) "INT96" else "TIMESTAMP_MICROS")) {
        // Values at and after the thresholds, and NTZ timestamps (never rebased): written.
        val ok = spark.read.parquet(src).select("id", "d", "ts", "ntz")
        assert(columnar(planOf(ok.write.parquet(newDir("exception-scan-plan")))))
        val (ours, theirs) = compareWriters(s"exception-scan-$int96")(ok)
        assert(stored(ours) == stored(theirs))
        // One value before a threshold among nulls: the task fails as Spark's writer fails it.
        for (column <- Seq("old_d", "old_ts") if !(int96 && column == "old_d")) {
          val df = spark.read.parquet(src).select("id", column)
          val (eo, co) = failure(df, on = true)
          val (et, ct) = failure(df, on = false)
          assert(co.getStackTrace.exists(_.getClassName.endsWith("VectorParquetOutputWriter")), co)
          assert(TestShims.condition(eo) == TestShims.condition(et), eo)
          assert(co.getClass.getName == "org.apache.spark.SparkUpgradeException", co)
          assert(co.getMessage == ct.getMessage)
        }
      }
    }
  }

  test("EXCEPTION: values at the thresholds are written, as Spark's writer writes them") {
    withConf("spark.sql.parquet.datetimeRebaseModeInWrite" -> "EXCEPTION",
      "spark.sql.parquet.int96RebaseModeInWrite" -> "EXCEPTION") {
      val df = spark.range(0, 100).selectExpr("id", "date'1582-10-15' + cast(id as int) as d",
        "timestamp'1900-01-01 00:00:00Z' + make_interval(0, 0, 0, 0, 0, 0, id) as ts")
      val (ours, theirs) = compareWriters("exception-ok")(df)
      assert(stored(ours) == stored(theirs))
      val keys = footer(dataFiles(ours).head).getFileMetaData.getKeyValueMetaData.asScala
      assert(!keys.contains("org.apache.spark.legacyDateTime"))
    }
  }
}
