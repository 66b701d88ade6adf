package io.vecruntime.spark

import scala.util.{Failure, Success, Try}
import scala.util.control.NonFatal

import org.apache.spark.internal.Logging

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

/** Delta Lake: its commands' data files written natively (see the shim's `VecRuntimeDelta`). */
object DeltaWrites extends Logging {
  private val DeltaClass = "org.apache.spark.sql.delta.TransactionExecutionObserver"
  private val HookObject = "org.apache.spark.sql.delta.vecruntime.VecRuntimeDelta$"

  /** The hook, when Delta is on the class path and this jar writes its release. */
  lazy val hook: Option[TableFormatHook] = {
    val loader = Option(Thread.currentThread.getContextClassLoader).getOrElse(getClass.getClassLoader)
    // Class loading fails with LinkageErrors too, which Try does not hold.
    def attempt[T](f: => T): Try[T] =
      try Success(f) catch { case e @ (NonFatal(_) | _: LinkageError) => Failure(e) }
    if (attempt(Class.forName(DeltaClass, false, loader)).isFailure) None
    else attempt(Class.forName(HookObject, true, loader).getField("MODULE$").get(null)) match {
      case Success(h: TableFormatHook) =>
        h.unsupported match {
          case None =>
            logInfo("vecruntime: Delta Lake writes their data files natively")
            Some(h)
          case Some(why) =>
            logWarning(s"vecruntime: Delta Lake keeps its writer: $why")
            None
        }
      case Success(other) =>
        logWarning(s"vecruntime: Delta Lake keeps its writer: unexpected hook $other")
        None
      case Failure(e) =>
        logWarning(s"vecruntime: Delta Lake keeps its writer: this jar holds no support for " +
          s"the Delta release on the class path ($e)")
        None
    }
  }

  def observeThisThread(): Unit = hook.foreach(_.observeThisThread())
}
