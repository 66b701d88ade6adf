package io.vecruntime.spark

import java.io.File

/**
 * Hive tables and directories `STORED AS PARQUET`: natively when Spark converts them to its own
 * Parquet format (its default), by Hive's serde with the reason shown when it does not.
 */
class HiveWritePathsSuite extends VecRuntimeSparkSession {
  override def hiveSupport: Boolean = true

  private def createdBy(dir: File): Seq[String] = {
    def walk(f: File): Seq[File] =
      if (f.isDirectory) Option(f.listFiles()).toSeq.flatten.filterNot(_.getName.startsWith(".")).flatMap(walk)
      else Seq(f)
    walk(dir).filter(f => f.getName.startsWith("part-") || f.getName.matches("\\d+_\\d+"))
      .filter(_.length > 0).map(f => footer(f).getFileMetaData.getCreatedBy.split(" ").head).distinct
  }

  test("a Hive table STORED AS PARQUET: natively when converted, else Hive's serde with the reason") {
    spark.sql("CREATE TABLE hive_pq (id BIGINT, s STRING) STORED AS PARQUET")
    try {
      val insert = "INSERT INTO hive_pq SELECT id, cast(id AS STRING) FROM range(1000)"
      val dir = new File(tableDir("hive_pq"))
      assert(plansOf(spark.sql(insert)).exists(usesVecRuntime))
      assert(createdBy(dir) == Seq("vecruntime"))
      withConf("spark.sql.hive.convertMetastoreParquet" -> "false") {
        val text = explained(insert)
        assert(text.contains(s"VecRuntimeFallback [Spark's writer: ${VectorWriteRule.HiveSerde}]"), text)
        assert(!plansOf(spark.sql(insert)).exists(usesVecRuntime))
      }
      assert(createdBy(dir).sorted == Seq("parquet-mr", "vecruntime"))
      assert(spark.table("hive_pq").count() == 2000)
    } finally spark.sql("DROP TABLE hive_pq")
  }

  test("a bucketed Hive table STORED AS PARQUET: HiveHash buckets as Spark writes them, natively") {
    // Spark converts the INSERT to its own Parquet format with Hive-compatible bucketing
    // (HiveHash bucket ids, files NNNNN_0_part-...), the partitioned one too.
    for ((partitioned, suffix) <- Seq(false -> "flat", true -> "part")) {
      val tables = Seq(s"hive_bkt_${suffix}_ours" -> true, s"hive_bkt_${suffix}_spark" -> false)
      for ((t, on) <- tables) {
        spark.sql(s"DROP TABLE IF EXISTS $t")
        spark.sql(s"CREATE TABLE $t (id BIGINT, k INT, s STRING, d DOUBLE) " +
          (if (partitioned) "PARTITIONED BY (p INT) " else "") +
          "CLUSTERED BY (k, s) INTO 8 BUCKETS STORED AS PARQUET")
        withConf(VecRuntimeConf.ENABLED -> on.toString, "hive.exec.dynamic.partition.mode" -> "nonstrict") {
          val plans = plansOf(spark.sql(s"INSERT INTO $t " +
            "SELECT id, cast(id % 97 AS INT), CASE WHEN id % 9 = 0 THEN NULL ELSE concat('v', id % 31) END, " +
            "cast(id % 13 AS DOUBLE) * (CASE WHEN id % 2 = 0 THEN -1 ELSE 1 END)" +
            (if (partitioned) ", cast(id % 3 AS INT)" else "") +
            " FROM range(0, 3000, 1, 2)"))
          assert(plans.exists(usesVecRuntime) == on, plans)
        }
      }
      val (ours, theirs) = (tableDir(tables.head._1), tableDir(tables.last._1))
      // (assertSameTree also checks that every file of ours is vecruntime's, of theirs parquet-mr's.)
      val files = assertSameTree(ours, theirs)
      val name = "\\d{5}_0_part-\\d+_\\d{5}\\.c000\\.snappy\\.parquet"
      assert(files.keys.forall(_.matches((if (partitioned) "p=\\d/" else "") + name)), files.keys)
      assert(files.size > 8, files.keys)
      for ((t, _) <- tables) spark.sql(s"DROP TABLE $t")
    }
  }

  test("INSERT OVERWRITE LOCAL DIRECTORY STORED AS PARQUET: natively when converted, else counted as Hive's") {
    val insert = (dir: String) =>
      spark.sql(s"INSERT OVERWRITE LOCAL DIRECTORY '$dir' STORED AS PARQUET SELECT id FROM range(500)")
    val ours = newDir("hive-dir")
    insert(ours)
    assert(createdBy(new File(ours)) == Seq("vecruntime"))
    val key = (getClass.getSimpleName, s"fallback: ${VectorWriteRule.HiveSerde}")
    val before = WriteCensus.snapshot().getOrElse(key, 0L)
    val theirs = newDir("hive-dir-serde")
    withConf("spark.sql.hive.convertMetastoreInsertDir" -> "false") {
      plansOf(insert(theirs))
    }
    assert(createdBy(new File(theirs)) == Seq("parquet-mr"))
    assert(WriteCensus.snapshot().getOrElse(key, 0L) == before + 1)
  }
}
