package io.vecruntime.spark

import scala.jdk.CollectionConverters._

/** The native writer's memory as part of Spark's: a small off-heap pool. */
class MemoryPressureSuite extends VecRuntimeSparkSession {
  override def extraConf: Map[String, String] = Map(
    "spark.memory.offHeap.enabled" -> "true", "spark.memory.offHeap.size" -> "64m")

  test("under a 64 MiB off-heap pool a write completes, its row groups ended early") {
    val df = spark.range(0, 3000000, 1, 2).selectExpr("id",
      "cast(id * 7919 % 1000003 as string) as s", "cast(id as double) * 1.5 as d",
      "sha2(cast(id as string), 256) as h")
    val ours = newDir("pressure")
    val theirs = newDir("pressure-spark")
    assert(usesVecRuntime(planOf(df.write.parquet(ours))))
    withConf(VecRuntimeConf.ENABLED -> "false")(df.write.parquet(theirs))
    val (a, b) = (spark.read.parquet(ours), spark.read.parquet(theirs))
    assert(a.count() == 3000000 && a.exceptAll(b).count() == 0 && b.exceptAll(a).count() == 0)
    val groups = (dir: String) => dataFiles(dir).flatMap(f => footer(f).getBlocks.asScala)
    // Spark's writer: 128 MiB row groups. Ours: ended when the pool grants no more memory for
    // the open row group's pages, within the task's share of the pool.
    assert(groups(ours).size > groups(theirs).size,
      s"${groups(ours).size} row groups, Spark's writer ${groups(theirs).size}")
    assert(groups(ours).forall(_.getCompressedSize <= (64L << 20)),
      groups(ours).map(_.getCompressedSize))
  }
}
