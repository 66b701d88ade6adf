package io.vecruntime.spark

import java.io.File

import scala.concurrent.{Await, Future}
import scala.concurrent.ExecutionContext.Implicits.global
import scala.concurrent.duration._

import org.scalatest.concurrent.Eventually._
import org.scalatest.time.{Millis, Seconds, Span}

/** The native writer under what operators do to jobs: cancelling them. */
class OperationsSuite extends VecRuntimeSparkSession {

  def files(dir: File): Seq[File] =
    if (dir.isDirectory) Option(dir.listFiles()).toSeq.flatten.flatMap(files) else Seq(dir)

  test("a cancelled write stops at its next batch and leaves no _temporary tree") {
    spark.udf.register("slow", (x: Long) => { if (x % 1000 == 0) Thread.sleep(25); x })
    for (round <- 1 to 4; partitioned = round % 2 == 0) {
      val dir = new File(newDir("cancelled"))
      val df = spark.range(0, 400000, 1, 2)
        .selectExpr("slow(id) as id", "cast(id as string) as s", "id % 50 as p")
      val writing = Future {
        val w = df.write.option("maxRecordsPerFile", 500)
        (if (partitioned) w.partitionBy("p") else w).parquet(dir.getAbsolutePath)
      }
      eventually(timeout(Span(60, Seconds)), interval(Span(20, Millis))) {
        assert(files(dir).exists(_.getName.contains("part-")), "the tasks are writing")
      }
      spark.sparkContext.cancelAllJobs()
      intercept[Exception](Await.result(writing, 60.seconds))
      eventually(timeout(Span(60, Seconds)), interval(Span(50, Millis))) {
        assert(spark.sparkContext.statusTracker.getExecutorInfos.map(_.numRunningTasks).sum == 0)
      }
      Thread.sleep(500)
      assert(!new File(dir, "_temporary").exists(),
        s"round $round (partitioned: $partitioned): ${files(dir).take(5).mkString(", ")}")
    }
  }
}
