package io.vecruntime.spark

import scala.util.{Failure, Success, Try}
import scala.util.control.NonFatal

import org.apache.spark.internal.Logging
import org.apache.spark.sql.execution.SparkPlan
import org.apache.spark.sql.internal.SQLConf

/**
 * A table format's hook into its writes, built into this jar for one release of the format
 * (shim folders src/main/delta-X.Y) and loaded by reflection: the plugin loads and works
 * without the format on the class path.
 */
trait TableFormatHook {
  /** Why the format's writes keep its own writer on this class path, or None. */
  def unsupported: Option[String]

  /**
   * Called on the thread that runs a query, before it runs: the format's writes started on this
   * thread then write their data files natively. Idempotent.
   */
  def observeThisThread(): Unit
}

/**
 * A table format's plan hook: rewrites the write nodes of the format's writes in a physical plan
 * so that their data files are written natively (Iceberg's DataSource V2 writes).
 */
trait TableFormatPlanHook {
  /** Why the format's writes keep its own writer on this class path, or None. */
  def unsupported: Option[String]

  def rewrite(plan: SparkPlan, conf: SQLConf): SparkPlan
}

/** Loads a table format's hook object from this jar when the format is on the class path. */
private[spark] object TableFormats extends Logging {
  /**
   * The hook object `hookObject` (a Scala object's class name) of `format`, when `probeClass`
   * (one of the format's own classes) loads and the hook has nothing against the release.
   */
  def load[H](format: String, probeClass: String, hookObject: String)(
      unsupported: H => Option[String])(implicit tag: scala.reflect.ClassTag[H]): Option[H] = {
    val loader = Option(Thread.currentThread.getContextClassLoader).getOrElse(getClass.getClassLoader)
    // Class loading fails with LinkageErrors too, which Try does not hold.
    def attempt[T](f: => T): Try[T] =
      try Success(f) catch { case e @ (NonFatal(_) | _: LinkageError) => Failure(e) }
    if (attempt(Class.forName(probeClass, false, loader)).isFailure) None
    else attempt(Class.forName(hookObject, true, loader).getField("MODULE$").get(null)) match {
      case Success(tag(h)) =>
        unsupported(h) match {
          case None =>
            logInfo(s"vecruntime: $format writes their data files natively")
            Some(h)
          case Some(why) =>
            logWarning(s"vecruntime: $format keeps its writer: $why")
            None
        }
      case Success(other) =>
        logWarning(s"vecruntime: $format keeps its writer: unexpected hook $other")
        None
      case Failure(e) =>
        logWarning(s"vecruntime: $format keeps its writer: this jar holds no support for " +
          s"the $format release on the class path ($e)")
        None
    }
  }
}

/** Delta Lake: its commands' data files written natively (see the shim's `VecRuntimeDelta`). */
object DeltaWrites {
  /** The hook, when Delta is on the class path and this jar writes its release. */
  lazy val hook: Option[TableFormatHook] = TableFormats.load[TableFormatHook]("Delta Lake",
    "org.apache.spark.sql.delta.TransactionExecutionObserver",
    "org.apache.spark.sql.delta.vecruntime.VecRuntimeDelta$")(_.unsupported)

  def observeThisThread(): Unit = hook.foreach(_.observeThisThread())
}

/**
 * Apache Iceberg: the data files of its Spark writes written natively (see the shim's
 * `VecRuntimeIceberg`), on the lines whose jar holds its runtime's support.
 */
object IcebergWrites {
  lazy val hook: Option[TableFormatPlanHook] = TableFormats.load[TableFormatPlanHook]("Apache Iceberg",
    "org.apache.iceberg.spark.source.SparkWrite",
    "org.apache.iceberg.spark.source.VecRuntimeIceberg$")(_.unsupported)

  def rewrite(plan: SparkPlan, conf: SQLConf): SparkPlan = hook.fold(plan)(_.rewrite(plan, conf))
}
